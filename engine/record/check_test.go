package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// sameVerdict fails unless Check says of data what Decode says: the same
// header and the same error, type and text; and unless HeaderParses says
// what ParseHeader does, and ParseHeaderTo, into a header that held
// another batch's, what ParseHeader does.
func sameVerdict(t *testing.T, d *Decoder, data []byte) {
	t.Helper()
	ph, err := ParseHeader(data)
	if HeaderParses(data) != (err == nil) {
		t.Fatalf("HeaderParses %v, ParseHeader: %v\nin %x", HeaderParses(data), err, data)
	}
	to := Header{BaseOffset: 7, ProducerID: 9, RecordsCount: 3, Magic: Magic}
	if terr := ParseHeaderTo(data, &to); to != ph || fmt.Sprintf("%T %v", terr, terr) != fmt.Sprintf("%T %v", err, err) {
		t.Fatalf("ParseHeaderTo: %+v, %v\nParseHeader: %+v, %v\nin %x", to, terr, ph, err, data)
	}
	var b Batch
	derr := (&Decoder{}).Decode(data, &b)
	h, cerr := d.Check(data)
	if fmt.Sprintf("%T %v", cerr, cerr) != fmt.Sprintf("%T %v", derr, derr) {
		t.Fatalf("Check: %T %v\nDecode: %T %v\nin %x", cerr, cerr, derr, derr, data)
	}
	if h != b.Header {
		t.Fatalf("Check's header %+v, Decode's %+v", h, b.Header)
	}
	if derr == nil {
		w, _ := d.CheckParsed(&h, data)
		if w.InOrder != InOrder(b.Records) {
			t.Fatalf("CheckParsed says the offset deltas are in order: %v; the decoded records: %v\nin %x", w.InOrder, InOrder(b.Records), data)
		}
		if want := maxRecordTimestamp(&b); w.MaxTimestamp != want {
			t.Fatalf("CheckParsed's maxTimestamp %d, the decoded records' %d\nin %x", w.MaxTimestamp, want, data)
		}
	}
}

// maxRecordTimestamp is the largest of -1 and b's record timestamps, each
// computed here as DefaultRecord.readFrom does: the batch's maxTimestamp in
// a LogAppendTime batch, baseTimestamp + delta otherwise.
func maxRecordTimestamp(b *Batch) int64 {
	maxTS := int64(-1)
	for _, r := range b.Records {
		ts := b.BaseTimestamp + r.TimestampDelta
		if b.Attributes&0x08 != 0 {
			ts = b.MaxTimestamp
		}
		if ts > maxTS {
			maxTS = ts
		}
	}
	return maxTS
}

// withFreshCRC returns data with the CRC its bytes deserve, when it holds a
// whole batch: otherwise every change to the records would stop at the
// CRC check.
func withFreshCRC(data []byte) []byte {
	h, err := ParseHeader(data)
	if err != nil || len(data) < h.Size() {
		return data
	}
	c := append([]byte(nil), data...)
	crc := ComputeCRC(c[:h.Size()])
	c[17], c[18], c[19], c[20] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
	return c
}

