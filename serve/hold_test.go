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
