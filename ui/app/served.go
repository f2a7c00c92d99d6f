package app

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/session"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// Served is the cluster `eoslab serve --tui` puts behind Kafka's wire
// protocol: the sandbox opens on its session, and the lab pumps the
// server from its own loop, so the session is only ever touched there.
type Served struct {
	Session *session.Session
	// Pump lets the real clients' requests in and performs what is due;
	// it says how soon it wants to run again.
	Pump func() time.Duration
	// Held is how many requests wait (--hold); Release lets the oldest in.
	Held    func() int
	Release func() bool
	// Addr is where the brokers listen, for the status bar.
	Addr string
}

type servedMsg struct{}

// pumpEvery bounds how long the lab leaves the server alone: real
// clients' requests wait at most this long for the lab's loop.
const pumpEvery = 20 * time.Millisecond

func servedTick(d time.Duration) tea.Cmd {
	d = min(max(d, time.Millisecond), pumpEvery)
	return tea.Tick(d, func(time.Time) tea.Msg { return servedMsg{} })
}

// openServed opens the sandbox on the served session.
func (m *Model) openServed() {
	m.boxSess = m.opt.Serve.Session
	m.openSandbox()
	m.setStatus(fmt.Sprintf("serving on %s: real clients' requests appear here as they arrive", m.opt.Serve.Addr), statusbar.Plain)
}

// pump runs the server once and redraws when the world moved.
func (m Model) pump() (tea.Model, tea.Cmd) {
	sv := m.opt.Serve
	s := sv.Session
	before := s.Timeline().Moment()
	var d time.Duration
	s.Batch(func() { d = sv.Pump() })
	if s.Timeline().Moment() != before && m.sess == s && m.job == nil {
		m.refresh(panel.Forward)
	}
	return m, servedTick(d)
}

// served reports whether the session in front is the served one, whose
// present real clients have seen: commands apply there, never forking.
func (m *Model) served() bool { return m.opt.Serve != nil && m.sess == m.opt.Serve.Session }

// applyServed is apply for the served session.
func (m *Model) applyServed(c script.Command, line string) error {
	evs, err := m.sess.ApplyLive(c)
	if err != nil {
		m.setStatus(line+": "+err.Error(), statusbar.Bad)
		return err
	}
	note := "applied: " + line
	if len(evs) > 0 {
		note += " · " + headline(evs, m.sess.Step())
	}
	if m.sess.Behind() {
		note += " (at the present; you are looking at the past)"
	}
	m.setStatus(note, statusbar.Plain)
	m.refresh(panel.Forward)
	return nil
}

// release is `:release`: the oldest held request goes in (--hold).
func (m *Model) release() {
	sv := m.opt.Serve
	if sv == nil || sv.Release == nil {
		m.setStatus("release: only eoslab serve --hold holds requests", statusbar.Bad)
		return
	}
	if !sv.Release() {
		m.setStatus("release: no request is held", statusbar.Plain)
		return
	}
	m.setStatus(fmt.Sprintf("released a request; %d still held", sv.Held()), statusbar.Plain)
}
