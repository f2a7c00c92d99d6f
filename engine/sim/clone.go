package sim

import (
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/eoslab/eoslab/engine/broker"
	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/partition"
)

// Clone returns a copy of the world that goes on independently: the same
// state, history, checkpoints and trace. It costs about the world's state
// without its history, which is shared (see the package hist), so that a
// copy — a checkpoint, a fork — costs the same at any history length.
func (w *World) Clone() *World {
	c := w.clone(true)
	c.actions, c.run = w.actions.Clone(), w.run
	c.ckpts = w.ckpts[:len(w.ckpts):len(w.ckpts)]
	c.nextCkpt, c.replaying = w.nextCkpt, w.replaying
	c.trace = w.trace.Fork()
	c.decAt, c.decScanned = w.decAt, w.decScanned
	c.pending = slices.Clone(w.pending)
	return c
}

// cloner remembers what has been copied, so that pointers between parts
// of the world point between the copies.
type cloner struct {
	logs  map[*partition.Log]*partition.Log
	slots map[*producerSlot]*producerSlot
	cons  map[*consumerSlot]*consumerSlot
	conns map[*connection]*connection
	pairs map[*pairState]*pairState
	exts  map[*extConn]*extConn // real clients' connections (external.go)
}

// clone copies the world's state: everything but its history (actions),
// its checkpoints and its trace. A live copy is one that will be driven; a
// checkpoint is frozen.
func (w *World) clone(live bool) *World {
	cl := &cloner{logs: map[*partition.Log]*partition.Log{}, slots: map[*producerSlot]*producerSlot{},
		cons: map[*consumerSlot]*consumerSlot{}, conns: map[*connection]*connection{}, pairs: map[*pairState]*pairState{}}
	c := &World{seed: w.seed, pcg: w.pcg, now: w.now, steps: w.steps, cluster: w.cluster, started: w.started,
		pidNext: w.pidNext, seq: w.seq, nextMsgID: w.nextMsgID, nextFault: w.nextFault,
		nextExpiry: w.nextExpiry, nextISR: w.nextISR, nextTxn: w.nextTxn, nextPeriodic: w.nextPeriodic, quiet: w.quiet, nextConn: w.nextConn, connsKept: w.connsKept,
		periodicRuns: w.periodicRuns, everyPeriod: w.everyPeriod, compactAt: w.compactAt, sweepAt: w.sweepAt, ckptEvery: w.ckptEvery, ckptFixed: w.ckptFixed,
		dropTrace: w.dropTrace, lastDecEvt: w.lastDecEvt}
	c.rng = rand.New(&c.pcg)
	c.benv = brokerEnv{c}

	c.brokers = make([]*broker.Broker, len(w.brokers))
	for i, b := range w.brokers {
		c.brokers[i] = b.Clone()
		for _, r := range b.Replicas() {
			cl.logs[r.Log] = c.brokers[i].Replica(r.TP).Log
		}
	}
	c.parts = make([]*partMeta, len(w.parts))
	for i, m := range w.parts {
		n := *m
		n.replicas, n.isr = slices.Clone(m.replicas), slices.Clone(m.isr)
		c.parts[i] = &n
	}
	c.faults = slices.Clone(w.faults) // a fault is never changed once armed
	c.indexFaults()
	c.fenceAt = maps.Clone(w.fenceAt)

	// Connections and the pairs that number them.
	c.brokerPairs = slices.Clone(w.brokerPairs)
	for i := range w.brokerPairs {
		cl.pairs[&w.brokerPairs[i]] = &c.brokerPairs[i]
	}
	c.otherPairs = make(map[connPair]*pairState, len(w.otherPairs))
	for k, ps := range w.otherPairs {
		q := *ps
		c.otherPairs[k] = &q
		cl.pairs[ps] = &q
	}
	c.producers = producerTable{all: w.producers.all.clone(), index: slices.Clone(w.producers.index)}
	for i, e := range w.producers.all.all() {
		s := e.slot
		t := *s
		if s.p != nil {
			t.p = s.p.Clone()
		}
		t.w = c
		if s.extra != nil {
			x := *s.extra
			x.acked = make([]*client.Batch, len(s.extra.acked))
			for i, b := range s.extra.acked {
				x.acked[i] = t.p.Copy(b)
			}
			t.extra = &x
		}
		t.pairs = slices.Clone(s.pairs)
		for i := range s.pairs {
			cl.pairs[&s.pairs[i]] = &t.pairs[i]
		}
		c.producers.all.at(i).slot = &t
		cl.slots[s] = &t
	}
	c.tx = w.tx.clone(c, cl)
	c.ext = w.ext.clone(cl)
	for _, e := range c.producers.all.all() {
		if x := e.slot.extra; x != nil && x.held != nil {
			held := make([]item, len(x.held))
			for i, it := range x.held {
				held[i] = cl.item(it)
			}
			x.held = held
		}
	}
	c.conns = connTable{slots: make([]connSlot, len(w.conns.slots)), n: w.conns.n}
	for i, e := range w.conns.slots {
		if e.c != nil {
			c.conns.slots[i] = connSlot{e.id, cl.conn(e.c)}
		}
	}
	// Pairs keep a connection that is no longer in conns only while it is
	// in use; copy those too.
	for _, ps := range cl.pairs {
		if ps.c != nil {
			ps.c = cl.conn(ps.c)
		}
	}
	c.ext.relink(cl)

	q := &w.queue
	c.queue = queue{heap: slices.Clone(q.heap), lane: q.lane.clone(), later: slices.Clone(q.later), laterMin: q.laterMin,
		slab: make([]item, len(q.slab)), free: slices.Clone(q.free)}
	for at, it := range q.items() {
		if at >= 0 {
			c.queue.slab[at] = cl.item(*it)
		}
	}
	for i := range c.queue.later {
		e := &c.queue.later[i]
		e.slot = cl.slot(e.slot)
	}
	if q.regSet {
		c.queue.reg, c.queue.regQ, c.queue.regSet = cl.item(q.reg), q.regQ, true
	}

	c.check = w.check.clone(cl)
	// Diagnoses are only appended to and a replay's result never changes:
	// both are shared.
	c.diagnoses, c.lastReplay = w.diagnoses[:len(w.diagnoses):len(w.diagnoses)], w.lastReplay
	cl.cloneViews(w, c)
	return c
}

