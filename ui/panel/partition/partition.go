// Package partition is the panel of one partition's log as its leader
// holds it: batches by offset, oldest first, each named after the
// producer that wrote it, in its colour, with its producer id, epoch and
// sequences; a transactional batch says what became of its transaction
// (✓ committed, ⧗ open, ✗ aborted) and a control batch is spelt out as
// the COMMIT or ABORT marker it is. The high watermark and the last
// stable offset are drawn as lines at their offsets, with the readable
// batches above them; under the log, every replica's log end, high
// watermark and place in the ISR.
package partition

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// Model is the partition panel.
type Model struct {
	st   *styles.Styles
	w, h int
	d    panel.Data
	log  []entry // the leader's batches, described once per frame
	view string
	need panel.Need
}

// entry is one stored batch as the panel describes it.
type entry struct {
	offsets string   // "3" or "0-1"
	base    int64    // its first offset
	items   []string // who wrote it and what it is, styled, kept whole when the line breaks
	width   int      // of the items on one line
}

// New returns an empty panel.
func New(st *styles.Styles) Model { return Model{st: st} }

// SetSize sets the inner size.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.render() }

// SetData shows a frame of the engine.
func (m *Model) SetData(d panel.Data) {
	m.d = d
	m.log = nil
	if pv := d.PartitionView(); pv != nil {
		m.log = describe(m.st, &m.d, pv)
	}
	m.render()
}

// View renders the panel's inside.
func (m Model) View() string { return m.view }

// Need is the room the panel's content asks for at its current width.
func (m Model) Need() panel.Need { return m.need }

// describe names every stored batch: its writer, its identity, and for
// transactions the marker it is or the fate of the transaction it is in.
func describe(st *styles.Styles, d *panel.Data, pv *sim.PartitionView) []entry {
	writers := newWriters(d, pv)
	control := map[int64]string{}
	for _, r := range pv.Log {
		if r.Control {
			control[r.Offset] = r.ControlType
		}
	}
	// A marker closes its producer's transaction: it belongs to whoever
	// wrote that transaction's last batch (the coordinator writes it, with
	// the epoch it holds then, which can be a newer instance's).
	lastWriter := map[int64]writer{}
	out := make([]entry, 0, len(pv.Batches))
	for i := range pv.Batches {
		b := &pv.Batches[i]
		h := &b.Header
		e := entry{base: h.BaseOffset, offsets: strconv.FormatInt(h.BaseOffset, 10)}
		if h.LastOffset() != h.BaseOffset {
			e.offsets = fmt.Sprintf("%d-%d", h.BaseOffset, h.LastOffset())
		}
		id := fmt.Sprintf("id %d e%d", h.ProducerID, h.ProducerEpoch)
		if h.Attributes.Control() {
			kind := control[h.BaseOffset]
			if kind == "" {
				kind = "control"
			}
			who, ok := lastWriter[h.ProducerID]
			if !ok {
				who = writers.byEpoch(h)
			}
			delete(lastWriter, h.ProducerID)
			style := st.Warn
			if kind == "ABORT" {
				style = st.Bad
			}
			e.items = []string{style.Render(fmt.Sprintf("◆ %s marker", kind)), st.Producer(who.index).Render(who.label(id))}
		} else {
			who := writers.of(b)
			if h.Attributes.Transactional() {
				lastWriter[h.ProducerID] = who
			}
			sty := st.Producer(who.index)
			switch {
			case h.ProducerID >= 0:
				e.items = []string{sty.Render(who.label(id)), sty.Render(fmt.Sprintf("seq %d-%d", h.BaseSequence, h.LastSequence()))}
			case who.name == "":
				e.items = []string{sty.Render("plain")}
			default:
				e.items = []string{sty.Render(who.name + " plain")}
			}
			if h.Attributes.Transactional() {
				e.items = append(e.items, fate(st, pv, h))
			}
		}
		e.width = ansi.StringWidth(strings.Join(e.items, " "))
		out = append(out, e)
	}
	return out
}

