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
	want := "+- > window -+\n|v ok x no ^ > >|\n+------------+\x1b[1mbold\x1b[0m ?"
	if out != want {
		t.Fatalf("got  %q\nwant %q", out, want)
	}
}

// Under --ascii, the marks that carry different meanings stay different:
// a byte the leader changed (the grid's own '*'), the leader (★), a
// control marker (◆), a separator (• in the help line, · between facts),
// a client in a transaction (●) and a queued batch or open partition (○),
// an up arrow (↑) aside. Before, ★ ◆ • and ● all became '*'.
func TestDistinctMarksStayDistinct(t *testing.T) {
	marks := map[string]string{"changed byte": "*", "leader": "★", "control marker": "◆", "separator": "•", "in a transaction": "●", "queued": "○"}
	seen := map[string]string{}
	for meaning, glyph := range marks {
		b := Frame(glyph)
		if other, ok := seen[b]; ok {
			t.Errorf("%s (%s) and %s both draw as %q", meaning, glyph, other, b)
		}
		seen[b] = meaning
	}
	if Frame("·") != Frame("•") {
		t.Errorf("the two separators should read alike: %q %q", Frame("·"), Frame("•"))
	}
}
