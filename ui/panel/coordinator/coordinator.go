// Package coordinator is the panel of transactions as their coordinators
// record them in __transaction_state: for each transactional id, the
// broker coordinating it (and the coordinator epoch), the producer id and
// epoch, the state drawn on Kafka's state machine, the partitions in the
// transaction with the marker each one got (or still waits for), and how
// long an open transaction has been open against its timeout. Under it:
// each transactional producer's own view (the client's state), the
// consumer groups' committed offsets, and the side effects applications
// performed outside Kafka, which no transaction covers.
//
// Everything shown is computed in SetData; SetSize only lays it out.
package coordinator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// EmptyText is what the panel says when there is nothing transactional yet.
const EmptyText = "no transactional producer yet (try :producer p1 transactional=tx-1)"

// Model is the coordinator panel.
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

// Need is the room the panel's content asks for at its current width.
func (m Model) Need() panel.Need { return m.need }

// facts is what the panel shows, decided from one frame.
type facts struct {
	empty   bool
	txns    []txnFacts
	orphans []client // transactional producers whose id no coordinator holds yet
	groups  []sim.GroupView
	effects []sim.Effect
}

type txnFacts struct {
	v             sim.TxnView
	coordDown     bool
	clients       []client
	parts         []partFacts
	lastDecision  bool // the partitions are those of the transaction that just ended
	ageMs         int64
	timedOut      bool
	openClockShow bool
}

type partFacts struct {
	name   string
	status markStatus
	offset int64 // the marker's offset, -1 if unknown
	mType  string
}

type markStatus uint8

const (
	open     markStatus = iota // in an Ongoing transaction: no decision, no marker
	written                    // the marker is in the partition's log
	pending                    // the decision is logged, the marker is not acknowledged yet
	stranded                   // the decision is logged, no coordinator is up to send the marker
)

type client struct {
	name     string
	index    int
	txnID    string
	state    string
	pid      int64
	epoch    int16
	fatal    string
	paused   bool
	differs  bool // its producer id or epoch is not the coordinator's
	inFocus  bool
	coordEpo int16
	coordPID int64
}

func collect(d *panel.Data) facts {
	var f facts
	s := d.Snap
	if s == nil {
		f.empty = true
		return f
	}
	f.groups = s.Groups
	f.effects = s.Effects
	alive := map[int]bool{}
	for _, b := range s.Brokers {
		alive[b.ID] = b.Alive
	}
	var clients []client
	for i := range s.Producers {
		p := &s.Producers[i]
		if p.Config.TransactionalID == "" {
			continue
		}
		clients = append(clients, client{name: p.Name, index: i, txnID: p.Config.TransactionalID, state: p.TxnState,
			pid: p.ProducerID, epoch: p.Epoch, fatal: p.FatalError, paused: p.Paused, inFocus: p.Name == d.Producer})
	}
	for _, v := range s.Transactions {
		t := txnFacts{v: v, coordDown: !alive[v.Coordinator]}
		for _, c := range clients {
			if c.txnID == v.TransactionalID {
				c.coordPID, c.coordEpo = v.ProducerID, v.Epoch
				c.differs = c.pid >= 0 && (c.pid != v.ProducerID || c.epoch != v.Epoch)
				t.clients = append(t.clients, c)
			}
		}
		t.parts, t.lastDecision = partitions(&v, t.coordDown, d.Trace)
		if v.State == "Ongoing" {
			t.openClockShow = true
			t.ageMs = s.TimeMs - v.StartMs
			t.timedOut = v.TimeoutMs > 0 && t.ageMs > int64(v.TimeoutMs)
		}
		f.txns = append(f.txns, t)
	}
	// The transaction of the producer in focus first: it is the one the
	// other panels follow, and the first to keep when room is short.
	slices.SortStableFunc(f.txns, func(a, b txnFacts) int { return focusRank(a) - focusRank(b) })
	for _, c := range clients {
		if !slices.ContainsFunc(s.Transactions, func(v sim.TxnView) bool { return v.TransactionalID == c.txnID }) {
			f.orphans = append(f.orphans, c)
		}
	}
	f.empty = len(f.txns) == 0 && len(f.orphans) == 0 && len(f.groups) == 0 && len(f.effects) == 0
	return f
}