// fate says what became of a transactional batch's transaction: aborted
// (the leader's index of aborted transactions covers it), still open (at
// or after its producer's open transaction's first offset), or committed.
func fate(st *styles.Styles, pv *sim.PartitionView, h *record.Header) string {
	for _, a := range pv.AbortedTxns {
		if a.ProducerID == h.ProducerID && h.BaseOffset >= a.FirstOffset && h.BaseOffset < a.LastOffset {
			return st.Bad.Render("✗ aborted")
		}
	}
	for _, ps := range pv.Producers {
		if ps.ProducerID == h.ProducerID && ps.TxnFirstOffset >= 0 && h.BaseOffset >= ps.TxnFirstOffset {
			return st.Warn.Render("⧗ open")
		}
	}
	return st.Good.Render("✓ committed")
}

func (m *Model) render() {
	m.need = panel.Need{}
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	pv := m.d.PartitionView()
	if pv == nil {
		m.view = box.Fit(m.st.Muted.Render("no partition"), m.w, m.h)
		return
	}
	head := []string{m.st.Title.Render(pv.Name), fmt.Sprintf("leader b%d", pv.Leader), fmt.Sprintf("epoch %d", pv.LeaderEpoch), fmt.Sprintf("ISR %v", pv.ISR)}
	if pv.Leader == 0 {
		head = []string{m.st.Title.Render(pv.Name) + m.st.Bad.Render(" ✗ offline: no leader"), fmt.Sprintf("ISR %v", pv.ISR)}
	}
	heads := box.Pack(head, " · ", m.w, 2)
	groups, logW := m.logLines(pv)
	n := 0
	for _, g := range groups {
		n += len(g.lines)
	}
	all := m.replicas(pv)
	replicas := all
	// The replicas go one a line while the log keeps its room, else they
	// share lines, else they are summed up; the header leaves out the ISR
	// (the replicas say who is in it) rather than take a second line.
	if len(heads)+n+len(replicas) > m.h {
		replicas = box.Pack(all, " · ", m.w, 0)
		if len(heads) > 1 && pv.Leader != 0 {
			heads = box.Pack(head[:3], " · ", m.w, 2)
		}
	}
	if m.h-len(heads)-len(replicas) < min(n, 4) {
		replicas = box.Pack(summary(m.st, pv), " · ", m.w, 0)
		if pv.Leader != 0 {
			heads = box.Pack(head[:3], " · ", m.w, 2) // the summary marks the ISR
		}
	}
	m.need = panel.Need{Width: max(widest(head, " · "), logW, widest(all, "")), Height: len(heads) + n + len(all)}
	// Short of room, the oldest batches give way, whole; the watermark
	// lines stay, since they say where consumers stop.
	room := m.h - len(heads) - len(replicas)
	dropped := make([]bool, len(groups))
	cut := 0
	earlier := func(cut int) string { return m.st.Muted.Render(fmt.Sprintf("… %d earlier", cut)) }
	inHead := func(cut int) bool {
		return ansi.StringWidth(heads[len(heads)-1])+3+ansi.StringWidth(earlier(cut)) <= m.w
	}
	costs := func() int { // the line the count takes when the header has no room for it
		if cut == 0 || inHead(cut) {
			return 0
		}
		return 1
	}
	for i := 0; i < len(groups) && n+costs() > room; i++ {
		if groups[i].mark {
			continue
		}
		dropped[i] = true
		n -= len(groups[i].lines)
		cut++
	}
	var log []string
	if cut > 0 {
		// Said at the end of the header when it fits there, so that the
		// line it would take goes to a batch.
		if inHead(cut) {
			heads[len(heads)-1] += " · " + earlier(cut)
		} else {
			log = append(log, m.st.Muted.Render(fmt.Sprintf("  … %d earlier batch(es)", cut)))
		}
	}
	for i, g := range groups {
		if !dropped[i] {
			log = append(log, g.lines...)
		}
	}
	lines := append(heads, log...)
	lines = append(lines, replicas...)
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

// widest is how wide items are on one line, joined by sep (each on its own
// line when sep is empty).
func widest(items []string, sep string) int {
	if sep != "" {
		return ansi.StringWidth(strings.Join(items, sep))
	}
	n := 0
	for _, it := range items {
		n = max(n, ansi.StringWidth(it))
	}
	return n
}

// group is the lines of one batch, or a watermark line (mark).
type group struct {
	lines []string
	mark  bool
}

// logLines draws the batches, oldest first, with the high watermark and
// LSO lines where they stand: a line is drawn above the first batch it
// does not cover, so what it makes readable is above it. A batch too wide
// for the panel continues on the next line, under its text. It returns
// the lines, grouped by batch or watermark, and the width the widest
// batch wants on one line.
func (m *Model) logLines(pv *sim.PartitionView) ([]group, int) {
	col := 1
	for _, e := range m.log {
		col = max(col, len(e.offsets))
	}
	var lines []group
	want := 0
	hwDrawn, lsoDrawn := false, false
	marks := func(next int64) {
		if !lsoDrawn && pv.LastStableOffset <= next && pv.LastStableOffset != pv.HighWatermark {
			lso := fmt.Sprintf("LSO %d", pv.LastStableOffset)
			lines = append(lines, group{mark: true, lines: []string{m.st.LastStable.Render(m.fitted("┄┄", lso, "read_committed stops here", "read_committed stops"))}})
			lsoDrawn = true
		}
		if !hwDrawn && pv.HighWatermark <= next {
			hw := fmt.Sprintf("HW %d", pv.HighWatermark)
			if pv.LastStableOffset == pv.HighWatermark {
				hw = fmt.Sprintf("HW = LSO %d", pv.HighWatermark)
				lsoDrawn = true
			}
			lines = append(lines, group{mark: true, lines: []string{m.st.HighWatermark.Render(m.fitted("──", hw, "readable above", "read above"))}})
			hwDrawn = true
		}
	}
	for _, e := range m.log {
		marks(e.base)
		items := append([]string{fmt.Sprintf("  %-*s  ", col, e.offsets) + e.items[0]}, e.items[1:]...)
		want = max(want, 4+col+e.width)
		lines = append(lines, group{lines: box.Pack(items, " ", m.w, 4+col)})
	}
	marks(pv.LogEndOffset)
	if len(m.log) == 0 {
		lines = append([]group{{mark: true, lines: []string{m.st.Muted.Render("  (empty log)")}}}, lines...)
	}
	return lines, want
}

// fitted draws a watermark line as long as the panel allows: "  ── HW 7:
// readable above ──", then shorter forms down to "── HW 7". The line is
// drawn above the first batch at or past its offset, so what it lets a
// consumer read is always above it.
func (m *Model) fitted(rule, mark, long, short string) string {
	for _, s := range []string{
		fmt.Sprintf("  %s %s: %s %s", rule, mark, long, rule),
		fmt.Sprintf("%s %s: %s", rule, mark, long),
		fmt.Sprintf("%s %s: %s", rule, mark, short),
	} {
		if ansi.StringWidth(s) <= m.w {
			return s
		}
	}
	return rule + " " + mark
}

// summary is the replicas in few words, to be packed on a line or two:
// "b1★ b2✓ b3✓", "LEO 5 HW 5" when they agree, else each with its LEO/HW
// ("b2★ 904/900").
func summary(st *styles.Styles, pv *sim.PartitionView) []string {
	if len(pv.Followers) == 0 {
		return nil
	}
	var who, each []string
	same := true
	f := pv.Followers[0]
	for _, r := range pv.Followers {
		g := "✓"
		switch {
		case !r.Alive, !r.Leader && !r.InISR:
			g = "✗"
		case r.Leader:
			g = "★"
		}
		who = append(who, fmt.Sprintf("b%d%s", r.Broker, g))
		each = append(each, st.Muted.Render(fmt.Sprintf("b%d%s %d/%d", r.Broker, g, r.LogEndOffset, r.HighWatermark)))
		same = same && r.LogEndOffset == f.LogEndOffset && r.HighWatermark == f.HighWatermark
	}
	if same {
		return []string{st.Muted.Render(strings.Join(who, " ")), st.Muted.Render(fmt.Sprintf("LEO %d HW %d", f.LogEndOffset, f.HighWatermark))}
	}
	return append(each, st.Muted.Render("(LEO/HW)"))
}

// replicas lists each replica's log end and high watermark.
func (m *Model) replicas(pv *sim.PartitionView) []string {
	var out []string
	for _, r := range pv.Followers {
		s := fmt.Sprintf("b%d LEO %d HW %d", r.Broker, r.LogEndOffset, r.HighWatermark)
		switch {
		case !r.Alive:
			s += " ✗ down"
		case r.Leader:
			s += " ★ leader"
		case r.InISR:
			s += " ✓ ISR"
		default:
			s += " ✗ out of ISR"
		}
		out = append(out, m.st.Muted.Render(s))
	}
	return out
}
