package markdown

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Reflow wraps styled text to width cells, breaking at spaces only and
// cutting a word only when it is wider than a whole line. A line that
// starts with an indent or a list mark ("• ", "1. ") continues under its
// text, not under the mark.
//
// Styles are closed at the end of every line and opened again at the
// start of the next: a terminal would otherwise carry the colour of a
// broken code span or bold phrase into the padding and the frame that the
// panels draw after the line.
func Reflow(s string, width int) string {
	if width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, reflowLine(l, width)...)
	}
	return strings.Join(out, "\n")
}

// hang is how far the continuation lines of l are indented: its leading
// spaces and list mark.
func hang(l string, width int) int {
	t := ansi.Strip(l)
	n := len(t) - len(strings.TrimLeft(t, " "))
	rest := t[n:]
	switch {
	case strings.HasPrefix(rest, "• "), strings.HasPrefix(rest, "- "), strings.HasPrefix(rest, "│ "):
		n += 2
	default:
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i > 0 && strings.HasPrefix(rest[i:], ". ") {
			n += i + 2
		}
	}
	if n > width/2 {
		return 0 // a hang that leaves no room would only make lines shorter
	}
	return n
}

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

func reflowLine(l string, width int) []string {
	if ansi.StringWidth(l) <= width {
		return []string{l}
	}
	w := &wrapper{width: width, indent: hang(l, width)}
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