func focusRank(t txnFacts) int {
	if slices.ContainsFunc(t.clients, func(c client) bool { return c.inFocus }) {
		return 0
	}
	return 1
}

// partitions says, for each partition of the transaction, where its
// marker stands. In a Complete state the coordinator has forgotten the
// partitions; the trace still has the markers the last decision wrote.
func partitions(v *sim.TxnView, coordDown bool, tr trace.Log) ([]partFacts, bool) {
	typ := ""
	switch v.State {
	case "PrepareCommit", "CompleteCommit":
		typ = "COMMIT"
	case "PrepareAbort", "CompleteAbort", "PrepareEpochFence":
		typ = "ABORT"
	}
	var marks map[string]int64
	if typ != "" {
		marks = markersSinceDecision(v, tr)
	}
	var out []partFacts
	for _, p := range v.Partitions {
		pf := partFacts{name: p, offset: -1, mType: typ}
		switch {
		case v.State == "Ongoing" || v.State == "PrepareEpochFence":
			pf.status = open
		case slices.Contains(v.PendingMarkers, p):
			pf.status = pending
			if mk, ok := marks[p]; ok {
				pf.offset = mk // written, its acknowledgement still on its way
			}
		case coordDown:
			pf.status = stranded
			if mk, ok := marks[p]; ok {
				pf.status, pf.offset = written, mk
			}
		default:
			pf.status = written
			if mk, ok := marks[p]; ok {
				pf.offset = mk
			}
		}
		out = append(out, pf)
	}
	if len(v.Partitions) == 0 && (v.State == "CompleteCommit" || v.State == "CompleteAbort") && len(marks) > 0 {
		names := make([]string, 0, len(marks))
		for p := range marks {
			names = append(names, p)
		}
		slices.Sort(names)
		for _, p := range names {
			out = append(out, partFacts{name: p, status: written, offset: marks[p], mType: typ})
		}
		return out, true
	}
	return out, false
}

// markersSinceDecision finds, in the trace, the markers written for the
// transaction's producer id since its coordinator last logged a decision
// (PrepareCommit or PrepareAbort): partition → the marker's offset.
func markersSinceDecision(v *sim.TxnView, tr trace.Log) map[string]int64 {
	out := map[string]int64{}
	for _, e := range tr.Backward() {
		switch e.Kind {
		case "txn.marker":
			if e.Int("producer_id") == v.ProducerID {
				if _, seen := out[e.Str("partition")]; !seen {
					out[e.Str("partition")] = e.Int("offset")
				}
			}
		case "txn.state":
			if e.Str("transactional_id") == v.TransactionalID {
				if to := e.Str("to"); to == "PrepareCommit" || to == "PrepareAbort" {
					return out
				}
			}
		}
	}
	return out
}

// line is one line of the panel with how much it matters when the panel
// is short of room (the least important lines go first).
type line struct {
	s    string
	prio int
}

