package record

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

const ts = 1700000000000

// kafkaFactsExample is the worked example of kafka-facts.md §1.8: PID 4711,
// epoch 0, base sequence 0, one record k=v, computed and cross-checked
// independently of this package.
const kafkaFactsExample = "00000000000000000000003affffffff02673711760000000000000000018bcfe568000000018bcfe5680000000000000012670000000000000000000110000000026b027600"

func idempotentBatch() Batch {
	return Batch{
		Header: Header{
			PartitionLeaderEpoch: -1, Magic: 2, BaseTimestamp: ts, MaxTimestamp: ts,
			ProducerID: 4711, ProducerEpoch: 0, BaseSequence: 0, RecordsCount: 1,
		},
		Records: []Record{{Key: []byte("k"), Value: []byte("v")}},
	}
}

func TestEncodeKnownVector(t *testing.T) {
	b := idempotentBatch()
	got, err := Encode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(got) != kafkaFactsExample {
		t.Fatalf("encoding differs from the reference vector\n got %x\nwant %s", got, kafkaFactsExample)
	}
	h, _ := ParseHeader(got)
	if h.CRC != 0x67371176 || h.BatchLength != 58 || h.Size() != 70 {
		t.Fatalf("crc %08x length %d size %d", h.CRC, h.BatchLength, h.Size())
	}
}

// The CRC variants of kafka-facts.md §1.8: each header change inside CRC
// coverage must give exactly the documented checksum.
func TestCRCVariants(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Header)
		crc  uint32
	}{
		{"idempotent", func(*Header) {}, 0x67371176},
		{"appended at offset 42 in leader epoch 3", func(h *Header) { h.BaseOffset, h.PartitionLeaderEpoch = 42, 3 }, 0x67371176},
		{"transactional", func(h *Header) { h.Attributes = TransactionalFlag }, 0xa04ab7c7},
		{"plain", func(h *Header) { h.ProducerID, h.ProducerEpoch, h.BaseSequence = -1, -1, -1 }, 0xe99b8dd8},
		{"epoch 1 base sequence 5", func(h *Header) { h.ProducerEpoch, h.BaseSequence = 1, 5 }, 0x69a865f2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := idempotentBatch()
			c.edit(&b.Header)
			enc, err := Encode(&b)
			if err != nil {
				t.Fatal(err)
			}
			if h, _ := ParseHeader(enc); h.CRC != c.crc {
				t.Fatalf("crc = %08x, want %08x", h.CRC, c.crc)
			}
		})
	}
}

// The leader assigns offsets and its epoch by rewriting bytes 0-15 in
// place: the stored CRC still matches, because coverage starts at byte 21.
func TestAssignOffsetKeepsCRCValid(t *testing.T) {
	b := idempotentBatch()
	enc, _ := Encode(&b)
	before := append([]byte(nil), enc...)
	SetBaseOffset(enc, 904)
	SetPartitionLeaderEpoch(enc, 7)
	for i := range enc {
		if changed := enc[i] != before[i]; changed != (i < 16 && (i < 8 || i >= 12)) && changed {
			t.Fatalf("byte %d changed outside bytes 0-7 and 12-15", i)
		}
	}
	got, err := Decode(enc)
	if err != nil {
		t.Fatalf("decode after assigning offsets: %v", err)
	}
	if got.BaseOffset != 904 || got.PartitionLeaderEpoch != 7 || got.CRC != 0x67371176 {
		t.Fatalf("header %+v", got.Header)
	}
}

func TestCRCMismatchIsAnError(t *testing.T) {
	b := idempotentBatch()
	enc, _ := Encode(&b)
	enc[len(enc)-2] ^= 0xff // corrupt the value byte
	_, err := Decode(enc)
	var ce *CRCError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want *CRCError", err)
	}
	if ce.Stored != 0x67371176 || ce.Computed == ce.Stored {
		t.Fatalf("CRCError %+v", ce)
	}
	if want := "crc mismatch: stored 0x67371176, computed 0x"; !bytes.HasPrefix([]byte(err.Error()), []byte(want)) {
		t.Fatalf("message %q", err)
	}
}

