package inspect

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/eoslab/eoslab/engine/record"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// benchSegment is about 20 MB of the batches a real partition holds:
// plain, idempotent and transactional batches with commit and abort
// markers, and batches compressed with every codec (snappy both raw and
// snappy-java framed). Values are JSON-like text, a few binary; some
// records carry headers.
var benchSegment = sync.OnceValue(func() []byte {
	var seg bytes.Buffer
	writeSegment(&seg, 20<<20)
	return seg.Bytes()
})

// writeSegment writes at least size bytes of the benchmark's batches to
// out and returns the length of the largest batch.
func writeSegment(out io.Writer, size int) (largest int) {
	rng := rand.New(rand.NewPCG(1, 2))
	written := 0
	offset := int64(0)
	seq := map[int64]int32{}
	add := func(b []byte, records int) {
		out.Write(b)
		written += len(b)
		largest = max(largest, len(b))
		offset += int64(records)
	}
	batch := func(attrs int16, pid int64, codec record.Compression) {
		n := 5 + rng.IntN(20)
		recs := make([]krec, n)
		for i := range recs {
			r := &recs[i]
			r.key = fmt.Appendf(nil, "customer-%06d", rng.IntN(1_000_000))
			if rng.IntN(20) == 0 {
				r.value = make([]byte, 64+rng.IntN(256))
				for j := range r.value {
					r.value[j] = byte(rng.Uint32())
				}
			} else {
				r.value = fmt.Appendf(nil, `{"order":%d,"amount":%d.%02d,"currency":"EUR","items":[%q,%q],"note":"%s"}`,
					rng.IntN(1<<30), rng.IntN(10_000), rng.IntN(100), "sku-"+fmt.Sprint(rng.IntN(9999)), "sku-"+fmt.Sprint(rng.IntN(9999)),
					bytes.Repeat([]byte("lorem ipsum "), rng.IntN(30)))
			}
			if rng.IntN(4) == 0 {
				r.headers = []kmsg.Header{{Key: "trace-id", Value: fmt.Appendf(nil, "%016x", rng.Uint64())}, {Key: "source", Value: []byte("checkout")}}
			}
		}
		s := int32(-1)
		epoch := int16(-1)
		if pid >= 0 {
			s, epoch = seq[pid], 3
			seq[pid] += int32(n)
		}
		add(kbatch(offset, attrs, pid, epoch, s, codec, recs...), n)
	}
	codecs := []record.Compression{record.Gzip, record.Zstd, record.LZ4, record.Snappy, codecXerial}
	for i := 0; written < size; i++ {
		batch(0, -1, record.None)
		batch(0, 1000+int64(i%7), record.None)
		pid := 5000 + int64(i%11)
		batch(0x10, pid, record.None)
		batch(0x10, pid, record.None)
		typ := record.ControlCommit
		if i%5 == 0 {
			typ = record.ControlAbort
		}
		add(kmarker(offset, pid, 3, typ, int32(i%4)), 1)
		batch(0, 2000+int64(i%3), codecs[i%len(codecs)])
	}
	return largest
}

