package sim

import (
	"fmt"
	"slices"

	"github.com/eoslab/eoslab/engine/broker"
	"github.com/eoslab/eoslab/engine/trace"
)

// Consumer groups have members: as much of Kafka's classic group protocol
// as KIP-447's fencing needs (ClassicGroup, GroupMetadataManager). A
// consumer joins on a poll (JoinGroup), leaves when it restarts
// (LeaveGroup on close) or when its application has not polled for
// max.poll.interval.ms (the heartbeat thread's LeaveGroup), and every
// change of members is a rebalance. A rebalance completes — a new
// generation, which every member takes — once each member has (re)joined:
// the others at their next poll, and a member that does not poll in time
// leaves; until then a joining consumer's poll fetches nothing and the
// group stays at its generation. Partitions are not assigned: each
// consumer reads what its command names, and a member that stays keeps
// its positions (as in a cooperative rebalance); one that (re)joins
// fetches the committed offsets. sendOffsetsToTransaction carries the
// consumer's member id and generation, and the group coordinator refuses
// them once the group has moved on (broker.GroupOffsets.ValidateTxnCommit).
// Real clients (eoslab serve) are members of these same groups
// (external_group.go): their JoinGroup waits for the rebalance, and a
// simulated member rejoins at its next poll when a real one joins.

// group returns (creating) a group's state.
func (w *World) group(name string) *broker.GroupOffsets {
	g := w.tx.groups[name]
	if g == nil {
		g = broker.NewGroup()
		w.tx.groups[name] = g
	}
	if g.Members == nil {
		g.Members = map[string]string{}
	}
	if g.Awaiting == nil {
		g.Awaiting = map[string]bool{}
	}
	return g
}

// member reports whether cs is a member of its group now.
func (w *World) member(cs *consumerSlot) (*broker.GroupOffsets, string, bool) {
	g := w.tx.groups[cs.c.Group()]
	id, _ := cs.c.GroupMetadata()
	if g == nil || id == "" {
		return g, id, false
	}
	_, in := g.Members[id]
	return g, id, in
}

// expireMembers removes the members whose application has not polled within
// max.poll.interval.ms. The consumer's heartbeat thread leaves the group at
// that moment; the engine finds it out the next time the group is asked
// (a poll, a TxnOffsetCommit), which gives the same answers.
func (w *World) expireMembers(name string) {
	g := w.tx.groups[name]
	if g == nil {
		return
	}
	for _, id := range sortedMembers(g) {
		cs := w.tx.cons[g.Members[id]]
		if cs == nil {
			continue
		}
		if member, _ := cs.c.GroupMetadata(); member != id || w.now <= cs.c.PollDeadline() {
			continue
		}
		// consumer.groupMetadata() keeps the old member id and generation
		// until the consumer joins again (ConsumerCoordinator updates it
		// only in onJoinComplete), so what the application sends with
		// them now is refused.
		w.leave(g, name, id, fmt.Sprintf("its application has not polled since %s, longer than max.poll.interval.ms (%d ms): it left at %s",
			trace.FormatTime(cs.c.PollDeadline()-cs.c.MaxPollInterval()), cs.c.MaxPollInterval(), trace.FormatTime(cs.c.PollDeadline())))
	}
}

