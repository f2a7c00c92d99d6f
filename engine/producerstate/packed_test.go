package producerstate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/eoslab/eoslab/engine/kerr"
)

// A packed decision unpacks to the same decision, whatever its numbers,
// at the ends of their ranges too, and a truncated one does not unpack.
func TestDecisionPackedRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	num := func() int64 {
		switch rng.IntN(4) {
		case 0:
			return int64(rng.IntN(3)) - 1
		case 1:
			return math.MaxInt64 - int64(rng.IntN(2))
		case 2:
			return math.MinInt64 + int64(rng.IntN(2))
		}
		return rng.Int64() >> rng.IntN(64)
	}
	for i := range 5000 {
		d := Decision{
			Batch: Batch{ProducerID: num(), MaxTimestamp: num(), BaseSeq: int32(num()), LastOffsetDelta: int32(num()),
				Epoch: int16(num()), Transactional: rng.IntN(2) == 0},
			Original:     BatchMeta{LastSeq: int32(num()), OffsetDelta: int32(num()), LastOffset: num(), Timestamp: num()},
			EntryLastSeq: int32(num()), WindowFirst: int32(num()), EntryEpoch: int16(num()), Error: kerr.Code(num()),
			Outcome: Outcome(rng.IntN(4)), WindowLen: uint8(rng.IntN(256)), Match: int8(num()),
		}
		for range rng.IntN(len(d.Path.steps) + 1) {
			d.Path.add(Check(1+rng.IntN(int(CheckTransaction))), Result(rng.IntN(int(TxnExpected)+1)))
		}
		b := d.AppendPacked([]byte{0xaa})[1:]
		if len(b) > MaxPackedDecision {
			t.Fatalf("decision %d: packed in %d bytes, more than MaxPackedDecision %d", i, len(b), MaxPackedDecision)
		}
		got, n, ok := UnpackDecision(append(b, 0xbb))
		if !ok || n != len(b) || got != d {
			t.Fatalf("decision %d: %+v\npacked in %d bytes unpacks to (%v, %d bytes) %+v", i, d, len(b), ok, n, got)
		}
		if _, _, ok := UnpackDecision(b[:rng.IntN(len(b))]); ok {
			t.Fatalf("decision %d: a truncated packing unpacks", i)
		}
	}
}
