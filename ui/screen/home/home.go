// Package home is the first screen: the logo, where to go (continue where
// you left off, the chapters, the sandbox, a segment file to inspect) and
// how far the learner has come.
package home

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// Choice is a menu entry.
type Choice uint8

// The menu, top to bottom.
const (
	Continue Choice = iota
	Chapters
	Sandbox
	Inspect
	Quit
)

// ChoseMsg reports the entry the learner opened.
type ChoseMsg struct{ Choice Choice }

// Progress is what the home screen says about the learner's way so far.
type Progress struct {
	// Done of Total chapters of the curriculum are finished; Examples is
	// how many example scripts are listed apart from them.
	Done, Total, Examples int
	// Resume describes where Continue leads ("" disables it), e.g.
	// "Chapter 1 · The worked example, step 3", or "next: Chapter 5 ·
	// Producer ids" once the chapter left is finished.
	Resume string
	// Score is how the predictions of that chapter went, e.g.
	// "predictions 2/3 right" ("" when none was answered).
	Score string
}

// Model is the home screen.
type Model struct {
	st       *styles.Styles
	keys     keymap.KeyMap
	logo     string
	w, h     int
	cursor   Choice
	progress Progress
}

// New returns the home screen with a logo (plain text, drawn in the accent colour).
func New(st *styles.Styles, keys keymap.KeyMap, logo string) Model {
	return Model{st: st, keys: keys, logo: strings.TrimRight(logo, "\n"), cursor: Chapters}
}

// SetSize sets the screen size.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// SetProgress updates the progress line and the Continue entry.
func (m *Model) SetProgress(p Progress) {
	m.progress = p
	if p.Resume != "" && m.cursor == Chapters {
		m.cursor = Continue
	}
	if p.Resume == "" && m.cursor == Continue {
		m.cursor = Chapters
	}
}

func (m Model) enabled(c Choice) bool { return c != Continue || m.progress.Resume != "" }

// Update moves through the menu; Select opens an entry.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil
	}
	switch {
	case key.Matches(k, m.keys.Up):
		for c := m.cursor; c > Continue; {
			c--
			if m.enabled(c) {
				m.cursor = c
				break
			}
		}
	case key.Matches(k, m.keys.Down):
		m.cursor = min(m.cursor+1, Quit)
	case key.Matches(k, m.keys.Select):
		c := m.cursor
		return m, func() tea.Msg { return ChoseMsg{c} }
	}
	return m, nil
}

// Keys lists the screen's keys for the help.
func (m Model) Keys() []key.Binding {
	return []key.Binding{m.keys.Up, m.keys.Down, m.keys.Select}
}

func (m Model) label(c Choice) (string, string) {
	switch c {
	case Continue:
		if m.progress.Resume == "" {
			return "Continue", "nothing to continue yet"
		}
		if m.progress.Score != "" {
			return "Continue", m.progress.Resume + " · " + m.progress.Score
		}
		return "Continue", m.progress.Resume
	case Chapters:
		note := fmt.Sprintf("%d of %d done", m.progress.Done, m.progress.Total)
		switch n := m.progress.Examples; {
		case n == 1:
			note += " · 1 example script"
		case n > 1:
			note += fmt.Sprintf(" · %d example scripts", n)
		}
		return "Chapters", note
	case Sandbox:
		return "Sandbox", "a free cluster: your commands, your faults"
	case Inspect:
		return "Inspect a segment file", "a real Kafka log, batch by batch, byte by byte"
	}
	return "Quit", ""
}

// View centres the logo and the menu.
func (m Model) View() string {
	var lines []string
	if m.h >= 18 {
		lines = append(lines, m.st.Title.Render(m.logo), "")
	} else {
		lines = append(lines, m.st.Title.Render("eoslab"))
	}
	lines = append(lines,
		m.st.Text.Render("Kafka's exactly-once machinery, one event at a time."),
		m.st.Muted.Render("A real engine decides; every byte and every decision is on screen."), "")
	for c := Continue; c <= Quit; c++ {
		name, note := m.label(c)
		row := fmt.Sprintf("  %-24s %s", name, note)
		switch {
		case c == m.cursor:
			row = m.st.Selected.Render(fmt.Sprintf("▸ %-24s %s", name, note))
		case !m.enabled(c):
			row = m.st.Faint.Render(row)
		default:
			row = m.st.Text.Render(fmt.Sprintf("  %-24s", name)) + " " + m.st.Muted.Render(note)
		}
		lines = append(lines, row)
	}
	block := strings.Join(lines, "\n")
	lines = strings.Split(block, "\n")
	w := lipgloss.Width(block)
	pad := max((m.w-w)/2, 0)
	top := max((m.h-len(lines))/2, 0)
	var b strings.Builder
	b.WriteString(strings.Repeat("\n", top))
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat(" ", pad) + l)
	}
	return box.Fit(b.String(), m.w, m.h)
}
