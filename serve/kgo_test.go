package serve

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// start serves a fresh cluster on free loopback ports for one test.
func start(t testing.TB, cfg Config) (*Server, Engine) {
	t.Helper()
	w, err := NewWorld(1, "orders", 3)
	if err != nil {
		t.Fatal(err)
	}
	w.SetTracing(false)
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.Logf == nil {
		cfg.Logf = t.Logf
	}
	eng := NewWorldEngine(w)
	s, err := Start(cfg, eng)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, eng
}

func client(t testing.TB, s *Server, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(s.Addrs()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// The default kgo producer is idempotent: 10 000 records to 3 partitions,
// read back once each and in order per partition.
func TestKgoIdempotentProduceConsume(t *testing.T) {
	s, eng := start(t, Config{})
	c := ctx(t)
	p := client(t, s, kgo.ClientID("writer"), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	const n = 10000
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Value: []byte(fmt.Sprintf("r%05d", i))}
	}
	if err := p.ProduceSync(c, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	byPart := map[int32][]*kgo.Record{}
	for _, r := range recs {
		byPart[r.Partition] = append(byPart[r.Partition], r)
	}
	if len(byPart) != 3 {
		t.Fatalf("records went to %d partitions, want 3", len(byPart))
	}
	cons := client(t, s, kgo.ClientID("reader"), kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := map[int32][]string{}
	total := 0
	for total < n {
		fs := cons.PollFetches(c)
		if err := c.Err(); err != nil {
			t.Fatalf("read %d of %d: %v", total, n, err)
		}
		fs.EachError(func(topic string, p int32, err error) { t.Errorf("fetch %s-%d: %v", topic, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			got[r.Partition] = append(got[r.Partition], string(r.Value))
			total++
		})
	}
	checkWorld(t, s, eng, n)
	for part, want := range byPart {
		if len(got[part]) != len(want) {
			t.Fatalf("partition %d: read %d records, want %d", part, len(got[part]), len(want))
		}
		for i, r := range want {
			if got[part][i] != string(r.Value) || r.Offset != int64(i) {
				t.Fatalf("partition %d offset %d: read %q, sent %q at offset %d", part, i, got[part][i], r.Value, r.Offset)
			}
		}
	}
}

// checkWorld asserts that the world holds records records below the high
// watermarks, found no anomaly, and shows the writer as a producer.
func checkWorld(t *testing.T, s *Server, eng Engine, records int64) {
	t.Helper()
	s.Do(func(e Engine) {
		snap := e.World().Snapshot()
		var hw int64
		for _, p := range snap.Partitions {
			hw += p.HighWatermark
		}
		if hw != records {
			t.Errorf("the high watermarks add up to %d, want %d", hw, records)
		}
		for _, a := range snap.Anomalies {
			t.Errorf("anomaly: %s", a.Text)
		}
		names := []string{}
		for _, p := range snap.Producers {
			names = append(names, p.Name+" "+p.Mode)
		}
		t.Logf("producers: %v; consumers: %d", names, len(snap.Consumers))
	})
}
