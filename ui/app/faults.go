package app

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// fault is a fault key's proposal: the command it will apply and, in
// words, what it will act on. Nothing happens until it is confirmed.
type fault struct {
	binding key.Binding
	line    string // in the command language, as :save will write it
	preview string
}

// faultFor builds the proposal for a fault key, reading the snapshot for
// its target: the producer and partition in focus.
func (m Model) faultFor(k tea.KeyMsg) (fault, bool) {
	snap := m.sess.Snapshot()
	prod := producer(snap, m.shownProducer)
	part := partition(snap, m.shownPartition)
	needProducer := func(b key.Binding) (fault, bool) {
		return fault{binding: b, preview: "no producer to act on yet: create one with :producer p1"}, true
	}
	switch {
	case key.Matches(k, m.keys.LoseResponse):
		if prod == nil {
			return needProducer(m.keys.LoseResponse)
		}
		if realClient(prod) {
			return fault{m.keys.LoseResponse, "lose response " + prod.Name, prod.Name + "'s next answer is lost after the broker acts: serve closes its socket, and it reconnects and retries"}, true
		}
		return fault{m.keys.LoseResponse, "lose response " + prod.Name, responseTarget(snap, prod) +
			" will be lost, and its connection breaks there: the broker acts, " + prod.Name + " hears nothing more on it until request.timeout.ms"}, true
	case key.Matches(k, m.keys.LoseRequest):
		if prod == nil {
			return needProducer(m.keys.LoseRequest)
		}
		if realClient(prod) {
			return fault{m.keys.LoseRequest, "lose request " + prod.Name, prod.Name + "'s next request is lost before the broker reads it: serve closes its socket, and it reconnects and retries"}, true
		}
		return fault{m.keys.LoseRequest, "lose request " + prod.Name, requestTarget(prod) +
			" will vanish, and its connection breaks there: what follows on it is lost too, until request.timeout.ms"}, true
	case key.Matches(k, m.keys.Delay):
		if prod == nil {
			return needProducer(m.keys.Delay)
		}
		return fault{m.keys.Delay, "delay request " + prod.Name, requestTarget(prod) +
			fmt.Sprintf(" will be held back %d ms, and its connection with it: what is sent after it waits behind", sim.DelayMs)}, true
	case key.Matches(k, m.keys.Reset):
		if prod == nil {
			return needProducer(m.keys.Reset)
		}
		if part == nil || part.Leader == 0 {
			return fault{binding: m.keys.Reset, preview: "the partition in focus has no leader to be connected to"}, true
		}
		return fault{m.keys.Reset, fmt.Sprintf("reset connection %s %d", prod.Name, part.Leader),
			fmt.Sprintf("%s's connection to broker %d (leader of %s) is reset: both ends learn at once, what is on it is gone, and %s retries on a new one", prod.Name, part.Leader, part.Name, prod.Name)}, true
	case key.Matches(k, m.keys.Refuse):
		if prod == nil {
			return needProducer(m.keys.Refuse)
		}
		if part == nil {
			return fault{binding: m.keys.Refuse, preview: "no partition in focus"}, true
		}
		return fault{m.keys.Refuse, fmt.Sprintf("fail request %s %s NOT_ENOUGH_REPLICAS", prod.Name, part.Name),
			fmt.Sprintf("the leader of %s refuses %s's next batch there with NOT_ENOUGH_REPLICAS, before appending it; the batch behind it arrives with a gap", part.Name, prod.Name)}, true
	case key.Matches(k, m.keys.RestartProducer):
		if prod == nil {
			return needProducer(m.keys.RestartProducer)
		}
		if realClient(prod) {
			return fault{binding: m.keys.RestartProducer, preview: prod.Name + " is a real client: restart it yourself; the lab acts on its connections and the brokers"}, true
		}
		return fault{m.keys.RestartProducer, "restart producer " + prod.Name, fmt.Sprintf("%s restarts: a new producer id, sequences from 0, %s dropped", prod.Name, unfinished(prod))}, true
	case key.Matches(k, m.keys.Pause):
		if prod == nil {
			return needProducer(m.keys.Pause)
		}
		if realClient(prod) {
			return fault{binding: m.keys.Pause, preview: prod.Name + " is a real client: the lab cannot pause it (hold its requests with eoslab serve --hold)"}, true
		}
		if prod.Paused {
			return fault{m.keys.Pause, "resume " + prod.Name, prod.Name + " wakes up and carries on as if no time had passed (a zombie?)"}, true
		}
		return fault{m.keys.Pause, "pause " + prod.Name, prod.Name + " freezes (a long GC pause): it sends and reads nothing until Z again"}, true
	case key.Matches(k, m.keys.RestartBroker):
		if part == nil || part.Leader == 0 {
			return fault{binding: m.keys.RestartBroker, preview: "the partition in focus has no leader to restart"}, true
		}
		return fault{m.keys.RestartBroker, fmt.Sprintf("restart broker %d", part.Leader),
			fmt.Sprintf("broker %d (leader of %s) crashes and restarts: it rebuilds producer state from its snapshot and log", part.Leader, part.Name)}, true
	case key.Matches(k, m.keys.Failover):
		if part == nil {
			return fault{binding: m.keys.Failover, preview: "no partition in focus"}, true
		}
		return fault{m.keys.Failover, "failover " + part.Name,
			fmt.Sprintf("leadership of %s moves from broker %d to an in-sync follower (ISR %v)", part.Name, part.Leader, part.ISR)}, true
	case key.Matches(k, m.keys.Advance):
		return fault{m.keys.Advance, "advance 30s", fmt.Sprintf("the clock jumps from %s to %s, performing every event due on the way",
			trace.FormatTime(snap.TimeMs), trace.FormatTime(snap.TimeMs+30_000))}, true
	}
	return fault{}, false
}

