package sim

import (
	"fmt"
	"slices"

	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/trace"
)

// The controller's work: leader elections, ISR changes when brokers stop
// or come back, fencing brokers that went silent.

// elect makes newLeader lead m at the next leader epoch; every other live
// replica follows it and truncates what the new leader does not have.
func (w *World) elect(m *partMeta, newLeader int, isr []int, why string) {
	env := w.benv
	old := m.leader
	m.leader, m.isr = newLeader, slices.Clone(isr)
	m.epoch++
	slices.Sort(m.isr)
	w.brokers[newLeader-1].BecomeLeader(m.tp, m.epoch, m.replicas, m.isr, env)
	if w.tracing() {
		w.emit(trace.New("leader.change", fmt.Sprintf("%s: broker %d leads %s from leader epoch %d (was broker %d); ISR %v",
			why, newLeader, m.tp, m.epoch, old, m.isr)).
			With("partition", trace.Str(m.tp.String())).With("leader", trace.Int(int64(newLeader))).
			With("previous_leader", trace.Int(int64(old))).With("leader_epoch", trace.Int(int64(m.epoch))).
			With("isr", trace.List(ints64(m.isr))).With("reason", trace.Str(why)))
	}
	leaderLog := w.leaderLog(m)
	for _, id := range m.replicas {
		if b := w.brokers[id-1]; id != newLeader && b.Alive() {
			b.BecomeFollower(m.tp, newLeader, m.epoch, m.replicas, leaderLog, env)
			env.Fetch(id, m.tp)
		}
	}
	w.check.leaderChanged(w.partIndex(m.tp))
	w.wakeClients()
}

