package serve

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkServeProduce: kgo's default producer (idempotent, acks=all)
// sending 100-byte records to a three-partition topic of a three-broker
// cluster: eoslab serve with tracing off and on, and franz-go's kfake as
// the peer, in the same run. DESIGN.md's budget: at least kfake's
// throughput with tracing off. Reported as records/s and MB/s, and as
// cpu-ns/record, the process's CPU time (client and broker together) a
// record: on shared cores the throughput follows what the other
// processes leave, the CPU a record costs much less.
//
//	go test ./serve -run xxx -bench ServeProduce
func BenchmarkServeProduce(b *testing.B) {
	b.Run("eoslab", func(b *testing.B) { benchServe(b, false) })
	b.Run("eoslab-traced", func(b *testing.B) { benchServe(b, true) })
	b.Run("kfake", func(b *testing.B) {
		c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "orders"))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		benchProduce(b, c.ListenAddrs())
	})
}

func benchServe(b *testing.B, traced bool) {
	w, err := NewWorld(1, "orders", 3)
	if err != nil {
		b.Fatal(err)
	}
	w.SetTracing(traced)
	cfg := Config{Listen: "127.0.0.1:0"}
	if traced {
		cfg.OnEvents = func(evs []trace.Event) {}
	}
	s, err := Start(cfg, NewWorldEngine(w))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchProduce(b, s.Addrs())
}

const benchRecordBytes = 100

// BenchmarkServeAlternating is BenchmarkServeProduce's budget measured
// as a ratio the machine's load moves less: an eoslab serve cluster
// (tracing off) and a kfake cluster run side by side, each with its kgo
// producer, and take turns producing segments of records, kfake first in
// every other pair, so that neither always meets the machine's state the
// other left. Reported: the median, the 25th and the 75th percentile of
// the pairs' eoslab/kfake throughput ratios (above 1: eoslab faster).
//
//	go test ./serve -run xxx -bench ServeAlternating -benchtime 12x
func BenchmarkServeAlternating(b *testing.B) {
	const seg = 200_000
	w, err := NewWorld(1, "orders", 3)
	if err != nil {
		b.Fatal(err)
	}
	w.SetTracing(false)
	s, err := Start(Config{Listen: "127.0.0.1:0"}, NewWorldEngine(w))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	kf, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "orders"))
	if err != nil {
		b.Fatal(err)
	}
	defer kf.Close()
	c, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	producer := func(seeds []string) *kgo.Client {
		cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic("orders"), kgo.ClientID("bench"))
		if err != nil {
			b.Fatal(err)
		}
		if err := cl.ProduceSync(c, &kgo.Record{Value: make([]byte, benchRecordBytes)}).FirstErr(); err != nil {
			b.Fatal(err)
		}
		return cl
	}
	eos, peer := producer(s.Addrs()), producer(kf.ListenAddrs())
	defer eos.Close()
	defer peer.Close()
	value := make([]byte, benchRecordBytes)
	run := func(cl *kgo.Client) float64 {
		var wg sync.WaitGroup
		var failed error
		var mu sync.Mutex
		start := time.Now()
		for range seg {
			wg.Add(1)
			cl.Produce(c, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
				if err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
				}
				wg.Done()
			})
		}
		wg.Wait()
		if failed != nil {
			b.Fatal(failed)
		}
		return seg / time.Since(start).Seconds()
	}
	var ratios []float64
	i := 0
	for b.Loop() {
		var e, k float64
		if i%2 == 0 {
			e, k = run(eos), run(peer)
		} else {
			k, e = run(peer), run(eos)
		}
		ratios = append(ratios, e/k)
		i++
	}
	slices.Sort(ratios)
	q := func(f float64) float64 { return ratios[int(f*float64(len(ratios)-1))] }
	b.ReportMetric(q(0.5), "eoslab/kfake")
	b.ReportMetric(q(0.25), "p25")
	b.ReportMetric(q(0.75), "p75")
	b.ReportMetric(0, "ns/op") // a pair of segments: not a figure of its own
}

func benchProduce(b *testing.B, seeds []string) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic("orders"), kgo.ClientID("bench"))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// Warm up: metadata, the producer id, a connection to each leader.
	if err := cl.ProduceSync(c, &kgo.Record{Value: make([]byte, benchRecordBytes)}).FirstErr(); err != nil {
		b.Fatal(err)
	}
	value := make([]byte, benchRecordBytes)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	b.SetBytes(benchRecordBytes)
	b.ResetTimer()
	cpu0, cpuOK := processCPU()
	start := time.Now()
	for range b.N {
		wg.Add(1)
		cl.Produce(c, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	el := time.Since(start)
	cpu1, _ := processCPU()
	b.StopTimer()
	if first != nil {
		b.Fatal(first)
	}
	b.ReportMetric(float64(b.N)/el.Seconds(), "records/s")
	if cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/record")
	}
}

var _ = sim.MaxMessageBytes
