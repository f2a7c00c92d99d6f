// Package box lays text out in exact rectangles: fit content to a width
// and height, frame it with a titled border, join blocks side by side.
// Every panel's output passes through here, so a resize can never leave a
// line too long or a block too short (which is what corrupts a terminal
// screen). It is cheaper than lipgloss borders, which matters because the
// lab redraws many panels per frame.
package box

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Line fits one line to exactly w cells: cut with an ellipsis or padded.
func Line(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := ansi.StringWidth(s)
	switch {
	case n > w:
		return ansi.Truncate(s, w, "…")
	case n < w:
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// Fit makes s exactly w cells wide and h lines tall.
func Fit(s string, w, h int) string {
	if h <= 0 || w <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	var b strings.Builder
	b.Grow((w + 1) * h)
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		b.WriteString(Line(l, w))
	}
	return b.String()
}

// Frame draws content inside a rounded border of w×h cells with the
// title in the top edge. border styles the frame (focused or not).
func Frame(title, content string, w, h int, border, titleStyle lipgloss.Style) string {
	if w < 4 || h < 2 {
		return Fit("", w, h)
	}
	inner := w - 2
	t := ""
	if title != "" {
		t = ansi.Truncate(" "+title+" ", inner-1, "…")
	}
	fill := inner - 1 - ansi.StringWidth(t)
	var b strings.Builder
	b.WriteString(border.Render("╭─") + titleStyle.Render(t) + border.Render(strings.Repeat("─", max(fill, 0))+"╮"))
	side := border.Render("│")
	body := strings.Split(Fit(content, inner, h-2), "\n")
	for _, l := range body {
		if h-2 <= 0 {
			break
		}
		b.WriteString("\n" + side + l + side)
	}
	b.WriteString("\n" + border.Render("╰"+strings.Repeat("─", inner)+"╯"))
	return b.String()
}

// Join puts blocks side by side. Each block must already be exactly as
// tall as the first and of a fixed width (Fit or Frame output).
func Join(blocks ...string) string {
	if len(blocks) == 0 {
		return ""
	}
	cols := make([][]string, len(blocks))
	for i, bl := range blocks {
		cols[i] = strings.Split(bl, "\n")
	}
	var b strings.Builder
	for row := range cols[0] {
		if row > 0 {
			b.WriteByte('\n')
		}
		for _, c := range cols {
			if row < len(c) {
				b.WriteString(c[row])
			}
		}
	}
	return b.String()
}

// Stack puts blocks under one another.
func Stack(blocks ...string) string {
	var nonEmpty []string
	for _, b := range blocks {
		if b != "" {
			nonEmpty = append(nonEmpty, b)
		}
	}
	return strings.Join(nonEmpty, "\n")
}

// Wrap word-wraps plain or styled text to w cells.
func Wrap(s string, w int) string {
	if w <= 0 {
		return s
	}
	return ansi.Wrap(s, w, "")
}

// Pack joins items with sep, starting a new line (indented by indent
// cells) when the next item would not fit in w; an item is never split,
// so a line holds at least one item even when it is too wide. Panels use
// it for lines made of facts ("orders-0 · leader b1 · epoch 0 · ISR
// [1 2 3]"), which read better broken between facts than cut.
func Pack(items []string, sep string, w, indent int) []string {
	var out []string
	var cur strings.Builder
	n := 0
	sw := ansi.StringWidth(sep)
	for _, it := range items {
		iw := ansi.StringWidth(it)
		switch {
		case n == 0:
		case n+sw+iw > w:
			out = append(out, cur.String())
			cur.Reset()
			cur.WriteString(strings.Repeat(" ", indent))
			n = indent
		default:
			cur.WriteString(sep)
			n += sw
		}
		cur.WriteString(it)
		n += iw
	}
	return append(out, cur.String())
}
