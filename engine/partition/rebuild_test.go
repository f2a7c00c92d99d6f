package partition

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// oddBatch is a producer's batch of len(deltas) records with the given
// offset deltas (lastOffsetDelta and recordsCount agree whatever they
// are), records unlike one another: keys present, null and empty, headers
// with and without values, a record attribute, timestamps out of order.
func oddBatch(codec record.Compression, txn bool, deltas ...int32) record.Batch {
	b := plainBatch(codec, txn, deltas...)
	tsDeltas := []int64{5, 0, 9}
	for i := range b.Records {
		r := &b.Records[i]
		r.TimestampDelta = tsDeltas[i%3]
		switch i % 3 {
		case 0:
			r.Key = []byte("k0")
			r.Headers = []record.RecordHeader{{Key: "trace", Value: []byte("a1")}, {Key: "nil", Value: nil}}
		case 1:
			r.Value = nil
		case 2:
			r.Key, r.Attributes = []byte{}, 4
			r.Headers = []record.RecordHeader{{Key: "", Value: []byte{}}}
		}
	}
	b.MaxTimestamp = ts + 9
	return b
}

// plainBatch is oddBatch with the records a producer writes most: framed
// alike (no key, values of one length, no headers), timestamps rising.
func plainBatch(codec record.Compression, txn bool, deltas ...int32) record.Batch {
	n := int32(len(deltas))
	b := record.Batch{Header: record.Header{
		PartitionLeaderEpoch: -1, Magic: 2, LastOffsetDelta: n - 1, RecordsCount: n,
		BaseTimestamp: ts, MaxTimestamp: ts + int64(n-1)/10, ProducerID: 4711, ProducerEpoch: 2, BaseSequence: 40,
		Attributes: record.Attributes(0).WithCompression(codec),
	}}
	if txn {
		b.Attributes |= record.TransactionalFlag
	}
	for i, d := range deltas {
		b.Records = append(b.Records, record.Record{OffsetDelta: d, TimestampDelta: int64(i / 10), Value: fmt.Appendf(nil, "value-%04d", i)})
	}
	return b
}

func encode(t testing.TB, b *record.Batch) []byte {
	t.Helper()
	out, err := record.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// kmsgRead reads a stored batch with franz-go's kmsg, the CRC with the
// standard library's CRC-32C and the record area with each codec's
// library directly: an implementation that shares no code with
// engine/record.
func kmsgRead(t *testing.T, stored []byte) (kmsg.RecordBatch, []kmsg.Record) {
	t.Helper()
	var kb kmsg.RecordBatch
	if err := kb.ReadFrom(stored); err != nil {
		t.Fatal(err)
	}
	if int(kb.Length)+12 != len(stored) {
		t.Fatalf("batch length %d, %d bytes stored", kb.Length, len(stored))
	}
	if crc := crc32.Checksum(stored[21:], crc32.MakeTable(crc32.Castagnoli)); uint32(kb.CRC) != crc {
		t.Fatalf("stored crc %08x, computed %08x", uint32(kb.CRC), crc)
	}
	raw := kb.Records
	var err error
	switch record.Compression(kb.Attributes & 7) {
	case record.None:
	case record.Gzip:
		var r *stdgzip.Reader
		if r, err = stdgzip.NewReader(bytes.NewReader(raw)); err == nil {
			raw, err = io.ReadAll(r)
		}
	case record.Snappy:
		raw, err = unxerial(raw)
	case record.LZ4:
		raw, err = io.ReadAll(lz4.NewReader(bytes.NewReader(raw)))
	case record.Zstd:
		var d *zstd.Decoder
		if d, err = zstd.NewReader(nil); err == nil {
			raw, err = d.DecodeAll(raw, nil)
			d.Close()
		}
	default:
		t.Fatalf("codec %d", kb.Attributes&7)
	}
	if err != nil {
		t.Fatal(err)
	}
	var recs []kmsg.Record
	for range kb.NumRecords {
		l, k := binary.Varint(raw)
		if k <= 0 || int(l) > len(raw)-k {
			t.Fatalf("record length in %x", raw)
		}
		var r kmsg.Record
		if err := r.ReadFrom(raw[:k+int(l)]); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
		raw = raw[k+int(l):]
	}
	if len(raw) != 0 {
		t.Fatalf("%d bytes after %d records", len(raw), kb.NumRecords)
	}
	return kb, recs
}

// unxerial reads snappy-java's framing (magic, two versions, then length
// and raw snappy block pairs), or one raw block.
func unxerial(src []byte) ([]byte, error) {
	magic := []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}
	if !bytes.HasPrefix(src, magic) {
		return s2.Decode(nil, src)
	}
	var out []byte
	for rest := src[16:]; len(rest) > 0; {
		n := int(binary.BigEndian.Uint32(rest))
		block, err := s2.Decode(nil, rest[4:4+n])
		if err != nil {
			return nil, err
		}
		out = append(out, block...)
		rest = rest[4+n:]
	}
	return out, nil
}

