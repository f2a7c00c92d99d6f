package app

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// Resizing never corrupts the screen: at every size from the minimum up,
// every screen fills the terminal exactly — as many lines as it is tall,
// none wider than it is wide.
func TestEverySizeFillsTheTerminalExactly(t *testing.T) {
	screens := map[string]func(t *testing.T) Model{
		"home": func(t *testing.T) Model { return newModel(t, testOptions(t, false), 80, 24) },
		"chapters": func(t *testing.T) Model {
			m, _ := send(t, newModel(t, testOptions(t, false), 80, 24), keyEnter)
			return m
		},
		"lesson": func(t *testing.T) Model { return workedExampleAtFirstAppend(t, 80, 24) },
		"sandbox": func(t *testing.T) Model {
			return sandboxAt(t, 80, 24, "producer p1", "send p1 orders-0 2", "lose response p1", "run")
		},
		"inspect": func(t *testing.T) Model {
			m, _ := send(t, newModel(t, testOptions(t, false), 80, 24), keyDown, keyDown, keyEnter)
			return m
		},
		"command error": func(t *testing.T) Model { return typeLine(t, sandboxAt(t, 80, 24), "send p1") },
		"zoomed": func(t *testing.T) Model {
			m, _ := send(t, sandboxAt(t, 80, 24, "producer p1"), keyRunes("z"))
			return m
		},
	}
	for name, build := range screens {
		t.Run(name, func(t *testing.T) {
			m := build(t)
			for w := 80; w <= 200; w += 7 {
				for h := 24; h <= 70; h += 5 {
					m, _ = send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
					checkFills(t, m.View(), w, h)
				}
			}
		})
	}
}

func checkFills(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Fatalf("%d×%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Fatalf("%d×%d: line %d is %d wide: %q", w, h, i, n, ansi.Strip(l))
		}
	}
}
