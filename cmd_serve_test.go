package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
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
		{"serve --partitions 0", "--topic/--partitions"},
		{"serve --topic bad/name", "--topic/--partitions"},
		{"serve --max-connections 0", "--max-connections must be at least 1"},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(t, strings.Fields(c.args)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
