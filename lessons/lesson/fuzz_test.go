package lesson

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParse feeds the lesson parser any bytes: it never panics, and it
// either loads a lesson or lists at most maxErrors+1 problems, each on a
// line of the file and printable on a terminal.
func FuzzParse(f *testing.F) {
	if src, err := os.ReadFile("../../assets/lessons/example.md"); err == nil {
		f.Add(src)
	}
	f.Add([]byte(head + "## S\n```eos\nproducer p1\nsend p1 orders-0 1\n```\n```expect\nproducers.p1.producer_id >= 0\n```\n"))
	f.Add([]byte(head + "## S\n```predict\n? Q\n- a => decision.outcome == append\n- b => decision.outcome == duplicate\n```\n```reveal\nrun\n```\n"))
	f.Add([]byte(head + "## S\n```goal\n- x => step >= 1\n```\n```hint\nh\n```\n```solution\nrun\n```\n"))
	f.Add([]byte(head + "## S\n```presenter\nmisconception: m\n  more\nask: q\nanswers: a\nanswer: b\n```\n```presenter\n```\n"))
	f.Add([]byte(head + "## S\n```expectt\nx\n```\n```eos extra\nrun\n```\n```\x1b\xff\n```\n"))
	f.Add([]byte("---\nchapter: 99999999999999999999\ntitle: \"\nsummary: '\npanels: [window, bytes]\n---\n## S\nfocus: window\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := Parse("f.md", src)
		lines := strings.Count(string(src), "\n") + 1
		if err == nil {
			if l == nil || len(l.Steps) == 0 {
				t.Fatalf("a lesson without steps loaded: %#v", l)
			}
			for _, st := range l.Steps {
				if st.Line < 1 || st.Line > lines {
					t.Fatalf("step at line %d of %d", st.Line, lines)
				}
			}
			return
		}
		var errs Errors
		if l != nil || !errors.As(err, &errs) || len(errs) == 0 || len(errs) > maxErrors+1 {
			t.Fatalf("lesson %v, %d errors, %T", l != nil, len(errs), err)
		}
		for _, e := range errs {
			if e.File != "f.md" || e.Line < 1 || e.Line > lines+1 {
				t.Fatalf("error at line %d of %d: %v", e.Line, lines, e)
			}
			checkPrintable(t, e.Error())
		}
	})
}

// FuzzParseExpect feeds the expectation parser any line: it never
// panics, a predicate it accepts has a known operator and a path of
// non-empty parts, and what it rejects it explains printably.
func FuzzParseExpect(f *testing.F) {
	for _, s := range []string{
		"partitions.orders-0.lso == 3", "decision.outcome == duplicate", `consumers.c1.values == ["p1-0", "p1-1"]`,
		`consumers.c1.values !contains "p1-2"`, "events.txn.marker >= 2", "anomalies.duplicate == 0",
		"partitions.orders-0.log.*.producer_epoch == [0, 0]", "consumers.contains.values contains x",
		"a.b == [1, 2", `a.b == "unterminated`, "producers..x == 1", "step = 1", "decision.path contains \x1b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpect(s)
		if err != nil {
			checkPrintable(t, err.Error())
			return
		}
		if !slices.Contains(ops, e.Op) || len(e.Path) == 0 || slices.Contains(e.Path, "") {
			t.Fatalf("%q parsed as %#v", s, e)
		}
	})
}

// checkPrintable fails unless msg is short, valid UTF-8 and free of
// control characters: safe to print on a terminal.
func checkPrintable(t *testing.T, msg string) {
	t.Helper()
	if len(msg) > 2000 {
		t.Fatalf("error of %d bytes: %.200q", len(msg), msg)
	}
	if !utf8.ValidString(msg) {
		t.Fatalf("error is not UTF-8: %q", msg)
	}
	for _, r := range msg {
		if !unicode.IsPrint(r) {
			t.Fatalf("error holds %U: %q", r, msg)
		}
	}
}
