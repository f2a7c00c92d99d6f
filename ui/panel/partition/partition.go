// Package partition is the panel of one partition's log as its leader
// holds it: batches by offset, each in its producer's colour with its
// producer id, epoch and sequences, control markers spelt out; the high
// watermark and the last stable offset drawn as lines at their offsets;
// and every replica's log end, high watermark and place in the ISR.
package partition

import (
	"fmt"
	"strings"

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

func (m *Model) render() {
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	pv := m.d.PartitionView()
	if pv == nil {
		m.view = box.Fit(m.st.Muted.Render("no partition"), m.w, m.h)
		return
	}
	head := m.st.Title.Render(pv.Name) + fmt.Sprintf(" · leader b%d · epoch %d · ISR %v", pv.Leader, pv.LeaderEpoch, pv.ISR)
	if pv.Leader == 0 {
		head = m.st.Title.Render(pv.Name) + m.st.Bad.Render(" ✗ offline: no leader") + fmt.Sprintf(" · ISR %v", pv.ISR)
	}
	replicas := m.replicas(pv)
	if m.h-1-len(pv.Batches)-2 < len(replicas) {
		// Short on room: the replicas share one line.
		replicas = []string{strings.Join(replicas, " · ")}
	}
	room := m.h - 1 - len(replicas)
	lines := append([]string{head}, m.log(pv, room)...)
	lines = append(lines, replicas...)
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

// log lists the newest batches that fit in room lines, with the high
// watermark and LSO lines placed above the first batch they do not cover.
func (m *Model) log(pv *sim.PartitionView, room int) []string {
	var lines []string
	hwDrawn, lsoDrawn := false, false
	marks := func(next int64) {
		if !lsoDrawn && pv.LastStableOffset <= next && pv.LastStableOffset != pv.HighWatermark {
			lines = append(lines, m.st.LastStable.Render(fmt.Sprintf("  ┄┄ LSO %d: read_committed stops here ┄┄", pv.LastStableOffset)))
			lsoDrawn = true
		}
		if !hwDrawn && pv.HighWatermark <= next {
			label := fmt.Sprintf("  ── HW %d: readable below ──", pv.HighWatermark)
			if pv.LastStableOffset == pv.HighWatermark {
				label = fmt.Sprintf("  ── HW = LSO %d: readable below ──", pv.HighWatermark)
				lsoDrawn = true
			}
			lines = append(lines, m.st.HighWatermark.Render(label))
			hwDrawn = true
		}
	}
	for _, b := range pv.Batches {
		marks(b.Header.BaseOffset)
		lines = append(lines, m.batch(b))
	}
	marks(pv.LogEndOffset)
	if len(pv.Batches) == 0 {
		lines = append([]string{m.st.Muted.Render("  (empty log)")}, lines...)
	}
	if len(lines) > room && room > 0 {
		cut := len(lines) - room + 1
		lines = append([]string{m.st.Muted.Render(fmt.Sprintf("  … %d earlier line(s)", cut))}, lines[cut:]...)
	}
	return lines
}

func (m *Model) batch(b sim.StoredBatch) string {
	h := b.Header
	name, idx := m.d.ProducerOf(h.ProducerID)
	who := "plain"
	if h.ProducerID >= 0 {
		who = fmt.Sprintf("id %d e%d seq %d-%d", h.ProducerID, h.ProducerEpoch, h.BaseSequence, h.LastSequence())
		if name != "" {
			who = name + " " + who
		}
	}
	s := fmt.Sprintf("  %-11s %s", fmt.Sprintf("%d-%d", h.BaseOffset, h.LastOffset()), who)
	switch {
	case h.Attributes.Control():
		return m.st.Warn.Render(fmt.Sprintf("  %-11d ◆ control marker (id %d e%d)", h.BaseOffset, h.ProducerID, h.ProducerEpoch))
	case h.Attributes.Transactional():
		s += " txn"
	}
	return m.st.Producer(idx).Render(s)
}

// replicas lists each replica's log end and high watermark, one a line.
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
