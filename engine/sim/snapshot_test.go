package sim

import (
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

// A producer's settled batches are shared by every later snapshot, even
// while it has batches under way, so that a snapshot does not copy the
// history; NumBatches, Batch and AllBatches see settled and recent
// batches as one list, in the order of their ids.
func TestSnapshotSharesSettledBatches(t *testing.T) {
	w := workload(t, 2_000)
	w.Apply(&script.Send{Producer: "a", TP: script.TopicPartition{Topic: "orders", Partition: 1}, Count: 2})
	s1 := w.Snapshot()
	w.Step()
	s2 := w.Snapshot()
	p1, p2 := &s1.Producers[0], &s2.Producers[0]
	if len(p1.Recent) == 0 || len(p1.Batches) < 100 {
		t.Fatalf("%d settled, %d recent batches: the workload should leave some under way", len(p1.Batches), len(p1.Recent))
	}
	if &p1.Batches[0] != &p2.Batches[0] {
		t.Fatal("the second snapshot copied the settled batches")
	}
	for _, p := range []*ProducerView{p1, p2} {
		n := 0
		for i, b := range p.AllBatches() {
			if i != n || b.ID != n+1 || p.Batch(i) != b {
				t.Fatalf("batch %d: index %d, id %d", n, i, b.ID)
			}
			n++
		}
		if n != p.NumBatches() || n != len(p.Batches)+len(p.Recent) {
			t.Fatalf("%d batches yielded, NumBatches %d", n, p.NumBatches())
		}
	}
}