// cloneWeight estimates the bytes a frozen copy of the world costs: what
// clone copies rather than shares, twice over. A copy also keeps alive
// what the world lets go after it — the chunks of the message bodies in
// flight, the vector pages and chunks the world copies at its next write
// to them — which measured as much again (27 KB copied and 44 KB in all
// for a checkpoint of BenchmarkSeek's world, 10 and 17 KB for
// BenchmarkProducePath's).
func (w *World) cloneWeight() int {
	n := 4096 + 1536*w.producers.all.len() + 256*w.conns.len() + 320*len(w.queue.slab) + 512*len(w.tx.cons)
	for _, b := range w.brokers {
		for _, r := range b.Replicas() {
			n += 512 + 160*r.Log.State().Len()
		}
	}
	return 2 * (n + 48*w.check.names.len()*(1+len(w.check.parts)))
}

func (cl *cloner) slot(s *producerSlot) *producerSlot {
	if s == nil {
		return nil
	}
	if t, ok := cl.slots[s]; ok {
		return t
	}
	return s // a slot the world no longer has: nothing reads it
}

func (cl *cloner) conn(cn *connection) *connection {
	if cn == nil {
		return nil
	}
	if d, ok := cl.conns[cn]; ok {
		return d
	}
	d := *cn
	cl.conns[cn] = &d
	d.ps = cl.pairs[cn.ps]
	d.slot = cl.slot(cn.slot)
	if cn.cons != nil {
		d.cons = cl.cons[cn.cons]
	}
	if cn.ext != nil {
		d.ext = cl.exts[cn.ext]
	}
	d.inbox = make([]flight, len(cn.inbox))
	for i, f := range cn.inbox {
		d.inbox[i] = cl.flight(f)
	}
	return &d
}

func (cl *cloner) flight(f flight) flight {
	f.cn = cl.conn(f.cn)
	f.to = cl.slot(f.to)
	f.m.Body = msg.CopyReused(f.m.Body) // reused once read: World.spareFetchs, Scratch.TakeBack, Broker.TakeBack(Produce)
	return f
}

func (cl *cloner) item(it item) item {
	it.slot = cl.slot(it.slot)
	if it.kind == itemDeliver {
		it.fl = cl.flight(it.fl)
	}
	return it
}

func (tx *txnWorld) clone(c *World, cl *cloner) txnWorld {
	out := txnWorld{internal: make(map[msg.TP]*internalMeta, len(tx.internal)), txnLog: make(map[int]*txnPartition, len(tx.txnLog)),
		groups: broker.CloneGroups(tx.groups), cons: make(map[string]*consumerSlot, len(tx.cons)),
		consOrd: slices.Clone(tx.consOrd), effects: tx.effects[:len(tx.effects):len(tx.effects)]}
	for tp, m := range tx.internal {
		n := *m
		out.internal[tp] = &n
	}
	for p, part := range tx.txnLog {
		out.txnLog[p] = part.clone()
	}
	for name, cs := range tx.cons {
		d := &consumerSlot{c: cs.c.Clone(), env: &consumerEnv{c, name}, pairs: slices.Clone(cs.pairs)}
		for i := range cs.pairs {
			cl.pairs[&cs.pairs[i]] = &d.pairs[i]
		}
		out.cons[name] = d
		cl.cons[cs] = d
	}
	return out
}

// clone copies the checker; its records are shared (see the package hist).
func (c *checker) clone(cl *cloner) *checker {
	d := &checker{names: c.names.clone(), byName: maps.Clone(c.byName),
		values: c.values.Clone(), valueNums: c.valueNums.Clone(), sources: c.sources.clone(), gens: c.gens,
		acks: c.acks.Clone(), ackValues: c.ackValues.Clone(), lost: c.lost.Clone(), fresh: slices.Clone(c.fresh), rescan: slices.Clone(c.rescan),
		readsSeen: maps.Clone(c.readsSeen), reported: c.reported.Clone(), anomalies: c.anomalies[:len(c.anomalies):len(c.anomalies)]}
	d.seen = c.seen.clone()
	for i, s := range c.seen.all() {
		*d.seen.at(i) = s.clone()
	}
	d.parts = make([]*partCheck, len(c.parts))
	for i, pc := range c.parts {
		if pc == nil {
			continue
		}
		q := *pc
		if l, ok := cl.logs[pc.log]; ok {
			q.log = l
		}
		q.values, q.withheld = pc.values.Clone(), pc.withheld.Clone()
		q.open = make(map[int64][]int, len(pc.open))
		for pid, idx := range pc.open {
			q.open[pid] = slices.Clone(idx)
		}
		d.parts[i] = &q
	}
	return d
}
