// Package timeline is the event trace panel: every event up to the shown
// step, the events of that step marked, and — while travelling back — the
// timeline's future below them, dimmed. Selecting an event (keys or a
// click) asks the app to travel to its step with a TravelMsg.
package timeline

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// TravelMsg asks the app to show the world at Step (and, when set, to put
// Partition in focus).
type TravelMsg struct {
	Step      int
	Partition string
}

// Model is the timeline panel.
type Model struct {
	st   *styles.Styles
	keys keymap.KeyMap
	w, h int

	events []trace.Event // past then future (shared slices, read only)
	past   int           // how many of events are up to the shown step
	step   int           // the shown step
	sel    int           // selected event
	top    int           // first event shown
	view   string
}

// New returns an empty panel.
func New(st *styles.Styles, keys keymap.KeyMap) Model { return Model{st: st, keys: keys} }

// SetSize sets the inner size.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.render() }

// SetData shows a frame of the engine and selects its latest event.
func (m *Model) SetData(d panel.Data) {
	if d.Snap == nil {
		return
	}
	m.events = append(d.Trace[:len(d.Trace):len(d.Trace)], d.Future...)
	m.past, m.step = len(d.Trace), d.Snap.Step
	if d.Motion != panel.Same || m.sel >= len(m.events) {
		m.sel = max(m.past-1, 0)
		m.top = max(m.sel-m.h+3, 0) // leave two lines of future in view
	}
	m.render()
}

// Update moves the selection and travels on Select.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok || len(m.events) == 0 {
		return m, nil
	}
	switch {
	case key.Matches(k, m.keys.Up):
		m.sel = max(m.sel-1, 0)
	case key.Matches(k, m.keys.Down):
		m.sel = min(m.sel+1, len(m.events)-1)
	case key.Matches(k, m.keys.Select):
		return m, m.travel(m.sel)
	default:
		return m, nil
	}
	m.render()
	return m, nil
}

// Keys lists the panel's keys for the help.
func (m Model) Keys() []key.Binding {
	return []key.Binding{m.keys.Up, m.keys.Down, keymap.Relabel(m.keys.Select, "travel to event")}
}

// Click travels to the event drawn on the given row of the panel.
func (m Model) Click(row int) tea.Cmd {
	if i := m.top + row; row >= 0 && row < m.h && i < len(m.events) {
		return m.travel(i)
	}
	return nil
}

// Scroll moves the view by delta lines (the mouse wheel).
func (m *Model) Scroll(delta int) {
	m.top = max(min(m.top+delta, len(m.events)-m.h), 0)
	m.render()
}

func (m Model) travel(i int) tea.Cmd {
	step := m.events[i].Step
	return func() tea.Msg { return TravelMsg{Step: step} }
}

// View renders the panel's inside.
func (m Model) View() string { return m.view }

func (m *Model) render() {
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	if len(m.events) == 0 {
		m.view = box.Fit(m.st.Muted.Render("no events yet"), m.w, m.h)
		return
	}
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+m.h {
		m.top = m.sel - m.h + 1
	}
	lines := make([]string, 0, m.h)
	for i := m.top; i < min(m.top+m.h, len(m.events)); i++ {
		lines = append(lines, m.line(i))
	}
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

func (m *Model) line(i int) string {
	e := &m.events[i]
	mark := " "
	if i < m.past && e.Step == m.step {
		mark = "▸"
	}
	s := box.Line(fmt.Sprintf("%s%5d %9s  %-17s %s", mark, e.Step, trace.FormatTime(e.TimeMs), e.Kind, e.Text), m.w)
	switch {
	case i == m.sel:
		return m.st.Selected.Render(s)
	case i >= m.past:
		return m.st.Faint.Render(s)
	case e.Kind == "produce.decision":
		return m.st.Outcome(e.Str("outcome")).Render(s)
	case e.Kind == "anomaly" || e.Kind == "message.lost":
		return m.st.Bad.Render(s)
	case mark == "▸":
		return m.st.Bold.Render(s)
	}
	return s
}
