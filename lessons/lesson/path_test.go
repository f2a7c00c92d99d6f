package lesson

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// testFind resolves chapters 1 to 3 by number or by name, as the lessons
// package does, with its suggestion for a near name.
func testFind() func(string) (*Lesson, error) {
	chapters := map[string]*Lesson{}
	for i, name := range []string{"01-one", "02-two", "03-three"} {
		l := &Lesson{Number: i + 1, Title: name, File: "builtin/" + name + ".md"}
		chapters[fmt.Sprint(i+1)], chapters[name] = l, l
	}
	return func(s string) (*Lesson, error) {
		if l, ok := chapters[s]; ok {
			return l, nil
		}
		if strings.HasPrefix(s, "0") {
			return nil, fmt.Errorf("no lesson %q, did you mean %q?", s, "02-two")
		}
		return nil, fmt.Errorf("no lesson %q", s)
	}
}

const pathHead = "path: demo\ntitle: A demo\nsummary: Three chapters.\n"

func TestParsePath(t *testing.T) {
	src := "# a comment\n" + pathHead + "\n1  5m  first things\n03-three 10m\n2 1m\n"
	p, err := ParsePath("d.path", []byte(src), testFind())
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "demo" || p.Title != "A demo" || p.Summary != "Three chapters." || p.Minutes() != 16 || len(p.Stops) != 3 {
		t.Fatalf("%+v", p)
	}
	if s := p.Stops[0]; s.Line != 6 || s.Lesson.Number != 1 || s.Minutes != 5 || s.Note != "first things" {
		t.Fatalf("stop 1: %+v", s)
	}
	if s := p.Stops[1]; s.Lesson.Number != 3 || s.Note != "" {
		t.Fatalf("stop 2: %+v", s)
	}
	if p.Index(p.Stops[2].Lesson) != 2 || p.Index(&Lesson{File: "builtin/03-three.md"}) != 1 || p.Index(&Lesson{File: "x.md"}) != -1 {
		t.Fatal("Index finds a stop by its lesson's file")
	}
}

// Each mistake in a path file is an error at its line, with the name
// meant when a key or a chapter is near one.
func TestParsePathErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"title: T\nsummary: S\n1 5m\n", "d.path:1: path: path: is missing"},
		{"path: demo\ntitel: T\nsummary: S\n1 5m\n", `d.path:2: path: unknown key "titel", did you mean "title"?`},
		{"path: my demo\ntitle: T\nsummary: S\n1 5m\n", `d.path:1: path: the name is letters, digits and dashes`},
		{pathHead + "title: again\n1 5m\n", "d.path:4: path: title given twice (first at line 2)"},
		{pathHead + "1 5m\nsummary: late\n", `d.path:5: path: "summary": belongs to the header`},
		{pathHead + "1\n", `d.path:4: path: a chapter's line is CHAPTER MINUTES [what for], e.g. 7 10m, got "1"`},
		{pathHead + "1 5\n", `d.path:4: path: the time is whole minutes from 1 to 120, e.g. 10m, got "5"`},
		{pathHead + "1 0m\n", `d.path:4: path: the time is whole minutes`},
		{pathHead + "1 121m\n", `d.path:4: path: the time is whole minutes`},
		{pathHead + "1 -3m\n", `d.path:4: path: the time is whole minutes`},
		{pathHead + "9 5m\n", `d.path:4: path: no lesson "9"`},
		{pathHead + "02-tow 5m\n", `d.path:4: path: no lesson "02-tow", did you mean "02-two"?`},
		{pathHead + "1 5m\n01-one 5m\n", "d.path:5: path: chapter 1 is already at line 4"},
		{pathHead, "path: no chapters"},
		{pathHead + strings.Repeat("1 1m\n", 1) + strings.Repeat("x 1m\n", 200), "too many problems"},
	}
	for _, c := range cases {
		p, err := ParsePath("d.path", []byte(c.src), testFind())
		var errs Errors
		if p != nil || !errors.As(err, &errs) {
			t.Errorf("%q: got path %v, error %v; want %q", c.src, p != nil, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// FuzzParsePath: any bytes either load a path with stops on lines of the
// file, or give at most maxErrors+1 printable problems on its lines.
func FuzzParsePath(f *testing.F) {
	f.Add([]byte(pathHead + "1 5m first\n03-three 10m\n"))
	f.Add([]byte(pathHead + "1 5\n2 0m\n02-tow 1m\nsummary: x\n"))
	f.Add([]byte("path: \x1b[2J\ntitle: \"\nsummary: '\n\xff 999m\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := ParsePath("f.path", src, testFind())
		lines := strings.Count(string(src), "\n") + 1
		if err == nil {
			if p == nil || len(p.Stops) == 0 || p.Name == "" {
				t.Fatalf("a path without a name or stops loaded: %#v", p)
			}
			for _, s := range p.Stops {
				if s.Line < 1 || s.Line > lines || s.Lesson == nil || s.Minutes < 1 || s.Minutes > maxStopMinutes {
					t.Fatalf("bad stop %+v of %d lines", s, lines)
				}
			}
			return
		}
		var errs Errors
		if p != nil || !errors.As(err, &errs) || len(errs) == 0 || len(errs) > maxErrors+1 {
			t.Fatalf("path %v, %d errors, %T", p != nil, len(errs), err)
		}
		for _, e := range errs {
			if e.Line < 1 || e.Line > lines+1 {
				t.Fatalf("error at line %d of %d: %v", e.Line, lines, e)
			}
			checkPrintable(t, e.Error())
		}
	})
}