// Check refuses what Decode refuses, with Decode's error, and accepts what
// it accepts: every record framing fault, compressed or not.
func TestCheckAgreesWithDecode(t *testing.T) {
	b := multiRecordBatch()
	good, _ := Encode(&b)
	edit := func(at int, v ...byte) []byte {
		c := append([]byte(nil), good...)
		copy(c[at:], v)
		return withFreshCRC(c)
	}
	// The first record starts at HeaderSize: its length, then attributes,
	// timestamp delta, offset delta, key length, key...
	cases := map[string][]byte{
		"good":                     good,
		"empty":                    nil,
		"short header":             good[:40],
		"short body":               good[:100],
		"trailing bytes ignored":   append(append([]byte(nil), good...), 1, 2, 3),
		"magic 1":                  edit(16, 1),
		"batch length too small":   edit(8, 0, 0, 0, 10),
		"crc":                      func() []byte { c := append([]byte(nil), good...); c[70] ^= 1; return c }(),
		"count too large":          edit(60, 9),
		"count too small":          edit(60, 3),
		"negative count":           edit(57, 0xff),
		"negative record length":   edit(HeaderSize, 0x01),
		"record length too long":   edit(HeaderSize, 0xfe, 0x01),
		"record length short":      edit(HeaderSize, byte(good[HeaderSize]-2)),
		"length varint too long":   edit(HeaderSize, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
		"timestamp varlong long":   edit(HeaderSize+2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
		"offset delta varint long": edit(HeaderSize+3, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
		"key length negative":      edit(HeaderSize+4, 0x03),
		"key length too long":      edit(HeaderSize+4, 0xfe, 0x01),
		"key null":                 edit(HeaderSize+4, 0x01),
	}
	for _, c := range []Compression{Gzip, Snappy, LZ4, Zstd} {
		cb := multiRecordBatch()
		cb.Attributes = cb.Attributes.WithCompression(c)
		enc, _ := Encode(&cb)
		cases[c.String()] = enc
		garbled := append([]byte(nil), enc...)
		for i := HeaderSize + 4; i < len(garbled); i += 7 {
			garbled[i] ^= 0x5a
		}
		cases[c.String()+" garbled"] = withFreshCRC(garbled)
		cases[c.String()+" count too large"] = withFreshCRC(append(append([]byte(nil), enc[:60]...), append([]byte{5}, enc[61:]...)...))
		cases[c.String()+" kmsg"] = kmsgCompressed(t, func() *Batch { b := multiRecordBatch(); return &b }(), c)
	}
	// Headers: a null key and a count that cannot fit, in a record of its own.
	for name, r := range map[string]Record{
		"header null key": {Value: []byte("v"), Headers: []RecordHeader{{Key: "k", Value: []byte("v")}}},
		"header count":    {Value: []byte("v"), Headers: []RecordHeader{{Key: "k"}}},
	} {
		hb := Batch{Header: Header{PartitionLeaderEpoch: -1, Magic: 2, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, RecordsCount: 1},
			Records: []Record{r}}
		enc, _ := Encode(&hb)
		cases[name+" ok"] = enc
		c := append([]byte(nil), enc...)
		i := bytes.Index(c[HeaderSize:], []byte{2, 'k'}) + HeaderSize // key length 1, "k", after header count 1
		if name == "header null key" {
			c[i] = 0x01 // key length -1
		} else {
			c[i-1] = 0x7e // header count 63
		}
		cases[name] = withFreshCRC(c)
	}
	accepted := map[string]bool{"good": true, "trailing bytes ignored": true, "header null key ok": true, "header count ok": true}
	for _, c := range []Compression{Gzip, Snappy, LZ4, Zstd} {
		accepted[c.String()], accepted[c.String()+" kmsg"] = true, true
	}
	var d Decoder
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			sameVerdict(t, &d, data)
			if _, err := d.Check(data); accepted[name] != (err == nil) {
				t.Fatalf("Check: %v", err)
			}
		})
	}
}

