// Package lesson is the lesson screen: the step's narration on top
// (Markdown, rendered once per step and width), what → will do next, and
// the engine panels below. The app drives the session and hands this
// screen each new frame; the screen never touches the engine.
package lesson

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/session"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
	"github.com/eoslab/eoslab/ui/widget/markdown"
	"github.com/eoslab/eoslab/ui/workbench"
)

// Model is the lesson screen.
type Model struct {
	st     *styles.Styles
	keys   keymap.KeyMap
	md     *markdown.Renderer
	lesson *lesson.Lesson
	w, h   int

	pos    session.Position
	behind bool
	prompt Prompt
	bench  workbench.Model

	text   []string // the rendered narration of the shown step, by line
	scroll int
	head   string // the title line, composed by frame
	page   string // the lines of text in view, composed by frame
	shown  int    // the lesson step whose narration is rendered (-2: none yet)

	presenter bool // the presenter view: the step's notes above the narration (presenter.go)
	noteRows  int  // the rows the notes add to the narration's room
}

// Prompt is what the shown step asks of the learner, as the app found it
// by evaluating the step's predicates on the engine's state.
type Prompt struct {
	Question string
	Choices  []string
	Chosen   int    // the learner's answer, 1-based; 0: none yet
	Marked   []bool // after the reveal: the choices the engine made true
	Goals    []lesson.Check
	Checks   []lesson.Check // the step's expectations, once it has played out

	// Right and Asked are the chapter's prediction score, once this
	// step's prediction has been marked.
	Right, Asked int

	// A challenge: Hints are those revealed so far (H) of HintsTotal;
	// Complete says every goal holds.
	Challenge  bool
	Hints      []string
	HintsTotal int
	Complete   bool

	// Unsolved are the lesson's challenge steps not solved yet (1-based),
	// said at its end instead of a ✓.
	Unsolved []int
}

// New returns the screen for lesson l.
func New(st *styles.Styles, keys keymap.KeyMap, md *markdown.Renderer, l *lesson.Lesson) Model {
	m := Model{st: st, keys: keys, md: md, lesson: l, bench: workbench.New(st, keys), shown: -2}
	m.bench.SetPanels(l.Panels, "")
	return m
}

// Lesson is the lesson shown.
func (m Model) Lesson() *lesson.Lesson { return m.lesson }

// SetSize lays the screen out in w×h cells.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.renderNarration()
	m.bench.SetSize(w, max(h-m.narrationHeight(), 0))
	m.frame()
}

// SetData shows a frame of the engine at lesson position pos with what
// the step asks. behind says the frame is in the timeline's past (→
// redoes rather than acts).
func (m *Model) SetData(d panel.Data, pos session.Position, behind bool, p Prompt) {
	m.pos, m.behind = pos, behind
	rows := m.narrationHeight()
	if pos.Step != m.shown {
		m.shown, m.scroll = pos.Step, 0
		panels, focus := m.lesson.Panels, lesson.Panel("")
		if pos.Step >= 0 {
			st := m.lesson.Steps[pos.Step]
			if len(st.Panels) > 0 {
				panels = st.Panels
			}
			focus = st.Focus
		}
		m.bench.SetPanels(panels, focus)
		m.prompt = p
		m.renderNarration()
	} else if !samePrompt(m.prompt, p) {
		m.prompt = p
		m.renderNarration()
	}
	if rows != m.narrationHeight() || pos.Step != m.shown {
		m.bench.SetSize(m.w, max(m.h-m.narrationHeight(), 0))
	}
	m.bench.SetData(d)
	m.frame()
}

func samePrompt(a, b Prompt) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// Unzoom puts a zoomed panel back among the others and reports whether
// one was zoomed; esc should do this before it leaves the screen.
func (m *Model) Unzoom() bool { return m.bench.Unzoom() }

// Bench is the panel area (for the app's mouse offsets and tests).
func (m Model) Bench() workbench.Model { return m.bench }

