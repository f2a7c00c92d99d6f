// Package network is the panel of messages on the wire: each in-flight
// request or response as a lane from sender to receiver with its due
// time, the ones a fault will lose crossed out, the ones lost in the
// step just taken crossed out where they vanished, and the armed faults
// still waiting for their message. Producer traffic comes first;
// replication fetches between brokers follow, dimmed.
package network

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// Model is the network panel.
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

func (m *Model) render() {
	m.need = panel.Need{}
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	if m.d.Snap == nil {
		m.view = box.Fit("", m.w, m.h)
		return
	}
	// Long lines continue on the next while everything on the wire stays
	// in view; short of rows, they keep one line each and are cut instead.
	lines := m.lines(m.w)
	m.need = panel.Need{Width: m.want, Height: len(lines)}
	if len(lines) > m.h {
		lines = m.lines(1 << 20)
	}
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

// lines draws the faults, the lost messages and the lanes, wrapping long
// lines at width w.
func (m *Model) lines(w int) []string {
	m.wrap = w
	var client, fetch []string
	m.want = 0
	for _, f := range m.d.Snap.Faults {
		m.want = max(m.want, ansi.StringWidth("⚑ armed: "+f))
		for _, l := range box.Reflow("⚑ armed: "+f, m.wrap, 2) {
			client = append(client, m.st.Warn.Render(l))
		}
	}
	for _, e := range m.vanished() {
		items := []string{fmt.Sprintf("%s ──%s #%d──✗", short(e.Str("from")), e.Str("api"), e.Int("message")), "lost on the way to " + short(e.Str("to"))}
		m.want = max(m.want, ansi.StringWidth(strings.Join(items, " ")))
		for _, l := range box.Pack(items, " ", m.wrap, 3) {
			client = append(client, m.st.Lost.Render(l))
		}
	}
	for _, mv := range m.d.Snap.InFlight {
		lines := m.lane(mv)
		if strings.HasPrefix(mv.From, "broker") && strings.HasPrefix(mv.To, "broker") {
			for _, l := range lines {
				fetch = append(fetch, m.st.Faint.Render(l))
			}
			continue
		}
		client = append(client, lines...)
	}
	lines := append(client, fetch...)
	if len(lines) == 0 {
		lines = []string{m.st.Muted.Render("nothing on the wire")}
	}
	return lines
}

// lane draws one message: sender ──API #id──▶ receiver, due time,
// summary; a lane too long for the panel continues on the next line,
// indented, rather than losing its end.
func (m *Model) lane(mv sim.MessageView) []string {
	api := mv.API
	if mv.Response {
		api += " answer"
	}
	arrow := "──▶"
	note := ""
	switch {
	case mv.Lost:
		arrow, note = "──✗", " will be lost"
	case mv.Delayed:
		note = " delayed"
	}
	items := []string{fmt.Sprintf("%s ──%s #%d%s %s", short(mv.From), api, mv.ID, arrow, short(mv.To)), "at " + trace.FormatTime(mv.DueMs) + note}
	if sum := mv.Summary; sum != "" {
		// "acks=-1 [orders-0 batch #1 …]": the batches are what matter.
		if i, j := strings.IndexByte(sum, '['), strings.LastIndexByte(sum, ']'); i >= 0 && j > i {
			sum = sum[i+1 : j]
		}
		items = append(items, sum)
	}
	m.want = max(m.want, ansi.StringWidth(strings.Join(items, "  ")))
	out := box.Pack(items, "  ", m.wrap, 3)
	for i, l := range out {
		switch {
		case mv.Lost:
			out[i] = m.st.Lost.Render(l)
		case mv.Delayed:
			out[i] = m.st.Warn.Render(l)
		}
	}
	return out
}

// vanished lists the messages lost in the step just shown.
func (m *Model) vanished() []*trace.Event {
	var out []*trace.Event
	for _, e := range m.d.Trace.Backward() {
		if e.Step != m.d.Snap.Step {
			break
		}
		if e.Kind == "message.lost" {
			out = append(out, e)
		}
	}
	return out
}

// short writes "broker 2" as "b2": lanes are read many to a screen.
func short(addr string) string {
	if n, ok := strings.CutPrefix(addr, "broker "); ok {
		return "b" + n
	}
	return addr
}
