// Package workbench lays the engine panels out for the lesson and sandbox
// screens: a grid that uses the room at 120×40 and more, tabs (one panel
// at a time) at 80×24, and a zoomed panel filling the screen for a
// projector. It owns panel focus and routes keys and mouse events to the
// focused panel; the panels own their contents.
//
// Shown every panel (the sandbox, a lesson that names none), it leaves the
// transaction panels — coordinator and consumers — out until the world has
// something for them (a transactional producer, a group, a consumer), so
// that the idempotence chapters keep their room.
package workbench

import (
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/charmbracelet/bubbles/key"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/anomalies"
	"github.com/eoslab/eoslab/ui/panel/batchbytes"
	"github.com/eoslab/eoslab/ui/panel/consumers"
	"github.com/eoslab/eoslab/ui/panel/coordinator"
	"github.com/eoslab/eoslab/ui/panel/network"
	"github.com/eoslab/eoslab/ui/panel/partition"
	"github.com/eoslab/eoslab/ui/panel/producer"
	"github.com/eoslab/eoslab/ui/panel/timeline"
	"github.com/eoslab/eoslab/ui/panel/window"
	"github.com/eoslab/eoslab/ui/styles"
)

// Built lists the panels that exist, in display order.
func Built() []lesson.Panel {
	return []lesson.Panel{lesson.PanelBytes, lesson.PanelWindow, lesson.PanelProducer, lesson.PanelNetwork,
		lesson.PanelPartition, lesson.PanelCoordinator, lesson.PanelConsumers, lesson.PanelTimeline, lesson.PanelAnomalies}
}

// Model is the panel area.
type Model struct {
	st   *styles.Styles
	keys keymap.KeyMap
	w, h int

	asked []lesson.Panel // what the lesson step names (nil: every panel)
	shown []lesson.Panel // what is on screen: asked, less what has nothing to show
	focus lesson.Panel
	zoom  bool
	data  panel.Data

	bytes     batchbytes.Model
	window    window.Model
	producer  producer.Model
	network   network.Model
	partition partition.Model
	coord     coordinator.Model
	consumers consumers.Model
	timeline  timeline.Model
	anomalies anomalies.Model

	boxes []placed                // where each panel is drawn, from the last layout
	sizes map[lesson.Panel][2]int // the inner size each panel was last given
}

// placed is a panel's frame on screen, relative to the workbench.
type placed struct {
	id         lesson.Panel
	x, y, w, h int
	framed     bool
	row, min   int // in the grid: its row and the row's least height
}

// New returns a workbench showing every built panel.
func New(st *styles.Styles, keys keymap.KeyMap) Model {
	m := Model{st: st, keys: keys,
		bytes: batchbytes.New(st, keys), window: window.New(st), producer: producer.New(st),
		network: network.New(st), partition: partition.New(st), coord: coordinator.New(st), consumers: consumers.New(st),
		timeline: timeline.New(st, keys), anomalies: anomalies.New(st, keys)}
	m.shown, m.focus = m.visible(), lesson.PanelBytes
	return m
}

// SetSize lays the panels out in w×h cells.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.layout()
}

// SetPanels restricts the shown panels (nil: all) and sets the focus
// ("": keep it when still shown). Lessons choose these per step.
func (m *Model) SetPanels(ps []lesson.Panel, focus lesson.Panel) {
	m.asked = nil
	for _, p := range Built() {
		if contains(ps, p) {
			m.asked = append(m.asked, p)
		}
	}
	m.shown = m.visible()
	switch {
	case focus != "" && contains(m.shown, focus):
		m.focus = focus
	case !contains(m.shown, m.focus):
		m.focus = m.shown[0]
	}
	m.layout()
}

// visible is the panels to show: the ones asked for, or, when none are,
// every panel but the transaction panels while they have nothing to show.
func (m *Model) visible() []lesson.Panel {
	if len(m.asked) > 0 {
		return m.asked
	}
	var out []lesson.Panel
	for _, p := range Built() {
		switch {
		case p == lesson.PanelCoordinator && !transactional(m.data.Snap):
		case p == lesson.PanelConsumers && (m.data.Snap == nil || len(m.data.Snap.Consumers) == 0):
		default:
			out = append(out, p)
		}
	}
	return out
}

// transactional reports whether the world has anything for the
// coordinator panel: a transaction, a transactional producer, a consumer
// group's offsets or an external effect.
func transactional(s *sim.Snapshot) bool {
	if s == nil {
		return false
	}
	if len(s.Transactions) > 0 || len(s.Groups) > 0 || len(s.Effects) > 0 {
		return true
	}
	for _, p := range s.Producers {
		if p.Config.TransactionalID != "" {
			return true
		}
	}
	return false
}

