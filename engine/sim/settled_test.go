package sim

import (
	"bytes"
	"testing"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/record"
)

// A settled batch keeps no bytes: reading it encodes its fields again.
// Over lab schedules under every fault, the bytes read back of each
// acknowledged batch are those its leader appended, but for what a
// leader rewrites (the base offset and the partition leader epoch).
func TestSettledBytesAreThoseSent(t *testing.T) {
	compared := 0
	for _, line := range []string{"producer p1", "producer p1 plain", "producer p1 acks=1"} {
		for seed := uint64(1); seed <= 150; seed++ {
			w := New(seed)
			w.SetTracing(false)
			for _, c := range LabSchedule(seed, line, 40, LabAll) {
				if _, err := w.Apply(c); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
			for _, e := range w.producers.all.all() {
				p := e.slot.p
				if p == nil {
					continue
				}
				for i := range p.Settled() {
					b := p.BatchAt(i)
					if b.State != client.Acked || b.BaseOffset < 0 {
						continue
					}
					m := w.meta(b.TP)
					if m == nil || m.leader == 0 {
						continue
					}
					log := w.brokers[m.leader-1].Replica(b.TP).Log
					j := log.BatchAt(b.BaseOffset)
					if j < 0 {
						continue // truncated away since
					}
					st := log.Batch(j).Bytes()
					if record.CRCOf(st) != record.CRCOf(b.Bytes) {
						continue // another batch took its offsets after a truncation
					}
					if !bytes.Equal(st[record.PartitionLeaderEpochOffset+4:], b.Bytes[record.PartitionLeaderEpochOffset+4:]) ||
						!bytes.Equal(st[8:12], b.Bytes[8:12]) {
						t.Fatalf("%s, seed %d: batch %d reads back as\n%x\nbut its leader appended\n%x", line, seed, b.ID, b.Bytes, st)
					}
					compared++
				}
			}
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d batches compared", compared)
	}
}