// Check and Decode agree on any bytes, their CRC as given or made right,
// on the verdict, on whether the offset deltas are in order and on the
// largest record timestamp (sameVerdict); and a batch that decodes,
// renumbered as a leader rebuilds it, is a valid batch of the same records
// in order.
func FuzzCheck(f *testing.F) {
	addBatchSeeds(f)
	for _, c := range []Compression{None, Gzip, Snappy, LZ4, Zstd} {
		b := multiRecordBatch()
		b.Attributes = b.Attributes.WithCompression(c)
		b.Records[0].OffsetDelta, b.Records[2].OffsetDelta = 2, 0
		enc, _ := Encode(&b)
		f.Add(enc)
		// Records framed alike, their timestamp deltas rising, one
		// falling; then the same as LogAppendTime, and from a base
		// timestamp the deltas carry past the int64 range.
		b = multiRecordBatch()
		b.Attributes = b.Attributes.WithCompression(c)
		b.Records = b.Records[:0]
		for i := range 12 {
			b.Records = append(b.Records, Record{TimestampDelta: int64(i/3 - i/11*9), OffsetDelta: int32(i), Value: []byte("value")})
		}
		b.RecordsCount, b.LastOffsetDelta = 12, 11
		enc, _ = Encode(&b)
		f.Add(enc)
		b.Attributes |= LogAppendTimeFlag
		enc, _ = Encode(&b)
		f.Add(enc)
		b.Attributes &^= LogAppendTimeFlag
		b.BaseTimestamp = math.MaxInt64 - 2
		enc, _ = Encode(&b)
		f.Add(enc)
	}
	var d Decoder
	f.Fuzz(func(t *testing.T, data []byte) {
		sameVerdict(t, &d, data)
		data = withFreshCRC(data)
		sameVerdict(t, &d, data)
		if b, err := Decode(data); err == nil {
			renumberedIsValid(t, &d, &b)
		}
	})
}

// renumberedIsValid fails unless Renumber(b), encoded, decodes to b's
// records in order with their timestamps, keys, values and headers, and
// the header Renumber promises; or Renumber refuses a timestamp below -1
// and leaves b alone.
func renumberedIsValid(t *testing.T, d *Decoder, b *Batch) {
	t.Helper()
	before := *b
	before.Records = append([]Record(nil), b.Records...)
	var negative *NegativeTimestampError
	if err := Renumber(b); errors.As(err, &negative) {
		if ts := before.RecordTimestamp(before.Records[negative.Record].TimestampDelta); ts != negative.Timestamp || ts >= -1 {
			t.Fatalf("refused %v, record timestamp %d", err, ts)
		}
		assertSameBatch(t, &before, b)
		return
	} else if err != nil {
		t.Fatal(err)
	}
	enc, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(enc)
	if err != nil {
		t.Fatalf("the renumbered batch does not decode: %v", err)
	}
	if w, err := d.CheckParsed(&got.Header, enc); err != nil || !w.InOrder || !InOrder(got.Records) || w.MaxTimestamp != got.MaxTimestamp {
		t.Fatalf("the renumbered batch: %v, walked %+v, maxTimestamp %d", err, w, got.MaxTimestamp)
	}
	n := int32(len(before.Records))
	wantAttrs := Attributes(0).WithCompression(before.Attributes.Compression()) | before.Attributes&TransactionalFlag
	if got.RecordsCount != n || got.LastOffsetDelta != n-1 || got.Attributes != wantAttrs ||
		got.ProducerID != before.ProducerID || got.ProducerEpoch != before.ProducerEpoch || got.BaseSequence != before.BaseSequence ||
		got.BaseOffset != before.BaseOffset || got.PartitionLeaderEpoch != before.PartitionLeaderEpoch {
		t.Fatalf("renumbered header %+v from %+v", got.Header, before.Header)
	}
	maxTS := int64(-1)
	for i := range before.Records {
		w, g := &before.Records[i], &got.Records[i]
		ts := before.RecordTimestamp(w.TimestampDelta)
		maxTS = max(maxTS, ts)
		if got.RecordTimestamp(g.TimestampDelta) != ts || g.Attributes != 0 || g.OffsetDelta != int32(i) ||
			!sameNullable(w.Key, g.Key) || !sameNullable(w.Value, g.Value) || len(w.Headers) != len(g.Headers) {
			t.Fatalf("record %d renumbered %+v from %+v", i, *g, *w)
		}
		for j := range w.Headers {
			if w.Headers[j].Key != g.Headers[j].Key || !sameNullable(w.Headers[j].Value, g.Headers[j].Value) {
				t.Fatalf("record %d header %d: %+v from %+v", i, j, g.Headers[j], w.Headers[j])
			}
		}
	}
	if n > 0 && (got.BaseTimestamp != before.RecordTimestamp(before.Records[0].TimestampDelta) || got.MaxTimestamp != maxTS) {
		t.Fatalf("renumbered timestamps %d..%d, want %d..%d", got.BaseTimestamp, got.MaxTimestamp,
			before.RecordTimestamp(before.Records[0].TimestampDelta), maxTS)
	}
}

