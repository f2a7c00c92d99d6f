// Package screenshot turns a rendered terminal frame (text with ANSI SGR
// escape codes, as a Bubble Tea View returns it) into an SVG image: one
// <text> per line, a <tspan> per run of equally styled cells placed at its
// column (each character at its own x, so that no font can break the
// grid), and a <rect> behind every run with a background colour. It needs
// no terminal, browser or font: the README's screenshots are made by `go
// test` alone (see docs/screenshots.md).
//
// Understood: SGR 0 (reset), 1 (bold), 2 (faint), 3 (italic), 4
// (underline), 7 (reverse), 9 (strike) and their resets (22-29), basic
// colours 30-37 / 40-47 / 90-97 / 100-107, 39 / 49 (default), 256-colour
// 38;5;n / 48;5;n and true colour 38;2;r;g;b / 48;2;r;g;b. Other escape
// sequences (cursor moves, OSC) are skipped.
package screenshot

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Options are the image's geometry and default colours. Zero values take
// the defaults below.
type Options struct {
	CharWidth  float64 // width of a cell in px (8.4)
	LineHeight float64 // height of a line in px (17)
	FontSize   float64 // px (14)
	Padding    float64 // px around the frame (12)
	FontFamily string  // a monospace stack ending in "monospace"
	Background string  // the terminal's background (a dark #1e1e2e)
	Foreground string  // text without a colour of its own (#d0d0d0)
	Title      string  // the image's accessible title (<title>), optional
}

func (o *Options) defaults() {
	if o.CharWidth <= 0 {
		o.CharWidth = 8.4
	}
	if o.LineHeight <= 0 {
		o.LineHeight = 17
	}
	if o.FontSize <= 0 {
		o.FontSize = 14
	}
	if o.Padding < 0 {
		o.Padding = 0
	} else if o.Padding == 0 {
		o.Padding = 12
	}
	if o.FontFamily == "" {
		o.FontFamily = "'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', ui-monospace, SFMono-Regular, monospace"
	}
	if o.Background == "" {
		o.Background = "#1e1e2e"
	}
	if o.Foreground == "" {
		o.Foreground = "#d0d0d0"
	}
}

// style is the SGR state of a cell. Colours are "#rrggbb", "" for the
// default.
type style struct {
	fg, bg                                          string
	bold, faint, italic, underline, reverse, strike bool
}

// run is a stretch of cells on one line with one style.
type run struct {
	col, width int
	text       string
	cols       []int // the column of each rune of text
	st         style
}