func (m *Model) render() {
	m.need = panel.Need{}
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	f := &m.facts
	if f.empty {
		m.view = box.Fit(m.st.Muted.Render(box.Wrap(EmptyText, m.w)), m.w, m.h)
		return
	}
	var ls []line
	for i := range f.txns {
		if i > 0 {
			ls = append(ls, line{"", 10})
		}
		ls = append(ls, m.txn(&f.txns[i])...)
	}
	if len(f.txns) == 0 {
		for _, l := range strings.Split(box.Wrap(EmptyText, m.w), "\n") {
			ls = append(ls, line{m.st.Muted.Render(l), 90})
		}
	}
	for _, c := range f.orphans {
		main, detail := m.clientText(c, true)
		ls = append(ls, m.split(main, detail, 80, 75)...)
	}
	if len(f.groups) > 0 {
		ls = append(ls, line{"", 10})
		for _, g := range f.groups {
			main, detail := m.group(g)
			ls = append(ls, m.split(main, detail, 40, 35)...)
		}
	}
	if len(f.effects) > 0 {
		ls = append(ls, line{"", 10}, line{m.st.Bold.Render("outside Kafka") + m.st.Muted.Render(" — effects no transaction can undo:"), 30})
		for i, e := range f.effects {
			// The oldest effects go first when room is short; narrow, the
			// heading above says what the suffix would.
			s := m.st.Warn.Render("  ⚠ ") + fmt.Sprintf("%s performed %s at step %d", e.App, e.Label, e.Step)
			if suffix := m.st.Muted.Render(" — outside any transaction"); ansi.StringWidth(s+suffix) <= m.w {
				s += suffix
			}
			ls = append(ls, line{s, 20 + min(i, 9)})
		}
	}
	// A line too long for the panel continues under its text rather than
	// losing its end; it stays one unit when lines are squeezed out.
	n := 0
	for i := range ls {
		plain := ansi.Strip(ls[i].s)
		indent := len(plain) - len(strings.TrimLeft(plain, " ")) + 2
		ls[i].s = strings.Join(box.Reflow(ls[i].s, m.w, indent), "\n")
		n += strings.Count(ls[i].s, "\n") + 1
	}
	m.need = panel.Need{Height: n} // its lines flow to any width
	m.view = box.Fit(strings.Join(squeeze(ls, m.h), "\n"), m.w, m.h)
}

// squeeze drops the least important lines (the last of them first) until
// the rest fit in h lines, and blank lines at the ends. A line may hold
// several rows (a wrapped one); it goes or stays whole.
func squeeze(ls []line, h int) []string {
	rows := func() int {
		n := 0
		for _, l := range ls {
			n += strings.Count(l.s, "\n") + 1
		}
		return n
	}
	for len(ls) > 0 && rows() > h {
		lo := 0
		for i := range ls {
			if ls[i].prio <= ls[lo].prio {
				lo = i
			}
		}
		ls = slices.Delete(ls, lo, lo+1)
	}
	for len(ls) > 0 && ls[0].s == "" {
		ls = ls[1:]
	}
	out := make([]string, len(ls))
	for i := range ls {
		out[i] = ls[i].s
	}
	return out
}

func (m *Model) txn(t *txnFacts) []line {
	v := &t.v
	head := m.st.Title.Render(v.TransactionalID) + fmt.Sprintf(" · coordinator b%d", v.Coordinator)
	if t.coordDown {
		head += m.st.Bad.Render(" ✗ down")
	}
	where := fmt.Sprintf("(__transaction_state-%d, coordinator epoch %d)", v.StatePartition, v.CoordinatorEpoch)
	ls := []line{{head + " " + where, 100}}
	if ansi.StringWidth(ls[0].s) > m.w {
		// Narrow: where the coordinator keeps the state on a line of its own.
		ls = []line{{head, 100}, {m.st.Muted.Render("  " + where), 55}}
	}
	ls = append(ls, line{"  " + m.path(v.State), 90})
	ls = append(ls, line{m.st.Muted.Render("  " + meaning(v.State)), 50})
	ls = append(ls, line{fmt.Sprintf("  producer id %d · epoch %d", v.ProducerID, v.Epoch), 70})
	for _, c := range t.clients {
		main, detail := m.clientText(c, false)
		ls = append(ls, m.split("  "+main, detail, 60, 45)...)
	}
	for _, s := range m.partLines(t) {
		ls = append(ls, line{s, 80})
	}
	if t.openClockShow {
		ls = append(ls, line{"  " + m.clock(t), 70})
	}
	return ls
}

