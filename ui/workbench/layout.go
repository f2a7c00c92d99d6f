package workbench

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// The grid layout needs this much room; below it panels become tabs.
const (
	GridWidth  = 100
	GridHeight = 26
)

// gridRow is one row of the grid layout.
type gridRow struct {
	weight int // share of the height
	min    int
	panels []lesson.Panel
	widths []int // shares of the width
}

// gridRows is the grid: the centrepiece first (bytes and window), then
// the actors, then transactions (coordinator and consumers), then history.
// Rows with no panel shown take no room.
func gridRows() []gridRow {
	return []gridRow{
		{50, 12, []lesson.Panel{lesson.PanelBytes, lesson.PanelWindow}, []int{56, 44}},
		{27, 6, []lesson.Panel{lesson.PanelProducer, lesson.PanelNetwork, lesson.PanelPartition}, []int{35, 35, 30}},
		{45, 6, []lesson.Panel{lesson.PanelCoordinator, lesson.PanelConsumers}, []int{46, 54}},
		{23, 5, []lesson.Panel{lesson.PanelTimeline, lesson.PanelAnomalies}, []int{66, 34}},
	}
}

// title names a panel in its frame or tab.
func (m *Model) title(id lesson.Panel) string {
	switch id {
	case lesson.PanelBytes:
		return "header bytes"
	case lesson.PanelWindow:
		return "window · the broker's memory"
	case lesson.PanelProducer:
		return "producers"
	case lesson.PanelNetwork:
		return "network"
	case lesson.PanelPartition:
		return "partition log"
	case lesson.PanelCoordinator:
		return "transactions · coordinator"
	case lesson.PanelConsumers:
		return "consumers"
	case lesson.PanelTimeline:
		return "timeline"
	case lesson.PanelAnomalies:
		return "anomalies"
	}
	return string(id)
}

// layout places the panels: zoomed, in the grid, or as tabs. In the grid
// the rows and columns start from their shares, then room moves to the
// panels whose content does not fit (fit).
func (m *Model) layout() {
	m.place()
	m.apply()
	if m.fits() {
		m.fit()
		m.apply()
	}
}

// fits says whether the layout is the grid, where panels share room.
func (m *Model) fits() bool {
	return len(m.boxes) > 1 && m.boxes[0].framed && !m.zoom
}

// place computes where the panels go from their shares alone.
func (m *Model) place() {
	m.boxes = nil
	switch {
	case m.w <= 0 || m.h <= 0:
		return
	case m.zoom:
		m.boxes = []placed{{id: m.focus, w: m.w, h: m.h, framed: true}}
	case m.w >= GridWidth && m.h >= GridHeight:
		m.grid()
	default:
		// Tabs: one line of tabs, then the focused panel unframed.
		m.boxes = []placed{{id: m.focus, y: 1, w: m.w, h: m.h - 1}}
	}
}

// apply gives every placed panel its inner size, skipping the ones whose
// size did not change (each SetSize renders the panel).
func (m *Model) apply() {
	for _, b := range m.boxes {
		w, h := b.w, b.h
		if b.framed {
			w, h = w-2, h-2
		}
		if m.sizes == nil {
			m.sizes = map[lesson.Panel][2]int{}
		}
		if m.sizes[b.id] == [2]int{w, h} {
			continue
		}
		m.sizes[b.id] = [2]int{w, h}
		m.sizePanel(b.id, w, h)
	}
}

// grid places the shown panels in the grid's rows by their shares.
func (m *Model) grid() {
	type row struct {
		h      int
		min    int
		weight int
		ids    []lesson.Panel
		widths []int
	}
	var present []row
	total := 0
	for _, r := range gridRows() {
		var ids []lesson.Panel
		var ws []int
		for i, p := range r.panels {
			if contains(m.shown, p) {
				ids, ws = append(ids, p), append(ws, r.widths[i])
			}
		}
		if len(ids) > 0 {
			present = append(present, row{min: r.min, weight: r.weight, ids: ids, widths: ws})
		}
	}
	if len(present) == 4 {
		// Every row (the sandbox once transactions appear): the byte grid
		// gives some of its room to the transaction row.
		present[0].weight = 36
	}
	for _, r := range present {
		total += r.weight
	}
	left := m.h
	for i := range present {
		present[i].h = max(m.h*present[i].weight/total, present[i].min)
		left -= present[i].h
	}
	present[0].h += left // rounding and minimums settle on the first row
	// When the minimums do not fit, the tallest rows give way (never
	// below three lines: a frame and one line inside).
	for present[0].h < 3 {
		tallest := 0
		for i := range present {
			if present[i].h > present[tallest].h {
				tallest = i
			}
		}
		if tallest == 0 || present[tallest].h <= 3 {
			break
		}
		present[tallest].h--
		present[0].h++
	}
	y := 0
	for ri, r := range present {
		sum := 0
		for _, w := range r.widths {
			sum += w
		}
		x := 0
		for i, id := range r.ids {
			w := m.w * r.widths[i] / sum
			if i == len(r.ids)-1 {
				w = m.w - x
			}
			m.boxes = append(m.boxes, placed{id: id, x: x, y: y, w: w, h: r.h, framed: true, row: ri, min: r.min})
			x += w
		}
		y += r.h
	}
}