func contains(ps []lesson.Panel, p lesson.Panel) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// SetData hands a frame of the engine to every panel, then lets room
// move to the panels whose new content needs it.
func (m *Model) SetData(d panel.Data) {
	m.data = d
	for _, id := range lesson.Panels() {
		m.panel(id).SetData(d)
	}
	if shown := m.visible(); !slices.Equal(shown, m.shown) {
		// A transaction panel has something to show now (or, back in
		// time, no longer): lay out again, keeping the focus if it stays.
		m.shown = shown
		if !contains(shown, m.focus) {
			m.focus = shown[0]
		}
		m.layout()
		return
	}
	m.place()
	if m.fits() {
		m.fit()
	}
	m.apply()
}

// Focus is the focused panel.
func (m Model) Focus() lesson.Panel { return m.focus }

// Zoomed reports whether the focused panel fills the area.
func (m Model) Zoomed() bool { return m.zoom }

// Unzoom puts a zoomed panel back in its place and reports whether it
// was zoomed: esc on a zoomed panel means "back to the panels", not "leave
// the screen", so the screen asks this first.
func (m *Model) Unzoom() bool {
	if !m.zoom {
		return false
	}
	m.zoom = false
	m.layout()
	return true
}

// Box is where a panel is drawn, frame included, relative to the
// workbench; ok is false when it is not on screen.
func (m Model) Box(id lesson.Panel) (x, y, w, h int, ok bool) {
	for _, b := range m.boxes {
		if b.id == id {
			return b.x, b.y, b.w, b.h, true
		}
	}
	return 0, 0, 0, 0, false
}

// Batch is the bytes the header-bytes panel shows (for tests and the app).
func (m Model) Batch() []byte { return m.bytes.Bytes() }

// Update handles focus, zoom and mouse, and passes other keys to the
// focused panel.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, m.keys.FocusNext):
			m.cycle(1)
			return m, nil
		case key.Matches(msg, m.keys.FocusPrev):
			m.cycle(-1)
			return m, nil
		case key.Matches(msg, m.keys.Zoom):
			m.zoom = !m.zoom
			m.layout()
			return m, nil
		}
		return m.updateFocused(msg)
	case tea.MouseMsg:
		return m.mouse(msg)
	}
	return m, nil
}

func (m *Model) cycle(d int) {
	i := 0
	for k, p := range m.shown {
		if p == m.focus {
			i = k
		}
	}
	m.focus = m.shown[(i+d+len(m.shown))%len(m.shown)]
	m.layout()
}

func (m Model) updateFocused(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	switch m.focus {
	case lesson.PanelBytes:
		m.bytes, cmd = m.bytes.Update(msg)
	case lesson.PanelTimeline:
		m.timeline, cmd = m.timeline.Update(msg)
	case lesson.PanelAnomalies:
		m.anomalies, cmd = m.anomalies.Update(msg)
	}
	return m, cmd
}

// Keys lists what the focused panel adds to the help.
func (m Model) Keys() []key.Binding {
	switch m.focus {
	case lesson.PanelBytes:
		return m.bytes.Keys()
	case lesson.PanelTimeline:
		return m.timeline.Keys()
	case lesson.PanelAnomalies:
		return m.anomalies.Keys()
	}
	return nil
}

// mouse focuses the panel under a click; a click on a timeline event
// travels to it; the wheel scrolls the timeline or walks the bytes.
func (m Model) mouse(msg tea.MouseMsg) (Model, tea.Cmd) {
	if len(m.boxes) > 0 && !m.boxes[0].framed && msg.Y == 0 {
		if id, ok := m.tabAt(msg.X); ok && msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionRelease {
			m.focus = id
			m.layout()
		}
		return m, nil
	}
	for _, b := range m.boxes {
		if msg.X < b.x || msg.X >= b.x+b.w || msg.Y < b.y || msg.Y >= b.y+b.h {
			continue
		}
		row := msg.Y - b.y
		if b.framed {
			row--
		}
		switch {
		case msg.Button == tea.MouseButtonWheelUp || msg.Button == tea.MouseButtonWheelDown:
			delta := 3
			if msg.Button == tea.MouseButtonWheelUp {
				delta = -3
			}
			m.scroll(b.id, delta)
		case msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionRelease:
			if m.focus != b.id {
				m.focus = b.id
				m.layout()
			}
			if b.id == lesson.PanelTimeline {
				col := msg.X - b.x
				if b.framed {
					col--
				}
				return m, m.timeline.ClickAt(row, col)
			}
		}
		return m, nil
	}
	return m, nil
}

func (m *Model) scroll(id lesson.Panel, delta int) {
	switch id {
	case lesson.PanelTimeline:
		m.timeline.Scroll(delta)
	case lesson.PanelBytes:
		m.bytes.Scroll(delta)
	}
}
