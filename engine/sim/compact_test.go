package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/client"
)

// compactAll compacts every producer of the world, as a world past
// idleAbove connections does to each quiet one (Compact does nothing to a
// producer that is not quiet). It returns how many were quiet.
func compactAll(w *World) int {
	n := 0
	for _, e := range w.producers.all.all() {
		if s := e.slot; s.p != nil {
			if s.p.NumBatches() > 0 && !s.p.Pending() && len(s.p.InFlightRequests()) == 0 {
				n++
			}
			s.p.Compact(&w.scratch)
		}
	}
	return n
}

// producerDump is everything a producer shows of itself: identity, every
// batch (whole, bytes included), every partition, the requests in flight.
func producerDump(p *client.Producer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s pid %d epoch %d fatal %q serial %d batches %d settled %d pending %v txn %v %v inflight %v\n",
		p.Name(), p.ModeName(), p.ProducerID(), p.Epoch(), p.Fatal(), p.NextSerial(), p.NumBatches(), p.Settled(),
		p.Pending(), p.TxnState(), p.TxnError(), p.InFlightRequests())
	batch := func(x client.Batch) {
		fmt.Fprintf(&b, "#%d %v n%d serial %d key %q value %q/%v created %d ts %d pid %d epoch %d seq %d sends %d attempts %d %v ready %d req %d offset %d err %v %q bytes %x\n",
			x.ID, x.TP, x.Count, x.FirstSerial, x.Key, x.Value, x.Explicit, x.CreatedMs, x.Timestamp, x.PID, x.Epoch, x.Seq,
			x.Sends, x.Attempts, x.State, x.ReadyAt, x.Request, x.BaseOffset, x.Err, x.ErrText, x.Bytes)
	}
	for i := range p.NumBatches() {
		batch(p.BatchAt(i))
	}
	for _, x := range p.Unsettled() {
		batch(*x)
		if p.Batch(x.ID) != x {
			fmt.Fprintf(&b, "batch %d not found by id\n", x.ID)
		}
	}
	for _, v := range p.Partitions() {
		fmt.Fprintf(&b, "%+v\n", v)
	}
	return b.String()
}

// worldProducers dumps every producer of the world.
func worldProducers(w *World) string {
	var b strings.Builder
	for _, e := range w.producers.all.all() {
		if s := e.slot; s.p != nil {
			b.WriteString(producerDump(s.p))
		}
	}
	return b.String()
}

// A quiet producer's compact form (Producer.Compact: no sending state,
// partitions without their queues; and for every producer the first done
// batch on its own) is a representation: random sessions — every fault,
// restarts, kills, failovers — played with every producer compacted after
// every step give the producers, the state and the trace of the same
// session played without; a compacted producer's clone is the whole
// one; a clone of the world plays on as the original does, and the world
// rewinds exactly.
func TestCompactProducersProperty(t *testing.T) {
	sessions := 40
	if testing.Short() {
		sessions = 15
	}
	quiet := 0
	for seed := uint64(1); seed <= uint64(sessions); seed++ {
		cmds := randomSession(seed, 60)
		rng := rand.New(rand.NewPCG(seed, 16))
		total := stepsOf(seed, cmds)
		ks := map[int]bool{}
		for range 3 {
			ks[rng.IntN(total+1)] = true
		}
		whole := newLive(New(seed), ks, nil)
		compact := dense(New(seed), 4+rng.IntN(20))
		half := len(cmds) / 2
		var fork *World
		for i, c := range cmds {
			whole.apply(c)
			if j, ok := compact.StartJob(c); ok {
				for !j.Done() {
					j.Continue(1)
					quiet += compactAll(compact)
				}
			} else {
				compact.Apply(c)
			}
			quiet += compactAll(compact)
			if got, want := worldProducers(compact), worldProducers(whole.w); got != want {
				t.Fatalf("seed %d, command %d (%v): compacted producers differ:\n%s\nwant:\n%s", seed, i, c, got, want)
			}
			if i == half {
				for _, e := range compact.producers.all.all() {
					name := e.name
					if p, q := e.slot.p, whole.w.producers.get(name).p; p != nil && producerDump(p.Clone()) != producerDump(q) {
						t.Fatalf("seed %d: the clone of compacted producer %s differs", seed, name)
					}
				}
				fork = compact.Clone()
			}
		}
		if !bytes.Equal(whole.w.Snapshot().StateJSON(), compact.Snapshot().StateJSON()) || !sameTrace(whole.w, compact, 0) {
			t.Fatalf("seed %d: with compacted producers the state or the trace differs", seed)
		}
		for _, c := range cmds[half+1:] {
			fork.Apply(c)
			compactAll(fork)
		}
		if worldProducers(fork) != worldProducers(compact) || !bytes.Equal(fork.Snapshot().StateJSON(), compact.Snapshot().StateJSON()) ||
			!sameTrace(fork, compact, 0) {
			t.Fatalf("seed %d: a clone with compacted producers, played on, differs from the original", seed)
		}
		for k := range ks {
			r, err := compact.Rewind(k)
			if err != nil {
				t.Fatalf("seed %d: rewind %d: %v", seed, k, err)
			}
			if !bytes.Equal(r.Snapshot().StateJSON(), whole.byStep[k]) {
				t.Fatalf("seed %d: rewound to step %d, the world with compacted producers differs", seed, k)
			}
		}
	}
	if quiet == 0 {
		t.Fatal("no producer was ever quiet when compacted: the test proves nothing")
	}
}
