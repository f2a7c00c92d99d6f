package sim

import (
	"testing"

	"github.com/eoslab/eoslab/engine/client"
)

// Nothing grows without bound, whatever the commands: the event queue
// holds at most twice what can still act (plus a small slack), and what
// can act is bounded by the world's state — one item per message on the
// wire, one timeout per request in flight, one deadline per unfinished
// batch, one wake per producer, and a few controller, coordinator and
// fetcher timers per broker and partition. (The engine once scheduled a
// new wake for every retry without dropping the old ones, and a
// transactional producer facing two dead brokers grew ninefold per retry
// cycle until it ran out of memory.)
func TestNothingGrowsWithoutBound(t *testing.T) {
	sessions := 300
	if testing.Short() {
		sessions = 60
	}
	for seed := uint64(1); seed <= uint64(sessions); seed++ {
		w := New(seed)
		w.SetTracing(false)
		for i, c := range randomSession(seed, 80) {
			w.Apply(c)
			deliveries, others := liveItems(w)
			if n := w.queue.len(); n > 2*(deliveries+others)+compactSlack {
				t.Fatalf("seed %d, command %d: the queue holds %d items of which %d can act", seed, i, n, deliveries+others)
			}
			if limit := actorBound(w); others > limit {
				t.Fatalf("seed %d, command %d: %d timers and wakes can act, more than the state accounts for (%d)", seed, i, others, limit)
			}
			if n := w.conns.len(); n > 4*len(w.brokers)*(w.producers.all.len()+len(w.tx.cons)+2*len(w.brokers))+deliveries {
				t.Fatalf("seed %d, command %d: %d connections remembered", seed, i, n)
			}
		}
	}
}

// inFlight is the number of requests producers wait for.
func inFlight(w *World) int {
	n := 0
	for _, e := range w.producers.all.all() {
		s := e.slot
		if s.p == nil {
			continue
		}
		for _, k := range s.p.InFlightRequests() {
			n += k
		}
	}
	return n
}

// actorBound is what the world's state allows to be pending besides the
// messages on the wire.
func actorBound(w *World) int {
	n := 0
	for _, e := range w.producers.all.all() {
		s := e.slot
		n += 1 + 2*len(w.brokers) // a wake, close notices
		if s.p == nil {
			continue
		}
		for _, b := range s.p.Unsettled() {
			if b.State != client.Acked && b.State != client.Failed && b.State != client.Expired {
				n++ // its delivery deadline
			}
		}
	}
	n += inFlight(w) // request timeouts
	txns := 0
	for _, p := range w.tx.txnLog {
		txns += p.records
	}
	for _, b := range w.brokers {
		n += b.PendingRequests() // purgatory timeouts
	}
	return n + len(w.brokers)*(len(w.parts)+2*txns+len(w.brokers)+2) + len(w.tx.cons)*len(w.brokers) + 16
}

// The case: a transactional producer with a batch outstanding
// while two of three brokers are down retries for two simulated hours and
// the queue stays small.
func TestRetryStormStaysSmall(t *testing.T) {
	w := playScript(t, "producer t1 transactional=tx\nrun\nbegin t1\nsend t1 orders-0 1\nkill broker 1\nkill broker 2\nadvance 2h\ncommit t1\nadvance 1h\n")
	if n := w.queue.len(); n > 200 {
		t.Fatalf("%d items queued after two hours of retries", n)
	}
}