// SVG renders frame (lines separated by "\n") as an SVG document. The
// image is as wide as the widest line and as tall as the frame.
func SVG(frame string, o Options) string {
	o.defaults()
	lines := strings.Split(strings.TrimSuffix(frame, "\n"), "\n")
	var st style
	rows := make([][]run, len(lines))
	cols := 0
	for i, l := range lines {
		rows[i], st = parseLine(l, st)
		if n := len(rows[i]); n > 0 {
			last := rows[i][n-1]
			cols = max(cols, last.col+last.width)
		}
	}
	width := 2*o.Padding + float64(cols)*o.CharWidth
	height := 2*o.Padding + float64(len(lines))*o.LineHeight

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" font-family="%s" font-size="%s" xml:space="preserve">`+"\n",
		num(width), num(height), num(width), num(height), attr(o.FontFamily), num(o.FontSize))
	if o.Title != "" {
		fmt.Fprintf(&b, "<title>%s</title>\n", text(o.Title))
	}
	fmt.Fprintf(&b, `<rect width="%s" height="%s" rx="6" fill="%s"/>`+"\n", num(width), num(height), attr(o.Background))

	// Backgrounds first, so that text is drawn over them.
	b.WriteString("<g>\n")
	for i, rs := range rows {
		for _, r := range rs {
			_, bg := colours(r.st, o)
			if bg == "" {
				continue
			}
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n",
				num(o.Padding+float64(r.col)*o.CharWidth), num(o.Padding+float64(i)*o.LineHeight),
				num(float64(r.width)*o.CharWidth), num(o.LineHeight), attr(bg))
		}
	}
	b.WriteString("</g>\n")

	// The baseline sits about four fifths down the line.
	base := math.Round(o.LineHeight*0.78*100) / 100
	fmt.Fprintf(&b, `<g fill="%s">`+"\n", attr(o.Foreground))
	for i, rs := range rows {
		var spans strings.Builder
		for _, r := range rs {
			if strings.TrimSpace(r.text) == "" && !r.st.underline && !r.st.strike {
				continue // the background rect (if any) is all a blank run needs
			}
			fg, _ := colours(r.st, o)
			// Every character is placed at its own column, so the grid
			// holds whatever font the viewer falls back to (a monospace
			// font's advance is rarely exactly CharWidth, and box drawing
			// often comes from another font).
			xs := make([]string, len(r.cols))
			for j, c := range r.cols {
				xs[j] = num(o.Padding + float64(c)*o.CharWidth)
			}
			spans.WriteString(`<tspan x="` + strings.Join(xs, " ") + `"`)
			if fg != "" {
				spans.WriteString(` fill="` + attr(fg) + `"`)
			}
			if r.st.bold {
				spans.WriteString(` font-weight="bold"`)
			}
			if r.st.italic {
				spans.WriteString(` font-style="italic"`)
			}
			if r.st.faint {
				spans.WriteString(` opacity="0.6"`)
			}
			switch {
			case r.st.underline && r.st.strike:
				spans.WriteString(` text-decoration="underline line-through"`)
			case r.st.underline:
				spans.WriteString(` text-decoration="underline"`)
			case r.st.strike:
				spans.WriteString(` text-decoration="line-through"`)
			}
			spans.WriteString(">" + text(r.text) + "</tspan>")
		}
		if spans.Len() == 0 {
			continue
		}
		fmt.Fprintf(&b, `<text y="%s">%s</text>`+"\n", num(o.Padding+float64(i)*o.LineHeight+base), spans.String())
	}
	b.WriteString("</g>\n</svg>\n")
	return b.String()
}

// colours are a run's text and background colours after reverse video;
// "" means the default (inherited) text colour or no background.
func colours(st style, o Options) (fg, bg string) {
	fg, bg = st.fg, st.bg
	if st.reverse {
		fg, bg = bg, fg
		if fg == "" {
			fg = o.Background
		}
		if bg == "" {
			bg = o.Foreground
		}
	}
	return fg, bg
}

// parseLine splits one line into styled runs, starting from style st (SGR
// state carries over line ends, as in a terminal), and returns the state
// at the end of the line.
func parseLine(l string, st style) ([]run, style) {
	var out []run
	col := 0
	add := func(s string, w int) {
		cst := st
		if boxDrawing(s) {
			// Terminals draw box drawing themselves, bold or not; fonts
			// often lack bold corners and fall back to a wider glyph.
			cst.bold = false
		}
		n := len(out)
		if n == 0 || out[n-1].st != cst || out[n-1].col+out[n-1].width != col {
			out = append(out, run{col: col, st: cst})
			n++
		}
		r := &out[n-1]
		r.text += s
		r.width += w
		for range s { // a grapheme of several runes: all at its column
			r.cols = append(r.cols, col)
		}
		col += w
	}
	for i := 0; i < len(l); {
		c := l[i]
		switch {
		case c == 0x1b:
			n, params, final := escape(l[i:])
			if final == 'm' {
				st = apply(st, params)
			}
			i += n
		case c < 0x20 || c == 0x7f:
			if c == '\t' {
				for n := 8 - col%8; n > 0; n-- {
					add(" ", 1)
				}
			}
			i++ // other control characters have no cell
		default:
			g, w := ansi.FirstGraphemeCluster(l[i:], ansi.GraphemeWidth)
			if g == "" {
				g = l[i : i+1]
			}
			add(g, w)
			i += len(g)
		}
	}
	return out, st
}

