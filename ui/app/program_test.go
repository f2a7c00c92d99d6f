package app

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
)

// waitFor waits until the program has drawn text.
func waitFor(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

// The real program loop: start on Home, open a chapter, step, quit.
func TestProgramStartNavigateQuit(t *testing.T) {
	m, err := New(testOptions(t, false))
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	waitFor(t, tm, "Inspect a segment file")
	tm.Send(keyEnter)
	waitFor(t, tm, "3 chapters")
	tm.Send(keyEnter)
	waitFor(t, tm, "→ apply producer p1")
	tm.Send(keyRight)
	waitFor(t, tm, "applied: producer p1")
	tm.Send(keyEsc)
	waitFor(t, tm, "eoslab · chapters")
	tm.Send(keyEsc)
	waitFor(t, tm, "Chapter 1 · A lost acknowledgement") // Continue leads back there
	tm.Send(keyRunes("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if got := tm.FinalModel(t).(Model).Screen(); got != HomeScreen {
		t.Fatalf("quit from screen %d", got)
	}
}

// A terminal that is too small says so, and the lab comes back when it grows.
func TestProgramTooSmallThenResized(t *testing.T) {
	m, err := New(testOptions(t, false))
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(70, 20))
	waitFor(t, tm, "terminal too small (need 80×24, have 70×20)")
	tm.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
	waitFor(t, tm, "Inspect a segment file")
	tm.Send(keyCtrlC)
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}
