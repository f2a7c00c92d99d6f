// Package styles turns a semantic palette into the lipgloss styles the lab
// draws with. Colours are named for what they mean (a header field, a
// producer, an append or a duplicate, the high watermark), never for the
// widget that happens to use them, so a theme only has to fill a Palette.
//
// Styles are built from an injected *lipgloss.Renderer, so the colour
// profile is the terminal's (or a test's ASCII profile), never a global.
// Colour is never the only carrier of meaning: every role used for a
// verdict has a glyph or a word next to it wherever it is drawn.
package styles

import (
	"github.com/charmbracelet/lipgloss"
)

// Palette is a theme's colours by role. Values are lipgloss colours
// ("#rrggbb" or an ANSI number); a later theme loader fills this struct.
type Palette struct {
	Text, Muted, Faint, Accent, Border, BorderFocus lipgloss.Color
	Good, Warn, Bad                                 lipgloss.Color // append / duplicate / reject (and ok / at risk / broken)
	HighWatermark, LastStable                       lipgloss.Color
	Lost, Fenced                                    lipgloss.Color
	CRCShade, Changed, Cursor                       lipgloss.Color // backgrounds in the byte grid
	Records                                         lipgloss.Color // record bytes after the 61-byte header
	Fields                                          [13]lipgloss.Color
	Producers                                       []lipgloss.Color // cycled by producer order
	StatusBg, StatusFg                              lipgloss.Color
}

// DefaultPalette is readable on dark and light backgrounds alike: no
// adaptive colours, because asking the terminal for its background while
// the program reads keys would race with Bubble Tea's input.
func DefaultPalette() Palette {
	return Palette{
		Text: "252", Muted: "245", Faint: "240", Accent: "39", Border: "240", BorderFocus: "39",
		Good: "42", Warn: "214", Bad: "203",
		HighWatermark: "42", LastStable: "141", Lost: "203", Fenced: "166",
		CRCShade: "236", Changed: "220", Cursor: "39", Records: "246",
		Fields: [13]lipgloss.Color{
			"75",  // baseOffset
			"110", // batchLength
			"141", // partitionLeaderEpoch
			"244", // magic
			"203", // crc
			"214", // attributes
			"180", // lastOffsetDelta
			"108", // baseTimestamp
			"72",  // maxTimestamp
			"45",  // producerId
			"177", // producerEpoch
			"220", // baseSequence
			"150", // recordsCount
		},
		Producers: []lipgloss.Color{"45", "213", "149", "215", "111", "181"},
		StatusBg:  "236", StatusFg: "252",
	}
}

// Styles are the lab's styles by role.
type Styles struct {
	r *lipgloss.Renderer
	p Palette

	Text, Muted, Faint, Bold, Accent, Title lipgloss.Style
	Good, Warn, Bad                         lipgloss.Style
	HighWatermark, LastStable               lipgloss.Style
	Lost, Fenced                            lipgloss.Style
	Key, KeyDesc                            lipgloss.Style

	Border, BorderFocus     lipgloss.Style // frame lines (box.Frame draws the shape)
	TabActive, TabInactive  lipgloss.Style
	StatusBar, StatusAccent lipgloss.Style
	Selected                lipgloss.Style // the selected line of a list or the timeline

	Fields              [13]lipgloss.Style
	FieldsCRC           [13]lipgloss.Style // the same, shaded: inside CRC coverage
	Records, RecordsCRC lipgloss.Style
	Changed, Cursor     lipgloss.Style // layered on a byte: changed since the last step, under the cursor
	producers           []lipgloss.Style
}

// New builds the styles for renderer r from palette p.
func New(r *lipgloss.Renderer, p Palette) *Styles {
	fg := func(c lipgloss.Color) lipgloss.Style { return r.NewStyle().Foreground(c) }
	s := &Styles{r: r, p: p,
		Text: fg(p.Text), Muted: fg(p.Muted), Faint: fg(p.Faint), Bold: r.NewStyle().Bold(true),
		Accent: fg(p.Accent), Title: fg(p.Accent).Bold(true),
		Good: fg(p.Good), Warn: fg(p.Warn), Bad: fg(p.Bad).Bold(true),
		HighWatermark: fg(p.HighWatermark), LastStable: fg(p.LastStable),
		Lost: fg(p.Lost), Fenced: fg(p.Fenced),
		Key: fg(p.Accent).Bold(true), KeyDesc: fg(p.Muted),
		Border:       fg(p.Border),
		BorderFocus:  fg(p.BorderFocus).Bold(true),
		TabActive:    fg(p.Accent).Bold(true).Underline(true),
		TabInactive:  fg(p.Muted),
		StatusBar:    r.NewStyle().Foreground(p.StatusFg).Background(p.StatusBg),
		StatusAccent: r.NewStyle().Foreground(p.Accent).Background(p.StatusBg).Bold(true),
		Selected:     r.NewStyle().Reverse(true),
		Records:      fg(p.Records),
		RecordsCRC:   fg(p.Records).Background(p.CRCShade),
		Changed:      changed(r, p),
		Cursor:       r.NewStyle().Reverse(true).Bold(true),
	}
	for i, c := range p.Fields {
		s.Fields[i] = fg(c)
		s.FieldsCRC[i] = fg(c).Background(p.CRCShade)
	}
	for _, c := range p.Producers {
		s.producers = append(s.producers, fg(c))
	}
	if len(s.producers) == 0 {
		s.producers = []lipgloss.Style{s.Text}
	}
	return s
}

// changed marks a byte the leader rewrote: dark on the theme's highlight,
// or reversed when the theme has no colour for it (mono).
func changed(r *lipgloss.Renderer, p Palette) lipgloss.Style {
	if p.Changed == "" {
		return r.NewStyle().Reverse(true).Bold(true)
	}
	return r.NewStyle().Foreground(lipgloss.Color("0")).Background(p.Changed).Bold(true)
}

// Renderer is the renderer the styles were built for, for widgets that
// build their own styles (text inputs, lists).
func (s *Styles) Renderer() *lipgloss.Renderer { return s.r }

// Palette is the palette the styles were built from.
func (s *Styles) Palette() Palette { return s.p }

// Producer is the colour of the i-th producer (cycled).
func (s *Styles) Producer(i int) lipgloss.Style {
	if i < 0 {
		return s.Muted
	}
	return s.producers[i%len(s.producers)]
}

// Outcome styles a broker verdict: append, duplicate or reject.
func (s *Styles) Outcome(outcome string) lipgloss.Style {
	switch outcome {
	case "append":
		return s.Good
	case "duplicate":
		return s.Warn
	}
	return s.Bad
}
