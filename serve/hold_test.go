package serve

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// With Hold, a client's requests wait until they are released, one at a
// time: the client really waits.
func TestHoldReleasesOneAtATime(t *testing.T) {
	s, _ := start(t, Config{Hold: true})
	c := ctx(t)
	done := make(chan error, 1)
	go func() {
		cl, err := kgo.NewClient(kgo.SeedBrokers(s.Addrs()[0]), kgo.DefaultProduceTopic("orders"), kgo.ClientID("held"))
		if err != nil {
			done <- err
			return
		}
		defer cl.Close()
		done <- cl.ProduceSync(c, &kgo.Record{Value: []byte("v")}).FirstErr()
	}()
	deadline := time.Now().Add(10 * time.Second)
	for s.Held() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no request was held")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("the produce finished while its requests were held: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	released := 0
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if released < 3 {
				t.Errorf("the produce needed only %d releases (ApiVersions, Metadata, InitProducerId, Produce at least)", released)
			}
			return
		default:
		}
		if s.Release() {
			released++
		} else {
			time.Sleep(2 * time.Millisecond)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the produce did not finish after %d releases", released)
		}
	}
}

// Close stops listening and returns only when every goroutine of the
// server has ended.
func TestCloseStopsListening(t *testing.T) {
	w, err := NewWorld(1, "orders", 3)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(Config{Listen: "127.0.0.1:0"}, NewWorldEngine(w))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.Addrs()...), kgo.DefaultProduceTopic("orders"))
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(c, &kgo.Record{Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	for _, a := range s.Addrs() {
		if conn, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			conn.Close()
			t.Errorf("%s still accepts connections after Close", a)
		}
	}
}

// With --hold the client's request.timeout.ms is part of the lesson: a
// produce held past kgo's timeout (the produce timeout plus
// RequestTimeoutOverhead) makes the client close its connection and send
// the batch again on a new one. The broker still reads the first request
// when it is released, and appends it (Kafka handles a request it has read
// though its connection closed); the retry, released after it, is
// recognised as a duplicate and answered with the original offset.
func TestHoldPastRequestTimeout(t *testing.T) {
	s, eng := start(t, Config{Hold: true})
	eng.World().SetTracing(true)
	c := ctx(t)
	done := make(chan error, 1)
	rec := &kgo.Record{Value: []byte("late")}
	cl := client(t, s, kgo.DefaultProduceTopic("orders"), kgo.ClientID("patient"), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProduceRequestTimeout(100*time.Millisecond), kgo.RequestTimeoutOverhead(200*time.Millisecond), kgo.RetryBackoffFn(func(int) time.Duration { return 0 }))
	releaseAll := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; {
			if !s.Release() {
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not finish", what)
			}
		}
	}
	go func() { done <- cl.ProduceSync(c, &kgo.Record{Value: []byte("first")}).FirstErr() }()
	releaseAll("the first produce")
	go func() { done <- cl.ProduceSync(c, rec).FirstErr() }()
	// Hold the produce until kgo gives up on it and reconnects: its new
	// connection's first request is held behind it.
	for deadline := time.Now().Add(10 * time.Second); s.Held() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the client did not time out and reconnect (%d held)", s.Held())
		}
	}
	releaseAll("the retried produce")
	if rec.Offset != 1 {
		t.Errorf("the retried record was acknowledged at offset %d, want the original 1", rec.Offset)
	}
	s.Do(func(e Engine) {
		w := e.World()
		var appends, dups int
		for _, ev := range w.Trace().Events() {
			if ev.Kind == "produce.decision" {
				switch ev.Str("outcome") {
				case "append":
					appends++
				case "duplicate":
					dups++
				}
			}
		}
		// A slow machine may time the retry out too: every later copy is a
		// duplicate as well.
		if appends != 2 || dups < 1 {
			t.Errorf("%d appends and %d duplicates, want 2 and at least 1 (the held request appended, its retry a duplicate)", appends, dups)
		}
		if hw := w.Snapshot().Partitions[0].HighWatermark; hw != 2 {
			t.Errorf("orders-0 holds %d records, want 2", hw)
		}
	})
}
