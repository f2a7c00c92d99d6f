package app

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// panicky panics in Update once the program runs.
type panicky struct{}

func (panicky) Init() tea.Cmd                       { return func() tea.Msg { return "go" } }
func (panicky) Update(tea.Msg) (tea.Model, tea.Cmd) { panic("a bug") }
func (panicky) View() string                        { return "the lab" }

// A panic leaves the terminal restored: off the alternate screen, the
// cursor shown, mouse reporting off — the terminal once stayed broken.
func TestPanicRestoresTheTerminal(t *testing.T) {
	var out bytes.Buffer
	err := runProgram(panicky{}, &out, tea.WithInput(nil), tea.WithOutput(&out), tea.WithAltScreen(), tea.WithMouseCellMotion())
	if !errors.Is(err, tea.ErrProgramPanic) {
		t.Fatalf("Run: %v, want a recovered panic", err)
	}
	s := out.String()
	for _, want := range []string{"\x1b[?1049l", "\x1b[?25h", "\x1b[?1000l", "\x1b[?1006l"} {
		if !strings.Contains(s[strings.LastIndex(s, "\x1b[?1049h")+1:], want) {
			t.Errorf("after the panic the output lacks %q", want)
		}
	}
}

// An interrupt (what SIGINT becomes) and a quit (what SIGTERM becomes)
// end the lab and restore the terminal, even with a long job running.
func TestSignalsEndTheLab(t *testing.T) {
	for _, msg := range []tea.Msg{tea.InterruptMsg{}, tea.QuitMsg{}} {
		m := sandboxAt(t, 80, 24, "producer t1 transactional=tx", "run", "begin t1", "send t1 orders-0 1", "kill broker 1", "kill broker 2")
		m, _ = send(t, m, keyRunes(":"), keyRunes("run"))
		next, cmd := m.Update(keyEnter)
		next, _ = next.(Model).Update(cmd())
		var out bytes.Buffer
		p := tea.NewProgram(next, tea.WithInput(nil), tea.WithOutput(&out), tea.WithAltScreen())
		go p.Send(msg)
		if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrInterrupted) {
			t.Fatalf("%T: %v", msg, err)
		}
		if !strings.Contains(out.String(), "\x1b[?1049l") {
			t.Fatalf("%T: the alternate screen was not left", msg)
		}
	}
}
