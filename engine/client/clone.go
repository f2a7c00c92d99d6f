package client

import (
	"maps"
	"slices"

	"github.com/eoslab/eoslab/engine/record"
)

// Clone returns a copy of the producer that changes independently of p.
// Batches that are done are never changed again and are shared; the
// others are copied.
func (p *Producer) Clone() *Producer {
	c := *p
	c.done = p.done.Clone()
	var copies map[*Batch]*Batch // nil while quiet: every batch is settled
	if p.s != nil {
		s := &sending{inflight: slices.Clone(p.s.inflight)}
		copies = make(map[*Batch]*Batch, len(p.s.recent))
		batches := make([]Batch, len(p.s.recent))
		s.recent = make([]*Batch, len(p.s.recent))
		for i, b := range p.s.recent {
			batches[i] = *b
			s.recent[i] = &batches[i]
			copies[b] = &batches[i]
		}
		c.s = s
	}
	remap := func(list []*Batch) []*Batch {
		out := make([]*Batch, len(list))
		for i, b := range list {
			if cb, ok := copies[b]; ok {
				out[i] = cb
			} else {
				out[i] = b // done and settled: never changed again
			}
		}
		return out
	}
	c.parts = make([]*partitionState, len(p.parts))
	for i, ps := range p.parts {
		q := *ps
		if ps.q != nil {
			q.q = &partQueues{queue: remap(ps.q.queue), outstanding: remap(ps.q.outstanding)}
		}
		c.parts[i] = &q
	}
	if p.s != nil {
		for _, b := range c.s.recent {
			i, _ := p.partIndex(b.TP) // the clone's parts are the original's, in the same order
			b.ps = c.parts[i]
		}
	}
	if p.s != nil {
		c.s.reqs = make([]*request, len(p.s.reqs))
		for i, r := range p.s.reqs {
			q := *r
			q.batches = remap(r.batches)
			q.one = [1]*Batch{} // r's room: it would keep r's batch alive for as long as the copy lives
			c.s.reqs[i] = &q
		}
	}
	if p.txn != nil {
		t := *p.txn
		t.added, t.toAdd, t.groups = maps.Clone(p.txn.added), slices.Clone(p.txn.toAdd), slices.Clone(p.txn.groups)
		t.offsets = make([]pendingOffsets, len(p.txn.offsets))
		for i, o := range p.txn.offsets {
			o.offsets = slices.Clone(o.offsets)
			t.offsets[i] = o
		}
		c.txn = &t
	}
	return &c
}

// Copy returns the copy of batch b that a clone made by Clone tracks: b
// itself when b is done and settled.
func (p *Producer) Copy(b *Batch) *Batch {
	if cb := p.Batch(b.ID); cb != nil {
		return cb
	}
	return b
}

// Clone returns a copy of the consumer that changes independently of c.
// What it has read is shared: it only grows.
func (c *Consumer) Clone() *Consumer {
	d := *c
	d.tps = slices.Clone(c.tps)
	d.positions, d.fetching = maps.Clone(c.positions), maps.Clone(c.fetching)
	d.read = c.read[:len(c.read):len(c.read)]
	d.dec, d.batch = record.Decoder{}, record.Batch{}
	return &d
}