// Records a producer writes most (varints of one or two bytes, no
// headers) mixed with others (headers, longer varints, empty and null
// keys and values), in any order, whole or with one byte changed: Check
// says what Decode says, wherever the first record that is not plain
// falls.
func TestCheckMixedRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var d Decoder
	for round := range 6000 {
		n := 1 + rng.IntN(6)
		// Every other batch is a producer's: many records framed alike,
		// now and then one that is not.
		alike := round%2 == 0
		if alike {
			n = 2 + rng.IntN(40)
		}
		b := Batch{Header: Header{PartitionLeaderEpoch: -1, Magic: 2, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
			RecordsCount: int32(n), LastOffsetDelta: int32(n - 1)}}
		var first Record
		for i := range n {
			r := Record{TimestampDelta: []int64{0, 1, 100, 20000, 3 << 20, 1 << 40, -5}[rng.IntN(7)], OffsetDelta: int32(i),
				Value: make([]byte, []int{0, 1, 63, 64, 100, 9000}[rng.IntN(6)])}
			if rng.IntN(8) == 0 {
				r.OffsetDelta += 3 << 20
			}
			switch rng.IntN(4) {
			case 0:
				r.Key = []byte("k")
			case 1:
				r.Key = []byte{}
			}
			if rng.IntN(4) == 0 {
				r.Value = nil
			}
			if rng.IntN(5) == 0 {
				r.Headers = []RecordHeader{{Key: "h", Value: []byte("v")}}
			}
			if i == 0 {
				first = r
			} else if alike && rng.IntN(10) != 0 {
				r = Record{TimestampDelta: first.TimestampDelta + int64(rng.IntN(2)), OffsetDelta: int32(i),
					Key: first.Key, Value: bytes.Repeat([]byte{byte(i)}, len(first.Value)), Headers: first.Headers}
				if first.Value == nil {
					r.Value = nil
				}
			}
			b.Records = append(b.Records, r)
		}
		enc, err := Encode(&b)
		if err != nil {
			t.Fatal(err)
		}
		sameVerdict(t, &d, enc)
		// A good batch is walked, not decoded in full after the walk
		// gave up on it, and the walk tells whether its offset deltas
		// are 0, 1, 2, … as the decoded records do.
		if ok, inOrder, maxTS := walkRecords(enc[HeaderSize:], n, b.BaseTimestamp); !ok || inOrder != InOrder(b.Records) || maxTS != maxRecordTimestamp(&b) {
			t.Fatalf("the walk of a good batch of %d records: ok %v, in order %v, max timestamp %d", n, ok, inOrder, maxTS)
		}
		c := append([]byte(nil), enc...)
		i := HeaderSize + rng.IntN(min(len(c)-HeaderSize, 64))
		if rng.IntN(2) == 0 {
			i = HeaderSize + rng.IntN(len(c)-HeaderSize)
		}
		switch rng.IntN(3) {
		case 0:
			c[i]++
		case 1:
			c[i]--
		default:
			c[i] = byte(rng.IntN(256))
		}
		sameVerdict(t, &d, withFreshCRC(c))
	}
}

// rawBatch is an uncompressed batch of count records around area, which
// need not be well formed.
func rawBatch(area []byte, count int32) []byte {
	b := Batch{Header: Header{PartitionLeaderEpoch: -1, Magic: 2, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		RecordsCount: count, LastOffsetDelta: count - 1}}
	enc, _ := Encode(&b)
	enc = append(enc, area...)
	n := len(enc) - LogOverhead
	enc[8], enc[9], enc[10], enc[11] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	return withFreshCRC(enc)
}

