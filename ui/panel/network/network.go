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
	if m.d.Snap == nil {
		m.view = box.Fit("", m.w, m.h)
		return
	}
	var client, fetch []string
	for _, f := range m.d.Snap.Faults {
		client = append(client, m.st.Warn.Render("⚑ armed: "+f))
	}
	for _, e := range m.vanished() {
		client = append(client, m.st.Lost.Render(fmt.Sprintf("%s ──%s #%d──✗ lost on the way to %s",
			short(e.Str("from")), e.Str("api"), e.Int("message"), short(e.Str("to")))))
	}
	for _, mv := range m.d.Snap.InFlight {
		line := m.lane(mv)
		if strings.HasPrefix(mv.From, "broker") && strings.HasPrefix(mv.To, "broker") {
			fetch = append(fetch, m.st.Faint.Render(line))
			continue
		}
		client = append(client, line)
	}
	lines := append(client, fetch...)
	if len(lines) == 0 {
		lines = []string{m.st.Muted.Render("nothing on the wire")}
	}
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

// lane draws one message: sender ──API #id──▶ receiver, due time, summary.
func (m *Model) lane(mv sim.MessageView) string {
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
	s := fmt.Sprintf("%s ──%s #%d%s %s  at %s%s", short(mv.From), api, mv.ID, arrow, short(mv.To), trace.FormatTime(mv.DueMs), note)
	if sum := mv.Summary; sum != "" {
		// "acks=-1 [orders-0 batch #1 …]": the batches are what matter.
		if i, j := strings.IndexByte(sum, '['), strings.LastIndexByte(sum, ']'); i >= 0 && j > i {
			sum = sum[i+1 : j]
		}
		s += "  " + sum
	}
	switch {
	case mv.Lost:
		return m.st.Lost.Render(s)
	case mv.Delayed:
		return m.st.Warn.Render(s)
	}
	return s
}

// vanished lists the messages lost in the step just shown.
func (m *Model) vanished() []*trace.Event {
	var out []*trace.Event
	tr := m.d.Trace
	for i := len(tr) - 1; i >= 0 && tr[i].Step == m.d.Snap.Step; i-- {
		if tr[i].Kind == "message.lost" {
			out = append(out, &tr[i])
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
