package themes

import (
	"errors"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParse feeds the theme parser any bytes: it never panics, and it
// either returns a theme with every role coloured or a theme Error with
// a line of the file and a message safe to print.
func FuzzParse(f *testing.F) {
	for _, name := range BuiltinNames() {
		if src, err := builtin.ReadFile("builtin/" + name + ".yaml"); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("inherits: dark\naccent: \"#ff0000\"\n"))
	f.Add([]byte("inherits: drak\nfields: {crc: \"1\"}\nproducers: []\n"))
	f.Add([]byte("text: [\n"))
	f.Add([]byte("a: &x [1]\nb: *x\n\x1b: \xff\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		th, err := Parse("f.yaml", src)
		if err != nil {
			var e *Error
			if th != nil || !errors.As(err, &e) || e.File != "f.yaml" || e.Line < 0 {
				t.Fatalf("theme %v, error %#v", th, err)
			}
			checkPrintable(t, err.Error())
			return
		}
		if len(th.Palette.Producers) == 0 {
			t.Fatalf("a theme without producer colours: %+v", th)
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