// engine is what every panel offers the workbench.
type engine interface {
	SetSize(w, h int)
	SetData(d panel.Data)
	View() string
}

// panel returns the panel of an id (nil for an unknown one).
func (m *Model) panel(id lesson.Panel) engine {
	switch id {
	case lesson.PanelBytes:
		return &m.bytes
	case lesson.PanelWindow:
		return &m.window
	case lesson.PanelProducer:
		return &m.producer
	case lesson.PanelNetwork:
		return &m.network
	case lesson.PanelPartition:
		return &m.partition
	case lesson.PanelCoordinator:
		return &m.coord
	case lesson.PanelConsumers:
		return &m.consumers
	case lesson.PanelTimeline:
		return &m.timeline
	case lesson.PanelAnomalies:
		return &m.anomalies
	}
	return nil
}

func (m *Model) sizePanel(id lesson.Panel, w, h int) {
	if p := m.panel(id); p != nil {
		p.SetSize(w, h)
	}
}

func (m *Model) content(id lesson.Panel) string {
	if p := m.panel(id); p != nil {
		return p.View()
	}
	return ""
}

// View draws the panels where layout placed them.
func (m Model) View() string {
	if len(m.boxes) == 0 {
		return box.Fit("", m.w, m.h)
	}
	if !m.boxes[0].framed {
		return m.tabBar() + "\n" + box.Fit(m.content(m.focus), m.w, m.h-1)
	}
	var out []string
	for i := 0; i < len(m.boxes); {
		var row []string
		y := m.boxes[i].y
		for ; i < len(m.boxes) && m.boxes[i].y == y; i++ {
			row = append(row, m.frame(m.boxes[i]))
		}
		out = append(out, box.Join(row...))
	}
	return strings.Join(out, "\n")
}

func (m Model) frame(b placed) string {
	border, title := m.st.Border, m.st.Muted
	name := m.title(b.id)
	if b.id == m.focus {
		border, title = m.st.BorderFocus, m.st.Title
		name = "▶ " + name
	}
	return box.Frame(name, m.content(b.id), b.w, b.h, border, title)
}

// tabName is a panel's name on its tab; each tab is two cells wider
// (brackets or spaces), which tabs relies on.
func (m Model) tabName(id lesson.Panel) string {
	name := m.title(id)
	if i := strings.Index(name, " · "); i > 0 {
		name = name[:i]
	}
	return name
}

// tab is one tab as drawn: its panel, name and columns.
type tab struct {
	id   lesson.Panel
	name string
	x, w int
}

// tabs places the shown panels' tabs in the bar. When they do not all fit,
// the bar shows a run of them around the focused one, with … at an end
// where tabs are left out.
func (m Model) tabs() (ts []tab, moreLeft, moreRight bool) {
	all := make([]tab, len(m.shown))
	total, focus := 0, 0
	for i, id := range m.shown {
		name := m.tabName(id)
		all[i] = tab{id: id, name: name, w: ansi.StringWidth(name) + 2}
		total += all[i].w
		if id == m.focus {
			focus = i
		}
	}
	lo, hi := 0, len(all)
	if total > m.w {
		// Grow a window from the focused tab, right first, keeping a cell
		// for each … that will be needed.
		lo, hi = focus, focus+1
		used := all[focus].w
		fits := func(w, lo, hi int) bool {
			ell := 0
			if lo > 0 {
				ell++
			}
			if hi < len(all) {
				ell++
			}
			return used+w+ell <= m.w
		}
		for grew := true; grew; {
			grew = false
			if hi < len(all) && fits(all[hi].w, lo, hi+1) {
				used += all[hi].w
				hi++
				grew = true
			}
			if lo > 0 && fits(all[lo-1].w, lo-1, hi) {
				used += all[lo-1].w
				lo--
				grew = true
			}
		}
	}
	x := 0
	if lo > 0 {
		x = 1
	}
	for _, t := range all[lo:hi] {
		t.x = x
		x += t.w
		ts = append(ts, t)
	}
	return ts, lo > 0, hi < len(all)
}

// tabAt is the tab drawn at column x.
func (m Model) tabAt(x int) (lesson.Panel, bool) {
	ts, _, _ := m.tabs()
	for _, t := range ts {
		if x >= t.x && x < t.x+t.w {
			return t.id, true
		}
	}
	return "", false
}

// tabBar names every shown panel; the focused one is marked with brackets
// as well as colour.
func (m Model) tabBar() string {
	ts, left, right := m.tabs()
	var b strings.Builder
	if left {
		b.WriteString(m.st.Muted.Render("…"))
	}
	for _, t := range ts {
		if t.id == m.focus {
			b.WriteString(m.st.TabActive.Render("[" + t.name + "]"))
		} else {
			b.WriteString(m.st.TabInactive.Render(" " + t.name + " "))
		}
	}
	if right {
		b.WriteString(m.st.Muted.Render("…"))
	}
	return box.Line(b.String(), m.w)
}
