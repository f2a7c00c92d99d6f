// Package markdown renders lesson narration with glamour and keeps the
// result per (text, width): rendering Markdown takes milliseconds, so it
// happens once when a step or the width changes, in Update, and never
// while drawing a frame.
package markdown

import (
	"strings"

	"github.com/charmbracelet/glamour"
	gansi "github.com/charmbracelet/glamour/ansi"
	gstyles "github.com/charmbracelet/glamour/styles"
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

// style is glamour's ASCII style coloured with the theme's colours.
func (r *Renderer) style() gansi.StyleConfig {
	cfg := gstyles.ASCIIStyleConfig
	col := func(c string) *string {
		if c == "" || r.profile == termenv.Ascii {
			return nil
		}
		return &c
	}
	cfg.Document.Color = col(r.colours.Text)
	cfg.Heading.Color = col(r.colours.Accent)
	cfg.Link.Color = col(r.colours.Accent)
	cfg.LinkText.Color = col(r.colours.Accent)
	cfg.HorizontalRule.Color = col(r.colours.Faint)
	if bg := col(r.colours.Shade); bg != nil {
		// Inline code as a shaded chip; without colour it keeps the
		// ASCII style's backquotes.
		cfg.Code.BackgroundColor = bg
		cfg.Code.Color = col(r.colours.Text)
		cfg.Code.Prefix, cfg.Code.Suffix = " ", " "
	}
	return cfg
}

// Render returns md rendered to fit width cells, without the blank lines
// glamour puts around a document. A text glamour cannot render is shown
// as it is.
//
// Glamour renders without wrapping and the result is wrapped here:
// glamour v0.10's own word wrap, with the x/ansi version bubbles v1.0
// needs, breaks lines early (a lone word on a line).
func (r *Renderer) Render(md string, width int) string {
	if width < 10 || strings.TrimSpace(md) == "" {
		return strings.TrimSpace(md)
	}
	k := key{md, width}
	if s, ok := r.cache[k]; ok {
		return s
	}
	if r.tr == nil {
		cfg := r.style()
		zero := uint(0)
		cfg.Document.Margin = &zero // the lesson screen draws its own margins
		tr, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(0), glamour.WithColorProfile(r.profile))
		if err != nil {
			return md
		}
		r.tr = tr
	}
	out, err := r.tr.Render(unwrap(md))
	if err != nil {
		out = md
	}
	out = ansi.Wrap(trimBlankLines(out), width, "")
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
		if !fenced && n > 0 && plain(l) && plain(out[n-1]) {
			out[n-1] += " " + t
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// plain reports whether a line is ordinary paragraph text.
func plain(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
		return false
	}
	switch t[0] {
	case '#', '>', '|':
		return false
	case '-', '*', '+': // a list item, not emphasis ("*word*")
		if len(t) == 1 || t[1] == ' ' || t[1] == t[0] {
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
