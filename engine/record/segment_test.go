package record

import (
	"bufio"
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// segmentOf encodes a few batches of every kind back to back.
func segmentOf(t testing.TB) ([]byte, []int64) {
	t.Helper()
	var seg []byte
	var positions []int64
	add := func(b Batch) {
		positions = append(positions, int64(len(seg)))
		var err error
		if seg, err = (&Encoder{}).Append(seg, &b); err != nil {
			t.Fatal(err)
		}
	}
	add(idempotentBatch())
	for _, c := range []Compression{None, Gzip, Snappy, LZ4, Zstd} {
		b := multiRecordBatch()
		b.Attributes = b.Attributes.WithCompression(c)
		add(b)
	}
	add(NewMarker(4711, 0, Marker{Type: ControlCommit}, ts))
	return seg, positions
}

// collect reads every batch from r, copying each (the reader reuses them).
func collect(r *SegmentReader) (batches [][]byte, positions []int64) {
	for pos, b, ok := r.Next(); ok; pos, b, ok = r.Next() {
		batches = append(batches, bytes.Clone(b))
		positions = append(positions, pos)
	}
	return batches, positions
}

// Streamed from any kind of reader — one byte at a time, half reads, a
// bufio.Reader whose buffer holds the batches or is smaller than some —
// a segment yields the Scanner's batches, positions and errors.
func TestSegmentReaderMatchesScanner(t *testing.T) {
	seg, positions := segmentOf(t)
	readers := map[string]func([]byte) io.Reader{
		"bytes":     func(b []byte) io.Reader { return bytes.NewReader(b) },
		"one byte":  func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"half":      func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"bufio":     func(b []byte) io.Reader { return bufio.NewReader(bytes.NewReader(b)) },
		"bufio 100": func(b []byte) io.Reader { return bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(b)), 100) },
		"bufio 16":  func(b []byte) io.Reader { return bufio.NewReaderSize(bytes.NewReader(b), 16) },
	}
	cuts := []int{len(seg), 0, 5, 17, 70, 100, len(seg) - 1}
	for name, open := range readers {
		for _, cut := range cuts {
			data := seg[:cut]
			var want [][]byte
			var wantPos []int64
			s := NewScanner(data)
			for pos, b, ok := s.Next(); ok; pos, b, ok = s.Next() {
				want, wantPos = append(want, b), append(wantPos, pos)
			}
			got, gotPos := collect(NewSegmentReader(open(data)))
			r := NewSegmentReader(open(data))
			collect(r)
			if len(got) != len(want) || !errorsAlike(r.Err(), s.Err()) {
				t.Fatalf("%s, cut %d: %d batches (want %d), err %v (want %v)", name, cut, len(got), len(want), r.Err(), s.Err())
			}
			for i := range got {
				if !bytes.Equal(got[i], want[i]) || gotPos[i] != wantPos[i] {
					t.Fatalf("%s, cut %d: batch %d differs", name, cut, i)
				}
			}
			if cut == len(seg) && (len(got) != len(positions) || gotPos[len(gotPos)-1] != positions[len(positions)-1]) {
				t.Fatalf("%s: positions %v, want %v", name, gotPos, positions)
			}
		}
	}
}

func errorsAlike(a, b error) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
}

// endless is /dev/zero, or any stream that never ends.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.read += int64(len(p))
	return len(p), nil
}

// A stream of zeros is not a segment: the first frame announces a
// batchLength of 0, and reading stops there, having read only a buffer's
// worth of the stream.
func TestSegmentReaderStopsOnZeros(t *testing.T) {
	for _, buffered := range []bool{false, true} {
		z := &endless{}
		var r io.Reader = z
		if buffered {
			r = bufio.NewReaderSize(z, 64<<10)
		}
		s := NewSegmentReader(r)
		if _, _, ok := s.Next(); ok {
			t.Fatal("a batch of zeros")
		}
		want := "at file position 0: corrupt batch at byte 8: batchLength 0 is below the minimum 49"
		if s.Err() == nil || s.Err().Error() != want || z.read > 64<<10 {
			t.Fatalf("err %v after reading %d bytes", s.Err(), z.read)
		}
	}
}

