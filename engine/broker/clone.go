package broker

import (
	"maps"
	"slices"

	"github.com/eoslab/eoslab/engine/msg"
)

// Clone returns a copy of the broker that changes independently of b:
// its replicas (logs shared as partition.Log.Clone shares them), its
// purgatory, its connections' bookkeeping and the transactions it
// coordinates.
func (b *Broker) Clone() *Broker {
	c := &Broker{ID: b.ID, cfg: b.cfg, alive: b.alive, order: slices.Clone(b.order),
		conns: make(map[int]*clientConn, len(b.conns)), txns: make(map[string]*txnState, len(b.txns)),
		solos: b.solos, nsolo: b.nsolo, pidNext: b.pidNext, pidEnd: b.pidEnd, timerSeq: b.timerSeq}
	c.replicas.topics = slices.Clone(b.replicas.topics)
	for _, parts := range b.replicas.parts {
		cp := make([]*Replica, len(parts))
		for i, r := range parts {
			if r != nil {
				cp[i] = r.clone()
			}
		}
		c.replicas.parts = append(c.replicas.parts, cp)
	}
	if b.pendingOrder != nil {
		c.pendingOrder = make([]*pendingProduce, len(b.pendingOrder))
	}
	for i, p := range b.pendingOrder {
		q := *p
		q.results, q.waitFor = slices.Clone(p.results), slices.Clone(p.waitFor)
		c.pendingOrder[i] = &q // markers is never changed: shared
	}
	if len(c.pendingOrder) >= pendingIndexFrom {
		c.pending = make(map[int]*pendingProduce, len(c.pendingOrder))
		for _, q := range c.pendingOrder {
			c.pending[q.request] = q
		}
	}
	for k, cc := range b.conns {
		c.conns[k] = &clientConn{order: slices.Clone(cc.order), ready: cloneAnswers(cc.ready)}
	}
	for id, t := range b.txns {
		u := *t
		u.md = t.md.Clone()
		u.pending, u.inFlight = maps.Clone(t.pending), maps.Clone(t.inFlight)
		c.txns[id] = &u
	}
	return c
}

// cloneAnswers copies the answers waiting for their turn on a connection:
// a produce answer is reused once its producer has read it
// (TakeBackProduce), so each world owns its own (msg.CopyReused).
func cloneAnswers(ready []answered) []answered {
	out := slices.Clone(ready)
	for i, a := range out {
		out[i].body = msg.CopyReused(a.body)
	}
	return out
}

func (r *Replica) clone() *Replica {
	c := *r
	c.Log = r.Log.Clone()
	c.Replicas, c.ISR = slices.Clone(r.Replicas), slices.Clone(r.ISR)
	c.followers = make(followers, len(r.followers))
	for i, f := range r.followers {
		g := *f
		c.followers[i] = &g
	}
	// The copy's own followers, in a list of its own (the original's
	// isrChanged reuses its list).
	c.isrFollowers = nil
	if c.IsLeader {
		c.isrChanged(c.Leader)
	}
	return &c
}

// CloneGroups copies consumer groups' offsets.
func CloneGroups(groups map[string]*GroupOffsets) map[string]*GroupOffsets {
	out := make(map[string]*GroupOffsets, len(groups))
	for name, g := range groups {
		h := &GroupOffsets{Committed: maps.Clone(g.Committed), Pending: make(map[int64][]msg.Offset, len(g.Pending)),
			Generation: g.Generation, Members: maps.Clone(g.Members), Rebalancing: g.Rebalancing, Awaiting: maps.Clone(g.Awaiting), Instances: maps.Clone(g.Instances),
			ProtocolType: g.ProtocolType}
		for pid, offs := range g.Pending {
			h.Pending[pid] = slices.Clone(offs)
		}
		out[name] = h
	}
	return out
}
