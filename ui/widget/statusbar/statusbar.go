// Package statusbar draws the one-line status bar: where you are on the
// left, what just happened in the middle, and what reproduces the screen
// (the seed) on the right.
package statusbar

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/ui/styles"
)

// Tone colours the middle segment: a plain report, a warning (a fork, a
// fault about to be applied) or an error.
type Tone uint8

// Tones of the middle segment.
const (
	Plain Tone = iota
	Warn
	Bad
)

// Render draws plain-text segments in w cells; the middle is cut first
// when space is short, then the left.
func Render(st *styles.Styles, w int, left, middle, right string, tone Tone) string {
	if w <= 0 {
		return ""
	}
	left, right = " "+left+" ", " "+right+" "
	lw, rw := ansi.StringWidth(left), ansi.StringWidth(right)
	if lw+rw > w {
		left = ansi.Truncate(left, max(w-rw, 0), "…")
		lw = ansi.StringWidth(left)
	}
	room := w - lw - rw - 1
	if room > 1 && middle != "" {
		middle = " " + ansi.Truncate(middle, room-1, "…")
	} else {
		middle = ""
	}
	gap := max(w-lw-ansi.StringWidth(middle)-rw, 0)
	mid := st.StatusBar
	switch tone {
	case Warn:
		mid = mid.Foreground(st.Palette().Warn).Bold(true)
	case Bad:
		mid = mid.Foreground(st.Palette().Bad).Bold(true)
	}
	out := st.StatusAccent.Render(left) + mid.Render(middle) + st.StatusBar.Render(strings.Repeat(" ", gap)) + st.StatusBar.Render(right)
	return ansi.Truncate(out, w, "")
}
