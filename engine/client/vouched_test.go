package client

import (
	"math/rand/v2"
	"testing"

	"github.com/eoslab/eoslab/engine/record"
)

// TestEncodedBatchesWalkAsVouched: for every batch the producer encodes,
// the leader's walk of the records (record.Decoder.CheckParsed) finds what
// a vouched batch is taken to be (msg.ProduceBatch.Vouched): no error, the
// records in order, and the header's maxTimestamp the largest of theirs.
// The leader skips the walk for such a batch, so an encoder that broke
// this would have the leader store what Kafka's would refuse or rewrite.
func TestEncodedBatchesWalkAsVouched(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var sc Scratch
	var dec record.Decoder
	for i := range 2000 {
		cfg := &Config{Idempotent: rng.IntN(2) == 0}
		if cfg.Idempotent && rng.IntN(2) == 0 {
			cfg.TransactionalID = "tx"
		}
		p := &Producer{name: "p" + string(rune('a'+rng.IntN(26))), cfg: cfg}
		b := &Batch{
			Count:       int32(1 + rng.IntN(40)),
			FirstSerial: rng.Int64N(1 << 40),
			Timestamp:   rng.Int64N(1 << 42),
			PID:         rng.Int64N(1 << 20),
			Epoch:       int16(rng.IntN(100)),
			Seq:         rng.Int32N(1 << 30),
		}
		if rng.IntN(3) == 0 {
			b.Key = make([]byte, rng.IntN(300))
		}
		if rng.IntN(3) == 0 {
			b.Explicit, b.Value = true, make([]byte, rng.IntN(3000))
		}
		data := p.encode(b, &sc)
		h, err := record.ParseHeader(data)
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		walked, err := dec.CheckParsed(&h, data)
		if err != nil {
			t.Fatalf("batch %d: the leader's walk refuses it: %v", i, err)
		}
		if want := (record.Walked{InOrder: true, MaxTimestamp: h.MaxTimestamp}); walked != want {
			t.Fatalf("batch %d: walked %+v, vouched for %+v", i, walked, want)
		}
	}
}
