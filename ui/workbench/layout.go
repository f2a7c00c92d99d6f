package workbench

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons/lesson"
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
// the actors, then history.
func gridRows() []gridRow {
	return []gridRow{
		{50, 12, []lesson.Panel{lesson.PanelBytes, lesson.PanelWindow}, []int{56, 44}},
		{27, 6, []lesson.Panel{lesson.PanelProducer, lesson.PanelNetwork, lesson.PanelPartition}, []int{35, 35, 30}},
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
	case lesson.PanelTimeline:
		return "timeline"
	case lesson.PanelAnomalies:
		return "anomalies"
	}
	return string(id)
}

func (m *Model) layout() {
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
	for _, b := range m.boxes {
		w, h := b.w, b.h
		if b.framed {
			w, h = w-2, h-2
		}
		m.sizePanel(b.id, w, h)
	}
}

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
			total += r.weight
		}
	}
	left := m.h
	for i := range present {
		present[i].h = max(m.h*present[i].weight/total, present[i].min)
		left -= present[i].h
	}
	present[0].h += left // rounding and minimums settle on the first row
	y := 0
	for _, r := range present {
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
			m.boxes = append(m.boxes, placed{id: id, x: x, y: y, w: w, h: r.h, framed: true})
			x += w
		}
		y += r.h
	}
}

func (m *Model) sizePanel(id lesson.Panel, w, h int) {
	switch id {
	case lesson.PanelBytes:
		m.bytes.SetSize(w, h)
	case lesson.PanelWindow:
		m.window.SetSize(w, h)
	case lesson.PanelProducer:
		m.producer.SetSize(w, h)
	case lesson.PanelNetwork:
		m.network.SetSize(w, h)
	case lesson.PanelPartition:
		m.partition.SetSize(w, h)
	case lesson.PanelTimeline:
		m.timeline.SetSize(w, h)
	case lesson.PanelAnomalies:
		m.anomalies.SetSize(w, h)
	}
}

func (m *Model) content(id lesson.Panel) string {
	switch id {
	case lesson.PanelBytes:
		return m.bytes.View()
	case lesson.PanelWindow:
		return m.window.View()
	case lesson.PanelProducer:
		return m.producer.View()
	case lesson.PanelNetwork:
		return m.network.View()
	case lesson.PanelPartition:
		return m.partition.View()
	case lesson.PanelTimeline:
		return m.timeline.View()
	case lesson.PanelAnomalies:
		return m.anomalies.View()
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
// (brackets or spaces), which tabAt relies on.
func (m Model) tabName(id lesson.Panel) string {
	name := m.title(id)
	if i := strings.Index(name, " · "); i > 0 {
		name = name[:i]
	}
	return name
}

// tabAt is the tab drawn at column x.
func (m Model) tabAt(x int) (lesson.Panel, bool) {
	at := 0
	for _, id := range m.shown {
		w := ansi.StringWidth(m.tabName(id)) + 2
		if x >= at && x < at+w {
			return id, true
		}
		at += w
	}
	return "", false
}

// tabBar names every shown panel; the focused one is marked with brackets
// as well as colour.
func (m Model) tabBar() string {
	var b strings.Builder
	for _, id := range m.shown {
		name := m.tabName(id)
		if id == m.focus {
			b.WriteString(m.st.TabActive.Render("[" + name + "]"))
		} else {
			b.WriteString(m.st.TabInactive.Render(" " + name + " "))
		}
	}
	return box.Line(b.String(), m.w)
}
