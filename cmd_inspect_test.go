package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eoslab/eoslab/engine/record"
)

// inspectHelper, when set, makes the test binary run `eoslab inspect` with
// the arguments it holds (separated by \x1f) and exit: a child process
// whose memory and running time a test can measure, and kill. The child
// reports its peak memory itself (/proc/self/status VmHWM) to the file
// named by inspectPeak: the kernel's rusage of a child starts from the
// parent's peak, which here is the test's, not inspect's.
const (
	inspectHelper = "EOSLAB_INSPECT_HELPER"
	inspectPeak   = "EOSLAB_INSPECT_PEAK"
)

func TestMain(m *testing.M) {
	if args := os.Getenv(inspectHelper); args != "" {
		code := run(append([]string{"inspect"}, strings.Split(args, "\x1f")...), os.Stdout, os.Stderr)
		if status, err := os.ReadFile("/proc/self/status"); err == nil {
			for _, line := range strings.Split(string(status), "\n") {
				if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					os.WriteFile(os.Getenv(inspectPeak), []byte(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB"))), 0o644)
				}
			}
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

type childResult struct {
	code     int
	stderr   string
	maxRSS   int64 // bytes, -1 if unknown
	timedOut bool
}

// inspectChild runs inspect with args in a child process, killed after timeout.
func inspectChild(t *testing.T, timeout time.Duration, args ...string) childResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	peak := filepath.Join(t.TempDir(), "peak")
	cmd.Env = append(os.Environ(), inspectHelper+"="+strings.Join(args, "\x1f"), inspectPeak+"="+peak, "XDG_CONFIG_HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // stdout: /dev/null
	err := cmd.Run()
	res := childResult{stderr: stderr.String(), timedOut: ctx.Err() != nil}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	res.code = cmd.ProcessState.ExitCode()
	res.maxRSS = -1
	if kb, err := os.ReadFile(peak); err == nil {
		if n, err := strconv.ParseInt(string(kb), 10, 64); err == nil {
			res.maxRSS = n << 10
		}
	}
	return res
}

func encode(t *testing.T, b record.Batch) []byte {
	t.Helper()
	raw, err := record.Encode(&b)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func plainBatch(base int64, attrs record.Attributes, recs ...record.Record) record.Batch {
	return record.Batch{
		Header: record.Header{BaseOffset: base, PartitionLeaderEpoch: -1, Magic: 2, Attributes: attrs,
			LastOffsetDelta: int32(len(recs) - 1), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, RecordsCount: int32(len(recs))},
		Records: recs,
	}
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Batch after batch is read, printed and dropped: a file of zstd batches,
// each a 60 MiB value in a few kilobytes, is inspected in text and in JSON
// within a few times one batch's memory, not all of them at once.
func TestInspectMemoryStaysAtOneBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses 360 MiB twice")
	}
	value := bytes.Repeat([]byte("x"), 60<<20)
	one := encode(t, plainBatch(0, record.Attributes(record.Zstd), record.Record{Key: []byte("k"), Value: value}))
	path := writeFile(t, "00000000000000000000.log", bytes.Repeat(one, 6))
	for _, args := range [][]string{{path}, {"--json", path}} {
		res := inspectChild(t, 2*time.Minute, args...)
		if res.code != 0 || res.stderr != "" {
			t.Fatalf("%v: exit %d: %s", args, res.code, res.stderr)
		}
		if res.maxRSS < 0 {
			t.Skip("no /proc/self/status to read the peak memory from")
		}
		if res.maxRSS > 250<<20 {
			t.Fatalf("%v: peak RSS %d MiB for batches of 60 MiB", args, res.maxRSS>>20)
		}
		t.Logf("%v: peak RSS %d MiB", args, res.maxRSS>>20)
	}
}

// A stream that never ends, or one of zeros, ends promptly with the first
// frame's error: /dev/zero, and a pipe fed zeros that is never closed.
func TestInspectEndlessInput(t *testing.T) {
	const want = "at file position 0: corrupt batch at byte 8: batchLength 0 is below the minimum 49"
	if _, err := os.Stat("/dev/zero"); err == nil {
		res := inspectChild(t, 20*time.Second, "/dev/zero")
		if res.timedOut || res.code != 1 || !strings.Contains(res.stderr, "/dev/zero: "+want) || res.maxRSS > 100<<20 {
			t.Fatalf("/dev/zero: exit %d, timed out %v, RSS %d MiB: %s", res.code, res.timedOut, res.maxRSS>>20, res.stderr)
		}
	}
	fifo := filepath.Join(t.TempDir(), "pipe.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	fed := make(chan int64)
	go func() {
		// Opening blocks until the child opens its end. Writing goes on until
		// the child closes it (EPIPE) or 64 MiB have gone, then the pipe is
		// held open, as an endless producer would.
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			fed <- -1
			return
		}
		defer w.Close()
		var n int64
		zeros := make([]byte, 64<<10)
		for n < 64<<20 {
			m, err := w.Write(zeros)
			n += int64(m)
			if err != nil {
				fed <- n
				return
			}
		}
		fed <- n
		time.Sleep(30 * time.Second)
	}()
	res := inspectChild(t, 20*time.Second, fifo)
	if res.timedOut || res.code != 1 || !strings.Contains(res.stderr, want) {
		t.Fatalf("pipe: exit %d, timed out %v: %s", res.code, res.timedOut, res.stderr)
	}
	if n := <-fed; n >= 64<<20 {
		t.Fatalf("inspect read %d bytes of zeros before stopping", n)
	}
}

// A batch header announcing more than the 64 MiB limit stops the file
// with an error naming its position, without reading or allocating it.
func TestInspectBatchBeyondTheLimit(t *testing.T) {
	data, _ := os.ReadFile(sample)
	huge := make([]byte, record.HeaderSize)
	binary.BigEndian.PutUint32(huge[record.BatchLengthOffset:], 0x7fffffff)
	huge[record.MagicOffset] = 2
	path := writeFile(t, "00000000000000000000.log", append(append(bytes.Clone(data), huge...), make([]byte, 4096)...))
	code, out, errOut := runCLI(t, "inspect", path)
	want := "at file position 723: batchLength 2147483647 announces a 2147483659-byte batch, beyond the largest eoslab reads (67108864 bytes)"
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(out, "ABORT marker") {
		t.Fatalf("exit %d\nstderr: %s", code, errOut)
	}
}

// Compression bits 5-7 are an error for that batch, named as Kafka names
// it, in text, in JSON and on standard error; the exit status is 1.
func TestInspectUnknownCodec(t *testing.T) {
	raw := encode(t, plainBatch(0, 0, record.Record{Key: []byte("k"), Value: []byte("v")}))
	binary.BigEndian.PutUint16(raw[record.AttributesOffset:], 7)
	binary.BigEndian.PutUint32(raw[record.CRCOffset:], record.ComputeCRC(raw))
	path := writeFile(t, "00000000000000000000.log", raw)
	want := "Unknown compression type id: 7 (IllegalArgumentException"
	code, out, errOut := runCLI(t, "inspect", "--json", path)
	var line map[string]any
	if err := json.Unmarshal([]byte(out), &line); err != nil {
		t.Fatal(err)
	}
	if e, _ := line["error"].(string); code != 1 || !strings.HasPrefix(e, want) || !strings.Contains(errOut, "at file position 0: "+want) {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "inspect", path)
	if code != 1 || !strings.Contains(out, "  error: "+want) {
		t.Fatalf("text: exit %d\n%s", code, out)
	}
}

// A control batch holds one control record. Three ordinary records in one
// are a problem reported like a CRC mismatch: the batch is printed, the
// problem goes to standard error, reading goes on, the exit status is 1.
func TestInspectControlBatchOfOrdinaryRecords(t *testing.T) {
	b := plainBatch(0, record.TransactionalFlag|record.ControlFlag,
		record.Record{Key: []byte("a"), Value: []byte("1")},
		record.Record{OffsetDelta: 1, Key: []byte("b"), Value: []byte("2")},
		record.Record{OffsetDelta: 2, Key: []byte("c"), Value: []byte("3")})
	b.ProducerID, b.ProducerEpoch = 7, 0
	data, _ := os.ReadFile(sample)
	path := writeFile(t, "00000000000000000000.log", append(encode(t, b), data...))
	code, out, errOut := runCLI(t, "inspect", path)
	if code != 1 || !strings.Contains(errOut, "at file position 0: control batch holds 3 records") ||
		!strings.Contains(out, `key "c"  value "3"`) || !strings.Contains(out, "ABORT marker") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// With several files every JSON line names its own.
func TestInspectJSONNamesTheFile(t *testing.T) {
	data, _ := os.ReadFile(sample)
	other := writeFile(t, "00000000000000000042.log", data[:357])
	code, out, errOut := runCLI(t, "inspect", "--json", sample, other)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	count := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var l struct {
			File string `json:"file"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		count[l.File]++
	}
	if count[sample] != 7 || count[other] != 3 || len(count) != 2 {
		t.Fatalf("lines per file %v", count)
	}
}
