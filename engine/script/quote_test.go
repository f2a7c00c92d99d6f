package script

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("a", 100)
	cases := []struct{ in, want string }{
		{"sned", `"sned"`},
		{"", `""`},
		{`a"b\c`, `"a\"b\\c"`},
		{"é ü", `"é ü"`},
		{"a\x1b[31mred", `"a\x1b[31mred"`},
		{"tab\there", `"tab\there"`},
		{"bad\xffbyte", `"bad\xffbyte"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{long, `"` + long[:MaxQuoted] + `"…`},
		{strings.Repeat("é", 61), `"` + strings.Repeat("é", 60) + `"…`},
		{strings.Repeat("é", 60), `"` + strings.Repeat("é", 60) + `"`},
	}
	for _, c := range cases {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"yaml: line 2: did not find expected key", 100, "yaml: line 2: did not find expected key"},
		{"mapping key \"" + strings.Repeat("k", 50) + "\" already defined", 20, `mapping key "kkkkkkk…`},
		{"bell\a and \xff", 100, `bell\a and \xff`},
	}
	for _, c := range cases {
		if got := Excerpt(c.in, c.n); got != c.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// What a script's errors echo of it: a bounded, printable excerpt,
// whatever was written — a 10 MB word, terminal escapes, broken UTF-8.
func TestErrorsEchoBoundedPrintableText(t *testing.T) {
	// The reported case is 10 MB; 1 MiB shows the rest as well, faster
	// under -race.
	huge, big := strings.Repeat("x", 10<<20), strings.Repeat("x", 1<<20)
	cases := []struct{ name, src, want string }{
		{"a 10 MB verb", huge, `f:1:1: unknown command "` + huge[:MaxQuoted] + `"…`},
		{"a 1 MiB argument", "send p1 orders-0 1 " + big, `f:1:20: send: unexpected word "` + big[:MaxQuoted] + `"…`},
		{"a 1 MiB number", "step " + strings.Repeat("9", 1<<20), `f:1:6: step: N must be at most 1000000 (a million events per command), got "` + strings.Repeat("9", MaxQuoted) + `"…`},
		{"a 1 MiB duration", "advance " + strings.Repeat("9", 1<<20), `f:1:9: advance: invalid duration "` + strings.Repeat("9", MaxQuoted) + `"…: missing unit after ` + strings.Repeat("9", MaxQuoted) + "…"},
		{"a terminal escape", "\x1b]0;pwned\x07", `f:1:1: unknown command "\x1b]0;pwned\a"`},
		{"invalid UTF-8", "s\xffnd p1", `f:1:1: unknown command "s\xffnd"`},
		{"a control character in a pair", "producer p1 plain transactional=\x01", `f:1:19: producer: transactional=\x01 conflicts with plain`},
		{"a control character escaped", `send p1 orders-0 1 value="a\` + "\x02" + `"`, `f:1:28: unknown escape \` + `\x02 in quoted string`},
		{"a quoted value", `send p1 orders-0 1 "` + big + `"`, `f:1:20: send: unexpected value "` + big[:MaxQuoted-1] + `…`},
	}
	for _, c := range cases {
		_, err := Parse("f", []byte(c.src))
		if err == nil {
			t.Errorf("%s: parses", c.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, c.want) {
			t.Errorf("%s:\n got %.300q\nwant %q...", c.name, msg, c.want)
		}
		checkPrintable(t, msg)
	}
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
		if r != '\n' && !unicode.IsPrint(r) {
			t.Fatalf("error holds %U: %q", r, msg)
		}
	}
}

// A block of a larger file parses with the file's line numbers, in its
// commands and in its errors.
func TestParseAt(t *testing.T) {
	cmds, err := ParseAt("l.md", 40, []byte("producer p1\n\nsend p1 orders-0 1"))
	if err != nil || len(cmds) != 2 || cmds[0].Position() != (Pos{40, 1}) || cmds[1].Position() != (Pos{42, 1}) {
		t.Fatalf("ParseAt = %v, %v", cmds, err)
	}
	_, err = ParseAt("l.md", 40, []byte("run\nsned p1"))
	if err == nil || err.Error() != `l.md:41:1: unknown command "sned", did you mean "send"?` {
		t.Fatalf("ParseAt error = %v", err)
	}
	// Only a file's first line may carry a BOM.
	if _, err := ParseAt("l.md", 7, []byte("\uFEFFrun")); err == nil {
		t.Fatal("a BOM inside a file was stripped")
	}
	if cmds, err := ParseAt("l.md", 0, []byte("run")); err != nil || cmds[0].Position().Line != 1 {
		t.Fatalf("line 0 is line 1: %v %v", cmds, err)
	}
}
