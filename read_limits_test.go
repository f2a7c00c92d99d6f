package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// What the CLI reads as a script or a lesson is at most 16 MiB: a larger
// file, or one that never ends, is refused with its name once 16 MiB and
// a byte have been read.
func TestReadLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.eos")
	os.WriteFile(big, []byte(strings.Repeat("run\n", maxSourceBytes/4+1)), 0o644)
	bigLesson := filepath.Join(dir, "big.md")
	os.WriteFile(bigLesson, make([]byte, maxSourceBytes+1), 0o644)
	zeroLesson := filepath.Join(dir, "zero.md")
	if err := os.Symlink("/dev/zero", zeroLesson); err != nil {
		t.Skip(err)
	}
	atLimit := filepath.Join(dir, "limit.eos")
	os.WriteFile(atLimit, []byte(strings.Repeat("#", maxSourceBytes-4)+"\nrun"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"play /dev/zero", []string{"play", "/dev/zero"}, 2, "eoslab: /dev/zero: larger than 16 MiB, the most a script may be"},
		{"play a script of 16 MiB and more", []string{"play", big}, 2, big + ": larger than 16 MiB, the most a script may be"},
		{"play a lesson that never ends", []string{"play", "--headless", zeroLesson}, 2, zeroLesson + ": larger than 16 MiB, the most a lesson may be"},
		{"play a lesson of 16 MiB and more", []string{"play", "--headless", bigLesson}, 2, bigLesson + ": larger than 16 MiB"},
		{"lessons check /dev/zero", []string{"lessons", "check", "/dev/zero"}, 1, "/dev/zero: larger than 16 MiB, the most a lesson may be"},
		{"lessons check a lesson that never ends", []string{"lessons", "check", zeroLesson}, 1, zeroLesson + ": larger than 16 MiB"},
		{"lessons check a missing file", []string{"lessons", "check", filepath.Join(dir, "nope.md")}, 1, filepath.Join(dir, "nope.md") + ": no such file"},
		{"a script of exactly 16 MiB plays", []string{"play", atLimit}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, c.args...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d (want %d), stderr %q, want %q", code, c.code, errOut, c.want)
			}
		})
	}
}

// An endless pipe ends the same way: reading stops at the limit.
func TestReadLimitEndlessPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "endless.eos")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		line := []byte(strings.Repeat("run\n", 1024))
		for {
			if _, err := w.Write(line); err != nil {
				return // the reader has gone: EPIPE
			}
		}
	}()
	code, _, errOut := runCLI(t, "play", fifo)
	if code != 2 || !strings.Contains(errOut, fifo+": larger than 16 MiB") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	<-done
}

// A size out of its limit is a parse error: file:line:col, the value and
// the limit, nothing runs, exit status 2 — before the engine can be
// asked for two billion records.
func TestPlayRefusesSizesOutOfLimits(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "big.eos")
	os.WriteFile(bad, []byte("cluster brokers=2147483647 partitions=1000000\nproducer p1\nsend p1 orders-0 2147483647\n"), 0o644)
	code, out, errOut := runCLI(t, "play", bad)
	for _, want := range []string{
		bad + `:1:9: cluster: brokers must be at most 9 (every broker must fit on the lab's screen), got "2147483647"`,
		bad + `:3:18: send: COUNT must be at most 10000 (one batch, which must stay well under Kafka's 1 MiB max.message.bytes), got "2147483647"`,
	} {
		if code != 2 || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, stdout %.100q, stderr %q; want %q", code, out, errOut, want)
		}
	}
}

// `lessons check` no longer passes a lesson whose checks a typo turned
// into narration.
func TestLessonsCheckMistypedBlock(t *testing.T) {
	file := filepath.Join(t.TempDir(), "typo.md")
	os.WriteFile(file, []byte("---\nchapter: 2\ntitle: T\nsummary: S\n---\n\n## S\n\n```eos\nproducer p1\nrun\n```\n\n```expectt\nproducers.p1.producer_id == 99\n```\n"), 0o644)
	code, out, errOut := runCLI(t, "lessons", "check", file)
	if code != 1 || strings.Contains(out, "ok") || !strings.Contains(errOut, file+`:14: unknown block "expectt", did you mean `+"```expect?") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
