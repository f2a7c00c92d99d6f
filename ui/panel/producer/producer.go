// Package producer is the panel of producer clients: each one's producer
// id, epoch and mode, its bookkeeping per partition (next sequence to
// assign, last acknowledged sequence and offset) and its most recent
// batches with their state, each state spelt out next to its glyph.
package producer

import (
	"fmt"
	"strings"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// Model is the producer panel.
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

// glyph marks a batch state so that colour is not needed to read it.
func glyph(state string) string {
	switch state {
	case "queued":
		return "○"
	case "sent":
		return "→"
	case "retrying":
		return "↻"
	case "acked":
		return "✓"
	case "failed":
		return "✗"
	case "expired":
		return "⌛"
	}
	return "?"
}

func (m *Model) render() {
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	if m.d.Snap == nil || len(m.d.Snap.Producers) == 0 {
		m.view = box.Fit(m.st.Muted.Render("no producer yet (try :producer p1)"), m.w, m.h)
		return
	}
	var lines []string
	for i := range m.d.Snap.Producers {
		lines = append(lines, m.producer(i)...)
	}
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

func (m *Model) producer(i int) []string {
	p := &m.d.Snap.Producers[i]
	name := m.st.Producer(i).Bold(true).Render(p.Name)
	if p.Name == m.d.Producer {
		name = "▸" + name
	} else {
		name = " " + name
	}
	head := fmt.Sprintf("%s %s", name, modeText(p))
	switch {
	case p.Failed:
		head += m.st.Bad.Render(" ✗ not started (configuration error)")
	case p.FatalError != "":
		head += m.st.Bad.Render(" ✗ fatal " + p.FatalError)
	}
	if p.Paused {
		head += m.st.Fenced.Render(" ⏸ paused")
	}
	out := []string{head}
	for _, pp := range p.Partitions {
		acked := "none acked"
		if pp.LastAckedSeq >= 0 {
			acked = fmt.Sprintf("acked ≤%d @%d", pp.LastAckedSeq, pp.LastAckedOffset)
		}
		out = append(out, m.st.Muted.Render(fmt.Sprintf("   %s next seq %d · %s · %d queued · %d in flight",
			pp.TP, pp.NextSeq, acked, pp.Queued, pp.Outstanding)))
	}
	if bs := batches(p, m.w-3); bs != "" {
		out = append(out, "   "+bs)
	}
	return out
}

func modeText(p *sim.ProducerView) string {
	if p.ProducerID < 0 {
		if p.Mode == "plain" {
			return "plain · no id: a retry can duplicate"
		}
		return p.Mode + " · waiting for a producer id"
	}
	return fmt.Sprintf("%s · id %d epoch %d", p.Mode, p.ProducerID, p.Epoch)
}

// batches lists the most recent batches that fit in width w.
func batches(p *sim.ProducerView, w int) string {
	var parts []string
	used := 0
	for i := len(p.Batches) - 1; i >= 0; i-- {
		b := p.Batches[i]
		s := fmt.Sprintf("#%d %s %s", b.ID, glyph(b.State), b.State)
		if b.BaseSeq >= 0 {
			s = fmt.Sprintf("#%d seq %d-%d %s %s", b.ID, b.BaseSeq, b.LastSeq, glyph(b.State), b.State)
		}
		if b.State == "acked" {
			s += fmt.Sprintf(" @%d", b.BaseOffset)
		}
		if b.Sends > 1 {
			s += fmt.Sprintf(" (sent %d×)", b.Sends)
		}
		if b.Error != "" {
			s += " " + b.Error
		}
		if used+len(s)+3 > w && len(parts) > 0 {
			parts = append(parts, fmt.Sprintf("+%d older", i+1))
			break
		}
		used += len(s) + 3
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}