// sameBytesButStamp fails unless stored is in with only the bytes a
// leader always stamps changed: base offset (0-7) and leader epoch (12-15).
func sameBytesButStamp(t *testing.T, in, stored []byte) {
	t.Helper()
	if len(in) != len(stored) {
		t.Fatalf("stored %d bytes, %d arrived", len(stored), len(in))
	}
	for i := range in {
		if in[i] != stored[i] && !(i < 8 || (i >= 12 && i < 16)) {
			t.Fatalf("byte %d changed: %x arrived, %x stored", i, in, stored)
		}
	}
}

// A compressed batch whose records' offset deltas are not 0, 1, 2, … is
// rebuilt as Kafka's LogValidator.buildRecordsAndAssignOffsets does: the
// stored batch, read with kmsg, holds the same records at consecutive
// offsets, keeps the codec and the producer's fields, has a new CRC and
// the timestamps MemoryRecordsBuilder writes. A compressed batch in order,
// and any uncompressed batch (Kafka's assignOffsetsNonCompressed does not
// look at inner offsets), is stored as it arrived.
func TestLeaderRebuildsCompressedBatchOutOfOrder(t *testing.T) {
	type tc struct {
		name    string
		src     record.Batch
		rebuilt bool
	}
	// Records framed alike are walked by comparing their framing with the
	// record before (check.go's walkPlain): one place out of order among
	// 200 such records, and one among 300, where deltas take two bytes.
	swapped := func(n, at int32) []int32 {
		d := seq(n)
		d[at], d[at+1] = d[at+1], d[at]
		return d
	}
	var cases []tc
	for _, c := range []record.Compression{record.Gzip, record.Snappy, record.LZ4, record.Zstd} {
		cases = append(cases,
			tc{c.String() + " 0,2,1", oddBatch(c, false, 0, 2, 1), true},
			tc{c.String() + " 5,6,7 transactional", oddBatch(c, true, 5, 6, 7), true},
			tc{c.String() + " 0,0,0", oddBatch(c, false, 0, 0, 0), true},
			tc{c.String() + " 0,1,3,3,4", oddBatch(c, true, 0, 1, 3, 3, 4), true},
			tc{c.String() + " plain, 100 and 101 swapped", plainBatch(c, false, swapped(200, 100)...), true},
			tc{c.String() + " plain, 0..298 and 300", plainBatch(c, true, append(seq(299), 300)...), true},
			tc{c.String() + " 0,1,2 in order", oddBatch(c, false, 0, 1, 2), false},
			tc{c.String() + " plain, 0..299 in order", plainBatch(c, true, seq(300)...), false},
		)
	}
	cases = append(cases,
		tc{"none 0,2,1", oddBatch(record.None, false, 0, 2, 1), false},
		tc{"none 5,6,7", oddBatch(record.None, true, 5, 6, 7), false},
		tc{"none 0,0,0", oddBatch(record.None, false, 0, 0, 0), false},
		tc{"none plain, 100 and 101 swapped", plainBatch(record.None, false, swapped(200, 100)...), false},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			leader, follower := New("orders-0", Config{}), New("orders-0", Config{})
			leader.SetLeaderEpoch(3)
			first := batch(-1, -1, -1, 2, false) // offsets 0-1, from another producer
			mustAppend(t, leader, first)
			src := c.src
			in := encode(t, &src)
			r := mustAppend(t, leader, in)
			n := int64(len(src.Records))
			if r.BaseOffset != 2 || r.LastOffset != 1+n || leader.LogEndOffset() != 2+n {
				t.Fatalf("offsets %d-%d, LEO %d", r.BaseOffset, r.LastOffset, leader.LogEndOffset())
			}
			stored := leader.Batch(1).Bytes()
			if !c.rebuilt {
				sameBytesButStamp(t, in, stored)
			} else if bytes.Equal(in[21:], stored[21:]) {
				t.Fatal("stored as it arrived")
			}
			kb, recs := kmsgRead(t, stored)
			if kb.FirstOffset != 2 || kb.PartitionLeaderEpoch != 3 || kb.Magic != 2 || kb.Attributes != int16(src.Attributes) ||
				kb.LastOffsetDelta != int32(n-1) || kb.NumRecords != int32(n) ||
				kb.ProducerID != 4711 || kb.ProducerEpoch != 2 || kb.FirstSequence != 40 {
				t.Fatalf("stored header %+v", kb)
			}
			// MemoryRecordsBuilder: baseTimestamp is the first record's,
			// maxTimestamp the largest, as the batch that arrived says.
			wantBase := src.BaseTimestamp
			if c.rebuilt {
				wantBase += src.Records[0].TimestampDelta
			}
			if kb.FirstTimestamp != wantBase || kb.MaxTimestamp != src.MaxTimestamp {
				t.Fatalf("baseTimestamp %d, maxTimestamp %d; want %d, %d", kb.FirstTimestamp, kb.MaxTimestamp, wantBase, src.MaxTimestamp)
			}
			for i, kr := range recs {
				w := src.Records[i]
				wantDelta, wantAttr := w.OffsetDelta, w.Attributes
				if c.rebuilt {
					wantDelta, wantAttr = int32(i), 0
				}
				if kr.OffsetDelta != wantDelta || kr.Attributes != wantAttr ||
					kb.FirstTimestamp+kr.TimestampDelta64 != src.BaseTimestamp+w.TimestampDelta ||
					!sameNullable(kr.Key, w.Key) || !sameNullable(kr.Value, w.Value) || len(kr.Headers) != len(w.Headers) {
					t.Fatalf("record %d: stored %+v, sent %+v", i, kr, w)
				}
				for j, h := range kr.Headers {
					if h.Key != w.Headers[j].Key || !sameNullable(h.Value, w.Headers[j].Value) {
						t.Fatalf("record %d header %d: stored %+v, sent %+v", i, j, h, w.Headers[j])
					}
				}
			}
			// engine/record reads it too, and a follower copies it, ending
			// with the leader's producer state.
			if got, err := record.Decode(stored); err != nil || record.InOrder(got.Records) != (c.rebuilt || record.InOrder(src.Records)) {
				t.Fatalf("engine/record: %v, in order %v", err, record.InOrder(got.Records))
			}
			for i := range leader.NumBatches() {
				if err := follower.AppendAsFollower(leader.Batch(i).Bytes()); err != nil {
					t.Fatal(err)
				}
			}
			assertSameState(t, leader.State(), follower.State(), 5)
			// A retry of the batch as sent is a duplicate of the stored one.
			if d := leader.AppendAsLeader(in); d.Error != kerr.None || d.Appended() || d.BaseOffset != 2 || d.LastOffset != 1+n {
				t.Fatalf("retry: %v %q at %d-%d", d.Error, d.Reason, d.BaseOffset, d.LastOffset)
			}
		})
	}
}

