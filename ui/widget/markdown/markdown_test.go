package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

func TestUnwrapJoinsParagraphsOnly(t *testing.T) {
	in := "A paragraph written\nwith hard breaks.\n\n- a list\n- of items\n\n```eos\nsend p1\nrun\n```\n## Heading\nText."
	want := "A paragraph written with hard breaks.\n\n- a list\n- of items\n\n```eos\nsend p1\nrun\n```\n## Heading\nText."
	if got := unwrap(in); got != want {
		t.Fatalf("got\n%s", got)
	}
}

// Lines fit the width (glamour's own wrap left lone words on lines) and a
// second render of the same text and width is the cached one.
func TestRenderFitsAndCaches(t *testing.T) {
	r := New(termenv.Ascii, Colours{})
	md := "The leader appends the batch and answers.\nWe arrange for that answer to be lost on its way back, so the producer retries."
	out := r.Render(md, 30)
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > 30 {
			t.Fatalf("line %q is wider than 30", l)
		}
		if f := strings.Fields(l); i < len(lines)-1 && len(f) == 1 && len(l) < 15 {
			t.Fatalf("a lone short word on a line: %q in\n%s", l, out)
		}
	}
	if len(r.cache) != 1 || r.Render(md, 30) != out || len(r.cache) != 1 {
		t.Fatal("the second render should come from the cache")
	}
}

// A paragraph line that starts with inline code or emphasis is still part
// of its paragraph; fences and list items are not.
func TestUnwrapJoinsLinesStartingWithInlineCode(t *testing.T) {
	got := unwrap("`p1` freezes: it sends\n`nothing` and *hears*\nnothing.\n\n- item\n- item\n```\ncode\n```")
	want := "`p1` freezes: it sends `nothing` and *hears* nothing.\n\n- item\n- item\n```\ncode\n```"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