// Update scrolls the narration and passes everything else to the panels.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, m.keys.NarrationDown):
			// A page: the last line shown stays in view above the next.
			m.scroll = min(m.scroll+m.pageRows(), max(len(m.text)-m.textRows(), 0))
			m.frame()
			return m, nil
		case key.Matches(k, m.keys.NarrationUp):
			m.scroll = max(m.scroll-m.pageRows(), 0)
			m.frame()
			return m, nil
		}
	}
	if mm, ok := msg.(tea.MouseMsg); ok {
		mm.Y -= m.narrationHeight()
		msg = mm
	}
	var cmd tea.Cmd
	m.bench, cmd = m.bench.Update(msg)
	return m, cmd
}

// pageRows is how far pgdown and pgup move the narration: the lines
// shown, less one that stays in view.
func (m Model) pageRows() int { return max(m.textRows()-1, 1) }

// AskKeys are the keys for what the step asks, first in the help line:
// the answers of a prediction not yet revealed, a challenge's hint and
// solution until it is complete.
func (m Model) AskKeys() []key.Binding {
	var ks []key.Binding
	if m.prompt.Question != "" && m.prompt.Marked == nil {
		ks = append(ks, m.keys.Answer)
	}
	if m.prompt.Challenge && !m.prompt.Complete {
		if m.prompt.HintsTotal > len(m.prompt.Hints) {
			ks = append(ks, m.keys.Hint)
		}
		ks = append(ks, m.keys.Solution)
	}
	return ks
}

// Keys lists what this screen adds to the help after the lab's keys (the
// panels' keys, the narration's scrolling).
func (m Model) Keys() []key.Binding {
	ks := m.bench.Keys()
	if len(m.text) > m.textRows() {
		ks = append(ks, m.keys.NarrationDown, m.keys.NarrationUp)
	}
	return ks
}

// narrationHeight: a title line, the text, the "next" line.
func (m Model) narrationHeight() int { return 2 + m.textRows() }

// NarrationHeight is how many lines the narration block above the panels
// takes (for the app's mouse offsets and tests).
func (m Model) NarrationHeight() int { return m.narrationHeight() }

// The panels keep this many lines under the narration when they are tabs
// (the tab bar and seven lines of the panel in front).
const minTabRows = 8

// textRows is how many lines of the step's text (what it asks, then the
// narration) are shown; the rest scrolls. Where the panels can be a grid
// under it, the text gets up to 6 lines on a large screen and 3 on a small
// one, plus room for what the step asks. Where the panels are tabs anyway
// (80×24, 100×30), the narration comes first: it gets every line it needs
// while the panel in front keeps minTabRows.
func (m Model) textRows() int {
	limit := 3
	if m.h >= 34 {
		limit = 6
	}
	if m.prompt.Question != "" || len(m.prompt.Goals) > 0 || len(m.prompt.Checks) > 0 {
		limit += 2 // room for what the step asks
	}
	if len(m.prompt.Hints) > 0 || m.prompt.Complete {
		limit++ // and for the hints or the challenge's verdict
	}
	limit += m.noteRows // and for the presenter's notes
	// Where the panels can be a grid with at least three lines of text
	// above them, they stay one: the text scrolls instead (a command
	// bar's error or hints once turned 120×40 into tabs). Otherwise they
	// are tabs, and the narration comes first.
	if gridText := m.h - 2 - workbench.GridHeight; m.w >= workbench.GridWidth && gridText >= 3 {
		limit = min(limit, gridText)
	} else {
		limit = max(limit, m.h-2-minTabRows)
	}
	return max(min(len(m.text), limit), 1)
}

// renderNarration renders the step's question or checklist (first: it is
// what to act on) and its narration, once per step, width and prompt.
func (m *Model) renderNarration() {
	md := m.lesson.Intro
	if md == "" {
		md = m.lesson.Summary
	}
	if m.shown >= 0 {
		md = m.lesson.Steps[m.shown].Narration
		if strings.TrimSpace(md) == "" {
			md = "_(this step has no narration: watch the panels)_"
		}
	}
	m.text = append(append(m.presenterLines(), m.promptLines()...), strings.Split(m.md.Render(md, max(m.w-2, 10)), "\n")...)
}

