// Package consumers is the panel of consumers side by side (stacked when
// narrow): each one's isolation level, its position in every partition it
// reads, the offsets it has gone past — the ones it returned as numbers,
// the ones it skipped (control markers ◆, aborted records ·) as gaps — and
// the records it returned, newest at the bottom, each tagged with what
// became of its transaction. Above them, every partition they read with
// its high watermark and last stable offset, which is where a
// read_committed consumer stops.
//
// Everything shown is computed in SetData; SetSize only lays it out.
package consumers

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// EmptyText is what the panel says when there is no consumer.
const EmptyText = "no consumer yet (try :consumer c1 read_committed orders-0, then :poll c1)"

// minColumn is the narrowest a consumer's column may be before the
// consumers are stacked instead of set side by side.
const minColumn = 28

// stripSpan is how many offsets below a position the strip considers.
const stripSpan = 400

// Model is the consumers panel.
type Model struct {
	st    *styles.Styles
	w, h  int
	facts facts
	view  string
	need  panel.Need
}

// New returns an empty panel.
func New(st *styles.Styles) Model { return Model{st: st} }

// SetSize sets the inner size.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.render() }

// SetData shows a frame of the engine.
func (m *Model) SetData(d panel.Data) { m.facts = collect(&d); m.render() }

// View renders the panel's inside.
func (m Model) View() string { return m.view }

// Need is the room the panel's content asks for: the width of its widest
// partition line, or of its consumers side by side; the height every
// record would take.
func (m Model) Need() panel.Need { return m.need }

// facts is what the panel shows, decided from one frame.
type facts struct {
	parts []partFacts
	cons  []consFacts
}

// partFacts is one partition some consumer reads.
type partFacts struct {
	name     string
	focus    bool
	hw, lso  int64
	holder   string // the producer whose transaction pins the LSO
	holderAt int64  // that transaction's first offset
	// markerAt is the offset of the holder's marker when its transaction
	// is complete but the marker not yet below the high watermark (-1
	// while the transaction is open); markerType is COMMIT or ABORT.
	markerAt   int64
	markerType string
}

type consFacts struct {
	name, isolation, group string
	committed              bool // read_committed
	parts                  []consPart
	records                []rec
	multi                  bool // reads more than one partition: records name theirs
}

// consPart is a consumer's place in one partition.
type consPart struct {
	tp       string
	pos      int64
	known    bool // the partition exists in the snapshot
	hw, lso  int64
	state    posState
	behind   int64 // offsets left below the limit (LSO or HW)
	strip    []tok
	markers  int
	aborted  int
	notRead  int
	startCut bool // the strip starts after the log's start
}

type posState uint8

const (
	caughtUp posState = iota
	held              // read_committed at the LSO, below the HW
	behind            // more to read: poll again
)

type tokKind uint8

const (
	tokRead    tokKind = iota
	tokMarker          // a control record: never returned
	tokAborted         // a record of an aborted transaction, dropped by read_committed
	tokNotRead         // a data record this consumer never returned (an earlier instance did)
)

type tok struct {
	off  int64
	kind tokKind
}

type tag uint8

const (
	tagPlain     tag = iota
	tagCommitted     // transactional, its transaction committed
	tagOpen          // transactional, its transaction still open here
	tagAborted       // transactional, its transaction aborted
)

type rec struct {
	tp    string
	off   int64
	key   string
	value string
	tag   tag
}

func collect(d *panel.Data) facts {
	var f facts
	s := d.Snap
	if s == nil || len(s.Consumers) == 0 {
		return f
	}
	views := map[string]*sim.PartitionView{}
	for i := range s.Partitions {
		views[s.Partitions[i].Name] = &s.Partitions[i]
	}
	// The partitions read, the one in focus first.
	var names []string
	for _, c := range s.Consumers {
		for _, p := range c.Positions {
			if !contains(names, p.Partition) {
				names = append(names, p.Partition)
			}
		}
	}
	if i := index(names, d.Partition); i > 0 {
		names = append(append([]string{names[i]}, names[:i]...), names[i+1:]...)
	}
	for _, n := range names {
		pv := views[n]
		if pv == nil {
			continue
		}
		pf := partFacts{name: n, focus: n == d.Partition, hw: pv.HighWatermark, lso: pv.LastStableOffset, holderAt: -1, markerAt: -1}
		if pf.lso < pf.hw {
			holder := func(pid int64, epoch int16) string {
				if name, _ := d.ProducerOf(pid, epoch); name != "" {
					return fmt.Sprintf("%s (id %d)", name, pid)
				}
				return fmt.Sprintf("producer id %d", pid)
			}
			for _, ps := range pv.Producers {
				if ps.TxnFirstOffset >= 0 && (pf.holderAt < 0 || ps.TxnFirstOffset < pf.holderAt) {
					pf.holderAt, pf.holder = ps.TxnFirstOffset, holder(ps.ProducerID, ps.Epoch)
				}
			}
			// A completed transaction holds the LSO until the high
			// watermark passes its marker, as an open one does.
			for _, t := range pv.Unreplicated {
				if pf.holderAt < 0 || t.FirstOffset < pf.holderAt {
					pf.holderAt, pf.holder, pf.markerAt, pf.markerType = t.FirstOffset, holder(t.ProducerID, -1), t.LastOffset, "COMMIT"
					if t.Aborted {
						pf.markerType = "ABORT"
					}
				}
			}
		}
		f.parts = append(f.parts, pf)
	}
	for _, c := range s.Consumers {
		f.cons = append(f.cons, consumer(&c, views))
	}
	return f
}

