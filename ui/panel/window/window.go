// Package window is the panel of the broker's memory: the partition
// leader's (up to) five remembered batches for one producer, the incoming
// batch of the latest decision compared against them, and the decision
// tree with the path the engine took lit — known producer? duplicate in
// the window? epoch? sequence next, gap, overlap or before the window?
//
// Everything shown comes from the snapshot and the decision's recorded
// path; the panel draws the tree, it does not evaluate it.
package window

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/engine/producerstate"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// Model is the window panel.
type Model struct {
	st   *styles.Styles
	w, h int
	d    panel.Data
	view string
	need panel.Need
}

// New returns an empty panel.
func New(st *styles.Styles) Model { return Model{st: st} }

// SetSize sets the inner size.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.render() }

// SetData shows a frame of the engine.
func (m *Model) SetData(d panel.Data) { m.d = d; m.render() }

// View renders the panel's inside.
func (m Model) View() string { return m.view }

// Need is the room the panel's content asks for at its current width.
func (m Model) Need() panel.Need { return m.need }

// branch is one check of the tree, in Kafka's order, with its answers.
type branch struct {
	check   producerstate.Check
	label   string
	answers []producerstate.Result
}

// tree lists the checks in Kafka's order with their possible answers.
func tree() []branch {
	return []branch{
		{producerstate.CheckProducer, "known PID?", []producerstate.Result{producerstate.Known, producerstate.Unknown}},
		{producerstate.CheckDuplicate, "duplicate?", []producerstate.Result{producerstate.DuplicateFound, producerstate.NotDuplicate}},
		{producerstate.CheckEpoch, "epoch?", []producerstate.Result{producerstate.EpochEqual, producerstate.EpochHigher, producerstate.EpochLower, producerstate.EpochFirst}},
		{producerstate.CheckSequence, "sequence?", []producerstate.Result{producerstate.SeqNext, producerstate.SeqGap, producerstate.SeqOverlap,
			producerstate.SeqBeforeWindow, producerstate.SeqAny, producerstate.SeqZeroForNewEpoch, producerstate.SeqNonZeroForNewEpoch}},
		{producerstate.CheckTransaction, "transaction?", []producerstate.Result{producerstate.TxnBegins, producerstate.TxnContinues, producerstate.TxnExpected}},
	}
}

