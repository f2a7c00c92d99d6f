package box

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrapper builds the lines of one reflowed line.
type wrapper struct {
	width, indent int
	lines         []string
	cur           strings.Builder
	curW          int
	active        []string // the SGR sequences in force since the last reset
	gap           strings.Builder
	gapW          int // the spaces (and escapes between them) before the next word
}

// Reflow wraps one line of styled text to width cells, breaking at spaces
// only (never at hyphens: "orders-0" and "offsets 5-6" stay whole) and
// cutting a word only when it is wider than a whole line. Lines after the
// first start with indent spaces, so a wrapped item hangs under its text.
//
// Styles are closed at the end of every line and opened again at the
// start of the next: a terminal would otherwise carry the colour of a
// broken code span or bold phrase into the padding and the frame drawn
// after the line.
func Reflow(l string, width, indent int) []string {
	if width <= 0 || ansi.StringWidth(l) <= width {
		return []string{l}
	}
	if indent > width/2 {
		indent = 0 // a hang that leaves no room would only make lines shorter
	}
	w := &wrapper{width: width, indent: indent}
	var word strings.Builder
	wordW := 0
	state := byte(0)
	for len(l) > 0 {
		seq, sw, n, next := ansi.DecodeSequence(l, state, nil)
		state, l = next, l[n:]
		switch {
		case seq == " ":
			w.word(word.String(), wordW)
			word.Reset()
			wordW = 0
			w.gap.WriteString(seq)
			w.gapW++
		case sw == 0 && wordW == 0:
			w.gap.WriteString(seq) // an escape between words
		default:
			if wordW+sw > width-w.indent && wordW > 0 {
				// A word wider than a line: cut it where the line ends.
				w.word(word.String(), wordW)
				word.Reset()
				wordW = 0
			}
			word.WriteString(seq)
			wordW += sw
		}
	}
	w.word(word.String(), wordW)
	w.flushGap(true)
	w.lines = append(w.lines, w.cur.String())
	return w.lines
}

// word places one word on the current line, or on a new one when it does
// not fit after the spaces before it.
func (w *wrapper) word(s string, sw int) {
	if sw == 0 {
		return
	}
	if w.curW > 0 && w.curW+w.gapW+sw > w.width {
		w.flushGap(false)
		w.breakLine()
	} else {
		w.flushGap(true)
	}
	w.write(s)
	w.curW += sw
}

// flushGap writes the pending gap: its spaces too when keep is set, or
// only its escapes (the spaces at a line break are dropped).
func (w *wrapper) flushGap(keep bool) {
	g := w.gap.String()
	w.gap.Reset()
	if keep {
		w.write(g)
		w.curW += w.gapW
	} else {
		w.write(strings.ReplaceAll(g, " ", ""))
	}
	w.gapW = 0
}

// write appends s to the current line, keeping track of the styles in force.
func (w *wrapper) write(s string) {
	w.cur.WriteString(s)
	state := byte(0)
	for len(s) > 0 {
		seq, _, n, next := ansi.DecodeSequence(s, state, nil)
		state, s = next, s[n:]
		if !strings.HasPrefix(seq, "\x1b[") || !strings.HasSuffix(seq, "m") {
			continue
		}
		if seq == "\x1b[0m" || seq == "\x1b[m" {
			w.active = w.active[:0]
		} else {
			w.active = append(w.active, seq)
		}
	}
}

// breakLine ends the current line (closing its styles) and starts the next
// at the hanging indent with the same styles open.
func (w *wrapper) breakLine() {
	if len(w.active) > 0 {
		w.cur.WriteString("\x1b[0m")
	}
	w.lines = append(w.lines, w.cur.String())
	w.cur.Reset()
	w.cur.WriteString(strings.Repeat(" ", w.indent))
	w.curW = w.indent
	for _, a := range w.active {
		w.cur.WriteString(a)
	}
}
