// Package timeline is the event trace panel: every event up to the shown
// step, the events of that step marked, and — while travelling back — the
// timeline's future below them, dimmed. Followers' replication traffic
// folds into one line per run unless asked for (story.Replication). Its
// last line is a scrub bar: the whole timeline, its landmarks (lesson
// steps, faults, decisions, anomalies, the fork) and the shown step.
// Selecting an event or a landmark (keys or a click) asks the app to
// travel there with a TravelMsg.
package timeline

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/story"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// TravelMsg asks the app to show the world at Step (and, when set, to put
// Partition in focus).
type TravelMsg struct {
	Step      int
	Partition string
}

// row is one line of the list: an event, or a folded run of replication
// events [first, last].
type row struct {
	first, last int
	folded      bool
}

// Model is the timeline panel.
type Model struct {
	st   *styles.Styles
	keys keymap.KeyMap
	w, h int

	trace     trace.Log // the events so far (shared, read only)
	future    trace.Log // the timeline's, whose events after the trace's come next (shared, read only)
	past      int       // how many of events are up to the shown step
	step      int       // the shown step
	rows      []row
	sel       int  // selected row
	top       int  // first row shown
	follow    bool // keep the shown step's last event in view (not scrolled by hand)
	landmarks []story.Landmark
	steps     int // how far the timeline goes
	unfold    bool
	view      string
}

// New returns an empty panel.
func New(st *styles.Styles, keys keymap.KeyMap) Model {
	return Model{st: st, keys: keys, follow: true}
}

// SetSize sets the inner size.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.render() }

// SetData shows a frame of the engine and selects its latest event.
func (m *Model) SetData(d panel.Data) {
	if d.Snap == nil {
		return
	}
	// Read in place: a long history's trace is never copied for a frame.
	m.trace, m.future = d.Trace, d.Future
	m.past, m.step = d.Trace.Len(), d.Snap.Step
	m.landmarks, m.steps, m.unfold = d.Landmarks, max(d.Steps, d.Snap.Step), d.Replication
	m.rows = m.fold(m.unfold)
	if d.Motion != panel.Same || m.sel >= len(m.rows) {
		m.sel = m.rowOf(m.past - 1)
		m.follow = true
	}
	m.render()
}

// fold groups the events into rows: each run of replication events is
// one row unless unfold.
func (m *Model) fold(unfold bool) []row {
	n := max(m.past, m.future.Len())
	rows := make([]row, 0, n)
	for i := range n {
		if !unfold && story.Replication(m.event(i)) {
			if n := len(rows); n > 0 && rows[n-1].folded && rows[n-1].last == i-1 {
				rows[n-1].last = i
				continue
			}
			rows = append(rows, row{first: i, last: i, folded: true})
			continue
		}
		rows = append(rows, row{first: i, last: i})
	}
	return rows
}

// event is the i-th event: of the trace, then of the future.
func (m *Model) event(i int) *trace.Event {
	if i < m.past {
		return m.trace.At(i)
	}
	return m.future.At(i)
}

// rowOf is the row that holds event i (0 for none).
func (m *Model) rowOf(i int) int {
	lo, hi := 0, len(m.rows)
	for lo < hi {
		mid := (lo + hi) / 2
		if m.rows[mid].last < i {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return min(lo, max(len(m.rows)-1, 0))
}

// Update moves the selection and travels on Select.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok || len(m.rows) == 0 {
		return m, nil
	}
	switch {
	case key.Matches(k, m.keys.Up):
		m.sel = max(m.sel-1, 0)
	case key.Matches(k, m.keys.Down):
		m.sel = min(m.sel+1, len(m.rows)-1)
	case key.Matches(k, m.keys.Select):
		return m, m.travel(m.sel)
	default:
		return m, nil
	}
	m.follow = false
	m.render()
	return m, nil
}

// Keys lists the panel's keys for the help.
func (m Model) Keys() []key.Binding {
	return []key.Binding{m.keys.Up, m.keys.Down, keymap.Relabel(m.keys.Select, "travel to event"), m.keys.Replication}
}

// Click travels to the event drawn on the given row of the panel.
func (m Model) Click(row int) tea.Cmd { return m.ClickAt(row, -1) }

// ClickAt is Click at a column too: on the scrub bar, it travels to the
// landmark under the column (else that column's step).
func (m Model) ClickAt(row, col int) tea.Cmd {
	if m.barShown() && row == m.h-1 && col >= 0 {
		step := m.barStep(col)
		return func() tea.Msg { return TravelMsg{Step: step} }
	}
	if i := m.top + row; row >= 0 && row < m.listHeight() && i < len(m.rows) {
		return m.travel(i)
	}
	return nil
}

// Scroll moves the view by delta lines (the mouse wheel).
func (m *Model) Scroll(delta int) {
	m.top = max(min(m.top+delta, len(m.rows)-m.listHeight()), 0)
	m.follow = false
	m.render()
}

func (m Model) travel(r int) tea.Cmd {
	step := m.event(m.rows[r].last).Step
	return func() tea.Msg { return TravelMsg{Step: step} }
}