// kmsgEncode builds the same batch with franz-go's kmsg structures and the
// standard library's CRC-32C: an implementation that shares no code with ours.
func kmsgEncode(t testing.TB, b *Batch) []byte {
	var recs []byte
	for _, r := range b.Records {
		kr := kmsg.Record{
			Attributes: r.Attributes, TimestampDelta64: r.TimestampDelta, OffsetDelta: r.OffsetDelta,
			Key: r.Key, Value: r.Value,
		}
		for _, h := range r.Headers {
			kr.Headers = append(kr.Headers, kmsg.Header{Key: h.Key, Value: h.Value})
		}
		body := kr.AppendTo(nil)
		// Length is everything after the length varint: measure, then re-encode.
		kr.Length = int32(len(body) - varintSize(kr.Length))
		recs = kr.AppendTo(recs)
	}
	kb := kmsg.RecordBatch{
		FirstOffset: b.BaseOffset, PartitionLeaderEpoch: b.PartitionLeaderEpoch, Magic: 2,
		Attributes: int16(b.Attributes), LastOffsetDelta: b.LastOffsetDelta,
		FirstTimestamp: b.BaseTimestamp, MaxTimestamp: b.MaxTimestamp,
		ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch, FirstSequence: b.BaseSequence,
		NumRecords: b.RecordsCount, Records: recs,
	}
	kb.Length = int32(HeaderSize - LogOverhead + len(recs))
	out := kb.AppendTo(nil)
	crc := crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli))
	kb.CRC = int32(crc)
	return kb.AppendTo(nil)
}

func varintSize(v int32) int {
	u := uint32((v << 1) ^ (v >> 31))
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

func multiRecordBatch() Batch {
	return Batch{
		Header: Header{
			BaseOffset: 0, PartitionLeaderEpoch: -1, Magic: 2, LastOffsetDelta: 3,
			BaseTimestamp: ts, MaxTimestamp: ts + 300, ProducerID: 5001, ProducerEpoch: 3,
			BaseSequence: 900, RecordsCount: 4,
		},
		Records: []Record{
			{OffsetDelta: 0, Key: []byte("order-1"), Value: []byte(`{"amount":12}`),
				Headers: []RecordHeader{{Key: "trace", Value: []byte("a1")}, {Key: "null-value", Value: nil}}},
			{TimestampDelta: 100, OffsetDelta: 1, Key: nil, Value: []byte("no key")},
			{TimestampDelta: 200, OffsetDelta: 2, Key: []byte{}, Value: nil},
			{TimestampDelta: 300, OffsetDelta: 3, Key: bytes.Repeat([]byte{0xfe}, 200), Value: bytes.Repeat([]byte("x"), 300),
				Headers: []RecordHeader{{Key: "", Value: []byte{}}}},
		},
	}
}

// Byte-for-byte agreement with kmsg for every kind of batch eoslab writes.
func TestEncodeMatchesKmsg(t *testing.T) {
	plain := idempotentBatch()
	plain.ProducerID, plain.ProducerEpoch, plain.BaseSequence = -1, -1, -1
	txn := idempotentBatch()
	txn.Attributes = TransactionalFlag
	txn.ProducerEpoch, txn.BaseSequence = 2, 17
	wrap := multiRecordBatch()
	wrap.BaseSequence = 2147483646 // straddles the wrap: last sequence is 2
	commit := NewMarker(4711, 0, Marker{Type: ControlCommit, CoordinatorEpoch: 0}, ts)
	commit.BaseOffset, commit.PartitionLeaderEpoch = 1, 0
	abort := NewMarker(5001, 9, Marker{Type: ControlAbort, CoordinatorEpoch: 12}, ts)
	cases := map[string]Batch{
		"plain":           plain,
		"idempotent":      idempotentBatch(),
		"transactional":   txn,
		"commit marker":   commit,
		"abort marker":    abort,
		"multi-record":    multiRecordBatch(),
		"sequence wraps":  wrap,
		"stored at 42/e3": func() Batch { b := idempotentBatch(); b.BaseOffset, b.PartitionLeaderEpoch = 42, 3; return b }(),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Encode(&b)
			if err != nil {
				t.Fatal(err)
			}
			want := kmsgEncode(t, &b)
			if !bytes.Equal(got, want) {
				t.Fatalf("eoslab and kmsg differ\neoslab %x\n  kmsg %x", got, want)
			}
			// And kmsg reads our bytes back to the same header.
			var kb kmsg.RecordBatch
			if err := kb.ReadFrom(got); err != nil {
				t.Fatal(err)
			}
			if kb.ProducerID != b.ProducerID || kb.FirstSequence != b.BaseSequence || uint32(kb.CRC) != ComputeCRC(got) {
				t.Fatalf("kmsg read back %+v", kb)
			}
		})
	}
}