func consumer(c *sim.ConsumerView, views map[string]*sim.PartitionView) consFacts {
	cf := consFacts{name: c.Name, isolation: c.Isolation, group: c.Group, committed: c.Isolation == "read_committed",
		multi: len(c.Positions) > 1}
	read := map[string]map[int64]bool{}
	for _, r := range c.Read {
		tp := r.TP.String()
		if read[tp] == nil {
			read[tp] = map[int64]bool{}
		}
		read[tp][r.Offset] = true
	}
	for _, p := range c.Positions {
		cp := consPart{tp: p.Partition, pos: p.Offset}
		if pv := views[p.Partition]; pv != nil {
			cp.known, cp.hw, cp.lso = true, pv.HighWatermark, pv.LastStableOffset
			limit := cp.hw
			if cf.committed {
				limit = cp.lso
			}
			switch {
			case p.Offset >= cp.hw:
				cp.state = caughtUp
			case p.Offset >= limit:
				cp.state = held
			default:
				cp.state, cp.behind = behind, limit-p.Offset
			}
			cp.strip, cp.startCut = strip(pv, p.Offset, read[p.Partition])
			for _, t := range cp.strip {
				switch t.kind {
				case tokMarker:
					cp.markers++
				case tokAborted:
					cp.aborted++
				case tokNotRead:
					cp.notRead++
				}
			}
		}
		cf.parts = append(cf.parts, cp)
	}
	for _, r := range c.Read {
		tp := r.TP.String()
		rc := rec{tp: tp, off: r.Offset, value: text(r.Value)}
		if r.Key != nil {
			rc.key = text(r.Key)
		}
		if r.Transactional {
			rc.tag = tagCommitted
			if pv := views[tp]; pv != nil {
				rc.tag = txnTag(pv, r.ProducerID, r.Offset)
			}
		}
		cf.records = append(cf.records, rc)
	}
	return cf
}

// strip classifies every offset below the position, from the log's start
// (or the last stripSpan offsets): returned, or skipped and why.
func strip(pv *sim.PartitionView, pos int64, read map[int64]bool) ([]tok, bool) {
	start := pv.LogStartOffset
	cut := false
	if pos-start > stripSpan {
		start, cut = pos-stripSpan, true
	}
	control := map[int64]bool{}
	pid := map[int64]int64{}
	for _, r := range pv.Log {
		if r.Offset < start || r.Offset >= pos {
			continue
		}
		control[r.Offset] = r.Control
		pid[r.Offset] = r.ProducerID
	}
	var out []tok
	for off := start; off < pos; off++ {
		t := tok{off: off}
		p, inLog := pid[off]
		switch {
		case read[off]:
			t.kind = tokRead
		case control[off]:
			t.kind = tokMarker
		case inLog && aborted(pv, p, off):
			t.kind = tokAborted
		default:
			t.kind = tokNotRead
		}
		out = append(out, t)
	}
	return out, cut
}

// aborted reports whether producer pid's record at off belongs to an
// aborted transaction (the leader's index of aborted transactions).
func aborted(pv *sim.PartitionView, pid, off int64) bool {
	for _, a := range pv.AbortedTxns {
		if a.ProducerID == pid && off >= a.FirstOffset && off < a.LastOffset {
			return true
		}
	}
	return false
}

// txnTag says what became of a transactional record's transaction in its
// partition: aborted (in the aborted index), still open (at or past the
// first offset of its producer's open transaction), or committed.
func txnTag(pv *sim.PartitionView, pid, off int64) tag {
	if aborted(pv, pid, off) {
		return tagAborted
	}
	for _, ps := range pv.Producers {
		if ps.ProducerID == pid && ps.TxnFirstOffset >= 0 && off >= ps.TxnFirstOffset {
			return tagOpen
		}
	}
	return tagCommitted
}

