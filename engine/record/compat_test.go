package record

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kmsgCompressed builds a batch with kmsg whose record area is compressed
// by a codec library directly (not by this package), as a producer would.
func kmsgCompressed(t testing.TB, b *Batch, c Compression) []byte {
	t.Helper()
	plain := kmsgEncode(t, b) // records encoded by kmsg
	raw := plain[HeaderSize:]
	var comp []byte
	switch c {
	case Gzip:
		var buf bytes.Buffer
		w := stdgzip.NewWriter(&buf)
		w.Write(raw)
		w.Close()
		comp = buf.Bytes()
	case Snappy:
		comp = s2.EncodeSnappy(nil, raw) // raw block, as franz-go's producer sends
	case LZ4:
		var buf bytes.Buffer
		w := lz4.NewWriter(&buf)
		w.Write(raw)
		w.Close()
		comp = buf.Bytes()
	case Zstd:
		enc, _ := zstd.NewWriter(nil)
		comp = enc.EncodeAll(raw, nil)
	}
	var kb kmsg.RecordBatch
	if err := kb.ReadFrom(plain); err != nil {
		t.Fatal(err)
	}
	kb.Attributes = int16(b.Attributes.WithCompression(c))
	kb.Records = comp
	kb.Length = int32(HeaderSize - LogOverhead + len(comp))
	kb.CRC = 0
	out := kb.AppendTo(nil)
	kb.CRC = int32(crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	return kb.AppendTo(nil)
}

func TestDecodeKmsgCompressed(t *testing.T) {
	for _, c := range []Compression{Gzip, Snappy, LZ4, Zstd} {
		t.Run(c.String(), func(t *testing.T) {
			b := multiRecordBatch()
			enc := kmsgCompressed(t, &b, c)
			got, err := Decode(enc)
			if err != nil {
				t.Fatal(err)
			}
			b.Attributes = b.Attributes.WithCompression(c)
			assertSameBatch(t, &b, &got)
		})
	}
}

// addBatchSeeds seeds a batch decoder's fuzz target: an idempotent
// batch, several records, a marker, every codec, and nothing.
func addBatchSeeds(f *testing.F) {
	for _, b := range []Batch{idempotentBatch(), multiRecordBatch(), NewMarker(1, 2, Marker{Type: ControlAbort, CoordinatorEpoch: 3}, ts)} {
		enc, _ := Encode(&b)
		f.Add(enc)
	}
	for _, c := range []Compression{Gzip, Snappy, LZ4, Zstd} {
		b := multiRecordBatch()
		b.Attributes = b.Attributes.WithCompression(c)
		enc, _ := Encode(&b)
		f.Add(enc)
	}
	f.Add([]byte{})
}

func FuzzDecode(f *testing.F) {
	addBatchSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Decoder
		var b Batch
		if err := d.Decode(data, &b); err != nil {
			return
		}
		// A batch that decodes cleanly re-encodes to the very same bytes
		// when uncompressed, and to the same batch in any case.
		re, err := Encode(&b)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if b.Attributes.Compression() == None && !bytes.Equal(re, data[:b.Size()]) {
			t.Fatalf("re-encoding changed bytes\n in %x\nout %x", data[:b.Size()], re)
		}
		again, err := Decode(re)
		if err != nil {
			t.Fatalf("decode of re-encoded batch: %v", err)
		}
		assertSameBatch(t, &b, &again)
	})
}

