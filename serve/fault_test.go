package serve

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/twmb/franz-go/pkg/kgo"
)

// traced serves a world with tracing on and collects its events.
func traced(t *testing.T) (*Server, func() []trace.Event) {
	t.Helper()
	w, err := NewWorld(1, "orders", 3)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var evs []trace.Event
	s, err := Start(Config{Listen: "127.0.0.1:0", Logf: t.Logf, OnEvents: func(e []trace.Event) {
		mu.Lock()
		evs = append(evs, e...)
		mu.Unlock()
	}}, NewWorldEngine(w))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, func() []trace.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]trace.Event(nil), evs...)
	}
}

// apply runs a command of the command language on the served world.
func apply(t *testing.T, s *Server, line string) {
	t.Helper()
	c, err := script.ParseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(c); err != nil {
		t.Errorf("%s: %v", line, err)
	}
}

func decisions(evs []trace.Event, outcome string) []trace.Event {
	var out []trace.Event
	for _, e := range evs {
		if e.Kind == "produce.decision" && e.Str("outcome") == outcome {
			out = append(out, e)
		}
	}
	return out
}

// The answer to an appended batch is lost (Fidelity II: the connection
// breaks there, so the socket closes and what follows is dropped). kgo
// retries the batch on a new connection with the same producer id and
// sequence; the broker recognises the duplicate and answers with the
// original offsets, and no record is written twice.
func TestKgoRetryAfterLostResponse(t *testing.T) {
	s, events := traced(t)
	c := ctx(t)
	p := client(t, s, kgo.ClientID("writer"), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := p.ProduceSync(c, &kgo.Record{Value: []byte("first")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	apply(t, s, "lose response writer")
	r := &kgo.Record{Value: []byte("second")}
	if err := p.ProduceSync(c, r).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if r.Offset != 1 {
		t.Errorf("the retried record was acknowledged at offset %d, want the original offset 1", r.Offset)
	}
	evs := events()
	dups := decisions(evs, "duplicate")
	if len(dups) != 1 {
		t.Fatalf("want one duplicate decision, got %d", len(dups))
	}
	if got := fmt.Sprint(dups[0].Int("base_offset")); got != "1" {
		t.Errorf("the duplicate was answered with base offset %s, want 1", got)
	}
	lost := false
	for _, e := range evs {
		lost = lost || e.Kind == "message.lost" && e.Str("api") == "Produce"
	}
	if !lost {
		t.Error("no Produce answer was lost")
	}
	s.Do(func(e Engine) {
		snap := e.World().Snapshot()
		if hw := snap.Partitions[0].HighWatermark; hw != 2 {
			t.Errorf("orders-0 holds %d records, want 2", hw)
		}
		for _, a := range snap.Anomalies {
			t.Errorf("anomaly: %s", a.Text)
		}
	})
}

// A failover in the middle of a stream: the old leader answers
// NOT_LEADER_OR_FOLLOWER, kgo refreshes its metadata and goes on with the
// new leader; every record is written once, in order.
func TestKgoFailoverMidStream(t *testing.T) {
	s, events := traced(t)
	c := ctx(t)
	p := client(t, s, kgo.ClientID("writer"), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.MaxBufferedRecords(50), kgo.MetadataMinAge(50*time.Millisecond))
	const n = 600
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		if i == n/2 {
			apply(t, s, "failover orders-0")
		}
		wg.Add(1)
		p.Produce(c, &kgo.Record{Value: []byte(fmt.Sprintf("r-%d", i))}, func(_ *kgo.Record, err error) {
			if err != nil {
				errs <- err
			}
			wg.Done()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// kgo learns of the failover from the old leader only (a failover
	// closes no connection, and its metadata is not due for a refresh):
	// its next produce there is refused, then it asks for metadata.
	refusedAt, refreshed := -1, false
	for i, e := range events() {
		if refusedAt < 0 && e.Kind == "produce.decision" && e.Str("outcome") == "reject" && e.Str("error") == "NOT_LEADER_OR_FOLLOWER" {
			refusedAt = i
		}
		refreshed = refreshed || refusedAt >= 0 && e.Kind == "kafka.answer" && e.Str("api") == "Metadata" && strings.HasPrefix(e.Str("client"), "writer")
	}
	if refusedAt < 0 || !refreshed {
		t.Errorf("want NOT_LEADER_OR_FOLLOWER from the old leader, then a metadata refresh (refused: %v, refreshed: %v)", refusedAt >= 0, refreshed)
	}
	cons := client(t, s, kgo.ClientID("reader"), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"orders": {0: kgo.NewOffset().AtStart()}}))
	got := readUntil(t, c, cons, fmt.Sprintf("r-%d", n-1))
	if len(got) != n {
		t.Fatalf("read %d records, want %d", len(got), n)
	}
	for i, v := range got {
		if v != fmt.Sprintf("r-%d", i) {
			t.Fatalf("offset %d holds %s, want r-%d", i, v, i)
		}
	}
	s.Do(func(e Engine) {
		snap := e.World().Snapshot()
		if snap.Partitions[0].Leader == 1 {
			t.Error("orders-0 is still led by broker 1")
		}
		for _, a := range snap.Anomalies {
			t.Errorf("anomaly: %s", a.Text)
		}
	})
}

// reset connection and restart broker close the real sockets; the client
// reconnects and carries on.
func TestKgoResetAndRestart(t *testing.T) {
	s, events := traced(t)
	c := ctx(t)
	p := client(t, s, kgo.ClientID("writer"), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.MetadataMinAge(50*time.Millisecond))
	for i, fault := range []string{"reset connection writer 1", "restart broker 1", "delay request writer"} {
		if err := p.ProduceSync(c, &kgo.Record{Value: []byte(fmt.Sprintf("before-%d", i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		apply(t, s, fault)
		if err := p.ProduceSync(c, &kgo.Record{Value: []byte(fmt.Sprintf("after-%d", i))}).FirstErr(); err != nil {
			t.Fatalf("after %s: %v", fault, err)
		}
	}
	closes := 0
	for _, e := range events() {
		if e.Kind == "connection.close" && strings.HasPrefix(e.Str("opener"), "writer") {
			closes++
		}
	}
	if closes < 2 {
		t.Errorf("want the reset and the restart to close writer's connections, saw %d closes", closes)
	}
	s.Do(func(e Engine) {
		for _, a := range e.World().Snapshot().Anomalies {
			t.Errorf("anomaly: %s", a.Text)
		}
	})
}

// A killed broker listens on nothing: connecting to it is refused, as to
// a Kafka broker that is not running (kgo then tries another seed); once
// it is restarted it listens on its port again.
func TestKilledBrokerRefusesConnections(t *testing.T) {
	s, _ := start(t, Config{})
	addr := s.Addrs()[1]
	apply(t, s, "kill broker 2")
	s.Do(func(Engine) {}) // the loop has settled after the kill
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("%s (broker 2, killed) accepted a connection", addr)
	}
	c := ctx(t)
	// acks=1 to a partition broker 1 leads: acks=all would wait for the
	// controller to fence broker 2 (broker.session.timeout.ms) and drop it
	// from the ISR.
	cl := client(t, s, kgo.ClientID("writer"), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.DisableIdempotentWrite(), kgo.RequiredAcks(kgo.LeaderAck()))
	if err := cl.ProduceSync(c, &kgo.Record{Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatalf("with broker 2 down: %v", err)
	}
	apply(t, s, "restart broker 2")
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s.Do(func(Engine) {})
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not listen again after the restart", addr)
		}
	}
}
