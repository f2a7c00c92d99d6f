package inspect

import (
	"bytes"
	"encoding/json"
	"flag"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/assets"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs (run with -update and review the diff)\n got:\n%s", name, got)
	}
}

func sample(t *testing.T) []Batch {
	data, err := assets.FS.ReadFile(assets.SamplePath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(data)
	if err != nil || len(Problems(b)) != 0 {
		t.Fatalf("sample: %v %v", err, Problems(b))
	}
	return b
}

func TestTextGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteText(&buf, sample(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.txt", buf.Bytes())
}

func TestJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, sample(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.jsonl", buf.Bytes())
}

// The JSON keys are a contract (docs/inspect.md): exactly these, in this order.
func TestJSONKeys(t *testing.T) {
	var buf bytes.Buffer
	WriteJSON(&buf, sample(t))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	batchKeys := "position base_offset last_offset batch_length partition_leader_epoch magic crc crc_valid attributes compression timestamp_type transactional control last_offset_delta base_timestamp max_timestamp producer_id producer_epoch base_sequence last_sequence records_count"
	for i, line := range lines {
		keys := orderedKeys(t, []byte(line))
		want := batchKeys + " records"
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		if m["control"] == true {
			want = batchKeys + " control_type coordinator_epoch records"
		}
		if keys != want {
			t.Fatalf("line %d keys\n got %s\nwant %s", i, keys, want)
		}
	}
	// The aborted transaction's value is not UTF-8: value_b64 instead of value.
	var b struct {
		Records []map[string]any `json:"records"`
	}
	json.Unmarshal([]byte(lines[5]), &b)
	if r := b.Records[0]; r["value_b64"] != "yv66vg==" || r["key"] != "pay-2" {
		t.Fatalf("record %v", r)
	}
	if _, has := b.Records[0]["value"]; has {
		t.Fatal("value and value_b64 both present")
	}
}

func orderedKeys(t *testing.T, line []byte) string {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.Token() // {
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(keys, " ")
}

// A corrupt batch is shown with its CRC marked invalid and reported with
// its position; a truncated tail stops the scan after what was readable.
func TestCorruptAndTruncated(t *testing.T) {
	data, _ := assets.FS.ReadFile(assets.SamplePath)
	bad := append([]byte(nil), data...)
	bad[300] ^= 0xff
	bad = bad[:700]
	batches, scanErr := Read(bad)
	if len(batches) != 6 || batches[2].CRCValid || !batches[1].CRCValid {
		t.Fatalf("%d batches, crc flags wrong", len(batches))
	}
	probs := Problems(batches)
	if len(probs) != 1 || !strings.Contains(probs[0].Error(), "at file position 261: crc mismatch: stored 0x47559445") {
		t.Fatalf("problems %v", probs)
	}
	if scanErr == nil || scanErr.Error() != "at file position 645: truncated batch: need 78 bytes, have 55" {
		t.Fatalf("scan error %v", scanErr)
	}
	var buf bytes.Buffer
	WriteText(&buf, batches)
	if !strings.Contains(buf.String(), "crc                   0x47559445 INVALID (computed 0x1a74f430)") {
		t.Fatalf("text output does not flag the CRC:\n%s", buf.String())
	}
}

func FuzzRead(f *testing.F) {
	data, _ := assets.FS.ReadFile(assets.SamplePath)
	f.Add(data)
	f.Add(data[:100])
	f.Fuzz(func(t *testing.T, in []byte) {
		batches, _ := Read(in)
		var buf bytes.Buffer
		if err := WriteJSON(&buf, batches); err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("invalid JSON line %s", line)
			}
		}
		WriteText(&buf, batches)
	})
}

// In a LogAppendTime batch every record's timestamp is the batch's
// maxTimestamp, the broker's append time, whatever the deltas say
// (DefaultRecordBatch's record iterator). The batch is built with kmsg, an
// independent implementation, and its CRC computed as Kafka does.
func TestLogAppendTimeRecordsReadMaxTimestamp(t *testing.T) {
	const base, appendTime = 1_700_000_000_000, 1_700_000_009_999
	rb := kmsg.RecordBatch{PartitionLeaderEpoch: 0, Magic: 2, Attributes: 0x08, LastOffsetDelta: 1,
		FirstTimestamp: base, MaxTimestamp: appendTime, ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: 2}
	var recs []byte
	for i, delta := range []int64{0, 7} {
		r := kmsg.Record{TimestampDelta64: delta, OffsetDelta: int32(i), Key: nil, Value: []byte{'v', byte('0' + i)}}
		r.Length = int32(len(r.AppendTo(nil)) - 1)
		recs = r.AppendTo(recs)
	}
	rb.Records = recs
	raw := rb.AppendTo(nil)
	rb.Length = int32(len(raw) - 12)
	raw = rb.AppendTo(nil)
	rb.CRC = int32(crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	raw = rb.AppendTo(nil)

	batches, err := Read(raw)
	if err != nil || len(batches) != 1 || !batches[0].CRCValid {
		t.Fatalf("read: %v, %d batches", err, len(batches))
	}
	var text, js bytes.Buffer
	WriteText(&text, batches)
	WriteJSON(&js, batches)
	for _, want := range []string{"offset 0  timestamp 1700000009999", "offset 1  timestamp 1700000009999"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Count(js.String(), `"timestamp":1700000009999`) != 2 || strings.Contains(js.String(), `"timestamp":1700000000007`) {
		t.Errorf("json record timestamps are not the append time:\n%s", js.String())
	}
}
