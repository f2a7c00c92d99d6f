package record

import (
	"bytes"
	"fmt"
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

// Check and Decode agree on any bytes, their CRC as given or made right.
func FuzzCheck(f *testing.F) {
	addBatchSeeds(f)
	var d Decoder
	f.Fuzz(func(t *testing.T, data []byte) {
		sameVerdict(t, &d, data)
		sameVerdict(t, &d, withFreshCRC(data))
	})
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
		// gave up on it.
		if !walkRecords(enc[HeaderSize:], n) {
			t.Fatalf("the walk refuses a good batch of %d records", n)
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
