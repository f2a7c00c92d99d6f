package partition

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/record"
)

// kafkaMaxTimestamp is the maxTimestamp Kafka's LogValidator computes for
// a batch it keeps on a CreateTime topic (assignOffsetsNonCompressed, the
// in-place end of validateMessagesAndAssignOffsetsCompressed): it starts
// from RecordBatch.NO_TIMESTAMP and keeps every record.timestamp() above
// it, where DefaultRecord.readFrom makes a record's timestamp the batch's
// maxTimestamp in a batch whose attributes say LogAppendTime, and
// baseTimestamp + delta (Java's long addition, which wraps) otherwise.
func kafkaMaxTimestamp(b *record.Batch) int64 {
	maxTS := int64(-1)
	for _, r := range b.Records {
		t := b.BaseTimestamp + r.TimestampDelta
		if b.Attributes&0x08 != 0 {
			t = b.MaxTimestamp
		}
		if t > maxTS {
			maxTS = t
		}
	}
	return maxTS
}

// The leader stores a batch it keeps with the timestamp type and
// maxTimestamp Kafka's LogValidator sets (batch.setMaxTimestamp(
// timestampType, maxTimestamp)): the topic's type, CreateTime, and the
// largest record timestamp. DefaultRecordBatch.setMaxTimestamp leaves a
// batch that has both as it is, and otherwise writes the attributes
// computeAttributes makes (codec, transactional, control and delete-horizon
// bits, timestamp type; no other bit), maxTimestamp and a new CRC. So, for
// uncompressed batches and every codec, records framed alike and records
// unlike one another, the stored batch read with kmsg, the standard
// library's CRC-32C and each codec's own library has: maxTimestamp and
// attributes as Kafka would store them, a valid CRC, every other byte but
// the base offset and leader epoch as sent; a batch that is right is
// stored byte for byte as it arrived. A follower copies the stored batch
// and ends with the leader's producer state, whose last timestamp is the
// stored maxTimestamp; the producer's bytes are not written to; a retry
// is a duplicate. (The engine's topics are CreateTime only: no case of a
// LogAppendTime topic.)
func TestLeaderSetsMaxTimestamp(t *testing.T) {
	type tc struct {
		name string
		edit func(b *record.Batch, right int64) // right: the records' largest timestamp as sent
	}
	cases := []tc{
		{"right", func(b *record.Batch, right int64) {}},
		{"max too low", func(b *record.Batch, right int64) { b.MaxTimestamp = right - 1 }},
		{"max is base", func(b *record.Batch, right int64) { b.MaxTimestamp = b.BaseTimestamp }},
		{"max too high", func(b *record.Batch, right int64) { b.MaxTimestamp = right + 1000 }},
		{"max -1", func(b *record.Batch, right int64) { b.MaxTimestamp = -1 }},
		{"max far off", func(b *record.Batch, right int64) { b.MaxTimestamp = math.MinInt64 }},
		// Every record of a LogAppendTime batch reads its maxTimestamp:
		// that is the largest, whatever the deltas say, and only the bit
		// changes, except for a maxTimestamp below -1.
		{"LogAppendTime bit, max right", func(b *record.Batch, right int64) { b.Attributes |= record.LogAppendTimeFlag }},
		{"LogAppendTime bit, max too high", func(b *record.Batch, right int64) {
			b.Attributes |= record.LogAppendTimeFlag
			b.MaxTimestamp = right + 1000
		}},
		{"LogAppendTime bit, max too low", func(b *record.Batch, right int64) {
			b.Attributes |= record.LogAppendTimeFlag
			b.MaxTimestamp = b.BaseTimestamp - 1
		}},
		{"LogAppendTime bit, max -7", func(b *record.Batch, right int64) {
			b.Attributes |= record.LogAppendTimeFlag
			b.MaxTimestamp = -7
		}},
		{"LogAppendTime bit and the others, max too low", func(b *record.Batch, right int64) {
			b.Attributes |= record.LogAppendTimeFlag | record.TransactionalFlag | record.DeleteHorizonFlag | 0x80
			b.MaxTimestamp = right - 1
		}},
		// Timestamps below 0: -1 is no timestamp, and the largest is -1
		// when no record's is above it.
		{"no timestamps, max 7", func(b *record.Batch, right int64) {
			b.BaseTimestamp, b.MaxTimestamp = -1, 7
			for i := range b.Records {
				b.Records[i].TimestampDelta = 0
			}
		}},
		{"timestamps below -1, max the largest", func(b *record.Batch, right int64) {
			b.BaseTimestamp, b.MaxTimestamp = -100, -100+right-ts
		}},
		{"timestamps below -1, max -1", func(b *record.Batch, right int64) {
			b.BaseTimestamp, b.MaxTimestamp = -100, -1
		}},
		// baseTimestamp + delta past the int64 range wraps, in Java as
		// here: the wrapped timestamps are the smallest.
		{"wrapping, max of the deltas", func(b *record.Batch, right int64) {
			b.BaseTimestamp = math.MaxInt64 - 1
			b.MaxTimestamp = b.BaseTimestamp + (right - ts) // wrapped for the largest delta
		}},
		{"wrapping, max right", func(b *record.Batch, right int64) {
			b.BaseTimestamp = math.MaxInt64 - 1
			b.MaxTimestamp = kafkaMaxTimestamp(b)
		}},
		// Other attribute bits: kept when nothing changes, kept by
		// computeAttributes (transactional, delete horizon) or dropped
		// (bits 7-15) when setMaxTimestamp writes.
		{"transactional, max too low", func(b *record.Batch, right int64) {
			b.Attributes |= record.TransactionalFlag
			b.MaxTimestamp = right - 1
		}},
		{"delete horizon bit, max too high", func(b *record.Batch, right int64) {
			b.Attributes |= record.DeleteHorizonFlag
			b.MaxTimestamp = right + 1
		}},
		{"bits 7-15, max right", func(b *record.Batch, right int64) { b.Attributes |= -0x80 }},
		{"bits 7-15, max too low", func(b *record.Batch, right int64) {
			b.Attributes |= -0x80
			b.MaxTimestamp = right - 1
		}},
	}
	records := []struct {
		name  string
		build func(c record.Compression) record.Batch
	}{
		// 25 records framed alike, deltas 0 (ten), 1 (ten), 2 (five).
		{"alike", func(c record.Compression) record.Batch { return plainBatch(c, false, seq(25)...) }},
		// 3 records unlike one another, deltas 5, 0, 9.
		{"unlike", func(c record.Compression) record.Batch { return oddBatch(c, false, 0, 1, 2) }},
		// 70 records framed alike, every delta its own: 0, -1, 2, -3, …
		{"alike, every delta its own", func(c record.Compression) record.Batch {
			b := plainBatch(c, false, seq(70)...)
			for i := range b.Records {
				b.Records[i].TimestampDelta = int64(i) * int64(1-i%2*2)
			}
			b.MaxTimestamp = ts + 68
			return b
		}},
	}
	for _, codec := range []record.Compression{record.None, record.Gzip, record.Snappy, record.LZ4, record.Zstd} {
		for _, recs := range records {
			for _, c := range cases {
				t.Run(codec.String()+"/"+recs.name+"/"+c.name, func(t *testing.T) {
					src := recs.build(codec)
					if right := kafkaMaxTimestamp(&src); src.MaxTimestamp != right {
						t.Fatalf("the batch before the edit has maxTimestamp %d, its records %d", src.MaxTimestamp, right)
					}
					c.edit(&src, src.MaxTimestamp)
					in := encode(t, &src)
					sent := bytes.Clone(in)

					wantMax := kafkaMaxTimestamp(&src)
					changed := src.Attributes&record.LogAppendTimeFlag != 0 || src.MaxTimestamp != wantMax
					wantAttrs := int16(src.Attributes)
					if changed {
						wantAttrs &= 0x07 | 0x10 | 0x20 | 0x40 // computeAttributes, CreateTime
					}

					leader, follower := New("orders-0", Config{}), New("orders-0", Config{})
					leader.SetLeaderEpoch(3)
					mustAppend(t, leader, batch(-1, -1, -1, 2, false)) // offsets 0-1, from another producer
					r := mustAppend(t, leader, in)
					n := int64(len(src.Records))
					if r.BaseOffset != 2 || r.LastOffset != 1+n || leader.LogEndOffset() != 2+n {
						t.Fatalf("offsets %d-%d, LEO %d", r.BaseOffset, r.LastOffset, leader.LogEndOffset())
					}
					if !bytes.Equal(in, sent) {
						t.Fatal("the producer's bytes were written to")
					}
					stored := leader.Batch(1).Bytes()
					if !changed {
						sameBytesButStamp(t, in, stored)
					}
					// Only these bytes may differ: base offset, leader
					// epoch, CRC, attributes, maxTimestamp.
					if len(stored) != len(in) {
						t.Fatalf("stored %d bytes, %d arrived", len(stored), len(in))
					}
					for i := range in {
						if in[i] != stored[i] && !(i < 8 || (i >= 12 && i < 16) || (i >= 17 && i < 23) || (i >= 35 && i < 43)) {
							t.Fatalf("byte %d changed: %x arrived, %x stored", i, in, stored)
						}
					}
					kb, krecs := kmsgRead(t, stored) // the CRC checked with the standard library
					if kb.MaxTimestamp != wantMax || kb.Attributes != wantAttrs {
						t.Fatalf("stored maxTimestamp %d, attributes %#x; want %d, %#x (sent %d, %#x)",
							kb.MaxTimestamp, uint16(kb.Attributes), wantMax, uint16(wantAttrs), src.MaxTimestamp, uint16(src.Attributes))
					}
					if got := int16(binary.BigEndian.Uint16(stored[21:])); got != wantAttrs {
						t.Fatalf("attributes bytes %#x, want %#x", uint16(got), uint16(wantAttrs))
					}
					if kb.FirstOffset != 2 || kb.PartitionLeaderEpoch != 3 || kb.FirstTimestamp != src.BaseTimestamp ||
						kb.NumRecords != int32(n) || kb.ProducerID != 4711 || kb.ProducerEpoch != 2 || kb.FirstSequence != 40 {
						t.Fatalf("stored header %+v", kb)
					}
					for i, kr := range krecs {
						w := src.Records[i]
						if kr.TimestampDelta64 != w.TimestampDelta || kr.OffsetDelta != w.OffsetDelta ||
							!sameNullable(kr.Key, w.Key) || !sameNullable(kr.Value, w.Value) || len(kr.Headers) != len(w.Headers) {
							t.Fatalf("record %d: stored %+v, sent %+v", i, kr, w)
						}
					}
					// A follower copies the stored batch and ends with the
					// leader's producer state: the stored maxTimestamp is
					// the producer's last timestamp.
					for i := range leader.NumBatches() {
						if err := follower.AppendAsFollower(leader.Batch(i).Bytes()); err != nil {
							t.Fatal(err)
						}
					}
					assertSameState(t, leader.State(), follower.State(), 5)
					if e, ok := leader.State().Lookup(4711); !ok || e.LastTimestamp() != wantMax {
						t.Fatalf("producer entry %+v, want last timestamp %d", e, wantMax)
					}
					// A retry of the batch as sent is a duplicate of the stored one.
					if d := leader.AppendAsLeader(in); d.Error != kerr.None || d.Appended() || d.BaseOffset != 2 || d.LastOffset != 1+n {
						t.Fatalf("retry: %v %q at %d-%d", d.Error, d.Reason, d.BaseOffset, d.LastOffset)
					}
				})
			}
		}
	}
}
