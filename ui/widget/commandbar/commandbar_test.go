package commandbar

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

func newBar() Model {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	m := New(styles.New(r, styles.DefaultPalette()), keymap.Default(), []string{"send", "restart broker", "restart producer"})
	m.SetWidth(80)
	m.SetNames([]string{"p1", "orders-0"})
	return m
}

func typed(m Model, s string) Model {
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)})
	return m
}

func TestSubmitAndHistory(t *testing.T) {
	m := newBar()
	m.Open()
	m = typed(m, "send p1 orders-0 1")
	m, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if m.Active() || cmd == nil || cmd().(SubmitMsg).Line != "send p1 orders-0 1" {
		t.Fatal("enter submits and closes")
	}
	m.Open()
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyUp})
	if m.input.Value() != "send p1 orders-0 1" {
		t.Fatalf("↑ recalls the last line, got %q", m.input.Value())
	}
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyDown})
	if m.input.Value() != "" {
		t.Fatal("↓ past the newest line clears it")
	}
}

func TestCompletion(t *testing.T) {
	m := newBar()
	m.Open()
	m = typed(m, "restart b")
	if got := m.input.MatchedSuggestions(); len(got) != 1 || got[0] != "restart broker " {
		t.Fatalf("two-word verbs complete: %v", got)
	}
	m = typed(m, "roker ")
	m = typed(m, "o")
	if got := m.input.MatchedSuggestions(); len(got) != 1 || got[0] != "restart broker orders-0 " {
		t.Fatalf("names complete after the verb: %v", got)
	}
}

func TestFailShowsACaretUnderTheColumn(t *testing.T) {
	m := newBar()
	m.Fail("send p1 orders-9", "unknown partition", 9)
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	if m.Height() != 3 || len(lines) != 3 || !strings.HasPrefix(lines[0], "✗ unknown partition") {
		t.Fatalf("%q", lines)
	}
	if col := strings.Index(lines[2], "^"); col != 9 || lines[1][col] != 'o' {
		t.Fatalf("the caret is at %d under %q", col, lines[1])
	}
}
