// Package producer is the panel of producer clients: each one's producer
// id, epoch and mode, its bookkeeping per partition (next sequence to
// assign, last acknowledged sequence and offset) and its most recent
// batches with their state, each state spelt out next to its glyph.
package producer

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

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
	want int // the widest line it would draw on one line
	wrap int // the width long lines are wrapped to (see render)
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
	m.need = panel.Need{}
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	if m.d.Snap == nil || len(m.d.Snap.Producers) == 0 {
		m.view = box.Fit(m.st.Muted.Render("no producer yet (try :producer p1)"), m.w, m.h)
		return
	}
	// Long lines continue on the next while that leaves every producer in
	// view; short of rows, they keep one line each and are cut instead.
	m.want = 0
	lines := m.lines(m.w)
	m.need = panel.Need{Width: m.want, Height: len(lines)}
	if len(lines) > m.h {
		lines = m.lines(1 << 20)
	}
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

// lines draws every producer, wrapping long lines at width w.
func (m *Model) lines(w int) []string {
	m.wrap = w
	var lines []string
	for i := range m.d.Snap.Producers {
		lines = append(lines, m.producer(i)...)
	}
	return lines
}

// producer draws one client: its name and mode, then a line per partition
// and its recent batches. A line too long for the panel continues under
// its text rather than being cut; counts that are zero are left out.
func (m *Model) producer(i int) []string {
	p := &m.d.Snap.Producers[i]
	name := m.st.Producer(i).Bold(true).Render(p.Name)
	if p.Name == m.d.Producer {
		name = "▸" + name
	} else {
		name = " " + name
	}
	head := []string{name}
	if mode := modeText(p); mode != "" {
		head[0] += " " + mode
	}
	switch {
	case p.Failed:
		head = append(head, m.st.Bad.Render("✗ not started (configuration error)"))
	case p.FatalError != "":
		head = append(head, m.st.Bad.Render("✗ fatal "+p.FatalError))
	}
	if p.Paused {
		head = append(head, m.st.Fenced.Render("⏸ paused"))
	}
	out := box.Pack(head, " ", m.wrap, 3)
	m.want = max(m.want, ansi.StringWidth(strings.Join(head, " ")))
	for _, pp := range p.Partitions {
		acked := "none acked"
		if pp.LastAckedSeq >= 0 {
			acked = fmt.Sprintf("acked ≤%d @%d", pp.LastAckedSeq, pp.LastAckedOffset)
		}
		items := []string{fmt.Sprintf("   %s next seq %d", pp.TP, pp.NextSeq), acked}
		if pp.Queued > 0 {
			items = append(items, fmt.Sprintf("%d queued", pp.Queued))
		}
		if pp.Outstanding > 0 {
			items = append(items, fmt.Sprintf("%d in flight", pp.Outstanding))
		}
		m.want = max(m.want, ansi.StringWidth(strings.Join(items, " · ")))
		for _, l := range box.Pack(items, " · ", m.wrap, 5) {
			out = append(out, m.st.Muted.Render(l))
		}
	}
	if bs := batches(p, m.w-3); bs != "" {
		// Older batches make way for newer ones on the line; the newest
		// alone, if too long, continues on the next.
		out = append(out, box.Reflow("   "+bs, m.wrap, 6)...)
	}
	return out
}

func modeText(p *sim.ProducerView) string {
	if p.Failed {
		return p.Mode // it never asked for an id; the head says why
	}
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
	for i := p.NumBatches() - 1; i >= 0; i-- {
		b := p.Batch(i)
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
