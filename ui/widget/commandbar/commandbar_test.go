package commandbar

import (
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/styles"
)

// newBar completes the language's own verbs (engine/script) and the
// lab's, in a world of p1, three partitions of orders and brokers 1-3.
func newBar() Model {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	var verbs []Verb
	for _, u := range script.Verbs() {
		verbs = append(verbs, Verb{u.Verb, u.Syntax, u.Summary})
	}
	verbs = append(verbs, Verb{"load", "load FILE", "play a script in"}, Verb{"help", "help [VERB]", "the commands"})
	words := Words{
		"ERROR":   script.RefusalErrors,
		"ANOMALY": script.AnomalyNames,
		"KEY":     {"acks", "retries", "enable.idempotence"},
		"COUNT":   {"1", "2", "3"},
		"acks=":   {"all", "1", "0"},
	}
	m := New(styles.New(r, styles.DefaultPalette()), keymap.Default(), verbs, words)
	m.SetWidth(80)
	m.SetWorld(World{Producers: []string{"p1"}, Consumers: []string{"c1"}, Partitions: []string{"orders-0", "orders-1", "orders-2"},
		Brokers: []string{"1", "2", "3"}, TxnIDs: []string{"tx-1"}, Groups: []string{"g1"}, Steps: []string{"0", "12"}})
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

// Queued lines come one at a time: Queue puts the first on the line, Next
// (after the app accepted a line) the following one; esc drops the rest.
func TestQueue(t *testing.T) {
	m := newBar()
	m.Queue("solution", []string{"producer p1", "send p1 orders-0 1", "run"})
	if !m.Active() || m.Value() != "producer p1" || len(m.Queued()) != 2 || m.Height() != 2 {
		t.Fatalf("active %v, %q, queued %q, height %d", m.Active(), m.Value(), m.Queued(), m.Height())
	}
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	if !strings.HasPrefix(lines[0], "▸ solution 1/3 · enter runs it, esc drops the rest · next: send p1 orders-0 1") || strings.TrimRight(lines[1], " ") != ":producer p1" {
		t.Fatalf("%q", lines)
	}
	m, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if m.Active() || cmd == nil || cmd().(SubmitMsg).Line != "producer p1" {
		t.Fatal("enter submits the line, nothing else")
	}
	m.Next()
	if !m.Active() || m.Value() != "send p1 orders-0 1" || len(m.Queued()) != 1 {
		t.Fatalf("Next loads the next line: %q", m.Value())
	}
	m.Fail("send p1 orders-0 1", "refused", 0)
	if m.Value() != "send p1 orders-0 1" || len(m.Queued()) != 1 || m.Height() != 3 {
		t.Fatalf("a refused line keeps the queue: %q %q", m.Value(), m.Queued())
	}
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if m.Active() || len(m.Queued()) != 0 || m.Next() != nil || m.Active() {
		t.Fatal("esc drops the rest")
	}
	m.Queue("solution", []string{"a", "b"})
	m.Open()
	if len(m.Queued()) != 0 || m.Height() != 2 || strings.Contains(m.View(), "solution") {
		t.Fatal(": opens an empty bar (the line and its candidates) without the queue")
	}
}
