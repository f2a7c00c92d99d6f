package inspect

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/eoslab/eoslab/assets"
	"github.com/eoslab/eoslab/engine/record"
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

const sampleName = "00000000000000000000.log"

func sampleData(t testing.TB) []byte {
	data, err := assets.FS.ReadFile(assets.SamplePath)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestTextGolden(t *testing.T) {
	text, problems := textOf(t, sampleData(t))
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	golden(t, "sample.txt", []byte(text))
}

func TestJSONGolden(t *testing.T) {
	js, problems := jsonOf(t, sampleData(t), sampleName)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	golden(t, "sample.jsonl", []byte(js))
}

// The JSON keys are a contract (docs/inspect.md): exactly these, in this order.
func TestJSONKeys(t *testing.T) {
	js, _ := jsonOf(t, sampleData(t), sampleName)
	lines := strings.Split(strings.TrimSpace(js), "\n")
	batchKeys := "file position base_offset last_offset batch_length partition_leader_epoch magic crc crc_valid attributes compression timestamp_type transactional control last_offset_delta base_timestamp max_timestamp producer_id producer_epoch base_sequence last_sequence records_count"
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
		if m["file"] != sampleName {
			t.Fatalf("line %d file %v", i, m["file"])
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
	bad := append([]byte(nil), sampleData(t)...)
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
	text, streamed := textOf(t, bad)
	if !strings.Contains(text, "crc                   0x47559445 INVALID (computed 0x1a74f430)") {
		t.Fatalf("text output does not flag the CRC:\n%s", text)
	}
	if len(streamed) != 2 || streamed[0].Error() != probs[0].Error() || streamed[1].Error() != scanErr.Error() {
		t.Fatalf("streamed problems %v", streamed)
	}
	js, _ := jsonOf(t, bad, "x.log")
	if !strings.Contains(js, `"crc_valid":false,`) || !strings.Contains(js, `"error":"crc mismatch: stored 0x47559445, computed 0x1a74f430","records":[`) {
		t.Fatalf("json does not carry the crc error:\n%s", js)
	}
}

// In a LogAppendTime batch every record's timestamp is the batch's
// maxTimestamp, the broker's append time, whatever the deltas say
// (DefaultRecordBatch's record iterator). The batch is built with kmsg, an
// independent implementation, and its CRC computed as Kafka does.
func TestLogAppendTimeRecordsReadMaxTimestamp(t *testing.T) {
	const appendTime = ts + 9_999
	raw := kbatch(0, 0x08, -1, -1, -1, record.None, krec{value: []byte("v0")}, krec{value: []byte("v1")})
	binary.BigEndian.PutUint64(raw[record.MaxTimestampOffset:], appendTime)
	raw = withCRC(raw)
	text, p1 := textOf(t, raw)
	js, p2 := jsonOf(t, raw, "f")
	if len(p1)+len(p2) != 0 {
		t.Fatal(p1, p2)
	}
	for _, want := range []string{"offset 0  timestamp 1700000009999", "offset 1  timestamp 1700000009999"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(js, `"timestamp":1700000009999`) != 2 || strings.Contains(js, `"timestamp":1700000000010`) {
		t.Errorf("json record timestamps are not the append time:\n%s", js)
	}
}

// Codec bits 5-7 name no codec: the batch is reported with Kafka's
// exception, in text, in JSON and as a problem, instead of showing no
// records and no error.
func TestUnknownCompressionIsAnError(t *testing.T) {
	for _, id := range []record.Compression{5, 6, 7} {
		raw := kbatch(0, 0, -1, -1, -1, id, krec{key: []byte("k"), value: []byte("v")})
		want := "Unknown compression type id: " + string('0'+rune(id))
		js, problems := jsonOf(t, raw, "f.log")
		if len(problems) != 1 || !strings.Contains(problems[0].Error(), "at file position 0: "+want) {
			t.Fatalf("codec %d: problems %v", id, problems)
		}
		var ue *record.UnknownCompressionError
		if !errors.As(problems[0], &ue) || ue.ID != id {
			t.Fatalf("codec %d: %#v", id, problems[0])
		}
		var line map[string]any
		if err := json.Unmarshal([]byte(js), &line); err != nil {
			t.Fatal(err)
		}
		if e, _ := line["error"].(string); !strings.HasPrefix(e, want) || !strings.Contains(e, "IllegalArgumentException") || line["crc_valid"] != true {
			t.Fatalf("codec %d: json %s", id, js)
		}
		text, _ := textOf(t, raw)
		if !strings.Contains(text, "  error: "+want) {
			t.Fatalf("codec %d: text\n%s", id, text)
		}
	}
}

// A control batch is one control record (Kafka writes nothing else and
// reads only the first): more records, or a record that is no control
// record, is a problem; no record at all is what the log cleaner leaves.
func TestControlBatchIsOneControlRecord(t *testing.T) {
	ordinary := func(k string) krec { return krec{key: []byte(k), value: []byte("v")} }
	commitKey, commitValue := []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 3}
	cases := []struct {
		name string
		raw  []byte
		want string // "" for no problem
	}{
		{"a commit marker", kmarker(0, 7, 1, record.ControlCommit, 3), ""},
		{"an abort marker", kmarker(0, 7, 1, record.ControlAbort, 3), ""},
		{"three ordinary records", kbatch(0, 0x30, 7, 1, -1, record.None, ordinary("a"), ordinary("b"), ordinary("c")), "control batch holds 3 records"},
		{"a marker and one more", kbatch(0, 0x30, 7, 1, -1, record.None, krec{key: commitKey, value: commitValue}, krec{key: commitKey, value: commitValue}), "control batch holds 2 records"},
		{"one ordinary record", kbatch(0, 0x30, 7, 1, -1, record.None, ordinary("a")), "invalid control record (InvalidRecordException"},
		{"a short marker value", kbatch(0, 0x30, 7, 1, -1, record.None, krec{key: commitKey, value: []byte{0, 0}}), "end transaction marker value has 2 bytes"},
		{"emptied by the cleaner", kbatch(0, 0x30, 7, 1, -1, record.None), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			js, problems := jsonOf(t, c.raw, "f.log")
			text, _ := textOf(t, c.raw)
			if c.want == "" {
				if len(problems) != 0 || strings.Contains(js, `"error"`) || strings.Contains(text, "error:") {
					t.Fatalf("problems %v\n%s%s", problems, js, text)
				}
				return
			}
			if len(problems) != 1 || !strings.Contains(problems[0].Error(), c.want) {
				t.Fatalf("problems %v, want %q", problems, c.want)
			}
			var line struct{ Error string }
			if err := json.Unmarshal([]byte(js), &line); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(line.Error, c.want) || !strings.Contains(text, "  error: "+line.Error+"\n") {
				t.Fatalf("not reported in the output:\n%s%s", js, text)
			}
		})
	}
}

// Writing JSON by hand keeps encoding/json's representation: every line is
// what the encoding/json implementation it replaced writes, for the sample
// and for keys, values and headers of every awkward kind.
func TestJSONMatchesEncodingJSON(t *testing.T) {
	odd := [][]byte{
		nil, {}, []byte("plain"), []byte(`"quoted" \ back`), []byte("<html> & </html>"),
		[]byte("tab\tnl\ncr\rbs\bff\fnul\x00esc\x1bdel\x7f"), []byte("line\u2028para\u2029"),
		[]byte("héllo wörld ✓ 🦀"), {0xff, 0xfe, 'a'}, []byte("\xe2\x80"), bytes.Repeat([]byte("é<"), 50_000),
	}
	var recs []krec
	for i, b := range odd {
		recs = append(recs, krec{key: b, value: odd[len(odd)-1-i], headers: []kmsg.Header{{Key: string(b), Value: b}, {Key: "n", Value: nil}}})
	}
	seg := cat(sampleData(t), kbatch(14, 0, 1, 0, 0, record.None, recs...), kbatch(25, 0, 1, 0, 11, record.Zstd, recs...))
	checkAgainstReference(t, seg, "dir/\xffodd \"name\".log")
}

func checkAgainstReference(t *testing.T, seg []byte, file string) {
	t.Helper()
	js, _ := jsonOf(t, seg, file)
	batches, _ := Read(seg)
	lines := strings.SplitAfter(js, "\n")
	if len(lines) != len(batches)+1 || lines[len(batches)] != "" {
		t.Fatalf("%d lines for %d batches", len(lines)-1, len(batches))
	}
	for i := range batches {
		want, err := json.Marshal(referenceJSON(&batches[i], file))
		if err != nil {
			t.Fatal(err)
		}
		if got := lines[i]; got != string(want)+"\n" {
			t.Fatalf("batch %d:\n got %.2000s\nwant %.2000s", i, got, want)
		}
	}
}

// referenceJSON is the encoding/json implementation the hand-written one
// replaced, with the file and error keys added.
func referenceJSON(b *Batch, file string) object {
	h := &b.Header
	o := object{
		{"file", file},
		{"position", b.Position}, {"base_offset", h.BaseOffset}, {"last_offset", h.LastOffset()},
		{"batch_length", h.BatchLength}, {"partition_leader_epoch", h.PartitionLeaderEpoch}, {"magic", h.Magic},
		{"crc", h.CRC}, {"crc_valid", b.CRCValid}, {"attributes", h.Attributes},
		{"compression", h.Attributes.Compression().String()}, {"timestamp_type", h.Attributes.TimestampType()},
		{"transactional", h.Attributes.Transactional()}, {"control", h.Attributes.Control()},
		{"last_offset_delta", h.LastOffsetDelta}, {"base_timestamp", h.BaseTimestamp}, {"max_timestamp", h.MaxTimestamp},
		{"producer_id", h.ProducerID}, {"producer_epoch", h.ProducerEpoch}, {"base_sequence", h.BaseSequence},
		{"last_sequence", h.LastSequence()}, {"records_count", h.RecordsCount},
	}
	if b.Marker != nil {
		o = append(o, field{"control_type", b.Marker.Type.String()}, field{"coordinator_epoch", b.Marker.CoordinatorEpoch})
	}
	if p := b.Problem(); p != nil {
		o = append(o, field{"error", errors.Unwrap(p).Error()})
	}
	recs := make([]object, 0, len(b.Records))
	for _, r := range b.Records {
		ro := object{{"offset", h.BaseOffset + int64(r.OffsetDelta)}, {"timestamp", h.RecordTimestamp(r.TimestampDelta)}}
		ro = appendBytes(ro, "key", r.Key)
		ro = appendBytes(ro, "value", r.Value)
		headers := make([]object, 0, len(r.Headers))
		for _, hd := range r.Headers {
			headers = append(headers, appendBytes(object{{"key", hd.Key}}, "value", hd.Value))
		}
		recs = append(recs, append(ro, field{"headers", headers}))
	}
	return append(o, field{"records", recs})
}

func appendBytes(o object, name string, b []byte) object {
	switch {
	case b == nil:
		return append(o, field{name, nil})
	case utf8.Valid(b):
		return append(o, field{name, string(b)})
	}
	return append(o, field{name + "_b64", base64.StdEncoding.EncodeToString(b)})
}

type field struct {
	key   string
	value any
}

type object []field

func (o object) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(f.key)
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, k...), ':'), v...)
	}
	return append(buf, '}'), nil
}