func (m *Model) render() {
	m.need = panel.Need{}
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	pv := m.d.PartitionView()
	if pv == nil {
		m.view = box.Fit(m.st.Muted.Render("no partition in focus"), m.w, m.h)
		return
	}
	dec, d := m.decision(pv.Name)
	pid := m.producerID(dec)
	head := box.Reflow(m.header(pv, pid, dec), m.w, 2)
	if dec == nil {
		lines := head
		if pid >= 0 {
			lines = append(lines, m.remembered(pv, pid, dec, d, false)...)
		}
		lines = append(lines, box.Reflow(m.st.Muted.Render("no decision on "+pv.Name+" yet: the tree lights up when a leader judges a batch"), m.w, 0)...)
		m.need = panel.Need{Width: m.want(pv, pid, dec, d), Height: len(lines)}
		m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
		return
	}
	// The verdict is what the panel is for: it is drawn whole, and when
	// rows are short the rest gives way — first the batches the incoming
	// one does not match, then the checks never asked, folded into one
	// line, then the header and the window — before anything is cut.
	verdict := box.Reflow(m.verdict(dec, d), m.w, 0)
	incoming := box.Reflow(m.incoming(d), m.w, 2)
	// The first way of folding that fits without the answers' extra
	// lines is kept; the rows left then go to those lines.
	build := func(fold folding, spare int) []string {
		head, mem := head, m.remembered(pv, pid, dec, d, fold.others)
		if fold.head {
			head, mem = nil, nil
		}
		checks := m.tree(d, fold.unasked, len(tree())+spare)
		return append(append(append(append(append([]string{}, head...), mem...), incoming...), checks...), verdict...)
	}
	// What it needs: every line, the answers not taken counted rather
	// than listed on lines of their own (those only take rows to spare).
	m.need = panel.Need{Width: m.want(pv, pid, dec, d), Height: len(build(folding{}, 0))}
	var fold folding
	for _, fold = range []folding{{}, {others: true}, {true, true, false}, {true, true, true}} {
		if len(build(fold, 0)) <= m.h {
			break
		}
	}
	lines := build(fold, max(m.h-len(build(fold, 0)), 0))
	if len(lines) > m.h {
		// Still too tall: keep the verdict and the path that leads to it.
		lines = lines[len(lines)-m.h:]
	}
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

// folding is what the panel leaves out when rows are short: the batches
// the incoming one does not match, the checks never asked (one line for
// all), the header and window.
type folding struct{ others, unasked, head bool }

// decision is the latest produce decision on the partition, if it carries
// the checks it made, with the decision unpacked once for the render.
func (m *Model) decision(tp string) (*trace.Event, *producerstate.Decision) {
	for _, e := range m.d.Trace.Backward() {
		if e.Kind == "produce.decision" && e.Str("partition") == tp && e.HasDecision() {
			return e, e.Decision()
		}
	}
	return nil, nil
}

// producerID is whose window to show: the producer in focus if it has an
// id, else the one the latest decision was about.
func (m *Model) producerID(dec *trace.Event) int64 {
	if p := m.d.ProducerView(m.d.Producer); p != nil && p.ProducerID >= 0 {
		if dec == nil || dec.Int("producer_id") < 0 || dec.Str("producer") == p.Name {
			return p.ProducerID
		}
	}
	if dec != nil {
		return dec.Int("producer_id")
	}
	return -1
}

// header names whose window is shown: the producer the decision names
// when it is about this id (two clients can share an id, a zombie and the
// instance that fenced it), else the holder of the id at the epoch the
// leader remembers.
func (m *Model) header(pv *sim.PartitionView, pid int64, dec *trace.Event) string {
	who := "no idempotent producer"
	if pid >= 0 {
		who = fmt.Sprintf("producer id %d", pid)
		name, i := "", -1
		if dec != nil && dec.Int("producer_id") == pid && dec.Str("producer") != "" {
			name = dec.Str("producer")
			i = m.d.ProducerIndex(name)
		} else {
			epoch := int16(0)
			for _, e := range pv.Producers {
				if e.ProducerID == pid {
					epoch = e.Epoch
				}
			}
			name, i = m.d.ProducerOf(pid, epoch)
		}
		if name != "" {
			who = m.st.Producer(i).Render(fmt.Sprintf("%s (id %d)", name, pid))
		}
	}
	return m.st.Title.Render(pv.Name) + m.st.Muted.Render(fmt.Sprintf(" · leader broker %d remembers ", pv.Leader)) + who
}

// remembered lists the window oldest first, marking the batch that
// matches the incoming one; folded, it keeps only that batch.
func (m *Model) remembered(pv *sim.PartitionView, pid int64, dec *trace.Event, d *producerstate.Decision, fold bool) []string {
	entry := m.entry(pv, pid)
	if entry == nil {
		return box.Reflow(m.st.Muted.Render("  nothing remembered for it here (an unknown producer id)"), m.w, 2)
	}
	out := box.Reflow(m.st.Muted.Render(fmt.Sprintf("  epoch %d, last seq %d; %d of 5 kept (seq → offsets):", entry.Epoch, entry.LastSeq, len(entry.Batches))), m.w, 2)
	var in *producerstate.Batch
	if dec != nil && dec.Int("producer_id") == pid {
		in = &d.Batch
	}
	for i, b := range entry.Batches {
		line := fmt.Sprintf("  %d  %-9s → %-11s", i+1,
			fmt.Sprintf("%d-%d", b.FirstSeq, b.LastSeq), fmt.Sprintf("%d-%d", b.FirstOffset, b.LastOffset))
		if in == nil || b.FirstSeq != in.BaseSeq || b.LastSeq != in.LastSeq() {
			if !fold {
				out = append(out, line)
			}
			continue
		}
		verdict := dec.Str("outcome")
		note := "◀ incoming: appended"
		if verdict == "duplicate" {
			note = "◀ = incoming: duplicate"
		}
		for _, l := range box.Pack([]string{line, note}, "", m.w, 5) {
			out = append(out, m.st.Outcome(verdict).Render(l))
		}
	}
	return out
}

// entry is the leader's memory of producer id pid on the partition.
func (m *Model) entry(pv *sim.PartitionView, pid int64) *sim.ProducerStateView {
	var entry *sim.ProducerStateView
	for i := range pv.Producers {
		if pv.Producers[i].ProducerID == pid {
			entry = &pv.Producers[i]
		}
	}
	return entry
}

// want is how wide the panel's widest line is when nothing wraps: the
// header, the window's rows, the incoming batch and each check with every
// answer it has (the verdict flows to any width).
func (m *Model) want(pv *sim.PartitionView, pid int64, dec *trace.Event, d *producerstate.Decision) int {
	n := ansi.StringWidth(m.header(pv, pid, dec))
	if dec == nil {
		return n
	}
	n = max(n, ansi.StringWidth(m.incoming(d)), 2+1+2+9+3+11+len("◀ = incoming: duplicate"))
	for _, br := range tree() {
		taken := d.Path.Result(br.check)
		if taken == 0 {
			continue
		}
		var others []string
		for _, a := range br.answers {
			if a != taken {
				others = append(others, short(a))
			}
		}
		// "├ sequence?     ▸✓ next  gap · overlap · …": the answers not
		// taken can go on lines of their own, one at least on the first.
		longest := 0
		for _, o := range others {
			longest = max(longest, len(o))
		}
		n = max(n, 15+1+3+len(short(taken))+2+longest)
	}
	return n
}

func (m *Model) incoming(d *producerstate.Decision) string {
	b := d.Batch
	s := fmt.Sprintf("incoming: id %d epoch %d seq %d-%d", b.ProducerID, b.Epoch, b.BaseSeq, b.LastSeq())
	if d.EntryLastSeq >= 0 {
		s += fmt.Sprintf(" (next expected %d)", d.ExpectedSeq())
	}
	return m.st.Bold.Render(s)
}

// tree draws the checks in Kafka's order; the answer the engine took is
// lit and marked, the others listed faintly, unasked checks dashed
// (folded, in one line). The answers not taken continue on the next line
// while spare rows last (room less the five checks), else as many as fit
// are listed and the rest counted.
func (m *Model) tree(d *producerstate.Decision, fold bool, room int) []string {
	branches := tree()
	spare := room - len(branches)
	out := make([]string, 0, len(branches))
	last := d.Path.Len() - 1
	var unasked []string
	for i, br := range branches {
		prefix := "├ "
		if i == 0 {
			prefix = "┌ "
		} else if i == len(branches)-1 {
			prefix = "└ "
		}
		taken := d.Path.Result(br.check)
		label := fmt.Sprintf("%s%-13s", prefix, br.label)
		if taken == 0 {
			if fold {
				unasked = append(unasked, br.label)
				continue
			}
			out = append(out, m.st.Faint.Render(label+" — not asked"))
			continue
		}
		mark, style := "✓ ", m.st.Good
		if last >= 0 && d.Path.Step(last).Check == br.check && d.Outcome != producerstate.Append {
			mark, style = "✗ ", m.st.Outcome(d.Outcome.String())
			if d.Outcome == producerstate.Duplicate {
				mark = "= "
			}
		}
		var others []string
		for _, a := range br.answers {
			if a != taken {
				others = append(others, short(a))
			}
		}
		lead := label + " " + style.Bold(true).Render("▸"+mark+short(taken))
		lines := m.answers(lead, others, spare)
		spare -= len(lines) - 1
		out = append(out, lines...)
	}
	if len(unasked) > 0 {
		out = append(out, m.st.Faint.Render("└ "+strings.Join(unasked, " ")+" — not asked"))
	}
	return out
}

// answers puts the answers not taken after lead, faint: on the same line
// and, while spare rows last, on lines under it; what still does not fit
// is counted ("+3").
func (m *Model) answers(lead string, others []string, spare int) []string {
	const indent = 16 // under the answer taken
	lines := [][]string{nil}
	room := []int{m.w - ansi.StringWidth(lead) - 2}
	used := 0
	for i, a := range others {
		sep := 0
		if len(lines[len(lines)-1]) > 0 {
			sep = 3
		}
		if used+sep+len(a) <= room[len(room)-1] {
			lines[len(lines)-1] = append(lines[len(lines)-1], a)
			used += sep + len(a)
			continue
		}
		if spare > 0 && indent+len(a) <= m.w {
			spare--
			lines = append(lines, []string{a})
			room = append(room, m.w-indent)
			used = len(a)
			continue
		}
		// Out of rows: count the rest, making room for the count.
		last := lines[len(lines)-1]
		rest := len(others) - i
		for len(last) > 0 && used+len(fmt.Sprintf(" +%d", rest)) > room[len(room)-1] {
			used -= len(last[len(last)-1])
			if len(last) > 1 {
				used -= 3
			}
			last, rest = last[:len(last)-1], rest+1
		}
		lines[len(lines)-1] = append(last, fmt.Sprintf("+%d", rest))
		break
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		text := strings.Join(l, " · ")
		if n := len(l); n > 1 && strings.HasPrefix(l[n-1], "+") {
			text = strings.Join(l[:n-1], " · ") + " " + l[n-1]
		}
		if i == 0 {
			out[i] = lead + m.st.Faint.Render("  "+text)
			continue
		}
		out[i] = strings.Repeat(" ", indent) + m.st.Faint.Render(text)
	}
	return out
}

// short drops the check's prefix from an answer's name ("seq-gap" → "gap").
func short(r producerstate.Result) string {
	s := r.String()
	for _, p := range []string{"seq-", "epoch-", "txn-"} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

func (m *Model) verdict(dec *trace.Event, d *producerstate.Decision) string {
	style := m.st.Outcome(d.Outcome.String())
	head := "⇒ " + strings.ToUpper(d.Outcome.String())
	return style.Bold(true).Render(head) + ": " + dec.Text()
}