// Each field of a record's framing, just inside and just outside what
// Decode accepts, with the rest of the record well formed.
func TestCheckRecordFraming(t *testing.T) {
	cases := []struct {
		name string
		area []byte // record length, then the body
		ok   bool
	}{
		{"minimal", []byte{12, 0, 0, 0, 1, 1, 0}, true},
		{"byte left in the record", []byte{14, 0, 0, 0, 1, 1, 0, 0}, false},
		{"record shorter than its fields", []byte{10, 0, 0, 0, 1, 1}, false},
		{"empty body", []byte{0}, false},
		{"negative length", []byte{1, 0, 0, 0, 1, 1, 0}, false},
		{"length beyond the area", []byte{14, 0, 0, 0, 1, 1, 0}, false},
		{"bytes after the records", []byte{12, 0, 0, 0, 1, 1, 0, 0}, false},
		{"key length -2", []byte{12, 0, 0, 0, 3, 1, 0}, false},
		{"value length -2", []byte{12, 0, 0, 0, 1, 3, 0}, false},
		{"key of 2 bytes", []byte{16, 0, 0, 0, 4, 'a', 'b', 1, 0}, true},
		{"key longer than the record", []byte{16, 0, 0, 0, 6, 'a', 'b', 1, 0}, false},
		{"value of 1 byte", []byte{14, 0, 0, 0, 1, 2, 'v', 0}, true},
		{"timestamp delta of 10 bytes", append(append([]byte{30, 0}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), 0, 1, 1, 0), true},
		{"timestamp delta of 11 bytes", append(append([]byte{32, 0}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), 0, 1, 1, 0), false},
		{"offset delta of 5 bytes", []byte{20, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 1, 0}, true},
		{"offset delta of 6 bytes", []byte{22, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 1, 1, 0}, false},
		{"varint ends with the record", []byte{6, 0, 0, 0x80}, false},
		{"a header", []byte{20, 0, 0, 0, 1, 1, 2, 2, 'k', 2, 'v'}, true},
		{"a header with a null value", []byte{18, 0, 0, 0, 1, 1, 2, 2, 'k', 1}, true},
		{"a header with a null key", []byte{18, 0, 0, 0, 1, 1, 2, 1, 'k', 1}, false},
		{"a header key beyond the record", []byte{18, 0, 0, 0, 1, 1, 2, 8, 'k', 1}, false},
		{"a header value beyond the record", []byte{18, 0, 0, 0, 1, 1, 2, 2, 'k', 4}, false},
		{"negative header count", []byte{12, 0, 0, 0, 1, 1, 1}, false},
		{"header count at the limit", []byte{20, 0, 0, 0, 1, 1, 4, 0, 1, 0, 1}, true},
		{"header count past the limit", []byte{20, 0, 0, 0, 1, 1, 6, 0, 1, 0, 1}, false},
	}
	var d Decoder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := rawBatch(c.area, 1)
			sameVerdict(t, &d, data)
			if _, err := d.Check(data); c.ok != (err == nil) {
				t.Fatalf("Check: %v", err)
			}
		})
	}
}

