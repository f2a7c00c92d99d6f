// Package sandbox is the free screen: the engine panels driven only by
// the command bar and the fault keys. What is done here can be saved as a
// script (`:save FILE`) that `eoslab play` replays, which is how demos
// are built.
package sandbox

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
	"github.com/eoslab/eoslab/ui/workbench"
)

// Model is the sandbox screen.
type Model struct {
	st     *styles.Styles
	keys   keymap.KeyMap
	w, h   int
	bench  workbench.Model
	empty  bool
	behind bool
}

// New returns the sandbox screen.
func New(st *styles.Styles, keys keymap.KeyMap) Model {
	return Model{st: st, keys: keys, bench: workbench.New(st, keys), empty: true}
}

// SetSize lays the screen out.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.bench.SetSize(w, max(h-1, 0))
}

// SetData shows a frame of the engine.
func (m *Model) SetData(d panel.Data, behind bool) {
	m.empty = d.Snap == nil || (d.Trace.Len() == 0 && len(d.Snap.Producers) == 0)
	m.behind = behind
	m.bench.SetData(d)
}

// Unzoom puts a zoomed panel back among the others and reports whether
// one was zoomed; esc should do this before it leaves the screen.
func (m *Model) Unzoom() bool { return m.bench.Unzoom() }

// Bench is the panel area.
func (m Model) Bench() workbench.Model { return m.bench }

// Update passes keys and the mouse to the panels.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if mm, ok := msg.(tea.MouseMsg); ok {
		mm.Y--
		msg = mm
	}
	var cmd tea.Cmd
	m.bench, cmd = m.bench.Update(msg)
	return m, cmd
}

// Keys lists what this screen adds to the help.
func (m Model) Keys() []key.Binding { return m.bench.Keys() }

// View draws a hint line above the panels.
func (m Model) View() string {
	return box.Stack(box.Line(m.hint(), m.w), m.bench.View())
}

// hint is the line above the panels, in the longest form that fits: a
// narrow terminal gets the short one rather than a cut one.
func (m Model) hint() string {
	head := m.st.Title.Render("Sandbox") + m.st.Muted.Render("  ·  ")
	var forms []string
	switch {
	case m.empty:
		forms = []string{"press : and type a command, e.g. " + m.st.Accent.Render("producer p1") + ", " +
			m.st.Accent.Render("send p1 orders-0 2") + ", then → to step",
			": a command (" + m.st.Accent.Render("producer p1") + ", " + m.st.Accent.Render("send p1 orders-0 2") + "), → steps"}
	case m.behind:
		forms = []string{m.st.Warn.Render("in the past: → redoes; a command or fault key forks a new timeline"),
			m.st.Warn.Render("in the past: → redoes; acting forks")}
	default:
		forms = []string{"→ steps · fault keys act on the focused producer and partition · :save FILE keeps this as a script",
			"→ steps · fault keys act on the focused producer and partition",
			"→ steps · fault keys act on the producer in focus"}
	}
	for _, f := range forms {
		if ansi.StringWidth(head+f) <= m.w {
			return head + f
		}
	}
	return head + forms[len(forms)-1]
}
