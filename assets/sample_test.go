package assets

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"flag"
	"hash/crc32"
	"os"
	"testing"

	"github.com/eoslab/eoslab/engine/record"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var update = flag.Bool("update", false, "rewrite the sample segment")

const ts = 1700000000000

type rec struct {
	key, value []byte
	headers    []kmsg.Header
}

// kbatch builds a stored batch purely with franz-go's kmsg and the standard
// library, independent of eoslab's own encoder.
func kbatch(base int64, attrs int16, pid int64, epoch int16, seq int32, gzip bool, recs ...rec) []byte {
	var body []byte
	for i, r := range recs {
		kr := kmsg.Record{TimestampDelta64: int64(i) * 10, OffsetDelta: int32(i), Key: r.key, Value: r.value, Headers: r.headers}
		n := len(kr.AppendTo(nil)) - 1 // every record here is < 64 bytes: a one-byte length
		kr.Length = int32(n)
		body = kr.AppendTo(body)
	}
	if gzip {
		var buf bytes.Buffer
		w, _ := stdgzip.NewWriterLevel(&buf, stdgzip.BestCompression)
		w.Write(body)
		w.Close()
		body = buf.Bytes()
		attrs |= 1
	}
	kb := kmsg.RecordBatch{
		FirstOffset: base, PartitionLeaderEpoch: 0, Magic: 2, Attributes: attrs,
		LastOffsetDelta: int32(len(recs) - 1), FirstTimestamp: ts, MaxTimestamp: ts + int64(len(recs)-1)*10,
		ProducerID: pid, ProducerEpoch: epoch, FirstSequence: seq, NumRecords: int32(len(recs)),
		Records: body, Length: int32(49 + len(body)),
	}
	out := kb.AppendTo(nil)
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

func marker(base int64, pid int64, epoch int16, typ int16, coordEpoch int32) []byte {
	key := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, 0), uint16(typ))
	val := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint16(nil, 0), uint32(coordEpoch))
	return kbatch(base, 0x30, pid, epoch, -1, false, rec{key: key, value: val})
}

// sample is a short partition history: a plain batch, an idempotent one
// with keys and a header, a committed transaction, a gzip batch, and an
// aborted transaction with a binary value.
func sample() []byte {
	s := func(v string) []byte { return []byte(v) }
	var seg []byte
	seg = append(seg, kbatch(0, 0, -1, -1, -1, false, rec{value: s("hello")}, rec{value: s("world")})...)
	seg = append(seg, kbatch(2, 0, 5001, 0, 0, false,
		rec{key: s("order-1"), value: s(`{"amount":12}`), headers: []kmsg.Header{{Key: "trace", Value: s("a1")}}},
		rec{key: s("order-2"), value: s(`{"amount":7}`)},
		rec{key: s("order-3"), value: s(`{"amount":30}`)},
		rec{key: s("order-4"), value: s(`{"amount":5}`)})...)
	seg = append(seg, kbatch(6, 0x10, 6000, 2, 0, false, rec{key: s("pay-1"), value: s("debit")}, rec{key: s("pay-1"), value: s("credit")})...)
	seg = append(seg, marker(8, 6000, 2, 1, 7)...)
	seg = append(seg, kbatch(9, 0, 5001, 0, 4, true,
		rec{key: s("order-5"), value: s(`{"amount":3}`)}, rec{key: s("order-6"), value: s(`{"amount":9}`)}, rec{key: s("order-7"), value: s(`{"amount":1}`)})...)
	seg = append(seg, kbatch(12, 0x10, 6000, 2, 2, false, rec{key: s("pay-2"), value: []byte{0xca, 0xfe, 0xba, 0xbe}})...)
	seg = append(seg, marker(13, 6000, 2, 0, 7)...)
	return seg
}

// The shipped sample equals what kmsg builds, and eoslab decodes every
// batch of it (run with -update to rewrite it).
func TestSampleSegment(t *testing.T) {
	want := sample()
	if *update {
		if err := os.WriteFile(SamplePath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return // the embedded copy is refreshed at the next build
	}
	got, err := FS.ReadFile(SamplePath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("assets/sample differs from what kmsg builds; run go test ./assets -update and review")
	}
	s := record.NewScanner(got)
	var kinds []string
	for _, raw, ok := s.Next(); ok; _, raw, ok = s.Next() {
		b, err := record.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, b.Attributes.Compression().String())
		if b.Attributes.Control() {
			mk, err := record.ParseMarker(&b)
			if err != nil {
				t.Fatal(err)
			}
			kinds[len(kinds)-1] = mk.Type.String()
		}
	}
	if s.Err() != nil || len(kinds) != 7 || kinds[3] != "COMMIT" || kinds[4] != "gzip" || kinds[6] != "ABORT" {
		t.Fatalf("kinds %v err %v", kinds, s.Err())
	}
}