// The commit marker of kafka-facts.md §1.8: 78 bytes, crc 0x509f50ef.
func TestCommitMarkerVector(t *testing.T) {
	m := NewMarker(4711, 0, Marker{Type: ControlCommit}, ts)
	m.BaseOffset, m.PartitionLeaderEpoch = 1, 0
	enc, err := Encode(&m)
	if err != nil {
		t.Fatal(err)
	}
	// The hex dump as printed in kafka-facts.md, row by row.
	const want = "00000000000000010000004200000000" +
		"02509f50ef0030000000000000018bcf" +
		"e568000000018bcfe568000000000000" +
		"00126700" + "00ffffffff0000000120" + "0000" +
		"0008000000010c00000000000000"
	if len(enc) != 78 || hex.EncodeToString(enc) != want {
		t.Fatalf("marker bytes\n got %x\nwant %s", enc, want)
	}
	dec, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	mk, err := ParseMarker(&dec)
	if err != nil || mk.Type != ControlCommit || mk.CoordinatorEpoch != 0 {
		t.Fatalf("ParseMarker = %+v, %v", mk, err)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, c := range []Compression{None, Gzip, Snappy, LZ4, Zstd} {
		t.Run(c.String(), func(t *testing.T) {
			b := multiRecordBatch()
			b.Attributes = b.Attributes.WithCompression(c)
			enc, err := Encode(&b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(enc)
			if err != nil {
				t.Fatal(err)
			}
			if got.Attributes.Compression() != c {
				t.Fatalf("compression %v", got.Attributes.Compression())
			}
			assertSameBatch(t, &b, &got)
			again, err := Encode(&got)
			if err != nil || !bytes.Equal(again, enc) {
				t.Fatalf("re-encoding the decoded batch changed the bytes (err %v)", err)
			}
		})
	}
}

func assertSameBatch(t *testing.T, want, got *Batch) {
	t.Helper()
	wh, gh := want.Header, got.Header
	wh.BatchLength, wh.CRC, wh.Magic = gh.BatchLength, gh.CRC, gh.Magic
	if wh != gh {
		t.Fatalf("header\n got %+v\nwant %+v", gh, wh)
	}
	if len(got.Records) != len(want.Records) {
		t.Fatalf("%d records, want %d", len(got.Records), len(want.Records))
	}
	for i := range want.Records {
		w, g := want.Records[i], got.Records[i]
		if w.Attributes != g.Attributes || w.TimestampDelta != g.TimestampDelta || w.OffsetDelta != g.OffsetDelta ||
			!sameNullable(w.Key, g.Key) || !sameNullable(w.Value, g.Value) || len(w.Headers) != len(g.Headers) {
			t.Fatalf("record %d\n got %+v\nwant %+v", i, g, w)
		}
		for j := range w.Headers {
			if w.Headers[j].Key != g.Headers[j].Key || !sameNullable(w.Headers[j].Value, g.Headers[j].Value) {
				t.Fatalf("record %d header %d: got %+v want %+v", i, j, g.Headers[j], w.Headers[j])
			}
		}
	}
}

func sameNullable(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func TestDecodeErrors(t *testing.T) {
	b := multiRecordBatch()
	good, _ := Encode(&b)
	withCRC := func(edit func([]byte)) []byte {
		c := append([]byte(nil), good...)
		edit(c)
		copy(c[CRCOffset:], []byte{0, 0, 0, 0})
		crc := ComputeCRC(c)
		c[17], c[18], c[19], c[20] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
		return c
	}
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "truncated batch: need 61 bytes, have 0"},
		{"short header", good[:40], "truncated batch: need 61 bytes, have 40"},
		{"short body", good[:100], "truncated batch"},
		{"magic 1", func() []byte { c := append([]byte(nil), good...); c[16] = 1; return c }(), "unsupported magic 1"},
		{"length too small", func() []byte {
			c := append([]byte(nil), good...)
			c[11] = 3
			c[10] = 0
			c[9] = 0
			c[8] = 0
			return c
		}(), "batchLength 3 is below the minimum 49"},
		{"count too large", withCRC(func(c []byte) { c[60] = 9 }), "record 4: input ends early"},
		{"count absurd", withCRC(func(c []byte) { c[57] = 0x7f }), "does not fit in"},
		{"negative count", withCRC(func(c []byte) { c[57] = 0xff }), "recordsCount -"},
		{"count too small", withCRC(func(c []byte) { c[60] = 3 }), "bytes after the last of 3 records"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.in)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestHeaderFieldTable(t *testing.T) {
	next := 0
	for _, f := range HeaderFields() {
		if f.Offset != next {
			t.Fatalf("%s starts at %d, want %d (fields must tile the header)", f.Name, f.Offset, next)
		}
		if f.CRCCovered != (f.Offset >= AttributesOffset) {
			t.Fatalf("%s: CRCCovered %v", f.Name, f.CRCCovered)
		}
		next = f.End()
	}
	if next != HeaderSize {
		t.Fatalf("fields end at %d, want %d", next, HeaderSize)
	}
	if f, ok := FieldAt(20); !ok || f.Name != "crc" {
		t.Fatalf("byte 20 is in %q", f.Name)
	}
	if _, ok := FieldAt(61); ok {
		t.Fatal("byte 61 is a record byte, not a header field")
	}
}

func TestSequenceArithmetic(t *testing.T) {
	const max = 2147483647
	cases := []struct{ s, n, inc, dec int32 }{
		{0, 1, 1, max},
		{max, 1, 0, max - 1},
		{max - 1, 1, max, max - 2},
		{max - 1, 2, 0, max - 3},
		{5, 3, 8, 2},
	}
	for _, c := range cases {
		if got := IncrementSequence(c.s, c.n); got != c.inc {
			t.Errorf("inc(%d,%d) = %d, want %d", c.s, c.n, got, c.inc)
		}
		if got := DecrementSequence(c.s, c.n); got != c.dec {
			t.Errorf("dec(%d,%d) = %d, want %d", c.s, c.n, got, c.dec)
		}
	}
	if !InSequence(max, 0) || !InSequence(3, 4) || InSequence(3, 5) || InSequence(max, 1) || InSequence(-1, 1) {
		t.Fatal("InSequence")
	}
	b := Header{BaseSequence: max - 1, LastOffsetDelta: 2}
	if b.LastSequence() != 0 {
		t.Fatalf("batch straddling the wrap ends at %d", b.LastSequence())
	}
}

// The field readers a log uses on its stored bytes read what the encoder
// wrote, each field distinct so that a reader at a wrong offset shows.
func TestFieldReaders(t *testing.T) {
	b := idempotentBatch()
	b.BaseOffset, b.PartitionLeaderEpoch, b.Attributes = 1<<40+3, 9, TransactionalFlag|Attributes(LZ4)
	b.ProducerID, b.ProducerEpoch = 1<<33+5, 300
	b.Records = append(b.Records, Record{OffsetDelta: 1, Value: []byte("w")})
	b.LastOffsetDelta, b.RecordsCount = 1, 2
	data, err := Encode(&b)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"baseOffset", BaseOffsetOf(data), b.BaseOffset},
		{"last offset", LastOffsetOf(data), b.BaseOffset + 1},
		{"attributes", int64(AttributesOf(data)), int64(b.Attributes)},
		{"producerId", ProducerIDOf(data), b.ProducerID},
		{"producerEpoch", int64(ProducerEpochOf(data)), int64(b.ProducerEpoch)},
		{"recordsCount", int64(RecordsCountOf(data)), int64(b.RecordsCount)},
		{"batchLength", int64(BatchLengthOf(data)), int64(len(data) - LogOverhead)},
		{"crc", int64(CRCOf(data)), int64(ComputeCRC(data))},
		{"baseSequence", int64(BaseSequenceOf(data)), int64(b.BaseSequence)},
	} {
		if c.got != c.want {
			t.Errorf("%s: read %d, wrote %d", c.name, c.got, c.want)
		}
	}
}

// SetMaxTimestamp is DefaultRecordBatch.setMaxTimestamp: a batch that has
// the timestamp type and maxTimestamp already is left as it is; otherwise
// the attributes become what computeAttributes makes (codec,
// transactional, control and delete-horizon bits, the timestamp type; no
// other bit), maxTimestamp is written, the CRC is right again, and no
// other byte changes.
func TestSetMaxTimestamp(t *testing.T) {
	for _, attrs := range []Attributes{0, 0x08, 0x13, 0x3c, 0x7c, -0x80, -0x4, 0x0100} {
		for _, lat := range []bool{false, true} {
			for _, maxTS := range []int64{ts + 300, ts + 301, -1, math.MinInt64} {
				b := multiRecordBatch()
				b.Attributes = attrs
				in, err := Encode(&b)
				if err != nil {
					t.Fatal(err)
				}
				out := bytes.Clone(in)
				same := (attrs&0x08 != 0) == lat && maxTS == b.MaxTimestamp
				if changed := SetMaxTimestamp(out, lat, maxTS); changed == same {
					t.Fatalf("attributes %#x, LogAppendTime %v, maxTimestamp %d: changed %v", uint16(attrs), lat, maxTS, changed)
				}
				if same {
					if !bytes.Equal(in, out) {
						t.Fatalf("attributes %#x: bytes changed", uint16(attrs))
					}
					continue
				}
				want := int16(attrs) & 0x77
				if lat {
					want |= 0x08
				}
				if got := int16(binary.BigEndian.Uint16(out[21:])); got != want {
					t.Fatalf("attributes %#x, LogAppendTime %v: %#x, want %#x", uint16(attrs), lat, uint16(got), uint16(want))
				}
				if got := int64(binary.BigEndian.Uint64(out[35:])); got != maxTS {
					t.Fatalf("maxTimestamp %d, want %d", got, maxTS)
				}
				if crc := crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)); binary.BigEndian.Uint32(out[17:]) != crc {
					t.Fatalf("crc %08x, computed %08x", binary.BigEndian.Uint32(out[17:]), crc)
				}
				for i := range in {
					if in[i] != out[i] && !(i >= 17 && i < 23) && !(i >= 35 && i < 43) {
						t.Fatalf("byte %d changed", i)
					}
				}
			}
		}
	}
}
