package asciify

import (
	"testing"
	"unicode/utf8"
)

func TestFrameIsASCIIAndKeepsWidth(t *testing.T) {
	in := "╭─ ▶ window ─╮\n│✓ ok ✗ no ★ ▸ →│\n╰────────────╯\x1b[1mbold\x1b[0m é"
	out := Frame(in)
	for i := 0; i < len(out); i++ {
		if out[i] >= utf8.RuneSelf {
			t.Fatalf("non-ASCII byte %q at %d in %q", out[i], i, out)
		}
	}
	if utf8.RuneCountInString(in) != len(out) {
		t.Fatalf("width changed: %d runes in, %d bytes out", utf8.RuneCountInString(in), len(out))
	}
	want := "+- > window -+\n|v ok x no * > >|\n+------------+\x1b[1mbold\x1b[0m ?"
	if out != want {
		t.Fatalf("got  %q\nwant %q", out, want)
	}
}