// BenchmarkCheck: what a leader spends validating a producer's batch, kgo's
// default shape (100-byte values, no key, snappy), walked by Check against
// decoded by Decode.
func BenchmarkCheck(b *testing.B) {
	batch := Batch{Header: Header{PartitionLeaderEpoch: -1, Magic: 2, ProducerID: 7, ProducerEpoch: 0, BaseSequence: 0,
		BaseTimestamp: ts, MaxTimestamp: ts, Attributes: Attributes(0).WithCompression(Snappy)}}
	for i := range 500 {
		batch.Records = append(batch.Records, Record{TimestampDelta: int64(i / 50), OffsetDelta: int32(i), Value: make([]byte, 100)})
	}
	batch.RecordsCount, batch.LastOffsetDelta = 500, 499
	enc, err := Encode(&batch)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Check", func(b *testing.B) {
		d := Decoder{Reuse: true}
		b.SetBytes(int64(len(enc)))
		for range b.N {
			if _, err := d.Check(enc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Decode", func(b *testing.B) {
		d := Decoder{Reuse: true}
		var out Batch
		b.SetBytes(int64(len(enc)))
		for range b.N {
			if err := d.Decode(enc, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The walk reads every record's offset delta on its way, whichever of its
// paths a record takes: records framed alike (compared with the record
// before), plain records walked in full, and the others. Any one delta
// out of place, of one, two or three bytes, is seen, and a batch in order
// is in order, as InOrder says of the decoded records.
func TestWalkReadsOffsetDeltas(t *testing.T) {
	var d Decoder
	for _, n := range []int{1, 2, 3, 70, 200, 13000} {
		for _, shape := range []string{"alike", "plain", "headers", "pairs, ts of 2 bytes", "pairs, ts of 3 bytes"} {
			b := Batch{Header: Header{PartitionLeaderEpoch: -1, Magic: 2, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
				RecordsCount: int32(n), LastOffsetDelta: int32(n - 1)}}
			for i := range n {
				r := Record{OffsetDelta: int32(i), Value: make([]byte, 40)}
				switch shape {
				case "plain": // framed unlike the record before
					r.TimestampDelta, r.Value = int64(i%3)*5000, make([]byte, 30+i%2*100)
				case "headers":
					r.TimestampDelta, r.Headers = int64(i), []RecordHeader{{Key: "h"}}
				case "pairs, ts of 2 bytes", "pairs, ts of 3 bytes":
					// Records 2k-1 and 2k framed alike, 2k-1 unlike the
					// one before: the record at 64 (8192) is compared
					// with 63's (8191's) framing and a delta of one more
					// byte, which ends past the 32 bits the deltas fill.
					r.TimestampDelta, r.Value = 100, make([]byte, 40+(i+1)/2%2)
					if shape == "pairs, ts of 3 bytes" {
						r.TimestampDelta = 1 << 15
					}
				}
				b.Records = append(b.Records, r)
			}
			places := []int{0, 1, n / 2, 63, 64, 8191, 8192, 12287, 12288, n - 2, n - 1}
			for _, at := range places {
				for _, edit := range []string{"in order", "one more", "one less", "swapped", "zero"} {
					if at < 0 || at >= n || (edit == "swapped" && at+1 >= n) || (edit != "in order" && edit != "zero" && n == 1) {
						continue
					}
					c := b
					c.Records = append([]Record(nil), b.Records...)
					switch edit {
					case "one more":
						c.Records[at].OffsetDelta++
					case "one less":
						c.Records[at].OffsetDelta--
					case "swapped":
						c.Records[at].OffsetDelta, c.Records[at+1].OffsetDelta = c.Records[at+1].OffsetDelta, c.Records[at].OffsetDelta
					case "zero":
						c.Records[at].OffsetDelta = 0
					}
					enc, err := Encode(&c)
					if err != nil {
						t.Fatal(err)
					}
					want := edit == "in order" || (edit == "zero" && at == 0)
					ok, inOrder, _ := walkRecords(enc[HeaderSize:], n, 0)
					if !ok || inOrder != want || InOrder(c.Records) != want {
						t.Fatalf("%d %s records, %s at %d: walk ok %v, in order %v, want %v", n, shape, edit, at, ok, inOrder, want)
					}
					h, _ := ParseHeader(enc)
					if got, err := d.CheckParsed(&h, enc); err != nil || got.InOrder != want {
						t.Fatalf("%d %s records, %s at %d: CheckParsed %+v, %v", n, shape, edit, at, got, err)
					}
				}
			}
		}
	}
}

// The walk reads every record's timestamp delta, whichever of its paths a
// record takes: records framed alike with the delta of the record before,
// framed alike with a delta of their own (one, two or three bytes), walked
// in full, and the others. The largest timestamp is the decoded records'
// wherever the largest delta is, above or below the others, however long,
// and with a base timestamp that the deltas carry past the int64 range
// (Java's long addition wraps, as Go's does); in a LogAppendTime batch it
// is the batch's maxTimestamp.
func TestWalkReadsTimestampDeltas(t *testing.T) {
	var d Decoder
	for _, n := range []int{1, 2, 3, 70, 200, 13000} {
		for _, shape := range []string{"same", "rising", "rising by 100", "ts of 2 bytes", "ts of 3 bytes", "falling", "headers", "plain"} {
			b := Batch{Header: Header{PartitionLeaderEpoch: -1, Magic: 2, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
				BaseTimestamp: ts, MaxTimestamp: ts, RecordsCount: int32(n), LastOffsetDelta: int32(n - 1)}}
			for i := range n {
				r := Record{OffsetDelta: int32(i), Value: make([]byte, 40)}
				switch shape {
				case "rising":
					r.TimestampDelta = int64(i) % 60
				case "rising by 100":
					r.TimestampDelta = int64(i) * 100
				case "ts of 2 bytes":
					r.TimestampDelta = 100 + int64(i)%3
				case "ts of 3 bytes":
					r.TimestampDelta = 1<<15 + int64(i)%5
				case "falling":
					r.TimestampDelta = -int64(i)
				case "headers":
					r.TimestampDelta, r.Headers = int64(i%7), []RecordHeader{{Key: "h"}}
				case "plain": // framed unlike the record before
					r.TimestampDelta, r.Value = int64(i%3)*5000, make([]byte, 30+i%2*100)
				}
				b.Records = append(b.Records, r)
			}
			for _, at := range []int{0, 1, n / 2, 63, 64, 8191, 8192, n - 2, n - 1} {
				for _, edit := range []string{"as is", "one above all", "one below all", "2 bytes more", "10 bytes", "negative", "wraps"} {
					if at < 0 || at >= n {
						continue
					}
					c := b
					c.Records = append([]Record(nil), b.Records...)
					hi, lo := c.Records[0].TimestampDelta, c.Records[0].TimestampDelta
					for _, r := range c.Records {
						hi, lo = max(hi, r.TimestampDelta), min(lo, r.TimestampDelta)
					}
					r := &c.Records[at]
					switch edit {
					case "one above all":
						r.TimestampDelta = hi + 1
					case "one below all":
						r.TimestampDelta = lo - 1
					case "2 bytes more":
						r.TimestampDelta = hi + 1<<14
					case "10 bytes":
						r.TimestampDelta = -1 << 63
					case "negative":
						r.TimestampDelta = -ts - 5
					case "wraps": // base + hi is past MaxInt64, base + the others not
						c.BaseTimestamp = math.MaxInt64 - hi
						r.TimestampDelta = hi + 1
					}
					enc, err := Encode(&c)
					if err != nil {
						t.Fatal(err)
					}
					want := maxRecordTimestamp(&c)
					ok, _, maxTS := walkRecords(enc[HeaderSize:], n, c.BaseTimestamp)
					if !ok || maxTS != want {
						t.Fatalf("%d %s records, %s at %d: walk ok %v, max timestamp %d, want %d", n, shape, edit, at, ok, maxTS, want)
					}
					h, _ := ParseHeader(enc)
					if w, err := d.CheckParsed(&h, enc); err != nil || w.MaxTimestamp != want {
						t.Fatalf("%d %s records, %s at %d: CheckParsed %+v, %v, want max timestamp %d", n, shape, edit, at, w, err, want)
					}
					// LogAppendTime: every record reads the header's maxTimestamp.
					c.Attributes |= LogAppendTimeFlag
					for _, m := range []int64{ts + 7, -1, -9} {
						c.MaxTimestamp = m
						enc, _ := Encode(&c)
						h, _ := ParseHeader(enc)
						if w, err := d.CheckParsed(&h, enc); err != nil || w.MaxTimestamp != max(m, -1) || maxRecordTimestamp(&c) != max(m, -1) {
							t.Fatalf("%d %s records, %s at %d, LogAppendTime, maxTimestamp %d: CheckParsed %+v, %v", n, shape, edit, at, m, w, err)
						}
					}
				}
			}
		}
	}
}

// varintBits(x) is the little-endian word of x's varint bytes with every
// high bit 0, for any x of up to five varint bytes; with the high bits
// of all but the last byte set, adding 2 and setting them again gives
// x+2's, and a carry out of the last byte leaves a bit set there or past it.
func TestVarintBits(t *testing.T) {
	xs := []uint64{1<<21 - 4, 1<<21 - 2, 1 << 21, 1<<28 - 2, 1 << 28, 1<<35 - 4, 1<<35 - 2}
	for x := uint64(0); x < 1<<35; x += 1 + x>>10 {
		xs = append(xs, x) // all below 2¹¹, then about a thousand a doubling
	}
	for x := uint64(1<<14 - 300); x < 1<<14+300; x++ {
		xs = append(xs, x)
	}
	for _, x := range xs {
		var b [8]byte
		n := 0
		for v := x; ; v >>= 7 {
			b[n] = byte(v & 0x7f)
			if n++; v < 0x80 {
				break
			}
		}
		if got, want := varintBits(x), binary.LittleEndian.Uint64(b[:]); got != want {
			t.Fatalf("varintBits(%d) = %x, want %x", x, got, want)
		}
		cont := uint64(0x8080808080) >> (40 - 8*(n-1)) // all bytes but the last
		next := (varintBits(x) | cont) + 2 | cont
		if x+2 < 1<<(7*n) {
			if next != varintBits(x+2)|cont {
				t.Fatalf("%d + 2 = %x, want %x", x, next, varintBits(x+2)|cont)
			}
		} else if next>>(8*n-1) == 0 { // the last byte's high bit, or past it
			t.Fatalf("%d + 2 = %x: no carry out of %d bytes", x, next, n)
		}
	}
}

// A decoder's verdict on a batch does not depend on the batches it read
// before: a gzip reader reset after a stream cut short failed the next
// corrupt one with another error than a new reader (found by FuzzCheck).
func TestVerdictIndependentOfHistory(t *testing.T) {
	cut := withFreshCRC([]byte("00000000\x00\x00\x00A0000\x02\xab\xa9\x8d\x030100000000000000000000000000000000000000\x1f\x8b\b\x00000000$00-00"))
	corrupt := withFreshCRC([]byte("00000000\x00\x00\x00\xa30000\x0200000100000000000000000000000000000000000000\x1f\x8b\b\x00000000200000000000000000000000000000000000000000000000000080000000000000000000a17A111111\x001\x00\x00000000000000000000"))
	b := multiRecordBatch()
	b.Attributes = b.Attributes.WithCompression(Gzip)
	good, err := Encode(&b)
	if err != nil {
		t.Fatal(err)
	}
	for _, before := range [][][]byte{{cut}, {good, cut}, {cut, good}} {
		var d Decoder
		for _, in := range before {
			d.Check(in)
		}
		_, fresh := (&Decoder{}).Check(corrupt)
		if _, err := d.Check(corrupt); fresh == nil || err == nil || err.Error() != fresh.Error() {
			t.Fatalf("after %d batches: %v; a new decoder: %v", len(before), err, fresh)
		}
		if _, err := d.Check(good); err != nil {
			t.Fatalf("a good batch after the corrupt one: %v", err)
		}
	}
}