// A length field beyond MaxBatchSize is an error naming the batch's
// position, and nothing of that size is allocated; a length within the
// limit at the end of a short stream costs what the stream holds.
func TestSegmentReaderLimits(t *testing.T) {
	seg, _ := segmentOf(t)
	header := func(length uint32) []byte {
		h := make([]byte, HeaderSize)
		binary.BigEndian.PutUint32(h[BatchLengthOffset:], length)
		h[MagicOffset] = Magic
		return h
	}
	for _, length := range []uint32{MaxBatchSize - LogOverhead + 1, 0x7fffffff} {
		data := append(bytes.Clone(seg), header(length)...)
		for _, r := range []io.Reader{bytes.NewReader(data), bufio.NewReader(bytes.NewReader(data))} {
			s := NewSegmentReader(r)
			batches, _ := collect(s)
			var tl *BatchTooLargeError
			var pe *PositionError
			if len(batches) != 7 || !errors.As(s.Err(), &tl) || !errors.As(s.Err(), &pe) || pe.Position != int64(len(seg)) || tl.Limit != MaxBatchSize {
				t.Fatalf("length %d: %d batches, err %v", length, len(batches), s.Err())
			}
			if !strings.Contains(s.Err().Error(), "CorruptRecordException") {
				t.Fatalf("%v", s.Err())
			}
		}
		if NewScanner(data); true {
			s := NewScanner(data)
			for _, _, ok := s.Next(); ok; _, _, ok = s.Next() {
			}
			var tl *BatchTooLargeError
			if !errors.As(s.Err(), &tl) {
				t.Fatalf("scanner: %v", s.Err())
			}
		}
	}

	// Exactly the limit is allowed: a truncated 64 MiB batch reads as truncated.
	data := header(MaxBatchSize - LogOverhead)
	allocated := allocatedBy(func() {
		s := NewSegmentReader(bytes.NewReader(data))
		s.Next()
		var te *TruncatedError
		if !errors.As(s.Err(), &te) || te.Need != MaxBatchSize || te.Have != HeaderSize {
			t.Fatalf("%v", s.Err())
		}
	})
	if allocated > 4<<20 {
		t.Fatalf("a 61-byte stream announcing %d bytes allocated %d bytes", MaxBatchSize, allocated)
	}
}

func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// recordArea is one record whose encoding is exactly size bytes: a value
// of zeros, its length varints adjusted to the value.
func recordArea(size int) []byte {
	rec := Record{Value: []byte{}}
	for vlen := size - len(AppendRecord(nil, &rec)); ; {
		rec.Value = make([]byte, vlen)
		n := len(AppendRecord(nil, &rec))
		if n == size {
			return AppendRecord(nil, &rec)
		}
		vlen -= n - size
	}
}

// compressedBatch wraps a compressed record area in a batch of one record.
func compressedBatch(c Compression, area []byte) []byte {
	h := Header{Magic: Magic, Attributes: Attributes(c), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, RecordsCount: 1}
	out := appendHeader(nil, &h, int32(HeaderSize-LogOverhead+len(area)), 0)
	out = append(out, area...)
	binary.BigEndian.PutUint32(out[CRCOffset:], ComputeCRC(out))
	return out
}

// compressWith compresses raw as a producer would; zstd is streamed, as
// the Java client's ZstdOutputStream writes it, so that the frame does not
// announce its size and the decoder finds out as it goes.
func compressWith(c Compression, raw []byte) []byte {
	var buf bytes.Buffer
	switch c {
	case Gzip:
		w, _ := stdgzip.NewWriterLevel(&buf, stdgzip.BestSpeed)
		w.Write(raw)
		w.Close()
	case Snappy:
		return appendXerial(nil, raw)
	case LZ4:
		w := lz4.NewWriter(&buf)
		w.Write(raw)
		w.Close()
	case Zstd:
		w, _ := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
		w.Write(raw)
		w.Close()
	}
	return buf.Bytes()
}

