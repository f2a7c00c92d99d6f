package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// syncBuffer is a bytes.Buffer several goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// eoslab serve headless: it says where the brokers listen, prints a line
// per decision for a real producer, stops when its context ends (as on
// SIGINT or SIGTERM) and saves the session as a script eoslab play
// replays with the same decision.
func TestServeHeadless(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	save := filepath.Join(t.TempDir(), "session.eos")
	var out, errOut syncBuffer
	root := newRootCommand(&out, &errOut)
	root.SetArgs([]string{"serve", "--listen", "127.0.0.1:0", "--save", save})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	addr := regexp.MustCompile(`on (127\.0\.0\.1:\d+),`)
	deadline := time.Now().Add(10 * time.Second)
	var seed string
	for seed == "" {
		if m := addr.FindStringSubmatch(errOut.String()); m != nil {
			seed = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no address in %q", errOut.String())
		} else {
			time.Sleep(5 * time.Millisecond)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(seed), kgo.DefaultProduceTopic("orders"), kgo.ClientID("cli"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer pcancel()
	for i := range 3 {
		if err := cl.ProduceSync(pctx, &kgo.Record{Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cl.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if n := strings.Count(out.String(), "appends pid 0 epoch 0"); n != 3 {
		t.Errorf("want a decision line per batch (3), got %d:\n%s", n, out.String())
	}
	if _, err := os.Stat(save); err != nil {
		t.Fatalf("--save: %v (stderr: %s)", err, errOut.String())
	}
	code, transcript, stderr := runCLI(t, "play", save)
	if code != 0 || strings.Count(transcript, "appends pid 0 epoch 0") != 3 || !strings.Contains(transcript, "arrive") {
		t.Fatalf("play %s: exit %d\n%s\n%s", save, code, transcript, stderr)
	}
}

func TestServeFlagsAreChecked(t *testing.T) {
	cases := []struct{ args, want string }{
		{"serve --trace xml", "--trace must be text or json"},
		{"serve --listen nonsense", "--listen \"nonsense\""},
		{"serve --partitions 0", `--topic "orders" --partitions 0: partitions must be a positive integer`},
		{"serve --partitions 100", `--partitions 100: partitions must be at most 64`},
		{"serve --topic bad/name", `--topic "bad/name" --partitions 3: topic name "bad/name" may only contain`},
		{"serve --max-connections 0", "--max-connections must be at least 1"},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(t, strings.Fields(c.args)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// serveUntil runs eoslab serve with args in the background and returns
// broker 1's address and the channel its exit code arrives on.
func serveUntil(t *testing.T, out, errOut *syncBuffer, args ...string) (string, chan int) {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- run(append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), out, errOut) }()
	addr := regexp.MustCompile(`on (127\.0\.0\.1:\d+),`)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if m := addr.FindStringSubmatch(errOut.String()); m != nil {
			return m[1], done
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address in %q", errOut.String())
		}
	}
}

// SIGINT and SIGTERM, real signals to the process, stop eoslab serve
// cleanly (exit 0, the segment files written); --trace json prints every
// event as a JSON Lines object; --data writes segment files that eoslab
// inspect reads.
func TestServeStopsOnSignals(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			var out, errOut syncBuffer
			addr, done := serveUntil(t, &out, &errOut, "--trace", "json", "--data", dir)
			cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("orders"), kgo.ClientID("cli"),
				kgo.RecordPartitioner(kgo.ManualPartitioner()))
			if err != nil {
				t.Fatal(err)
			}
			c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for i := range 3 {
				if err := cl.ProduceSync(c, &kgo.Record{Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
			cl.Close()
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("exit %d after %s: %s", code, sig, errOut.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("serve did not stop on %s", sig)
			}
			decisions := 0
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var e struct{ Kind string }
				if err := json.Unmarshal([]byte(line), &e); err != nil || e.Kind == "" {
					t.Fatalf("--trace json printed %q, not a JSON event (%v)", line, err)
				}
				if e.Kind == "produce.decision" {
					decisions++
				}
			}
			if decisions != 3 {
				t.Errorf("%d produce.decision events, want 3", decisions)
			}
			seg := filepath.Join(dir, "orders-0", "00000000000000000000.log")
			code, text, stderr := runCLI(t, "inspect", seg)
			if code != 0 || strings.Count(text, "producerId            0") != 3 {
				t.Fatalf("inspect %s: exit %d\n%s%s", seg, code, text, stderr)
			}
		})
	}
}
