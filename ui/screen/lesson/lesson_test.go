package lesson

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/paneltest"
	"github.com/eoslab/eoslab/ui/session"
	"github.com/eoslab/eoslab/ui/widget/markdown"
)

// builtin is built-in chapter n.
func builtin(t *testing.T, n int) *lesson.Lesson {
	t.Helper()
	ls, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if l.Number == n {
			return l
		}
	}
	t.Fatalf("no chapter %d", n)
	return nil
}

// screen is the lesson screen at step (0-based) of l, w×h, asking p.
func screen(t *testing.T, l *lesson.Lesson, step, w, h int, p Prompt) Model {
	t.Helper()
	m := New(paneltest.Styles(), keymap.Default(), markdown.New(termenv.Ascii, markdown.Colours{}), l)
	m.SetSize(w, h)
	world := paneltest.World(t, "producer p1")
	m.SetData(panel.Data{Snap: world.Snapshot(), Trace: world.Trace(), Partition: "orders-0"},
		session.Position{Step: step, Steps: len(l.Steps)}, false, p)
	return m
}

func prediction(l *lesson.Lesson, step int) Prompt {
	pr := l.Steps[step].Prediction
	p := Prompt{Question: pr.Question}
	for _, c := range pr.Choices {
		p.Choices = append(p.Choices, c.Text)
	}
	return p
}

// At 80×24 (22 lines between the status bars) the narration comes first:
// at chapter 8's prediction the question, its choices and the whole
// narration are shown, and the panel below keeps its tab bar and seven
// lines. Before, the narration got one line ("…the retry was simply ▾…")
// over a tab with 13 empty rows.
func TestNarrationFirstAt80x24(t *testing.T) {
	l := builtin(t, 8)
	m := screen(t, l, 2, 80, 22, prediction(l, 2))
	view := ansi.Strip(m.View())
	lines := strings.Split(view, "\n")
	if len(lines) != 22 {
		t.Fatalf("%d lines", len(lines))
	}
	if strings.Contains(view, "▾") {
		t.Errorf("the whole narration should be shown:\n%s", view)
	}
	for _, want := range []string{"? What does broker 1 answer", "3) The error DUPLICATE_SEQUENCE_NUMBER", "retries the same way."} {
		if !strings.Contains(view, want) {
			t.Errorf("missing %q in\n%s", want, view)
		}
	}
	if rows := 22 - m.NarrationHeight(); rows < minTabRows {
		t.Errorf("the panels kept %d lines, want at least %d", rows, minTabRows)
	}
}

// pgdown and pgup move a page of narration (the lines shown, less one
// kept in view), not a line.
func TestPageKeysMoveAPage(t *testing.T) {
	long := "---\nchapter: 1\ntitle: Long\nsummary: A long step.\n---\n\nIntro.\n\n## A long step\n\n"
	for i := range 40 {
		long += "Paragraph " + string(rune('A'+i%26)) + " is long enough to take a line of its own on a screen.\n\n"
	}
	l, err := lesson.Parse("long.md", []byte(long))
	if err != nil {
		t.Fatal(err)
	}
	m := screen(t, l, 0, 80, 22, Prompt{})
	rows := m.textRows()
	first := func(m Model) string { return strings.TrimSpace(ansi.Strip(strings.Split(m.View(), "\n")[1])) }
	top := first(m)
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	if m.scroll != rows-1 {
		t.Fatalf("pgdown scrolled %d lines, want a page of %d", m.scroll, rows-1)
	}
	if !strings.Contains(ansi.Strip(m.View()), "pgdown") {
		t.Errorf("more below should be said")
	}
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyPgUp})
	if m.scroll != 0 || first(m) != top {
		t.Fatalf("pgup should go back a page: scroll %d, first line %q", m.scroll, first(m))
	}
}

// Hints are Markdown like the narration: chapter 2's second hint shows
// its code spans without backquotes, and lines continue under the label.
func TestHintsRender(t *testing.T) {
	l := builtin(t, 2)
	step := len(l.Steps) - 1
	ch := l.Steps[step].Challenge
	p := Prompt{Challenge: true, Hints: ch.Hints, HintsTotal: len(ch.Hints)}
	for _, g := range ch.Goals {
		p.Goals = append(p.Goals, lesson.Check{Label: g.Text, Got: "(got 0)"})
	}
	m := screen(t, l, step, 80, 22, p)
	view := ansi.Strip(m.View())
	if strings.Contains(view, "`") {
		t.Errorf("a hint shows backquotes:\n%s", view)
	}
	if !strings.Contains(view, "hint 2/2: Give once the same setting p1 had, and let") {
		t.Errorf("the second hint:\n%s", view)
	}
}

// At the end of the steps, a challenge not reached gets no ✓: the line
// under the narration says it is not solved (it said "✓ end of the
// lesson"); once every goal holds, it is the end.
func TestUnsolvedChallengeIsNotTheEnd(t *testing.T) {
	l := builtin(t, 2)
	step := len(l.Steps) - 1
	at := func(complete bool) string {
		m := screen(t, l, step, 120, 38, Prompt{Challenge: true, Complete: complete, Goals: []lesson.Check{{Label: "a goal", OK: complete}}})
		m.pos.Done = true
		return ansi.Strip(m.next())
	}
	if got := at(false); strings.Contains(got, "✓") || !strings.Contains(got, "not solved") {
		t.Errorf("unsolved: %q", got)
	}
	if got := at(true); !strings.Contains(got, "✓ end of the lesson") {
		t.Errorf("solved: %q", got)
	}
}