// boxDrawing reports whether g is a box-drawing character (U+2500-U+257F).
func boxDrawing(g string) bool {
	r, _ := utf8.DecodeRuneInString(g)
	return r >= 0x2500 && r <= 0x257f && len(g) == utf8.RuneLen(r)
}

// escape measures the escape sequence at the start of s: its length, its
// parameters and its final byte (0 for anything but a CSI sequence).
func escape(s string) (n int, params string, final byte) {
	if len(s) < 2 {
		return len(s), "", 0
	}
	switch s[1] {
	case '[': // CSI: parameters and intermediates, then a final byte 0x40-0x7e
		for j := 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1, s[2:j], s[j]
			}
		}
		return len(s), "", 0
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to BEL or ST
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1, "", 0
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2, "", 0
			}
		}
		return len(s), "", 0
	}
	return 2, "", 0 // a two-byte escape (ESC 7, ESC =, …)
}

// apply applies SGR parameters to st.
func apply(st style, params string) style {
	if params == "" {
		return style{}
	}
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	atoi := func(i int) int {
		if i >= len(ps) {
			return -1
		}
		n, err := strconv.Atoi(ps[i])
		if err != nil {
			return -1
		}
		return n
	}
	for i := 0; i < len(ps); i++ {
		p := atoi(i)
		switch {
		case p == 0:
			st = style{}
		case p == 1:
			st.bold = true
		case p == 2:
			st.faint = true
		case p == 3:
			st.italic = true
		case p == 4:
			st.underline = true
		case p == 7:
			st.reverse = true
		case p == 9:
			st.strike = true
		case p == 21 || p == 24:
			st.underline = false
		case p == 22:
			st.bold, st.faint = false, false
		case p == 23:
			st.italic = false
		case p == 27:
			st.reverse = false
		case p == 29:
			st.strike = false
		case p >= 30 && p <= 37:
			st.fg = palette256(p - 30)
		case p >= 90 && p <= 97:
			st.fg = palette256(p - 90 + 8)
		case p >= 40 && p <= 47:
			st.bg = palette256(p - 40)
		case p >= 100 && p <= 107:
			st.bg = palette256(p - 100 + 8)
		case p == 39:
			st.fg = ""
		case p == 49:
			st.bg = ""
		case p == 38 || p == 48 || p == 58:
			var c string
			switch atoi(i + 1) {
			case 5:
				if n := atoi(i + 2); n >= 0 && n <= 255 {
					c = palette256(n)
				}
				i += 2
			case 2:
				r, g, b := atoi(i+2), atoi(i+3), atoi(i+4)
				if r >= 0 && g >= 0 && b >= 0 {
					c = fmt.Sprintf("#%02x%02x%02x", min(r, 255), min(g, 255), min(b, 255))
				}
				i += 4
			}
			switch p {
			case 38:
				st.fg = c
			case 48:
				st.bg = c
			} // 58, the underline colour, is not drawn
		}
	}
	return st
}

// ansi16 are the 16 basic colours (xterm's defaults).
var ansi16 = [16]string{
	"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
	"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
}

// palette256 is colour n of the xterm 256-colour palette.
func palette256(n int) string {
	switch {
	case n < 16:
		return ansi16[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	default:
		v := 8 + 10*(n-232)
		return fmt.Sprintf("#%02x%02x%02x", v, v, v)
	}
}

// num formats a length in px with at most two decimals.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// text escapes character data; characters XML 1.0 forbids are dropped.
func text(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0xfffe, r == 0xffff:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// attr escapes an attribute value (always written in double quotes).
func attr(s string) string {
	return strings.ReplaceAll(text(s), `"`, "&quot;")
}