func FuzzRoundTrip(f *testing.F) {
	f.Add(int64(4711), int16(0), int32(0), []byte("k"), []byte("v"), "h", []byte("hv"), uint8(0), uint8(2))
	f.Add(int64(-1), int16(-1), int32(-1), []byte(nil), []byte(nil), "", []byte(nil), uint8(4), uint8(1))
	f.Fuzz(func(t *testing.T, pid int64, epoch int16, seq int32, key, value []byte, hk string, hv []byte, codec, n uint8) {
		b := Batch{Header: Header{
			PartitionLeaderEpoch: -1, Magic: 2, BaseTimestamp: ts, MaxTimestamp: ts + int64(n),
			ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq,
			Attributes: Attributes(0).WithCompression(Compression(codec % 5)),
		}}
		for i := 0; i < int(n%8); i++ {
			b.Records = append(b.Records, Record{TimestampDelta: int64(i), OffsetDelta: int32(i), Key: key, Value: value,
				Headers: []RecordHeader{{Key: hk, Value: hv}}})
		}
		b.RecordsCount = int32(len(b.Records))
		b.LastOffsetDelta = max(b.RecordsCount-1, 0)
		enc, err := Encode(&b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(enc)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		assertSameBatch(t, &b, &got)
	})
}

func TestScanner(t *testing.T) {
	b1 := idempotentBatch()
	e1, _ := Encode(&b1)
	b2 := multiRecordBatch()
	e2, _ := Encode(&b2)
	var seg bytes.Buffer
	if err := WriteSegment(&seg, e1, e2); err != nil {
		t.Fatal(err)
	}
	data := seg.Bytes()

	var positions []int64
	s := NewScanner(data)
	for pos, batch, ok := s.Next(); ok; pos, batch, ok = s.Next() {
		positions = append(positions, pos)
		if _, err := Decode(batch); err != nil {
			t.Fatal(err)
		}
	}
	if s.Err() != nil || len(positions) != 2 || positions[1] != int64(len(e1)) {
		t.Fatalf("positions %v err %v", positions, s.Err())
	}

	// A file cut in the middle of the second batch: the first still reads,
	// then the scanner reports the truncation at the second one's position.
	s = NewScanner(data[:len(e1)+30])
	if _, _, ok := s.Next(); !ok {
		t.Fatal("first batch lost")
	}
	if _, _, ok := s.Next(); ok {
		t.Fatal("truncated batch returned")
	}
	want := fmt.Sprintf("at file position 70: truncated batch: need %d bytes, have 30", len(e2))
	if got := s.Err(); got == nil || got.Error() != want {
		t.Fatalf("err %v, want %s", got, want)
	}
	var pe *PositionError
	if pe, _ = s.Err().(*PositionError); pe == nil || pe.Position != int64(len(e1)) {
		t.Fatalf("err %#v", s.Err())
	}
	if got, want := SegmentFileName(42), "00000000000000000042.log"; got != want {
		t.Fatalf("%s", got)
	}
}

func BenchmarkBatchRoundTrip(b *testing.B) {
	batch := idempotentBatch()
	b.Run("eoslab", func(b *testing.B) {
		var enc Encoder
		var dec Decoder
		var out Batch
		buf := make([]byte, 0, 128)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			buf, err = enc.Append(buf[:0], &batch)
			if err != nil {
				b.Fatal(err)
			}
			if err := dec.Decode(buf, &out); err != nil {
				b.Fatal(err)
			}
		}
		if string(out.Records[0].Value) != "v" {
			b.Fatal("wrong value")
		}
	})
	b.Run("kmsg", func(b *testing.B) {
		table := crc32.MakeTable(crc32.Castagnoli)
		rec := kmsg.Record{Key: []byte("k"), Value: []byte("v"), Length: 8}
		buf := make([]byte, 0, 128)
		recs := make([]byte, 0, 16)
		var kb kmsg.RecordBatch
		var out kmsg.RecordBatch
		var outRec kmsg.Record
		b.ReportAllocs()
		for b.Loop() {
			recs = rec.AppendTo(recs[:0])
			kb = kmsg.RecordBatch{
				PartitionLeaderEpoch: -1, Magic: 2, FirstTimestamp: ts, MaxTimestamp: ts,
				ProducerID: 4711, NumRecords: 1, Records: recs, Length: int32(49 + len(recs)),
			}
			buf = kb.AppendTo(buf[:0])
			binary.BigEndian.PutUint32(buf[17:], crc32.Checksum(buf[21:], table)) // patch, as franz-go's producer does
			if err := out.ReadFrom(buf); err != nil {
				b.Fatal(err)
			}
			if uint32(out.CRC) != crc32.Checksum(buf[21:], table) {
				b.Fatal("crc")
			}
			if err := outRec.ReadFrom(out.Records); err != nil {
				b.Fatal(err)
			}
		}
		if string(outRec.Value) != "v" {
			b.Fatal("wrong value")
		}
	})
}