// text shows a key or value as it is when printable, else in hex.
func text(b []byte) string {
	if utf8.Valid(b) && strings.IndexFunc(string(b), func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return string(b)
	}
	return fmt.Sprintf("0x%x", b)
}

func contains(ss []string, s string) bool { return index(ss, s) >= 0 }

func index(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

func (m *Model) render() {
	m.need = panel.Need{}
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	f := &m.facts
	if len(f.cons) == 0 {
		m.view = box.Fit(m.st.Muted.Render(box.Wrap(EmptyText, m.w)), m.w, m.h)
		return
	}
	var top []string
	for _, p := range f.parts {
		main, why := m.partLine(p)
		switch {
		case why == "":
			top = append(top, main)
		case ansi.StringWidth(main+": "+why) <= m.w:
			top = append(top, main+m.st.Muted.Render(": "+why))
		default:
			// Too long for one line: the reason goes under it, if room allows.
			top = append(top, main, m.st.Muted.Render("  "+why))
		}
	}
	if len(top) > max(m.h/5, 1) && len(top) > len(f.parts) {
		top = top[:0]
		for _, p := range f.parts {
			main, _ := m.partLine(p)
			top = append(top, main)
		}
	}
	// Keep room for the consumers: at most a fifth of the height on
	// top, else the partitions share lines in a shorter form.
	if room := max(m.h/5, 1); len(top) > room {
		var items []string
		for _, p := range f.parts {
			items = append(items, m.partShort(p))
		}
		top = pack(items, m.w)
		if len(top) > room {
			top = append(top[:room-1], m.st.Muted.Render(fmt.Sprintf("… %d more line(s) of partitions", len(top)-room+1)))
		}
	}
	bodyH := m.h - len(top)
	n := len(f.cons)
	cols := 1
	if m.w >= 2*minColumn+1 && n > 1 {
		cols = min(n, (m.w+1)/(minColumn+1))
	}
	rows := (n + cols - 1) / cols
	tallest := 0
	for i := range f.cons {
		c := &f.cons[i]
		lines := 2 + len(c.parts) + len(c.records)
		for _, p := range c.parts {
			if p.known && len(p.strip) > 0 {
				lines++
				if m.legend(p) != "" {
					lines++
				}
			}
		}
		tallest = max(tallest, lines)
	}
	// Its widest rigid line: a partition's line with its HW and LSO (the
	// reason the LSO is held may go under it), or the consumers side by
	// side, each as wide as its widest line in its long form.
	wide, col := 0, minColumn
	for _, p := range f.parts {
		main, _ := m.partLine(p)
		wide = max(wide, ansi.StringWidth(main))
	}
	for i := range f.cons {
		for _, l := range m.consumer(&f.cons[i], 1<<20, 1<<20) {
			col = max(col, ansi.StringWidth(l))
		}
	}
	// A strip of offsets can be as long as the log: it shortens itself,
	// so a column asks for no more than two minimum columns.
	col = min(col, 2*minColumn)
	wide = max(wide, cols*col+cols-1)
	m.need = panel.Need{Width: wide, Height: len(top) + rows*tallest}
	var blocks []string
	y := 0
	for r := 0; r < rows; r++ {
		rh := bodyH / rows
		if r == rows-1 {
			rh = bodyH - y
		}
		y += rh
		if rh <= 0 {
			continue
		}
		var row []string
		x := 0
		inRow := min(cols, n-r*cols)
		for c := 0; c < inRow; c++ {
			if c > 0 {
				row = append(row, box.Fit(strings.TrimSuffix(strings.Repeat(m.st.Border.Render("│")+"\n", rh), "\n"), 1, rh))
				x++
			}
			cw := (m.w - (cols - 1)) / cols
			if c == inRow-1 {
				cw = m.w - x
			}
			row = append(row, box.Fit(strings.Join(m.consumer(&f.cons[r*cols+c], cw, rh), "\n"), cw, rh))
			x += cw
		}
		blocks = append(blocks, box.Join(row...))
	}
	m.view = box.Fit(box.Stack(strings.Join(top, "\n"), strings.Join(blocks, "\n")), m.w, m.h)
}

// partLine says where a partition's HW and LSO stand and what that means
// for each isolation level; why is what pins the LSO, if anything.
func (m *Model) partLine(p partFacts) (main, why string) {
	name := " " + m.st.Bold.Render(p.name)
	if p.focus {
		name = "▸" + m.st.Bold.Render(p.name)
	}
	if p.lso >= p.hw {
		return name + ": " + m.st.HighWatermark.Render(fmt.Sprintf("HW %d", p.hw)) + " = " +
			m.st.LastStable.Render(fmt.Sprintf("LSO %d", p.lso)) + m.st.Muted.Render(" — nothing open: both isolation levels read to "+strconv.FormatInt(p.hw, 10)), ""
	}
	main = name + ": " + m.st.HighWatermark.Render(fmt.Sprintf("HW %d", p.hw)) + " · " +
		m.st.LastStable.Render(fmt.Sprintf("LSO %d", p.lso)) + " — " + m.st.Warn.Render("read_committed stops at the LSO")
	switch {
	case p.holder != "" && p.markerAt >= 0:
		verb := "committed"
		if p.markerType == "ABORT" {
			verb = "aborted"
		}
		why = fmt.Sprintf("%s %s; LSO %d waits for its %s marker at %d to be replicated", p.holder, verb, p.holderAt, p.markerType, p.markerAt)
	case p.holder != "":
		why = fmt.Sprintf("%s has a transaction open since offset %d", p.holder, p.holderAt)
	}
	return main, why
}

// partShort is partLine in a few words, for when partitions share a line.
func (m *Model) partShort(p partFacts) string {
	name := m.st.Bold.Render(p.name)
	if p.focus {
		name = "▸" + name
	}
	if p.lso >= p.hw {
		return name + " " + m.st.HighWatermark.Render(fmt.Sprintf("HW %d", p.hw)) + " = " + m.st.LastStable.Render(fmt.Sprintf("LSO %d", p.lso))
	}
	return name + " " + m.st.HighWatermark.Render(fmt.Sprintf("HW %d", p.hw)) + " · " + m.st.LastStable.Render(fmt.Sprintf("LSO %d", p.lso)) +
		m.st.Warn.Render(" (read_committed stops at the LSO)")
}

// pack joins items with " · ", starting a new line when the next would
// not fit in w.
func pack(items []string, w int) []string {
	var out []string
	cur, n := "", 0
	for _, it := range items {
		iw := ansi.StringWidth(it)
		switch {
		case n == 0:
			cur, n = it, iw
		case n+3+iw > w:
			out = append(out, cur)
			cur, n = it, iw
		default:
			cur += " · " + it
			n += 3 + iw
		}
	}
	return append(out, cur)
}

// consumer lays one consumer out in w×h: its header and partitions first,
// then as many of its newest records as fit.
func (m *Model) consumer(c *consFacts, w, h int) []string {
	iso := m.st.Good.Render("read_committed")
	if !c.committed {
		iso = m.st.Warn.Render("read_uncommitted")
	}
	head := m.st.Title.Render(c.name) + " · " + iso
	if c.group != "" {
		head += m.st.Muted.Render(" · group " + c.group)
	}
	// What is left for records decides what else is drawn: legends go
	// first, then the label over the records, then the strips.
	strips, legends := 0, 0
	for _, p := range c.parts {
		if p.known && len(p.strip) > 0 {
			strips++
			if m.legend(p) != "" {
				legends++
			}
		}
	}
	want := min(len(c.records), 3)
	room := h - 1 - len(c.parts) - strips - legends - 1
	showLegend, showLabel, showStrip := true, true, true
	if room < want {
		showLegend, room = false, room+legends
	}
	if room < want {
		showLabel, room = false, room+1
	}
	if room < min(want, 1) {
		showStrip = false
	}
	lines := []string{head}
	for _, p := range c.parts {
		lines = append(lines, m.position(c, p, w))
		if !showStrip || !p.known || len(p.strip) == 0 {
			continue
		}
		lines = append(lines, "  "+m.stripText(p, w-2))
		if legend := m.legend(p); showLegend && legend != "" {
			lines = append(lines, "  "+legend)
		}
	}
	if len(c.records) == 0 {
		hint := "returned nothing yet"
		for _, p := range c.parts {
			if p.state == behind {
				hint += " (:poll " + c.name + ")"
				break
			}
		}
		return append(lines, m.st.Muted.Render(hint))
	}
	if showLabel {
		lines = append(lines, m.st.Muted.Render(fmt.Sprintf("returned %d record(s), newest last:", len(c.records))))
	}
	room = h - len(lines)
	if room <= 0 {
		return lines
	}
	recs := c.records
	switch {
	case len(recs) <= room:
	case room == 1:
		recs = recs[len(recs)-1:]
	default:
		cut := len(recs) - room + 1
		lines = append(lines, m.st.Muted.Render(fmt.Sprintf("  … %d earlier", cut)))
		recs = recs[cut:]
	}
	for _, r := range recs {
		lines = append(lines, m.record(c, r))
	}
	return lines
}

func (m *Model) position(c *consFacts, p consPart, w int) string {
	s := fmt.Sprintf(" %s next %d", p.tp, p.pos)
	if !p.known {
		return s + m.st.Muted.Render(" (no such partition)")
	}
	var long, short string
	switch p.state {
	case caughtUp:
		long = m.st.Good.Render(fmt.Sprintf(" ✓ at HW %d", p.hw))
		short = long
	case held:
		long = m.st.Warn.Render(fmt.Sprintf(" ⏸ held at LSO %d < HW %d", p.lso, p.hw))
		short = m.st.Warn.Render(fmt.Sprintf(" ⏸ LSO %d < HW %d", p.lso, p.hw))
	default:
		limit := "HW"
		if c.committed {
			limit = "LSO"
		}
		long = m.st.Muted.Render(fmt.Sprintf(" · %d below %s %d: poll", p.behind, limit, p.pos+p.behind))
		short = m.st.Muted.Render(fmt.Sprintf(" · %d to poll", p.behind))
	}
	if ansi.StringWidth(s+long) <= w {
		return s + long
	}
	return s + short
}

// stripText draws the offsets below the position as one line: returned
// offsets as numbers, skipped ones as ◆ (marker) and · (aborted), so the
// gaps read_committed leaves are visible. Long strips collapse runs, then
// keep their newest end.
func (m *Model) stripText(p consPart, w int) string {
	toks := func(collapse bool) []string {
		var out []string
		for i := 0; i < len(p.strip); {
			j := i
			for j+1 < len(p.strip) && p.strip[j+1].kind == p.strip[i].kind {
				j++
			}
			run := j - i + 1
			if collapse && run >= 3 {
				if p.strip[i].kind == tokRead {
					out = append(out, fmt.Sprintf("%d–%d", p.strip[i].off, p.strip[j].off))
				} else {
					out = append(out, m.glyph(p.strip[i].kind)+"×"+strconv.Itoa(run))
				}
				i = j + 1
				continue
			}
			for k := i; k <= j; k++ {
				if p.strip[k].kind == tokRead {
					out = append(out, strconv.FormatInt(p.strip[k].off, 10))
				} else {
					out = append(out, m.glyph(p.strip[k].kind))
				}
			}
			i = j + 1
		}
		return out
	}
	prefix := ""
	if p.startCut {
		prefix = "… "
	}
	s := prefix + strings.Join(toks(false), " ")
	if ansi.StringWidth(s) <= w {
		return s
	}
	all := toks(true)
	s = prefix + strings.Join(all, " ")
	for len(all) > 1 && ansi.StringWidth(s) > w {
		all = all[1:]
		s = "… " + strings.Join(all, " ")
	}
	return s
}

func (m *Model) glyph(k tokKind) string {
	switch k {
	case tokMarker:
		return m.st.Muted.Render("◆")
	case tokAborted:
		return m.st.Bad.Render("·")
	case tokNotRead:
		return m.st.Faint.Render("-")
	}
	return ""
}

// legend names the skipped offsets in words.
func (m *Model) legend(p consPart) string {
	var parts []string
	if p.markers > 0 {
		parts = append(parts, fmt.Sprintf("◆ %d marker(s)", p.markers))
	}
	if p.aborted > 0 {
		parts = append(parts, fmt.Sprintf("· %d aborted", p.aborted))
	}
	if p.notRead > 0 {
		parts = append(parts, fmt.Sprintf("- %d read before", p.notRead))
	}
	if len(parts) == 0 {
		return ""
	}
	return m.st.Muted.Render("skipped: " + strings.Join(parts, ", "))
}

func (m *Model) record(c *consFacts, r rec) string {
	at := strconv.FormatInt(r.off, 10)
	if c.multi {
		at = r.tp + "@" + at
	}
	s := fmt.Sprintf("  %4s: ", at)
	if r.key != "" {
		s += m.st.Muted.Render(r.key+"=") + r.value
	} else {
		s += r.value
	}
	switch r.tag {
	case tagCommitted:
		s += m.st.Good.Render("  ✓ committed")
	case tagOpen:
		s += m.st.Warn.Render("  ⧗ open txn")
	case tagAborted:
		s += m.st.Bad.Render("  ✗ aborted txn")
	}
	return s
}