// View renders the panel's inside.
func (m Model) View() string { return m.view }

// barShown: the scrub bar needs a line under at least three of the list.
func (m *Model) barShown() bool { return m.h >= 4 && m.w >= 10 }

func (m *Model) listHeight() int {
	if m.barShown() {
		return m.h - 1
	}
	return m.h
}

func (m *Model) render() {
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	if len(m.rows) == 0 {
		m.view = box.Fit(m.st.Muted.Render("no events yet"), m.w, m.h)
		return
	}
	h := m.listHeight()
	if m.follow {
		// The shown step's last event, with up to two lines of the future
		// below it, and no empty lines while there is history above.
		m.top = m.sel - h + 3
	}
	m.top = max(min(m.top, len(m.rows)-h), 0)
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+h {
		m.top = m.sel - h + 1
	}
	lines := make([]string, 0, m.h)
	for i := m.top; i < min(m.top+h, len(m.rows)); i++ {
		lines = append(lines, m.line(i))
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	if m.barShown() {
		lines = append(lines, m.bar())
	}
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

func (m *Model) line(i int) string {
	r := m.rows[i]
	e := m.event(r.last)
	past := r.first < m.past
	mark := " "
	if past && e.Step == m.step {
		mark = "▸"
	}
	cursor := " "
	if i == m.sel {
		cursor = "▶" // the selection is seen without colour too
	}
	text := fmt.Sprintf("%-17s %s", e.Kind, e.Text())
	if r.folded {
		n := r.last - r.first + 1
		text = fmt.Sprintf("… %d replication event(s) folded (%s shows them)", n, m.keys.Replication.Help().Key)
	}
	s := box.Line(fmt.Sprintf("%s%s%5d %9s  %s", cursor, mark, e.Step, trace.FormatTime(e.TimeMs), text), m.w)
	switch {
	case i == m.sel:
		return m.st.Selected.Render(s)
	case !past:
		return m.st.Faint.Render(s)
	case r.folded:
		return m.st.Muted.Render(s)
	case e.Kind == "produce.decision":
		return m.st.Outcome(e.Str("outcome")).Render(s)
	case e.Kind == "anomaly" || e.Kind == "message.lost":
		return m.st.Bad.Render(s)
	case mark == "▸":
		return m.st.Bold.Render(s)
	}
	return s
}

// The scrub bar's glyphs, by landmark kind; the shown step is ●.
var barGlyph = map[story.LandmarkKind]string{
	story.MarkDecision: "•", story.MarkFault: "⚑", story.MarkFork: "Y", story.MarkAnomaly: "✗",
}

// column is the bar's column of step k; columns is the bar's width.
func (m *Model) columns() int { return m.w - 2 }

func (m *Model) column(k int) int {
	if m.steps <= 0 {
		return 0
	}
	return min(k*(m.columns()-1)/m.steps, m.columns()-1)
}

// barStep is the step a click on column col travels to: the most
// important landmark drawn there, else the first step of the column.
func (m *Model) barStep(col int) int {
	c := min(max(col-1, 0), m.columns()-1) // the bar starts after its ├
	best, step := story.LandmarkKind(0), -1
	for _, l := range m.landmarks {
		if m.column(l.Step) == c && l.Kind > best {
			best, step = l.Kind, l.Step
		}
	}
	if step >= 0 {
		return step
	}
	if m.columns() <= 1 {
		return 0
	}
	return min((c*m.steps+m.columns()-2)/(m.columns()-1), m.steps)
}

// bar draws the scrub bar: ├──•──2──⚑──●┄┄•┄┄┤, the past solid, the
// kept future dotted and faint, a lesson step's start as its number.
func (m *Model) bar() string {
	n := m.columns()
	cells := make([]string, n)
	rank := make([]story.LandmarkKind, n)
	for _, l := range m.landmarks {
		c := m.column(l.Step)
		if l.Kind < rank[c] {
			continue
		}
		rank[c] = l.Kind
		if l.Kind == story.MarkStep {
			cells[c] = fmt.Sprint((l.Index + 1) % 10)
		} else {
			cells[c] = barGlyph[l.Kind]
		}
	}
	here := m.column(m.step)
	var b strings.Builder
	b.WriteString(m.st.Muted.Render("├"))
	for c := range n {
		g := cells[c]
		switch {
		case c == here:
			b.WriteString(m.st.Selected.Render("●"))
			continue
		case g == "" && c < here:
			g = "─"
		case g == "":
			g = "┄"
		}
		switch {
		case c > here:
			b.WriteString(m.st.Faint.Render(g))
		case rank[c] == story.MarkAnomaly:
			b.WriteString(m.st.Bad.Render(g))
		case rank[c] >= story.MarkFault:
			b.WriteString(m.st.Accent.Render(g))
		default:
			b.WriteString(m.st.Muted.Render(g))
		}
	}
	b.WriteString(m.st.Muted.Render("┤"))
	return b.String()
}
