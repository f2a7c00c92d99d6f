// Package anomalies is the panel of what the engine's checker flags —
// duplicates, lost acknowledged records, reordering — in Jepsen's words.
// It reads "✓ none" while exactly-once holds and lists each anomaly with
// its partition, producer and offsets otherwise; selecting one travels to
// the step it appeared at, with its partition in focus.
package anomalies

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/timeline"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// Model is the anomalies panel.
type Model struct {
	st   *styles.Styles
	keys keymap.KeyMap
	w, h int
	list []sim.Anomaly
	sel  int
	view string
	need panel.Need
}

// New returns an empty panel.
func New(st *styles.Styles, keys keymap.KeyMap) Model { return Model{st: st, keys: keys} }

// SetSize sets the inner size.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.render() }

// SetData shows a frame of the engine.
func (m *Model) SetData(d panel.Data) {
	if d.Snap == nil {
		return
	}
	m.list = d.Snap.Anomalies
	m.sel = min(m.sel, max(len(m.list)-1, 0))
	m.render()
}

// Update moves the selection; Select travels to the anomaly.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok || len(m.list) == 0 {
		return m, nil
	}
	switch {
	case key.Matches(k, m.keys.Up):
		m.sel = max(m.sel-1, 0)
	case key.Matches(k, m.keys.Down):
		m.sel = min(m.sel+1, len(m.list)-1)
	case key.Matches(k, m.keys.Select):
		a := m.list[m.sel]
		return m, func() tea.Msg { return timeline.TravelMsg{Step: a.Step, Partition: a.Partition} }
	default:
		return m, nil
	}
	m.render()
	return m, nil
}

// Keys lists the panel's keys for the help.
func (m Model) Keys() []key.Binding {
	return []key.Binding{m.keys.Up, m.keys.Down, keymap.Relabel(m.keys.Select, "go to anomaly")}
}

// View renders the panel's inside.
func (m Model) View() string { return m.view }

// Need is the room the panel's content asks for at its current width.
func (m Model) Need() panel.Need { return m.need }

// render lists the anomalies; the selected one is marked ▸ as well as
// reversed, so that the selection survives NO_COLOR (which drops reverse
// video along with colour). Long lines continue under their text.
func (m *Model) render() {
	m.need = panel.Need{}
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	if len(m.list) == 0 {
		lines := box.Reflow(m.st.Good.Render("✓ none: every record at most once, in order, nothing acknowledged lost"), m.w, 2)
		m.need = panel.Need{Height: len(lines)}
		m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
		return
	}
	lines := []string{m.st.Bad.Render(fmt.Sprintf("✗ %d anomal%s", len(m.list), plural(len(m.list))))}
	texts := 0
	for _, a := range m.list {
		if a.Text != "" {
			texts += len(box.Reflow("  "+a.Text, m.w, 4))
		}
	}
	for i, a := range m.list {
		s := fmt.Sprintf("%s %s %s offsets %v (step %d)", a.Name, a.Partition, a.Producer, a.Offsets, a.Step)
		mark, style := "  ", m.st.Bad
		if i == m.sel {
			mark, style = "▸ ", m.st.Selected
		}
		for k, l := range box.Reflow(s, m.w-2, 2) {
			if k > 0 {
				mark = "  "
			}
			lines = append(lines, mark+style.Render(l))
		}
		if a.Text != "" && m.h >= 1+len(m.list)+texts {
			for _, l := range box.Reflow("  "+a.Text, m.w, 4) {
				lines = append(lines, m.st.Muted.Render(l))
			}
		}
	}
	m.need = panel.Need{Height: 1 + len(m.list) + texts}
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

func plural(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}
