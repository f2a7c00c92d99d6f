// Package markdown renders lesson narration with glamour and keeps the
// result per (text, width): rendering Markdown takes milliseconds, so it
// happens once when a step or the width changes, in Update, and never
// while drawing a frame.
package markdown

import (
	"strings"

	"github.com/charmbracelet/glamour"
	gansi "github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

type key struct {
	text  string
	width int
}

// Colours are the theme's colours the narration uses ("" for none): the
// text, headings and links, the shade behind inline code, rules.
type Colours struct {
	Text, Accent, Shade, Faint string
}

// Renderer renders and caches. Not safe for concurrent use; the app owns one.
type Renderer struct {
	profile termenv.Profile
	colours Colours
	cache   map[key]string
	tr      *glamour.TermRenderer
}

// New returns a renderer for a colour profile (the terminal's, or ASCII in
// tests) drawing with the theme's colours only: glamour's plain style with
// the palette's text, accent and shade put in.
func New(profile termenv.Profile, c Colours) *Renderer {
	return &Renderer{profile: profile, colours: c, cache: map[key]string{}}
}

// style is the narration's own glamour style: emphasis as italic, strong
// as bold, inline code in the accent colour on the theme's shade, headings
// bold in the accent. It starts from nothing rather than from glamour's
// ASCII style, which spells emphasis and code with the Markdown's own
// marks (**, *, `): a learner would read the source, not the text.
//
// Under the Ascii profile (NO_COLOR, tests) the lab draws no attributes at
// all, and neither does the narration: emphasis and code read as plain
// words, and none of them carries meaning the sentence does not.
func (r *Renderer) style() gansi.StyleConfig {
	col := func(c string) *string {
		if c == "" || r.profile == termenv.Ascii {
			return nil
		}
		return &c
	}
	yes := true
	zero, one, two := uint(0), uint(1), uint(2)
	bullet, dot := "• ", ". "
	return gansi.StyleConfig{
		Document:       gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Color: col(r.colours.Text)}, Margin: &zero},
		Paragraph:      gansi.StyleBlock{},
		BlockQuote:     gansi.StyleBlock{Indent: &one, IndentToken: strp("│ ")},
		List:           gansi.StyleList{LevelIndent: 2},
		Heading:        gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Color: col(r.colours.Accent), Bold: &yes}},
		Strong:         gansi.StylePrimitive{Bold: &yes},
		Emph:           gansi.StylePrimitive{Italic: &yes},
		Strikethrough:  gansi.StylePrimitive{CrossedOut: &yes},
		HorizontalRule: gansi.StylePrimitive{Color: col(r.colours.Faint), Format: "\n────────\n"},
		Item:           gansi.StylePrimitive{BlockPrefix: bullet},
		Enumeration:    gansi.StylePrimitive{BlockPrefix: dot},
		Task:           gansi.StyleTask{Ticked: "[✓] ", Unticked: "[ ] "},
		Link:           gansi.StylePrimitive{Color: col(r.colours.Accent), Underline: &yes},
		LinkText:       gansi.StylePrimitive{Color: col(r.colours.Accent), Bold: &yes},
		ImageText:      gansi.StylePrimitive{Format: "image: {{.text}}"},
		Code: gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{
			Color: col(r.colours.Accent), BackgroundColor: col(r.colours.Shade)}},
		CodeBlock: gansi.StyleCodeBlock{StyleBlock: gansi.StyleBlock{Margin: &two,
			StylePrimitive: gansi.StylePrimitive{Color: col(r.colours.Accent)}}},
		Table:                 gansi.StyleTable{CenterSeparator: strp("┼"), ColumnSeparator: strp("│"), RowSeparator: strp("─")},
		DefinitionDescription: gansi.StylePrimitive{BlockPrefix: "\n  "},
	}
}

func strp(s string) *string { return &s }

// Render returns md rendered to fit width cells, without the blank lines
// glamour puts around a document. A text glamour cannot render is shown
// as it is.
//
// Glamour renders without wrapping and the result is reflowed here, at
// spaces only: glamour v0.10's own word wrap, with the x/ansi version
// bubbles v1.0 needs, breaks lines early (a lone word on a line), and
// x/ansi's wrap breaks at hyphens too, which splits "orders-0" and
// "offsets 5-6" across lines.
func (r *Renderer) Render(md string, width int) string {
	if width < 10 || strings.TrimSpace(md) == "" {
		return strings.TrimSpace(md)
	}
	k := key{md, width}
	if s, ok := r.cache[k]; ok {
		return s
	}
	if r.tr == nil {
		tr, err := glamour.NewTermRenderer(glamour.WithStyles(r.style()), glamour.WithWordWrap(0), glamour.WithColorProfile(r.profile))
		if err != nil {
			return md
		}
		r.tr = tr
	}
	out, err := r.tr.Render(unwrap(md))
	if err != nil {
		out = md
	}
	if r.profile == termenv.Ascii {
		// glamour styles with termenv's zero profile, so bold and italic
		// survive the Ascii one; the rest of the lab draws none there.
		out = ansi.Strip(out)
	}
	out = Reflow(trimBlankLines(out), width)
	r.cache[k] = out
	return out
}

func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// isBlank reports whether a line holds only spaces and escape codes.
func isBlank(l string) bool {
	in := false
	for _, c := range l {
		switch {
		case c == '\x1b':
			in = true
		case in && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			in = false
		case !in && c != ' ':
			return false
		}
	}
	return true
}

// unwrap joins the lines of each plain paragraph. Lesson text is written
// with hard line breaks (script comments are), and glamour's word wrap
// breaks short lines at the source's line ends; a paragraph's soft breaks
// mean spaces in Markdown anyway. Lists, headings, quotes, tables, code
// and blank lines are left as they are.
func unwrap(md string) string {
	lines := strings.Split(md, "\n")
	out := make([]string, 0, len(lines))
	fenced := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			out = append(out, l)
			continue
		}
		n := len(out)
		if !fenced && n > 0 && plain(out[n-1]) && (plain(l) || lazyNumber(l)) {
			out[n-1] += " " + t
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// plain reports whether a line is ordinary paragraph text. A line that
// starts with emphasis ("*plain* producers", "**baseOffset** (8, …") is
// text; a list item needs a space after its mark, and a rule or a setext
// underline is made of its mark alone.
func plain(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
		return false
	}
	switch t[0] {
	case '#', '>', '|', '<':
		return false
	case '-', '*', '+', '_', '=':
		if len(t) == 1 || t[1] == ' ' || rule(t) {
			return false
		}
	case '`', '~': // a fence, not inline code ("`p1` pauses")
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			return false
		}
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return !(i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')'))
}

// lazyNumber reports whether l starts like an ordered list item other
// than "1." ("2. p2 was told…"): in CommonMark only a list starting at 1
// may interrupt a paragraph, so after paragraph text such a line is more
// of the paragraph (a sentence that began with a number at a line end).
func lazyNumber(l string) bool {
	t := strings.TrimSpace(l)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')') && t[:i] != "1"
}

// rule reports whether t is one character repeated (spaces aside): a
// thematic break ("---", "* * *") or a setext heading's underline ("===").
func rule(t string) bool {
	for i := 1; i < len(t); i++ {
		if t[i] != t[0] && t[i] != ' ' {
			return false
		}
	}
	return true
}
