package box

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

func TestFitAndFrameAreExact(t *testing.T) {
	for _, c := range []struct {
		content string
		w, h    int
	}{{"", 5, 2}, {"short", 10, 3}, {"a line far too long for the box\nsecond\nthird\nfourth", 12, 2}, {"日本語の文字は幅が二つ", 7, 1}} {
		for name, out := range map[string]string{
			"fit":   Fit(c.content, c.w, c.h),
			"frame": Frame("title", c.content, c.w+2, c.h+2, lipgloss.NewStyle(), lipgloss.NewStyle()),
		} {
			w, h := c.w, c.h
			if name == "frame" {
				w, h = w+2, h+2
			}
			lines := strings.Split(out, "\n")
			if len(lines) != h {
				t.Fatalf("%s(%q, %d×%d): %d lines", name, c.content, w, h, len(lines))
			}
			for _, l := range lines {
				if ansi.StringWidth(l) != w {
					t.Fatalf("%s(%q, %d×%d): line %q is %d wide", name, c.content, w, h, l, ansi.StringWidth(l))
				}
			}
		}
	}
}

// Pack breaks between items, never inside one, and indents what follows.
func TestPackBreaksBetweenItems(t *testing.T) {
	got := Pack([]string{"orders-0", "leader b1", "epoch 0", "ISR [1 2 3]"}, " · ", 30, 2)
	want := []string{"orders-0 · leader b1 · epoch 0", "  ISR [1 2 3]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Pack([]string{"an item wider than the line", "b"}, " ", 10, 0); len(got) != 2 || got[0] != "an item wider than the line" {
		t.Errorf("a wide item stays whole on its own line: %q", got)
	}
}

// Reflow hangs continuation lines under the indent and keeps hyphenated
// words whole.
func TestReflowHangs(t *testing.T) {
	got := Reflow("  3    p2 id 0 e3 seq 0-0 committed to orders-0", 24, 7)
	want := []string{"  3    p2 id 0 e3 seq", "       0-0 committed to", "       orders-0"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
}
