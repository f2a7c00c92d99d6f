package chapters

import (
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/styles"
)

func newList(t *testing.T, w, h int) Model {
	t.Helper()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	ls := []*lesson.Lesson{
		{Number: 1, Title: "One", Summary: "The first chapter.", Steps: []lesson.Step{{}}},
		{Number: 2, Title: "Two", Summary: "The second, which ends with a challenge; its summary is long enough to be cut on the line of a chapter not under the cursor.",
			Steps: []lesson.Step{{}, {Kind: lesson.Challenge}}},
		{Number: 101, Title: "Example: a script", Summary: "An example.", Steps: []lesson.Step{{}}},
		{Number: 3, Title: "Three", Summary: "The third.", Steps: []lesson.Step{{}, {}}},
	}
	m := New(styles.New(r, styles.DefaultPalette()), keymap.Default(), ls, map[int]bool{})
	m.SetSize(w, h)
	return m
}

func keyOf(s string) tea.KeyMsg {
	switch s {
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func press(m Model, keys ...string) Model {
	for _, k := range keys {
		m, _ = m.Update(keyOf(k))
	}
	return m
}

// The examples come after every chapter, apart, whatever the catalog's
// order; the counts leave them out.
func TestExamplesApart(t *testing.T) {
	m := newList(t, 80, 24)
	view := ansi.Strip(m.View())
	i1, i3, iex := strings.Index(view, "  1. One"), strings.Index(view, "  3. Three"), strings.Index(view, "101. Example")
	if i1 < 0 || i3 < 0 || iex < i3 || !strings.Contains(view, "Example scripts") || !strings.Contains(view, "3 chapters · 0 done · 1 example script") {
		t.Fatalf("%s", view)
	}
	if m = press(m, "down", "down", "down"); m.Cursor() != 2 {
		t.Fatalf("the fourth listed is the example (index 2), got %d", m.Cursor())
	}
}

// Marks, the cursor's summary in full, → next, ◇ and ◆.
func TestMarks(t *testing.T) {
	m := newList(t, 80, 24)
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "▸   1. One") || !strings.Contains(view, "→ next") || !strings.Contains(view, "◇ challenge") || !strings.Contains(view, "long enough to …") {
		t.Fatalf("%s", view)
	}
	m.SetMarks(map[int]bool{0: true}, map[int]Score{0: {Right: 1, Asked: 2}})
	m.SetSolved(map[int]int{1: 1})
	m = press(m, "down")
	view = ansi.Strip(m.View())
	if !strings.Contains(view, "✓ done") || !strings.Contains(view, "1/2 right") || !strings.Contains(view, "◆ solved") ||
		!strings.Contains(view, "cut on the line of a chapter not under the cursor.") {
		t.Fatalf("%s", view)
	}
	if strings.Count(view, "→ next") != 1 || !strings.Contains(view, "3. Three") {
		t.Fatalf("→ next moves to chapter 2, the first not done:\n%s", view)
	}
	// Marks never move the cursor.
	m.SetMarks(map[int]bool{}, nil)
	if m.Cursor() != 1 {
		t.Fatalf("cursor %d", m.Cursor())
	}
}

// / filters by title and summary; the cursor stays on its chapter while
// it matches; esc clears; Select clears a filter that hides the chapter.
func TestFilter(t *testing.T) {
	m := newList(t, 80, 24)
	m = press(m, "down", "/")
	if !m.Filtering() {
		t.Fatal("/ starts the filter")
	}
	m = press(m, "c", "h", "a", "l")
	if m.Cursor() != 1 || strings.Contains(ansi.Strip(m.View()), "1. One") {
		t.Fatalf("filter chal: cursor %d\n%s", m.Cursor(), ansi.Strip(m.View()))
	}
	m = press(m, "enter")
	if m.Filtering() || !strings.Contains(ansi.Strip(m.View()), "filter: chal · 1 shown") {
		t.Fatal("enter keeps the filter")
	}
	m.Select(3)
	if m.Cursor() != 3 || !strings.Contains(ansi.Strip(m.View()), "3. Three") {
		t.Fatal("Select shows a chapter the filter hid")
	}
	m = press(m, "/", "q", "q", "q", "esc")
	if m.Filtering() || !strings.Contains(ansi.Strip(m.View()), "1. One") || m.Cursor() != 3 {
		t.Fatalf("esc clears the filter, the cursor stays: %d", m.Cursor())
	}
	if _, cmd := m.Update(keyOf("enter")); cmd == nil || cmd().(OpenMsg).Index != 3 {
		t.Fatal("enter opens the chapter under the cursor")
	}
}

// The window follows the cursor: at a small height the last chapter is
// in view when the cursor is on it.
func TestScrolls(t *testing.T) {
	m := newList(t, 80, 8)
	m = press(m, "G")
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "▸ 101. Example") || strings.Count(view, "\n") != 7 {
		t.Fatalf("%s", view)
	}
}