// TestWriteBenchSegment writes the benchmark's batches to the file named
// by EOSLAB_BENCH_SEGMENT, EOSLAB_BENCH_SEGMENT_MB megabytes of them
// (default 200), for measuring the command itself (docs/performance.md):
//
//	EOSLAB_BENCH_SEGMENT=/tmp/200mb.log go test ./ui/inspect -run WriteBenchSegment -v
//	/usr/bin/time -f '%e s %M KB' eoslab inspect --json /tmp/200mb.log >/dev/null
func TestWriteBenchSegment(t *testing.T) {
	path := os.Getenv("EOSLAB_BENCH_SEGMENT")
	if path == "" {
		t.Skip("EOSLAB_BENCH_SEGMENT names the file to write")
	}
	mb := 200
	if s := os.Getenv("EOSLAB_BENCH_SEGMENT_MB"); s != "" {
		var err error
		if mb, err = strconv.Atoi(s); err != nil || mb <= 0 {
			t.Fatalf("EOSLAB_BENCH_SEGMENT_MB=%q: not a positive number", s)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewWriterSize(f, 1<<20)
	largest := writeSegment(out, mb<<20)
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d MB, the largest batch %d bytes", path, mb, largest)
}

// BenchmarkInspectJSON compares `inspect --json` with the obvious peer: each
// batch decoded with kmsg.RecordBatch.ReadFrom and kmsg.Record.ReadFrom,
// decompressed with the same codec libraries (decoders reused, as
// franz-go's client does), and an equivalent struct marshalled with
// encoding/json. Both read the same segment from memory and print JSON
// Lines; compare MB/s in one run, the ratio being the measure (kmsg
// reports it: kmsg/eoslab, how many times faster eoslab is; budget 2).
// eoslab-text is the same segment in inspect's text form (text/json:
// its time over JSON's).
func BenchmarkInspectJSON(b *testing.B) {
	seg := benchSegment()
	var jsonNs float64 // eoslab's ns a segment in this run
	perOp := func(b *testing.B) float64 { return float64(b.Elapsed().Nanoseconds()) / float64(max(b.N, 1)) }
	b.Run("eoslab", func(b *testing.B) {
		defer func() { jsonNs = perOp(b) }()
		b.SetBytes(int64(len(seg)))
		b.ReportAllocs()
		for b.Loop() {
			w := NewJSONWriter(io.Discard, sampleName)
			in := bufio.NewReaderSize(bytes.NewReader(seg), 256<<10) // as cmd_inspect reads a file
			if err := Copy(w, in, nil, func(p error) { b.Fatal(p) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("eoslab-text", func(b *testing.B) {
		defer func() {
			if jsonNs > 0 {
				b.ReportMetric(perOp(b)/jsonNs, "text/json")
			}
		}()
		b.SetBytes(int64(len(seg)))
		b.ReportAllocs()
		for b.Loop() {
			w := NewTextWriter(io.Discard)
			in := bufio.NewReaderSize(bytes.NewReader(seg), 256<<10)
			if err := Copy(w, in, nil, func(p error) { b.Fatal(p) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kmsg", func(b *testing.B) {
		defer func() {
			if jsonNs > 0 {
				b.ReportMetric(perOp(b)/jsonNs, "kmsg/eoslab")
			}
		}()
		b.SetBytes(int64(len(seg)))
		b.ReportAllocs()
		var peer kmsgPeer
		for b.Loop() {
			if err := peer.inspect(io.Discard, seg, sampleName); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The peer's output is eoslab's but for binary keys and values, which it
// writes as null plus a _b64 key (encoding/json cannot choose a key's name
// by its value without a MarshalJSON of its own, the cost being measured).
type kmsgBatchJSON struct {
	File                 string           `json:"file"`
	Position             int64            `json:"position"`
	BaseOffset           int64            `json:"base_offset"`
	LastOffset           int64            `json:"last_offset"`
	BatchLength          int32            `json:"batch_length"`
	PartitionLeaderEpoch int32            `json:"partition_leader_epoch"`
	Magic                int8             `json:"magic"`
	CRC                  uint32           `json:"crc"`
	CRCValid             bool             `json:"crc_valid"`
	Attributes           int16            `json:"attributes"`
	Compression          string           `json:"compression"`
	TimestampType        string           `json:"timestamp_type"`
	Transactional        bool             `json:"transactional"`
	Control              bool             `json:"control"`
	LastOffsetDelta      int32            `json:"last_offset_delta"`
	BaseTimestamp        int64            `json:"base_timestamp"`
	MaxTimestamp         int64            `json:"max_timestamp"`
	ProducerID           int64            `json:"producer_id"`
	ProducerEpoch        int16            `json:"producer_epoch"`
	BaseSequence         int32            `json:"base_sequence"`
	LastSequence         int32            `json:"last_sequence"`
	RecordsCount         int32            `json:"records_count"`
	ControlType          string           `json:"control_type,omitempty"`
	CoordinatorEpoch     *int32           `json:"coordinator_epoch,omitempty"`
	Records              []kmsgRecordJSON `json:"records"`
}

type kmsgRecordJSON struct {
	Offset    int64            `json:"offset"`
	Timestamp int64            `json:"timestamp"`
	Key       *string          `json:"key"`
	KeyB64    string           `json:"key_b64,omitempty"`
	Value     *string          `json:"value"`
	ValueB64  string           `json:"value_b64,omitempty"`
	Headers   []kmsgHeaderJSON `json:"headers"`
}

type kmsgHeaderJSON struct {
	Key      string  `json:"key"`
	Value    *string `json:"value"`
	ValueB64 string  `json:"value_b64,omitempty"`
}

type kmsgPeer struct {
	gz   *gzip.Reader
	lz   *lz4.Reader
	zd   *zstd.Decoder
	area bytes.Buffer
	line []byte
}

func (p *kmsgPeer) inspect(w io.Writer, seg []byte, file string) error {
	table := crc32.MakeTable(crc32.Castagnoli)
	for pos := 0; pos < len(seg); {
		if len(seg)-pos < record.HeaderSize {
			return errors.New("truncated")
		}
		size := 12 + int(binary.BigEndian.Uint32(seg[pos+8:]))
		raw := seg[pos : pos+size]
		var rb kmsg.RecordBatch
		if err := rb.ReadFrom(raw); err != nil {
			return err
		}
		area, err := p.decompress(rb.Records, record.Compression(rb.Attributes&7))
		if err != nil {
			return err
		}
		attrs := record.Attributes(rb.Attributes)
		out := kmsgBatchJSON{
			File: file, Position: int64(pos), BaseOffset: rb.FirstOffset, LastOffset: rb.FirstOffset + int64(rb.LastOffsetDelta),
			BatchLength: rb.Length, PartitionLeaderEpoch: rb.PartitionLeaderEpoch, Magic: rb.Magic,
			CRC: uint32(rb.CRC), CRCValid: uint32(rb.CRC) == crc32.Checksum(raw[21:], table), Attributes: rb.Attributes,
			Compression: attrs.Compression().String(), TimestampType: attrs.TimestampType(),
			Transactional: attrs.Transactional(), Control: attrs.Control(), LastOffsetDelta: rb.LastOffsetDelta,
			BaseTimestamp: rb.FirstTimestamp, MaxTimestamp: rb.MaxTimestamp, ProducerID: rb.ProducerID,
			ProducerEpoch: rb.ProducerEpoch, BaseSequence: rb.FirstSequence, LastSequence: -1, RecordsCount: rb.NumRecords,
			Records: make([]kmsgRecordJSON, 0, rb.NumRecords),
		}
		if rb.FirstSequence >= 0 {
			out.LastSequence = record.IncrementSequence(rb.FirstSequence, rb.LastOffsetDelta)
		}
		for i := int32(0); i < rb.NumRecords; i++ {
			length, n := binary.Varint(area)
			if n <= 0 || int(length) > len(area)-n {
				return errors.New("bad record length")
			}
			var kr kmsg.Record
			if err := kr.ReadFrom(area[:n+int(length)]); err != nil {
				return err
			}
			area = area[n+int(length):]
			if attrs.Control() {
				out.ControlType = record.ControlType(binary.BigEndian.Uint16(kr.Key[2:])).String()
				ce := int32(binary.BigEndian.Uint32(kr.Value[2:]))
				out.CoordinatorEpoch = &ce
			}
			ts := rb.FirstTimestamp + kr.TimestampDelta64
			if attrs.LogAppendTime() {
				ts = rb.MaxTimestamp
			}
			r := kmsgRecordJSON{Offset: rb.FirstOffset + int64(kr.OffsetDelta), Timestamp: ts, Headers: make([]kmsgHeaderJSON, 0, len(kr.Headers))}
			r.Key, r.KeyB64 = textOrB64(kr.Key)
			r.Value, r.ValueB64 = textOrB64(kr.Value)
			for _, h := range kr.Headers {
				hj := kmsgHeaderJSON{Key: h.Key}
				hj.Value, hj.ValueB64 = textOrB64(h.Value)
				r.Headers = append(r.Headers, hj)
			}
			out.Records = append(out.Records, r)
		}
		line, err := json.Marshal(&out)
		if err != nil {
			return err
		}
		p.line = append(append(p.line[:0], line...), '\n')
		if _, err := w.Write(p.line); err != nil {
			return err
		}
		pos += size
	}
	return nil
}

func textOrB64(b []byte) (*string, string) {
	switch {
	case b == nil:
		return nil, ""
	case utf8.Valid(b):
		s := string(b)
		return &s, ""
	}
	return nil, base64.StdEncoding.EncodeToString(b)
}

func (p *kmsgPeer) decompress(src []byte, c record.Compression) ([]byte, error) {
	p.area.Reset()
	switch c {
	case record.None:
		return src, nil
	case record.Gzip:
		var err error
		if p.gz == nil {
			p.gz, err = gzip.NewReader(bytes.NewReader(src))
		} else {
			err = p.gz.Reset(bytes.NewReader(src))
		}
		if err != nil {
			return nil, err
		}
		_, err = p.area.ReadFrom(p.gz)
		return p.area.Bytes(), err
	case record.LZ4:
		if p.lz == nil {
			p.lz = lz4.NewReader(nil)
		}
		p.lz.Reset(bytes.NewReader(src))
		_, err := p.area.ReadFrom(p.lz)
		return p.area.Bytes(), err
	case record.Zstd:
		if p.zd == nil {
			p.zd, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		}
		return p.zd.DecodeAll(src, p.area.Bytes())
	case record.Snappy:
		if !bytes.HasPrefix(src, []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}) {
			return s2.Decode(nil, src)
		}
		for rest := src[16:]; len(rest) >= 4; {
			n := int(binary.BigEndian.Uint32(rest))
			block, err := s2.Decode(nil, rest[4:4+n])
			if err != nil {
				return nil, err
			}
			p.area.Write(block)
			rest = rest[4+n:]
		}
		return p.area.Bytes(), nil
	}
	return nil, fmt.Errorf("codec %d", c)
}

// The peer prints what eoslab prints (binary keys and values aside), so
// the benchmark compares equal work.
func TestBenchmarkPeerAgrees(t *testing.T) {
	seg := benchSegment()[:1<<20]
	seg = seg[:lastWholeBatch(seg)]
	var mine, peer bytes.Buffer
	if problems := render(t, NewJSONWriter(&mine, "f"), seg); len(problems) != 0 {
		t.Fatal(problems)
	}
	var p kmsgPeer
	if err := p.inspect(&peer, seg, "f"); err != nil {
		t.Fatal(err)
	}
	a, b := bytes.Split(mine.Bytes(), []byte("\n")), bytes.Split(peer.Bytes(), []byte("\n"))
	if len(a) != len(b) || len(a) < 100 {
		t.Fatalf("%d lines vs %d", len(a), len(b))
	}
	same := 0
	for i := range a {
		if bytes.Equal(a[i], b[i]) {
			same++
		} else if !bytes.Contains(a[i], []byte(`_b64"`)) {
			t.Fatalf("line %d differs:\n%s\n%s", i, a[i], b[i])
		}
	}
	if same < len(a)/2 {
		t.Fatalf("only %d of %d lines agree", same, len(a))
	}
}

func lastWholeBatch(seg []byte) int {
	pos := 0
	for pos+record.HeaderSize <= len(seg) {
		size := 12 + int(binary.BigEndian.Uint32(seg[pos+8:]))
		if pos+size > len(seg) {
			break
		}
		pos += size
	}
	return pos
}
