package inspect

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/eoslab/eoslab/engine/record"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The segments of these tests are built with franz-go's kmsg and the
// codec libraries directly, as a producer and a broker would, never with
// eoslab's own encoder: what inspect reads is checked against an
// independent writer.

const ts = 1_700_000_000_000

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// krec is one record to build.
type krec struct {
	key, value []byte
	headers    []kmsg.Header
}

// codecXerial is snappy framed as the Java client's snappy-java writes it;
// plain record.Snappy is a raw block, as franz-go and librdkafka write it.
const codecXerial = record.Compression(100)

// kbatch encodes a stored batch: records with kmsg, the record area
// compressed with codec, the CRC computed over bytes 21 to the end.
func kbatch(base int64, attrs int16, pid int64, epoch int16, seq int32, codec record.Compression, recs ...krec) []byte {
	var body []byte
	for i, r := range recs {
		kr := kmsg.Record{TimestampDelta64: int64(i) * 10, OffsetDelta: int32(i), Key: r.key, Value: r.value, Headers: r.headers}
		kr.Length = int32(len(kr.AppendTo(nil)) - 1) // the body does not depend on the length before it
		body = kr.AppendTo(body)
	}
	body, bits := compressArea(body, codec)
	kb := kmsg.RecordBatch{
		FirstOffset: base, PartitionLeaderEpoch: 0, Magic: 2, Attributes: attrs&^7 | int16(bits),
		LastOffsetDelta: int32(len(recs) - 1), FirstTimestamp: ts, MaxTimestamp: ts + int64(max(len(recs)-1, 0))*10,
		ProducerID: pid, ProducerEpoch: epoch, FirstSequence: seq, NumRecords: int32(len(recs)),
		Records: body, Length: int32(record.HeaderSize - record.LogOverhead + len(body)),
	}
	return withCRC(kb.AppendTo(nil))
}

// withCRC stores the CRC-32C of bytes 21 to the end, as Kafka computes it.
func withCRC(b []byte) []byte {
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], castagnoli))
	return b
}

func compressArea(raw []byte, codec record.Compression) ([]byte, record.Compression) {
	var buf bytes.Buffer
	switch codec {
	case record.None:
		return raw, codec
	case record.Gzip:
		w := stdgzip.NewWriter(&buf)
		w.Write(raw)
		w.Close()
	case record.Snappy:
		return s2.EncodeSnappy(nil, raw), codec
	case codecXerial:
		buf.Write([]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1})
		for len(raw) > 0 {
			n := min(len(raw), 32<<10)
			block := s2.EncodeSnappy(nil, raw[:n])
			buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(block))))
			buf.Write(block)
			raw = raw[n:]
		}
		return buf.Bytes(), record.Snappy
	case record.LZ4:
		w := lz4.NewWriter(&buf)
		w.Write(raw)
		w.Close()
	case record.Zstd:
		enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		return enc.EncodeAll(raw, nil), codec
	default:
		return raw, codec // an unknown codec keeps the records as they are
	}
	return buf.Bytes(), codec
}

// kmarker is a transaction marker as a partition leader writes it.
func kmarker(base int64, pid int64, epoch int16, typ record.ControlType, coordEpoch int32) []byte {
	key := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, 0), uint16(typ))
	val := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint16(nil, 0), uint32(coordEpoch))
	return kbatch(base, 0x30, pid, epoch, -1, record.None, krec{key: key, value: val})
}

func cat(batches ...[]byte) []byte { return bytes.Join(batches, nil) }

// readAll streams data through a Reader and keeps every batch's problem.
func readAll(t testing.TB, data []byte) (problems []error, framing error, n int) {
	t.Helper()
	r := NewReader(bytes.NewReader(data))
	for b, ok := r.Next(); ok; b, ok = r.Next() {
		n++
		if p := b.Problem(); p != nil {
			problems = append(problems, p)
		}
	}
	return problems, r.Err(), n
}

// render prints a segment with w as Copy does and returns the problems.
func render(t testing.TB, w BatchWriter, data []byte) []error {
	t.Helper()
	var problems []error
	if err := Copy(w, bytes.NewReader(data), nil, func(p error) { problems = append(problems, p) }); err != nil {
		t.Fatal(err)
	}
	return problems
}

func jsonOf(t testing.TB, data []byte, file string) (string, []error) {
	var buf bytes.Buffer
	p := render(t, NewJSONWriter(&buf, file), data)
	return buf.String(), p
}

func textOf(t testing.TB, data []byte) (string, []error) {
	var buf bytes.Buffer
	p := render(t, NewTextWriter(&buf), data)
	return buf.String(), p
}
