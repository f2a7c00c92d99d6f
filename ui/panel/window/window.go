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
}

// New returns an empty panel.
func New(st *styles.Styles) Model { return Model{st: st} }

// SetSize sets the inner size.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.render() }

// SetData shows a frame of the engine.
func (m *Model) SetData(d panel.Data) { m.d = d; m.render() }

// View renders the panel's inside.
func (m Model) View() string { return m.view }

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
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	pv := m.d.PartitionView()
	if pv == nil {
		m.view = box.Fit(m.st.Muted.Render("no partition in focus"), m.w, m.h)
		return
	}
	dec := m.decision(pv.Name)
	pid := m.producerID(dec)
	var lines []string
	lines = append(lines, m.header(pv, pid, dec))
	lines = append(lines, m.remembered(pv, pid, dec)...)
	if dec != nil {
		lines = append(lines, m.incoming(dec))
		lines = append(lines, m.tree(dec.Decision)...)
		lines = append(lines, strings.Split(box.Wrap(m.verdict(dec), m.w), "\n")...)
	} else {
		lines = append(lines, m.st.Muted.Render("no decision on "+pv.Name+" yet: the tree lights up when a leader judges a batch"))
	}
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

// decision is the latest produce decision on the partition, if it carries
// the checks it made.
func (m *Model) decision(tp string) *trace.Event {
	for i := len(m.d.Trace) - 1; i >= 0; i-- {
		e := &m.d.Trace[i]
		if e.Kind == "produce.decision" && e.Str("partition") == tp && e.Decision != nil {
			return e
		}
	}
	return nil
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
// matches the incoming one.
func (m *Model) remembered(pv *sim.PartitionView, pid int64, dec *trace.Event) []string {
	var entry *sim.ProducerStateView
	for i := range pv.Producers {
		if pv.Producers[i].ProducerID == pid {
			entry = &pv.Producers[i]
		}
	}
	if entry == nil {
		return []string{m.st.Muted.Render("  nothing remembered for it here (an unknown producer id)")}
	}
	out := []string{m.st.Muted.Render(fmt.Sprintf("  epoch %d, last seq %d; %d of 5 kept (seq → offsets):", entry.Epoch, entry.LastSeq, len(entry.Batches)))}
	var in *producerstate.Batch
	if dec != nil && dec.Int("producer_id") == pid {
		in = &dec.Decision.Batch
	}
	for i, b := range entry.Batches {
		line := fmt.Sprintf("  %d  %-9s → %-11s", i+1,
			fmt.Sprintf("%d-%d", b.FirstSeq, b.LastSeq), fmt.Sprintf("%d-%d", b.FirstOffset, b.LastOffset))
		if in != nil && b.FirstSeq == in.BaseSeq && b.LastSeq == in.LastSeq() {
			verdict := dec.Str("outcome")
			note := "◀ incoming: appended"
			if verdict == "duplicate" {
				note = "◀ = incoming: duplicate"
			}
			line = m.st.Outcome(verdict).Render(line + note)
		}
		out = append(out, line)
	}
	return out
}

func (m *Model) incoming(dec *trace.Event) string {
	d := dec.Decision
	b := d.Batch
	s := fmt.Sprintf("incoming: id %d epoch %d seq %d-%d", b.ProducerID, b.Epoch, b.BaseSeq, b.LastSeq())
	if d.EntryLastSeq >= 0 {
		s += fmt.Sprintf(" (next expected %d)", d.ExpectedSeq())
	}
	return m.st.Bold.Render(s)
}

// tree draws the checks in Kafka's order; the answer the engine took is
// lit and marked, the others listed faintly, unasked checks dashed.
func (m *Model) tree(d *producerstate.Decision) []string {
	branches := tree()
	out := make([]string, 0, len(branches))
	last := d.Path.Len() - 1
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
		out = append(out, label+" "+style.Bold(true).Render("▸"+mark+short(taken))+m.st.Faint.Render("  "+strings.Join(others, " · ")))
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

func (m *Model) verdict(dec *trace.Event) string {
	d := dec.Decision
	style := m.st.Outcome(d.Outcome.String())
	head := "⇒ " + strings.ToUpper(d.Outcome.String())
	return style.Bold(true).Render(head) + ": " + dec.Text
}