func ints64(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

// failover moves leadership of tp: cleanly to another in-sync replica, or
// uncleanly to a replica that is out of sync (unclean.leader.election).
func (w *World) failover(tp msg.TP, unclean bool) error {
	m := w.meta(tp)
	if m == nil {
		return w.unknownPartition(tp)
	}
	pick := func(inISR bool) int {
		for _, id := range m.replicas {
			if id != m.leader && w.brokers[id-1].Alive() && slices.Contains(m.isr, id) == inISR {
				return id
			}
		}
		return 0
	}
	if !unclean {
		next := pick(true)
		if next == 0 {
			if w.tracing() {
				w.emit(trace.New("failover.refused", fmt.Sprintf("no other live in-sync replica of %s (ISR %v): a clean failover is impossible", tp, m.isr)).
					With("partition", trace.Str(tp.String())))
			}
			return nil
		}
		w.elect(m, next, liveOf(w, m.isr), "clean failover")
		return nil
	}
	// Kafka elects out of the ISR only when no in-sync replica is left
	// to lead (PartitionChangeBuilder.electLeader tries the ISR first;
	// kafka-leader-election.sh --election-type unclean acts only on a
	// partition without a leader): with one alive, an unclean election
	// cannot happen.
	if live := liveOf(w, m.isr); len(live) > 0 {
		if w.tracing() {
			w.emit(trace.New("failover.refused", fmt.Sprintf("%s still has live in-sync replicas %v (ISR %v): an unclean election happens only when none is left", tp, live, m.isr)).
				With("partition", trace.Str(tp.String())))
		}
		return nil
	}
	next := pick(false)
	if next == 0 {
		if w.tracing() {
			w.emit(trace.New("failover.refused", fmt.Sprintf("no other live replica of %s", tp)).With("partition", trace.Str(tp.String())))
		}
		return nil
	}
	w.elect(m, next, []int{next}, "unclean election")
	return nil
}

func liveOf(w *World, ids []int) []int {
	var out []int
	for _, id := range ids {
		if w.brokers[id-1].Alive() {
			out = append(out, id)
		}
	}
	return out
}

// kill stops a broker. Clients see their connections to it close; the
// controller fences it after the session timeout.
func (w *World) kill(id int) error {
	b := w.broker(id)
	if b == nil {
		return w.errorf("unknown broker %d (brokers are 1-%d)", id, len(w.brokers))
	}
	if !b.Alive() {
		if w.tracing() {
			w.emit(trace.New("broker.kill", fmt.Sprintf("broker %d is already down", id)).With("broker", trace.Int(int64(id))))
		}
		return nil
	}
	b.Kill()
	if w.tracing() {
		w.emit(trace.New("broker.kill", fmt.Sprintf("broker %d stops; the controller will fence it after broker.session.timeout.ms (%d ms)", id, SessionTimeoutMs)).
			With("broker", trace.Int(int64(id))))
	}
	w.brokerDown(id, fmt.Sprintf("broker %d stopped", id))
	w.fenceAt[id] = w.now + SessionTimeoutMs
	w.schedule(item{due: w.fenceAt[id], kind: itemFence, broker: id})
	return nil
}

// wakeClients runs every producer's sender: metadata changed (a new
// leader, a coordinator moved, a broker came back), and what waited for a
// broker that was down may go now.
func (w *World) wakeClients() {
	for _, e := range w.producers.all.all() {
		if s := e.slot; !s.removed {
			s.Wake(w.now)
		}
	}
}

// fence is the controller noticing a dead broker: it leaves every ISR and
// its partitions get new leaders from the ISR (or go offline).
func (w *World) fence(id int) {
	delete(w.fenceAt, id)
	defer w.moveCoordinatorsOf(id, fmt.Sprintf("broker %d was fenced", id))
	if w.tracing() {
		w.emit(trace.New("broker.fenced", fmt.Sprintf("the controller fences broker %d: no heartbeat for %d ms", id, SessionTimeoutMs)).
			With("broker", trace.Int(int64(id))))
	}
	for _, m := range w.parts {
		w.dropFromISR(m, id)
		if m.leader != id {
			continue
		}
		next := 0
		for _, r := range m.replicas {
			if r != id && w.brokers[r-1].Alive() && slices.Contains(m.isr, r) {
				next = r
				break
			}
		}
		if next == 0 {
			m.leader = 0
			for _, r := range m.replicas {
				w.brokers[r-1].StopFollowing(m.tp)
			}
			if w.tracing() {
				w.emit(trace.New("partition.offline", fmt.Sprintf("%s has no live in-sync replica: offline (unclean.leader.election.enable=false)", m.tp)).
					With("partition", trace.Str(m.tp.String())))
			}
			continue
		}
		w.elect(m, next, liveOf(w, m.isr), "leader fenced")
	}
}

func (w *World) dropFromISR(m *partMeta, id int) {
	if !slices.Contains(m.isr, id) || len(m.isr) == 1 {
		return
	}
	m.isr = slices.DeleteFunc(m.isr, func(x int) bool { return x == id })
	if m.leader > 0 && w.brokers[m.leader-1].Alive() {
		w.brokers[m.leader-1].SetISR(m.tp, m.isr, w.benv)
	}
	if w.tracing() {
		w.emit(trace.New("isr.shrink", fmt.Sprintf("the controller removes broker %d from the ISR of %s; ISR now %v", id, m.tp, m.isr)).
			With("partition", trace.Str(m.tp.String())).With("isr", trace.List(ints64(m.isr))))
	}
}

// restart stops (unless stopped) and starts a broker. Its producer state is
// rebuilt from snapshot + log; it rejoins as a follower where another live
// in-sync replica can lead, and must catch up to re-enter the ISR.
func (w *World) restart(id int, clean bool) error {
	b := w.broker(id)
	if b == nil {
		return w.errorf("unknown broker %d (brokers are 1-%d)", id, len(w.brokers))
	}
	how := "crashes and restarts"
	if clean {
		how = "shuts down cleanly and restarts"
	}
	if !b.Alive() {
		how = "starts again"
	} else {
		b.Kill()
		w.brokerDown(id, fmt.Sprintf("broker %d %s", id, how))
	}
	delete(w.fenceAt, id)
	if w.tracing() {
		w.emit(trace.New("broker.restart", fmt.Sprintf("broker %d %s", id, how)).
			With("broker", trace.Int(int64(id))).With("clean", trace.Bool(clean)))
	}
	if err := b.Start(clean, w.benv); err != nil {
		return err
	}
	for _, m := range w.parts {
		if !slices.Contains(m.replicas, id) {
			continue
		}
		w.rejoin(m, id)
	}
	w.moveCoordinatorsOf(id, fmt.Sprintf("broker %d restarted", id))
	w.wakeClients()
	return nil
}

func (w *World) rejoin(m *partMeta, id int) {
	env := w.benv
	others := slices.DeleteFunc(liveOf(w, m.isr), func(x int) bool { return x == id })
	switch {
	case m.leader == id && len(others) > 0:
		w.dropFromISR(m, id)
		w.elect(m, others[0], others, "leader restarted")
	case m.leader == id || (m.leader == 0 && slices.Contains(m.isr, id)):
		// The only in-sync replica: it leads again, with its rebuilt state.
		w.elect(m, id, []int{id}, "restarted sole in-sync replica")
	case m.leader == 0:
		// Offline and this replica is out of sync: it stays a follower of nobody.
		w.brokers[id-1].StopFollowing(m.tp)
	default:
		w.dropFromISR(m, id)
		w.brokers[id-1].BecomeFollower(m.tp, m.leader, m.epoch, m.replicas, w.leaderLog(m), env)
		env.Fetch(id, m.tp)
		w.check.leaderChanged(w.partIndex(m.tp))
	}
}