func seq(n int32) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

func sameNullable(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// The producer state of a rebuilt batch is the stored batch's: its
// maxTimestamp is the records' largest, whatever the producer wrote, on
// the leader as on a follower that replays the stored batch.
func TestRebuiltBatchFeedsProducerState(t *testing.T) {
	leader, follower := New("orders-0", Config{}), New("orders-0", Config{})
	src := oddBatch(record.Zstd, false, 0, 2, 1)
	src.MaxTimestamp = ts + 100 // not what the records say
	mustAppend(t, leader, encode(t, &src))
	if err := follower.AppendAsFollower(leader.Batch(0).Bytes()); err != nil {
		t.Fatal(err)
	}
	e, ok := leader.State().Lookup(4711)
	if !ok || e.LastTimestamp() != ts+9 {
		t.Fatalf("leader's producer entry %+v", e)
	}
	assertSameState(t, leader.State(), follower.State(), 5)
}

// A rebuild fails where Kafka's MemoryRecordsBuilder fails: a record
// timestamp below -1 (UNKNOWN_SERVER_ERROR, nothing appended), which a
// batch kept as it arrived never meets; -1 (no timestamp) is kept.
func TestRebuildTimestamps(t *testing.T) {
	neg := func(deltas ...int32) []byte {
		b := oddBatch(record.LZ4, false, deltas...)
		b.BaseTimestamp, b.MaxTimestamp = -10, -1
		return encode(t, &b)
	}
	l := New("orders-0", Config{})
	r := l.AppendAsLeader(neg(0, 2, 1))
	if r.Error != kerr.UnknownServerError || r.Reason == "" || l.LogEndOffset() != 0 || l.State().Len() != 0 {
		t.Fatalf("negative timestamp rebuilt: %v %q, LEO %d", r.Error, r.Reason, l.LogEndOffset())
	}
	t.Log(r.Reason)
	mustAppend(t, l, neg(0, 1, 2)) // kept as it arrived: no builder, no check

	none := oddBatch(record.Gzip, false, 1, 1, 1)
	none.BaseTimestamp, none.MaxTimestamp, none.BaseSequence = -1, -1, 43
	for i := range none.Records {
		none.Records[i].TimestampDelta = 0
	}
	r = mustAppend(t, l, encode(t, &none))
	kb, recs := kmsgRead(t, l.Batch(l.NumBatches()-1).Bytes())
	if r.BaseOffset != 3 || kb.FirstTimestamp != -1 || kb.MaxTimestamp != -1 || recs[2].OffsetDelta != 2 || recs[2].TimestampDelta64 != 0 {
		t.Fatalf("no timestamps: %+v", kb)
	}
}

// As UnifiedLog.append does after a validator that may change a batch's
// size, the rebuilt batch is held to max.message.bytes again: a batch that
// fits as it arrived but not once rebuilt is refused with
// MESSAGE_TOO_LARGE.
func TestRebuiltBatchSizeChecked(t *testing.T) {
	// Every offset delta 0 and the first record's timestamp far above the
	// others': rebuilt, the offset deltas from 64 on take two bytes instead
	// of one, the timestamp deltas after the first six instead of one, and
	// random values leave the codec little to take back.
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 300
	b := oddBatch(record.Snappy, false, make([]int32, n)...)
	for i := range b.Records {
		v := make([]byte, 20)
		for j := range v {
			v[j] = byte(rng.IntN(256))
		}
		b.Records[i] = record.Record{TimestampDelta: int64(rng.IntN(60)), Value: v}
	}
	b.Records[0].TimestampDelta = 1 << 40
	b.MaxTimestamp = ts + 1<<40
	in := encode(t, &b)

	free := New("orders-0", Config{})
	mustAppend(t, free, in)
	if grown := len(free.Batch(0).Bytes()); grown <= len(in) {
		t.Fatalf("rebuilt batch of %d bytes, %d arrived: the case does not test the limit", grown, len(in))
	}
	l := New("orders-0", Config{MaxMessageBytes: len(in)})
	r := l.AppendAsLeader(in)
	if r.Error != kerr.MessageTooLarge || l.LogEndOffset() != 0 || l.State().Len() != 0 {
		t.Fatalf("%v %q, LEO %d", r.Error, r.Reason, l.LogEndOffset())
	}
	t.Log(r.Reason)
}
