package workbench

import (
	"github.com/eoslab/eoslab/ui/panel"
)

// needer is a panel that says how much room its content asks for. The
// timeline does not: it is a log, which takes whatever rows are left and
// gives them up first.
type needer interface {
	Need() panel.Need
}

// Least room a panel keeps when it gives columns away: below this a
// panel's own lines start to wrap and cut.
const minInner = 24

// Least height a log's row keeps when it gives lines away: the frame,
// three events and the timeline's scrub bar.
const minLog = 6

// fit moves room in the grid to the panels whose content does not fit
// their shares, from the panels that have room to spare. Columns move
// within a row: a panel wider than its content (the header bytes beside
// a window whose tree is cut) lends the difference to its neighbours.
// Rows move between rows: a row whose tallest panel needs more lines takes
// them from rows with blank lines at the bottom, the timeline's first.
// Nothing moves when every panel fits, so the grid keeps its proportions
// until content asks otherwise.
func (m *Model) fit() {
	m.fitRows()
	for r := 0; r <= m.boxes[len(m.boxes)-1].row; r++ {
		m.fitColumns(r)
	}
}

// need is a panel's need measured at its current size, ok false for a
// panel that says nothing (it flows, or is a log).
func (m *Model) need(b placed) (panel.Need, bool) {
	n, ok := m.panel(b.id).(needer)
	if !ok {
		return panel.Need{}, false
	}
	return n.Need(), true
}

// fitColumns shares a row's width by need: each panel wanting more than
// it has takes from the others' spare columns (what they have beyond
// their widest line, and never below minInner).
func (m *Model) fitColumns(row int) {
	var idx []int
	for i, b := range m.boxes {
		if b.row == row {
			idx = append(idx, i)
		}
	}
	if len(idx) < 2 {
		return
	}
	give := make([]int, len(idx))
	take := make([]int, len(idx))
	spare, short := 0, 0
	for k, i := range idx {
		b := m.boxes[i]
		inner := b.w - 2
		n, ok := m.need(b)
		switch {
		case !ok || n.Width == 0:
			// Flowing content: lends what it has beyond a third off.
			give[k] = max(0, min(inner/3, inner-minInner))
		case n.Width > inner:
			take[k] = n.Width - inner
		default:
			give[k] = max(0, inner-max(n.Width, minInner))
		}
		spare += give[k]
		short += take[k]
	}
	moved := min(spare, short)
	if moved == 0 {
		return
	}
	// Takers get their share of what moves, givers lose theirs, in
	// proportion; rounding settles on the last of each.
	widths := make([]int, len(idx))
	gave, took := 0, 0
	lastGiver, lastTaker := -1, -1
	for k := range idx {
		widths[k] = m.boxes[idx[k]].w
		if give[k] > 0 {
			lastGiver = k
		}
		if take[k] > 0 {
			lastTaker = k
		}
	}
	for k := range idx {
		if give[k] > 0 && k != lastGiver {
			d := moved * give[k] / spare
			widths[k] -= d
			gave += d
		}
		if take[k] > 0 && k != lastTaker {
			d := moved * take[k] / short
			widths[k] += d
			took += d
		}
	}
	widths[lastGiver] -= moved - gave
	widths[lastTaker] += moved - took
	x := m.boxes[idx[0]].x
	for k, i := range idx {
		m.boxes[i].x, m.boxes[i].w = x, widths[k]
		x += widths[k]
	}
}

// fitRows shares the height by need: a row whose tallest panel needs more
// lines than it has takes them from rows with blank lines to spare (a
// row's spare is what none of its panels uses, down to the row's least
// height); a row with a log in it lends everything above minLog.
func (m *Model) fitRows() {
	last := m.boxes[len(m.boxes)-1].row
	heights := make([]int, last+1)
	mins := make([]int, last+1)
	want := make([]int, last+1) // lines the row's tallest panel needs, -1: a log
	for _, b := range m.boxes {
		heights[b.row], mins[b.row] = b.h, max(b.min, 3)
		n, ok := m.need(b)
		switch {
		case !ok:
			want[b.row] = -1
		case want[b.row] >= 0:
			want[b.row] = max(want[b.row], n.Height+2)
		}
	}
	give := make([]int, last+1)
	take := make([]int, last+1)
	spare, short := 0, 0
	for r := range heights {
		switch {
		case want[r] < 0:
			give[r] = heights[r] - max(mins[r], minLog)
		case want[r] > heights[r]:
			take[r] = want[r] - heights[r]
		default:
			give[r] = heights[r] - max(want[r], mins[r])
		}
		spare += max(give[r], 0)
		short += take[r]
	}
	moved := min(spare, short)
	if moved <= 0 {
		return
	}
	// Rows lend in order from the bottom (history before the centrepiece)
	// and the rows short of lines take them in order from the top.
	left := moved
	for r := last; r >= 0 && left > 0; r-- {
		d := min(max(give[r], 0), left)
		heights[r] -= d
		left -= d
	}
	left = moved
	for r := 0; r <= last && left > 0; r++ {
		d := min(take[r], left)
		heights[r] += d
		left -= d
	}
	y := make([]int, last+1)
	for r := 1; r <= last; r++ {
		y[r] = y[r-1] + heights[r-1]
	}
	for i := range m.boxes {
		m.boxes[i].y, m.boxes[i].h = y[m.boxes[i].row], heights[m.boxes[i].row]
	}
}