// View draws the narration block above the panels.
func (m Model) View() string {
	return box.Stack(m.head, box.Fit(m.page, m.w, m.textRows()), box.Line(m.next(), m.w), m.bench.View())
}

// frame composes the narration block's title line and the lines of text
// in view, when the step, the size, the prompt or the scroll change (View
// only joins them).
func (m *Model) frame() {
	title := fmt.Sprintf("Chapter %d · %s", m.lesson.Number, m.lesson.Title)
	step := "introduction"
	if m.pos.Step >= 0 {
		step = fmt.Sprintf("step %d/%d", m.pos.Step+1, m.pos.Steps)
		if t := m.lesson.Steps[m.pos.Step].Title; t != "" {
			step += ": " + t
		}
	}
	head := m.st.Title.Render(title) + m.st.Muted.Render("  ·  "+step)
	if ansi.StringWidth(head) > m.w {
		// Narrow: the step is what the learner is on; the chapter's title
		// is on the chapter list.
		head = m.st.Title.Render(fmt.Sprintf("Chapter %d", m.lesson.Number)) + m.st.Muted.Render("  ·  "+step)
	}
	m.head = box.Line(head, m.w)
	rows := m.textRows()
	m.scroll = max(min(m.scroll, len(m.text)-rows), 0)
	end := min(m.scroll+rows, len(m.text))
	shown := m.text[m.scroll:end]
	if end < len(m.text) {
		// What is below, on the last line if it fits there, else instead
		// of that line.
		more := m.st.Muted.Render(fmt.Sprintf("▾ %d more line(s): pgdown", len(m.text)-end))
		last := len(shown) - 1
		if ansi.StringWidth(shown[last])+2+ansi.StringWidth(more) <= m.w {
			shown = append(shown[:last:last], shown[last]+"  "+more)
		} else {
			more = m.st.Muted.Render(fmt.Sprintf("▾ %d more line(s): pgdown", len(m.text)-end+1))
			shown = append(shown[:last:last], more)
		}
	}
	m.page = strings.Join(shown, "\n")
}

// next says what → will do.
func (m Model) next() string {
	arrow := m.st.Key.Render("→ ")
	switch {
	case m.behind:
		return arrow + m.st.Warn.Render("redo the next step of this timeline (you are in its past; acting here forks it)")
	case m.pos.Stepping:
		return arrow + "perform the next event (something is due)"
	case m.pos.Reveal && m.prompt.Chosen == 0:
		return arrow + "reveal what the engine does " + m.st.Warn.Render(fmt.Sprintf("— answer first: 1-%d", len(m.prompt.Choices)))
	case m.pos.Reveal:
		return arrow + "reveal what the engine does (your answer: " + fmt.Sprint(m.prompt.Chosen) + ")"
	case len(m.pos.Next) > 0 && m.prompt.Challenge && !m.prompt.Complete:
		return arrow + m.st.Warn.Render("move on without reaching the goal") + " and apply " + m.st.Accent.Render(strings.Join(m.pos.Next, " · "))
	case len(m.pos.Next) > 0:
		return arrow + "apply " + m.st.Accent.Render(strings.Join(m.pos.Next, " · "))
	case m.pos.Done && len(m.prompt.Unsolved) > 0:
		// The lesson's end is not the end of the work: no ✓.
		return m.st.Warn.Render(fmt.Sprintf("the challenge of step %d is not solved", m.prompt.Unsolved[0])) +
			m.st.Muted.Render(fmt.Sprintf(" · %s goes back · %s restarts it", m.keys.StepStart.Help().Key, m.keys.Restart.Help().Key))
	case m.pos.Done && m.prompt.Challenge && !m.prompt.Complete:
		// No ✓ while the challenge in front is not reached: the end of
		// the steps is not the end of the work.
		return m.st.Warn.Render("end of the steps — the challenge is not solved yet") + m.st.Muted.Render(" · esc for the chapters")
	case m.pos.Done:
		return m.st.Good.Render("✓ end of the lesson") + m.st.Muted.Render(" · ← and → travel in time · esc for the chapters")
	}
	return ""
}
