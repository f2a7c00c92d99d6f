package inspect

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/eoslab/eoslab/engine/record"
	"github.com/klauspost/compress/zstd"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var writeCorpus = flag.Bool("write-corpus", false, "rewrite testdata/fuzz/FuzzRead from fuzzSeeds")

// fuzzSeeds are real batches of every kind, built with kmsg and the codec
// libraries: each codec (snappy raw and framed, zstd with and without a
// content size), markers, headers, and the problems inspect reports.
func fuzzSeeds(t testing.TB) map[string][]byte {
	rec := func(k, v string) krec {
		return krec{key: []byte(k), value: []byte(v), headers: []kmsg.Header{{Key: "h", Value: []byte("x")}}}
	}
	recs := []krec{rec("k1", `{"a":1}`), rec("k2", "<b>&amp;\u2028"), {key: nil, value: []byte{0xca, 0xfe}}}
	seeds := map[string][]byte{"sample": sampleData(t)}
	for _, c := range []record.Compression{record.None, record.Gzip, record.Snappy, codecXerial, record.LZ4, record.Zstd} {
		name := c.String()
		if c == codecXerial {
			name = "snappy-java"
		}
		seeds[name] = kbatch(0, 0x10, 4711, 2, 0, c, recs...)
	}
	// zstd as the Java client streams it: no content size in the frame.
	raw := kbatch(0, 0, -1, -1, -1, record.None, recs...)
	var streamed bytes.Buffer
	w, _ := zstd.NewWriter(&streamed, zstd.WithEncoderConcurrency(1))
	w.Write(raw[record.HeaderSize:])
	w.Close()
	z := append(bytes.Clone(raw[:record.HeaderSize]), streamed.Bytes()...)
	z[record.AttributesOffset+1] |= byte(record.Zstd)
	setLength(z)
	seeds["zstd-streamed"] = withCRC(z)
	seeds["markers"] = cat(kmarker(3, 4711, 2, record.ControlCommit, 5), kmarker(4, 4711, 2, record.ControlAbort, 5))
	seeds["codec-7"] = kbatch(0, 0, -1, -1, -1, 7, recs...)
	seeds["control-3-records"] = kbatch(0, 0x30, 4711, 2, -1, record.None, recs...)
	bad := bytes.Clone(seeds["gzip"])
	bad[len(bad)-3] ^= 0xff
	seeds["crc-mismatch"] = bad
	seeds["truncated"] = seeds["lz4"][:40]
	return seeds
}

func setLength(b []byte) {
	binary.BigEndian.PutUint32(b[record.BatchLengthOffset:], uint32(len(b)-record.LogOverhead))
}

// The seed corpus on disk is what fuzzSeeds builds (go test -run
// TestFuzzCorpus -write-corpus rewrites it).
func TestFuzzCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	for name, data := range fuzzSeeds(t) {
		path := filepath.Join(dir, name)
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
		if *writeCorpus {
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("%s is not what fuzzSeeds builds (run with -write-corpus): %v", path, err)
		}
	}
}

// Any bytes, read as a stream in any chunking or from memory, give the same
// batches and problems, valid JSON Lines equal to what encoding/json
// writes, and text, without a panic.
func FuzzRead(f *testing.F) {
	f.Add(sampleData(f))
	f.Add(sampleData(f)[:100])
	f.Fuzz(func(t *testing.T, in []byte) {
		js, problems := jsonOf(t, in, "f.log")
		for _, line := range bytes.Split(bytes.TrimSuffix([]byte(js), []byte("\n")), []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("invalid JSON line %s", line)
			}
		}
		checkAgainstReference(t, in, "f.log")

		// The same through a small buffer and byte by byte.
		for _, r := range []func() *bufio.Reader{
			func() *bufio.Reader { return bufio.NewReaderSize(bytes.NewReader(in), 64) },
			func() *bufio.Reader { return bufio.NewReader(iotest.OneByteReader(bytes.NewReader(in))) },
		} {
			var buf bytes.Buffer
			var streamed []error
			if err := Copy(NewJSONWriter(&buf, "f.log"), r(), nil, func(p error) { streamed = append(streamed, p) }); err != nil {
				t.Fatal(err)
			}
			if buf.String() != js || fmt.Sprint(streamed) != fmt.Sprint(problems) {
				t.Fatalf("streamed output differs:\n%s\n%s\n%v\n%v", buf.String(), js, streamed, problems)
			}
		}

		batches, readErr := Read(in)
		want := Problems(batches)
		if readErr != nil {
			want = append(want, readErr)
		}
		if fmt.Sprint(want) != fmt.Sprint(problems) {
			t.Fatalf("Read's problems %v, the stream's %v", want, problems)
		}
		for i := 1; i < len(batches); i++ {
			if batches[i].Position != batches[i-1].Position+int64(batches[i-1].Size()) {
				t.Fatalf("batch %d at %d", i, batches[i].Position)
			}
		}
		for _, p := range problems {
			var pe *record.PositionError
			if !errors.As(p, &pe) {
				t.Fatalf("problem without a position: %v", p)
			}
		}
		textOf(t, in)
	})
}
