package home

import (
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/styles"
)

func newHome() Model {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	m := New(styles.New(r, styles.DefaultPalette()), keymap.Default(), "eoslab")
	m.SetSize(80, 24)
	return m
}

// The chapters to finish are counted apart from the example scripts.
func TestChaptersCountApartFromExamples(t *testing.T) {
	m := newHome()
	m.SetProgress(Progress{Done: 3, Total: 24, Examples: 11})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "3 of 24 done · 11 example scripts") {
		t.Fatalf("%s", v)
	}
	m.SetProgress(Progress{Total: 2, Examples: 1})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "0 of 2 done · 1 example script ") {
		t.Fatalf("%s", v)
	}
	m.SetProgress(Progress{Total: 2})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "0 of 2 done  ") || strings.Contains(v, "example") {
		t.Fatalf("%s", v)
	}
}

// Continue is offered once there is somewhere to go, and the cursor
// starts there; ↑ never lands on a disabled Continue.
func TestContinue(t *testing.T) {
	m := newHome()
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyUp})
	if m.cursor != Chapters {
		t.Fatal("↑ landed on a disabled Continue")
	}
	m.SetProgress(Progress{Total: 24, Resume: "next: Chapter 5 · Producer ids"})
	if v := ansi.Strip(m.View()); m.cursor != Continue || !strings.Contains(v, "▸ Continue                 next: Chapter 5 · Producer ids") {
		t.Fatalf("%s", v)
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil || cmd().(ChoseMsg).Choice != Continue {
		t.Fatal("enter chooses Continue")
	}
}
