package broker

import (
	"testing"

	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/record"
)

// TestLogChangesFollowTheBroker: a broker counts its own logs' changes,
// and a copy of it counts its copies' changes, not the original's (the
// checker's pass trusts an unchanged count to skip a step).
func TestLogChangesFollowTheBroker(t *testing.T) {
	tp := msg.TP{Topic: "orders", Partition: 0}
	b := New(1, Config{})
	b.AddReplica(tp, partition.Config{})
	appendOne := func(b *Broker, seq int32) {
		t.Helper()
		data, err := record.Encode(&record.Batch{Header: record.Header{PartitionLeaderEpoch: -1, Magic: 2,
			ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, RecordsCount: 1},
			Records: []record.Record{{Value: []byte{byte(seq)}}}})
		if err != nil {
			t.Fatal(err)
		}
		if r := b.Replica(tp).Log.AppendAsLeader(data); !r.Appended() {
			t.Fatalf("not appended: %v %s", r.Error, r.Reason)
		}
	}
	appendOne(b, 0)
	if b.LogChanges() == 0 {
		t.Fatal("an append did not count")
	}
	before := b.LogChanges()
	c := b.Clone()
	cBefore := c.LogChanges()
	appendOne(c, 1)
	if c.LogChanges() == cBefore || b.LogChanges() != before {
		t.Fatalf("an append to the copy: copy %d → %d, original %d → %d", cBefore, c.LogChanges(), before, b.LogChanges())
	}
	appendOne(b, 2)
	if b.LogChanges() == before {
		t.Fatal("an append to the original after the copy did not count")
	}
}