// pathOf is the way through the state machine to state: the states
// passed, the state itself, the states that may follow.
func pathOf(state string) (before []string, after []string) {
	switch state {
	case "Empty":
		return nil, []string{"Ongoing", "Prepare…", "Complete…"}
	case "Ongoing":
		return []string{"Empty"}, []string{"PrepareCommit | PrepareAbort", "Complete…"}
	case "PrepareCommit":
		return []string{"Empty", "Ongoing"}, []string{"CompleteCommit"}
	case "CompleteCommit":
		return []string{"Empty", "Ongoing", "PrepareCommit"}, nil
	case "PrepareAbort":
		return []string{"Empty", "Ongoing"}, []string{"CompleteAbort"}
	case "CompleteAbort":
		return []string{"Empty", "Ongoing", "PrepareAbort"}, nil
	case "PrepareEpochFence":
		return []string{"Empty", "Ongoing"}, []string{"PrepareAbort", "CompleteAbort"}
	case "Dead":
		return []string{"Empty"}, nil
	}
	return nil, nil
}

// path draws the state on its path, the current one marked by a glyph and
// brackets as well as colour; states still to come are dimmed.
func (m *Model) path(state string) string {
	before, after := pathOf(state)
	var parts []string
	for _, s := range before {
		parts = append(parts, m.st.Muted.Render(s))
	}
	parts = append(parts, m.st.Title.Render("▶["+state+"]"))
	for _, s := range after {
		parts = append(parts, m.st.Faint.Render(s))
	}
	full := strings.Join(parts, m.st.Muted.Render(" → "))
	if ansi.StringWidth(full) <= m.w-2 {
		return full
	}
	// Narrow: the state with its neighbours only.
	short := m.st.Title.Render("▶[" + state + "]")
	if len(before) > 0 {
		short = m.st.Muted.Render("… → ") + short
	}
	if len(after) > 0 {
		short += m.st.Muted.Render(" → ") + m.st.Faint.Render(after[0])
	}
	return short
}

func meaning(state string) string {
	switch state {
	case "Empty":
		return "no transaction open"
	case "Ongoing":
		return "open: partitions added, nothing decided yet"
	case "PrepareCommit":
		return "commit decided and logged: COMMIT markers are being written"
	case "PrepareAbort":
		return "abort decided and logged: ABORT markers are being written"
	case "CompleteCommit":
		return "committed: every partition has its COMMIT marker"
	case "CompleteAbort":
		return "aborted: every partition has its ABORT marker"
	case "PrepareEpochFence":
		return "an older epoch is being fenced: the open transaction will be aborted"
	case "Dead":
		return "expired: the transactional id is forgotten"
	}
	return ""
}

// partLines lists the transaction's partitions with their markers, as
// many to a line as fit.
func (m *Model) partLines(t *txnFacts) []string {
	label := "  partitions "
	if t.lastDecision {
		label = "  markers    "
	}
	if len(t.parts) == 0 {
		switch t.v.State {
		case "CompleteCommit", "CompleteAbort":
			return []string{label + m.st.Good.Render("✓ every marker written")}
		}
		return []string{label + m.st.Muted.Render("none yet")}
	}
	var items []string
	for _, p := range t.parts {
		items = append(items, m.part(p))
	}
	return pack(label, items, m.w)
}

func (m *Model) part(p partFacts) string {
	switch p.status {
	case written:
		s := fmt.Sprintf("%s ✓ %s marker", p.name, p.mType)
		if p.offset >= 0 {
			s += fmt.Sprintf(" @%d", p.offset)
		}
		return m.st.Good.Render(s)
	case pending:
		if p.offset >= 0 {
			return m.st.Warn.Render(fmt.Sprintf("%s ⧗ %s marker @%d, not acknowledged yet", p.name, p.mType, p.offset))
		}
		return m.st.Warn.Render(fmt.Sprintf("%s ⧗ %s marker pending", p.name, p.mType))
	case stranded:
		return m.st.Bad.Render(fmt.Sprintf("%s ⧗ %s marker waits for a coordinator", p.name, p.mType))
	}
	return p.name + m.st.Muted.Render(" ○ open, no marker yet")
}

// pack joins items with " · " after label, starting a new (indented)
// line when the next item would not fit in w.
func pack(label string, items []string, w int) []string {
	var out []string
	cur, n := label, ansi.StringWidth(label)
	indent := strings.Repeat(" ", n)
	first := true
	for _, it := range items {
		iw := ansi.StringWidth(it)
		switch {
		case first:
			cur += it
			n += iw
		case n+3+iw > w:
			out = append(out, cur)
			cur, n = indent+it, len(indent)+iw
		default:
			cur += " · " + it
			n += 3 + iw
		}
		first = false
	}
	return append(out, cur)
}

