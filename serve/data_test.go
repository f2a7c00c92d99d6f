package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/eoslab/eoslab/engine/record"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// --data writes each partition's log as Kafka segment files, which
// engine/record and franz-go's kmsg both read back: the batches kgo sent,
// with the offsets the leader gave them.
func TestDataDirSegments(t *testing.T) {
	dir := t.TempDir()
	s, _ := start(t, Config{DataDir: dir})
	c := ctx(t)
	p := client(t, s, kgo.ClientID("writer"), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for i := range 5 {
		if err := p.ProduceSync(c, &kgo.Record{Value: []byte(fmt.Sprintf("v%d", i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "orders-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	// engine/record, as eoslab inspect reads it.
	var n int64
	sc := record.NewScanner(data)
	for {
		_, raw, ok := sc.Next()
		if !ok {
			break
		}
		h, err := record.ParseHeader(raw)
		if err != nil {
			t.Fatal(err)
		}
		if h.BaseOffset != n {
			t.Errorf("batch at %d, want %d", h.BaseOffset, n)
		}
		n += int64(h.RecordsCount)
	}
	if err := sc.Err(); err != nil || n != 5 {
		t.Fatalf("engine/record read %d records (%v), want 5", n, err)
	}
	// kmsg.
	var got []string
	for rest := data; len(rest) > 0; {
		var rb kmsg.RecordBatch
		if err := rb.ReadFrom(rest); err != nil {
			t.Fatal(err)
		}
		size := int(rb.Length) + 12
		if rb.ProducerID != 0 {
			t.Errorf("batch of producer id %d, want kgo's id 0", rb.ProducerID)
		}
		recs, err := kmsgRecords(rb)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, recs...)
		rest = rest[size:]
	}
	if fmt.Sprint(got) != "[v0 v1 v2 v3 v4]" {
		t.Errorf("kmsg read %v", got)
	}
}

func kmsgRecords(rb kmsg.RecordBatch) ([]string, error) {
	var out []string
	raw := rb.Records
	for range rb.NumRecords {
		var r kmsg.Record
		l, k := varint(raw)
		if k <= 0 {
			return nil, fmt.Errorf("bad record length")
		}
		if err := r.ReadFrom(raw[:k+int(l)]); err != nil {
			return nil, err
		}
		out = append(out, string(r.Value))
		raw = raw[k+int(l):]
	}
	return out, nil
}

func varint(b []byte) (int64, int) {
	var x uint64
	var s uint
	for i, c := range b {
		x |= uint64(c&0x7f) << s
		if c < 0x80 {
			return int64(x>>1) ^ -int64(x&1), i + 1
		}
		s += 7
	}
	return 0, 0
}
