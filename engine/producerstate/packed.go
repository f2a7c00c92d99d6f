package producerstate

import (
	"encoding/binary"

	"github.com/eoslab/eoslab/engine/internal/wire"
	"github.com/eoslab/eoslab/engine/kerr"
)

// MaxPackedDecision is the most bytes AppendPacked writes for a decision:
// thirteen varints, three bytes (outcome and flags, window length,
// match), and the path's length and steps.
const MaxPackedDecision = 13*binary.MaxVarintLen64 + 3 + 1 + len(Path{}.steps)

// AppendPacked appends d, packed: its numbers as varints, its path as
// Path.AppendPacked writes it. A traced produce keeps its decision so, in
// its event's attributes, where the decision itself took 88 bytes and a
// pointer for the collector to follow.
func (d *Decision) AppendPacked(b []byte) []byte {
	b = wire.AppendVarlong(b, d.Batch.ProducerID)
	b = wire.AppendVarlong(b, d.Batch.MaxTimestamp)
	b = wire.AppendVarlong(b, int64(d.Batch.BaseSeq))
	b = wire.AppendVarlong(b, int64(d.Batch.LastOffsetDelta))
	b = wire.AppendVarlong(b, int64(d.Batch.Epoch))
	b = wire.AppendVarlong(b, int64(d.Original.LastSeq))
	b = wire.AppendVarlong(b, int64(d.Original.OffsetDelta))
	b = wire.AppendVarlong(b, d.Original.LastOffset)
	b = wire.AppendVarlong(b, d.Original.Timestamp)
	b = wire.AppendVarlong(b, int64(d.EntryLastSeq))
	b = wire.AppendVarlong(b, int64(d.WindowFirst))
	b = wire.AppendVarlong(b, int64(d.EntryEpoch))
	b = wire.AppendVarlong(b, int64(d.Error))
	flags := byte(d.Outcome) & 0x3f
	if d.Batch.Transactional {
		flags |= 0x40
	}
	b = append(b, flags, d.WindowLen, byte(d.Match))
	return d.Path.AppendPacked(b)
}

// UnpackDecision reads a decision AppendPacked wrote and returns it with
// the number of bytes read; ok is false if b does not hold one.
func UnpackDecision(b []byte) (d Decision, n int, ok bool) {
	var v [13]int64
	for i := range v {
		x, m := binary.Varint(b[n:])
		if m <= 0 {
			return Decision{}, 0, false
		}
		v[i], n = x, n+m
	}
	if len(b) < n+3 {
		return Decision{}, 0, false
	}
	flags := b[n]
	d = Decision{
		Batch: Batch{ProducerID: v[0], MaxTimestamp: v[1], BaseSeq: int32(v[2]), LastOffsetDelta: int32(v[3]), Epoch: int16(v[4]),
			Transactional: flags&0x40 != 0},
		Original:     BatchMeta{LastSeq: int32(v[5]), OffsetDelta: int32(v[6]), LastOffset: v[7], Timestamp: v[8]},
		EntryLastSeq: int32(v[9]), WindowFirst: int32(v[10]), EntryEpoch: int16(v[11]), Error: kerr.Code(v[12]),
		Outcome: Outcome(flags & 0x3f), WindowLen: b[n+1], Match: int8(b[n+2]),
	}
	p, m, ok := UnpackPath(b[n+3:])
	if !ok {
		return Decision{}, 0, false
	}
	d.Path = p
	return d, n + 3 + m, true
}