// clock is the time an open transaction has been open against its timeout.
func (m *Model) clock(t *txnFacts) string {
	s := fmt.Sprintf("open for %s of transaction.timeout.ms %s", duration(t.ageMs), duration(int64(t.v.TimeoutMs)))
	if t.timedOut {
		return m.st.Bad.Render("⌛ " + s + ": past it, the coordinator aborts")
	}
	if t.v.TimeoutMs > 0 {
		const cells = 10
		filled := int(min(t.ageMs*cells/int64(t.v.TimeoutMs), cells))
		s += " " + m.st.Muted.Render("["+strings.Repeat("█", filled)+strings.Repeat("░", cells-filled)+"]")
	}
	return s
}

func duration(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms%1000 == 0:
		return fmt.Sprintf("%d s", ms/1000)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// split is main and detail on one line when they fit, else detail on a
// line of its own under main, indented, and less important.
func (m *Model) split(main, detail string, prio, detailPrio int) []line {
	if detail == "" {
		return []line{{main, prio}}
	}
	if ansi.StringWidth(main+" · "+detail) <= m.w {
		return []line{{main + " · " + detail, prio}}
	}
	return []line{{main, prio}, {"      " + detail, detailPrio}}
}

// clientText is a transactional producer's own view of its transaction:
// its name and state, then the detail (the id and epoch it holds).
func (m *Model) clientText(c client, withID bool) (main, detail string) {
	name := m.st.Producer(c.index).Bold(true).Render(c.name)
	if c.inFocus {
		name = "▸" + name
	}
	s := "client " + name
	if withID {
		s = name + " · " + m.st.Title.Render(c.txnID)
	}
	st := m.clientState(c.state)
	s += " " + st
	switch {
	case c.fatal != "" && c.state == "FATAL_ERROR":
		s += m.st.Bad.Render(" (" + c.fatal + ")")
	case c.fatal != "":
		s += m.st.Bad.Render(" ✗ " + c.fatal)
	}
	if c.paused {
		s += m.st.Fenced.Render(" ⏸ paused")
	}
	d := ""
	if c.pid >= 0 {
		d = fmt.Sprintf("holds id %d epoch %d", c.pid, c.epoch)
	}
	if c.differs {
		d += m.st.Warn.Render(fmt.Sprintf(" ≠ coordinator's id %d epoch %d", c.coordPID, c.coordEpo))
	}
	if withID {
		if d != "" {
			d += " · "
		}
		d += m.st.Muted.Render("not yet known to its coordinator")
	}
	return s, d
}

// clientState is the client's TransactionManager state with a glyph.
func (m *Model) clientState(state string) string {
	switch state {
	case "READY":
		return m.st.Good.Render("✓ READY")
	case "IN_TRANSACTION":
		return m.st.Accent.Render("● IN_TRANSACTION")
	case "COMMITTING_TRANSACTION", "ABORTING_TRANSACTION":
		return m.st.Warn.Render("⧗ " + state)
	case "ABORTABLE_ERROR":
		return m.st.Warn.Render("⚠ ABORTABLE_ERROR (must abort)")
	case "FATAL_ERROR":
		return m.st.Bad.Render("✗ FATAL_ERROR")
	}
	return m.st.Muted.Render("○ " + state)
}

// group is a consumer group's coordinator and, as detail, its committed
// offsets.
func (m *Model) group(g sim.GroupView) (main, detail string) {
	main = m.st.Bold.Render("group "+g.Group) + fmt.Sprintf(" · coordinator b%d", g.Coordinator)
	if len(g.Committed) == 0 {
		return main, m.st.Muted.Render("committed nothing yet")
	}
	var parts []string
	for _, p := range g.Committed {
		parts = append(parts, fmt.Sprintf("%s @%d", p.Partition, p.Offset))
	}
	return main, "committed " + strings.Join(parts, ", ")
}
