package sim

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/eoslab/eoslab/engine/script"
)

// buildProducers makes a world of n idempotent producers on one broker
// (replication factor 1, three partitions), each with one acknowledged
// batch of one record: producer i sends to partition i mod 3.
func buildProducers(tb testing.TB, n int) *World {
	w := New(1)
	w.SetTracing(false)
	if _, err := w.Apply(&script.Cluster{Brokers: 1, RF: 1, MinInsync: 1}); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		name := "p" + strconv.Itoa(i)
		if _, err := w.Apply(&script.Producer{Name: name}); err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Apply(&script.Send{Producer: name, TP: script.TopicPartition{Topic: "orders", Partition: i % 3}, Count: 1}); err != nil {
			tb.Fatal(err)
		}
		if i%1000 == 999 {
			w.Run()
		}
	}
	w.Run()
	return w
}

// BenchmarkWorldProducers builds a world of 10k, 100k and 1M idempotent
// producers, each with one batch on a partition, and reports its heap per
// producer (runtime.MemStats, after a collection) and the time to build it
// (budget: 1M producers in 1 GB, built in 5 s; each producer-state entry
// at most 200 bytes, BenchmarkEntryMemory in engine/producerstate).
func BenchmarkWorldProducers(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}} {
		b.Run(size.name, func(b *testing.B) {
			for b.Loop() {
				var m0, m1 runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m0)
				start := time.Now()
				w := buildProducers(b, size.n)
				built := time.Since(start)
				runtime.GC()
				runtime.ReadMemStats(&m1)
				if got := w.Snapshot().Partitions[0].HighWatermark; got < int64(size.n/3) {
					b.Fatalf("high watermark %d", got)
				}
				b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/float64(size.n), "bytes/producer")
				b.ReportMetric(built.Seconds(), "s/build")
				runtime.KeepAlive(w)
			}
		})
	}
}