// pollGroup is the group part of a poll: join or rejoin as needed. It
// reports whether the consumer may fetch (it is in a completed generation).
func (w *World) pollGroup(cs *consumerSlot) bool {
	name := cs.c.Group()
	w.expireMembers(name)
	g := w.group(name)
	id, gen := cs.c.GroupMetadata()
	if _, in := g.Members[id]; id == "" || !in {
		if eg := w.extGroupOf(name); eg != nil && len(eg.members) > 0 && eg.ptype != "consumer" {
			// Real members of another protocol type hold the group: a
			// consumer's JoinGroup is INCONSISTENT_GROUP_PROTOCOL
			// (ClassicGroup.supportsProtocols), and it tries again at its
			// next poll.
			if w.tracing() {
				w.emit(trace.New("group.refused", fmt.Sprintf("group %s refuses %s's JoinGroup: its members use protocol type %q, not \"consumer\" (INCONSISTENT_GROUP_PROTOCOL)", name, cs.c.Name(), eg.ptype)).
					With("group", trace.Str(name)).With("consumer", trace.Str(cs.c.Name())).With("error", trace.Str("INCONSISTENT_GROUP_PROTOCOL")))
			}
			return false
		}
		id = cs.c.NewMemberID()
		for memberIDTaken(g, w.extGroupOf(name), id) {
			id = cs.c.NewMemberID() // a real client of the same name has it
		}
		if len(g.Members) == 0 {
			g.ProtocolType = "consumer"
		}
		g.Members[id] = cs.c.Name()
		cs.c.Joined(id, -1, true)
		if w.tracing() {
			w.emit(trace.New("group.join", fmt.Sprintf("%s joins group %s as member %s (JoinGroup)", cs.c.Name(), name, id)).
				With("consumer", trace.Str(cs.c.Name())).With("group", trace.Str(name)).With("member", trace.Str(id)).
				With("generation", trace.Int(int64(g.Generation))))
		}
		w.startRebalance(g, name, id)
	} else if g.Awaiting[id] {
		delete(g.Awaiting, id) // it rejoins in this poll
		w.maybeComplete(g, name)
	}
	if _, gen = cs.c.GroupMetadata(); gen < 0 {
		if w.tracing() {
			w.emit(trace.New("consumer.rebalancing", fmt.Sprintf("%s waits for group %s's rebalance: members %v have to rejoin first (or leave by max.poll.interval.ms); the poll fetches nothing",
				cs.c.Name(), name, sortedKeys(g.Awaiting))).
				With("consumer", trace.Str(cs.c.Name())).With("group", trace.Str(name)))
		}
		return false
	}
	return true
}

// startRebalance makes every member but the one that just joined rejoin
// before the next generation. A rebalance already under way goes on: the
// members that rejoined in it stay rejoined (GroupMetadataManager.
// maybePrepareRebalanceOrCompleteJoin: a group in PreparingRebalance only
// tries to complete its join phase).
func (w *World) startRebalance(g *broker.GroupOffsets, name, except string) {
	fresh := !g.Rebalancing
	if fresh {
		g.Rebalancing = true
		for id := range g.Members {
			if id != except {
				g.Awaiting[id] = true
			}
		}
	}
	w.realRebalanceStarts(name, fresh)
	w.maybeComplete(g, name)
}

// maybeComplete starts the next generation once nobody is awaited (nor a
// member id handed out to a real client that has not joined with it yet).
func (w *World) maybeComplete(g *broker.GroupOffsets, name string) {
	if !g.Rebalancing || len(g.Awaiting) > 0 || w.joinBlocked(name) {
		return
	}
	g.Rebalancing = false
	g.Generation++
	for _, id := range sortedMembers(g) {
		if cs := w.tx.cons[g.Members[id]]; cs != nil {
			if member, _ := cs.c.GroupMetadata(); member == id {
				cs.c.Joined(id, g.Generation, false)
			}
		}
	}
	if w.tracing() {
		w.emit(trace.New("group.rebalance", fmt.Sprintf("group %s starts generation %d with members %v", name, g.Generation, sortedMembers(g))).
			With("group", trace.Str(name)).With("generation", trace.Int(int64(g.Generation))).
			With("members", trace.Int(int64(len(g.Members)))))
	}
	w.realJoinComplete(g, name)
}

// leave removes a member; the rest rebalance.
func (w *World) leave(g *broker.GroupOffsets, name, id, why string) {
	consumer := g.Members[id]
	delete(g.Members, id)
	delete(g.Awaiting, id)
	if w.tracing() {
		w.emit(trace.New("group.leave", fmt.Sprintf("member %s (%s) leaves group %s: %s", id, consumer, name, why)).
			With("consumer", trace.Str(consumer)).With("group", trace.Str(name)).With("member", trace.Str(id)).
			With("generation", trace.Int(int64(g.Generation))))
	}
	w.startRebalance(g, name, "")
}

// leaveOnRestart is the old instance of a restarted consumer closing: it
// sends LeaveGroup.
func (w *World) leaveOnRestart(cs *consumerSlot) {
	if g, id, in := w.member(cs); in {
		w.leave(g, cs.c.Group(), id, "its consumer closed (the application restarted)")
	}
}

func sortedMembers(g *broker.GroupOffsets) []string {
	ids := make([]string, 0, len(g.Members))
	for id := range g.Members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