// realClient reports whether p is a real Kafka client of eoslab serve,
// which the lab reaches only through its connections.
func realClient(p *sim.ProducerView) bool { return strings.HasSuffix(p.Mode, "(real client)") }

func producer(s *sim.Snapshot, name string) *sim.ProducerView {
	for i := range s.Producers {
		if s.Producers[i].Name == name {
			return &s.Producers[i]
		}
	}
	return nil
}

func partition(s *sim.Snapshot, name string) *sim.PartitionView {
	for i := range s.Partitions {
		if s.Partitions[i].Name == name {
			return &s.Partitions[i]
		}
	}
	return nil
}

// responseTarget names the produce answer `lose response P` will hit: the
// answer to a request still on its way, or else the next one. An answer
// already on the wire was created before the fault and escapes it.
func responseTarget(s *sim.Snapshot, p *sim.ProducerView) string {
	for i := len(s.InFlight) - 1; i >= 0; i-- {
		mv := s.InFlight[i]
		if mv.API == "Produce" && !mv.Response && mv.From == p.Name && !mv.Lost {
			what := mv.Summary
			if i, j := strings.IndexByte(what, '['), strings.LastIndexByte(what, ']'); i >= 0 && j > i {
				what = what[i+1 : j]
			}
			return fmt.Sprintf("the answer to Produce #%d (%s)", mv.ID, what)
		}
	}
	return "the answer to " + requestTarget(p)
}

// requestTarget names the next produce request the producer will send.
func requestTarget(p *sim.ProducerView) string {
	for _, b := range p.AllBatches() {
		if b.State == "queued" || b.State == "retrying" {
			return fmt.Sprintf("%s's next produce request (batch #%d for %s, %s)", p.Name, b.ID, b.Partition, b.State)
		}
	}
	return p.Name + "'s next produce request (nothing queued yet: send a batch)"
}

func unfinished(p *sim.ProducerView) string {
	n := 0
	for _, b := range p.AllBatches() {
		if b.State == "queued" || b.State == "sent" || b.State == "retrying" {
			n++
		}
	}
	return fmt.Sprintf("%d unfinished batch(es)", n)
}

// proposeFault shows what the fault will act on and waits.
func (m *Model) proposeFault(f fault) {
	if f.line == "" {
		m.setStatus(f.preview, statusbar.Bad)
		return
	}
	m.pending = &f
	ok, no := m.keys.Confirm.Help(), m.keys.Cancel.Help()
	m.setStatus(fmt.Sprintf("%s ? %s %s · %s %s", f.line, ok.Key, ok.Desc, no.Key, no.Desc), statusbar.Warn)
}

// confirmFault applies the pending fault on Confirm (or its own key
// again); any other key cancels it.
func (m Model) confirmFault(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	f := m.pending
	m.pending = nil
	if !key.Matches(k, m.keys.Confirm, f.binding) {
		m.setStatus("cancelled: "+f.line, statusbar.Plain)
		return m, nil
	}
	c, err := script.ParseLine(f.line)
	if err != nil {
		panic(fmt.Sprintf("a fault key built a malformed command %q: %v", f.line, err))
	}
	m.apply(c, f.line)
	return m, nil
}

// apply performs one command on the session and says what happened,
// including a fork when the command was given in the timeline's past.
func (m *Model) apply(c script.Command, line string) error {
	if m.served() {
		return m.applyServed(c, line)
	}
	ch, err := m.sess.Apply(c)
	if err != nil {
		m.setStatus(line+": "+err.Error(), statusbar.Bad)
		return err
	}
	note := "applied: " + line
	if len(ch.Events) > 0 {
		note += " · " + strings.TrimPrefix(headline(ch.Events, m.sess.Step()), fmt.Sprintf("step %d: ", m.sess.Step()))
	}
	m.setStatus(note, statusbar.Plain)
	if ch.ForkedAt >= 0 {
		m.setStatus(fmt.Sprintf("forked: a new timeline from step %d · %s", ch.ForkedAt, line), statusbar.Warn)
	}
	m.refresh(panel.Forward)
	return nil
}