// zeros1GiB is a compressed area of 1 GiB of zeros, built without
// compressing a gigabyte: gzip members and LZ4 frames back to back (both
// readers go on to the next), snappy-java chunks repeated, and a zstd frame
// of RLE blocks with no content size.
func zeros1GiB(c Compression) []byte {
	const total = 1 << 30
	switch c {
	case Gzip, LZ4:
		piece := compressWith(c, make([]byte, 16<<20))
		return bytes.Repeat(piece, total/(16<<20))
	case Snappy:
		chunk := s2.EncodeSnappy(nil, make([]byte, xerialBlock))
		framed := binary.BigEndian.AppendUint32(nil, uint32(len(chunk)))
		framed = append(framed, chunk...)
		return append(appendXerial(nil, nil), bytes.Repeat(framed, total/xerialBlock)...)
	case Zstd:
		const block = 128 << 10
		// Magic; no content size, no checksum; a 128 KiB window.
		frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3}
		for i := 0; i < total/block; i++ {
			hdr := uint32(1<<1 | block<<3) // an RLE block of 128 KiB
			if i == total/block-1 {
				hdr |= 1 // the last one
			}
			frame = append(frame, byte(hdr), byte(hdr>>8), byte(hdr>>16), 0)
		}
		return frame
	}
	return nil
}

// A compressed record area may decompress to MaxRecordsSize bytes and no
// more: one byte beyond is a *RecordsTooLargeError for that batch, with
// every codec; and an area announcing a gigabyte is refused having
// allocated a few times the limit, never what it asks for.
func TestDecompressionLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses 64 MiB per codec")
	}
	exact, over := recordArea(MaxRecordsSize), recordArea(MaxRecordsSize+1)
	codecs := []Compression{Gzip, Snappy, LZ4, Zstd}
	// Compressing a gigabyte per codec is most of the time: done on every
	// core first; the checks below measure allocations, so they run alone.
	type inputs struct{ exact, over, bomb []byte }
	in := make([]inputs, len(codecs))
	var wg sync.WaitGroup
	for i, c := range codecs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in[i] = inputs{compressedBatch(c, compressWith(c, exact)), compressedBatch(c, compressWith(c, over)), compressedBatch(c, zeros1GiB(c))}
		}()
	}
	wg.Wait()
	for i, c := range codecs {
		t.Run(c.String(), func(t *testing.T) {
			d := Decoder{Reuse: true}
			var b Batch
			if err := d.Decode(in[i].exact, &b); err != nil || len(b.Records) != 1 {
				t.Fatalf("exactly the limit: %v", err)
			}
			err := d.Decode(in[i].over, &b)
			var tl *RecordsTooLargeError
			if !errors.As(err, &tl) || tl.Codec != c || tl.Limit != MaxRecordsSize {
				t.Fatalf("one byte over: %v", err)
			}
			bomb := in[i].bomb
			allocated := allocatedBy(func() {
				if err := (&Decoder{}).Decode(bomb, &b); !errors.As(err, &tl) {
					t.Fatalf("1 GiB: %v", err)
				}
			})
			if allocated > 8*MaxRecordsSize {
				t.Fatalf("%d MiB allocated to refuse a %d-byte batch announcing 1 GiB", allocated>>20, len(bomb))
			}
		})
	}
}

// Bits 5-7 name no codec: Decode says so with Kafka's exception.
func TestUnknownCompression(t *testing.T) {
	for id := Compression(5); id <= 7; id++ {
		b := idempotentBatch()
		enc, _ := Encode(&b)
		binary.BigEndian.PutUint16(enc[AttributesOffset:], uint16(id))
		binary.BigEndian.PutUint32(enc[CRCOffset:], ComputeCRC(enc))
		_, err := Decode(enc)
		var ue *UnknownCompressionError
		if !errors.As(err, &ue) || ue.ID != id || !strings.HasPrefix(err.Error(), "Unknown compression type id: ") {
			t.Fatalf("codec %d: %v", id, err)
		}
	}
}

// With Reuse a compressed batch decompresses into the Decoder's buffer:
// after the first batch, decoding the next costs no allocation.
func TestDecoderReuse(t *testing.T) {
	b := multiRecordBatch()
	for i := range b.Records {
		b.Records[i].Headers = nil // a header's key is a string: one allocation each
	}
	b.Attributes = b.Attributes.WithCompression(Zstd)
	enc, _ := Encode(&b)
	d := Decoder{Reuse: true}
	var out Batch
	d.Decode(enc, &out)
	if n := testing.AllocsPerRun(50, func() { d.Decode(enc, &out) }); n != 0 {
		t.Fatalf("%.0f allocations per batch", n)
	}
	fresh := Decoder{}
	var first, second Batch
	fresh.Decode(enc, &first)
	fresh.Decode(enc, &second)
	if &first.Records[0].Value[0] == &second.Records[0].Value[0] {
		t.Fatal("without Reuse two batches share a buffer")
	}
}
