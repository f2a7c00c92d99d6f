package sim

import (
	"runtime"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

// seekHistories are built once per run of the benchmarks: the 1M-step one
// takes a while.
var seekHistories = map[int]*World{}

func seekHistory(b *testing.B, n int) *World {
	if w := seekHistories[n]; w != nil {
		return w
	}
	w := workload(b, n)
	seekHistories[n] = w
	return w
}

// BenchmarkSeek is time travel at every length of history: to the start,
// the middle, one step back from the end, and the end (the present), in a
// history of 1k to 1M steps (the workload of BenchmarkReplay10k, built
// untraced once per run). Budget: any seek at 1M steps in 5 ms.
func BenchmarkSeek(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"1k", 1_000}, {"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}} {
		b.Run(size.name, func(b *testing.B) {
			w := seekHistory(b, size.n)
			n := w.Steps()
			for _, to := range []struct {
				name string
				step int
			}{{"start", 0}, {"middle", n / 2}, {"back1", n - 1}, {"end", n}} {
				b.Run(to.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						r, err := w.Rewind(to.step)
						if err != nil || r.Steps() != to.step {
							b.Fatalf("rewind to %d: %v, %d steps", to.step, err, r.Steps())
						}
					}
				})
			}
		})
	}
}

// BenchmarkCheckpointMemory measures what checkpoints cost: the heap of
// the 1M-step history of BenchmarkSeek with its checkpoints and without
// them (runtime.MemStats after a collection), reported as the checkpoints'
// bytes over the history's (budget: at most 2).
func BenchmarkCheckpointMemory(b *testing.B) {
	heap := func(noCheckpoints bool) (uint64, *World) {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		w := New(1)
		if noCheckpoints {
			w.nextCkpt, w.ckptEvery = 1<<62, 1<<62
		}
		fillWorkload(b, w, 1_000_000)
		runtime.GC()
		runtime.ReadMemStats(&m1)
		return m1.HeapAlloc - m0.HeapAlloc, w
	}
	for b.Loop() {
		with, w1 := heap(false)
		without, w2 := heap(true)
		b.ReportMetric(float64(with-without)/float64(without), "ckpts/history")
		b.ReportMetric(float64(without)/(1<<20), "MB-history")
		b.ReportMetric(float64(len(w1.ckpts)), "checkpoints")
		runtime.KeepAlive(w1)
		runtime.KeepAlive(w2)
	}
}

// BenchmarkSnapshot is the snapshot the UI takes after every move, at 1k
// and 1M steps of history: after one more step (not timed), a snapshot
// decodes only what changed since the last one. Budget: 1 ms at 1M steps.
func BenchmarkSnapshot(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"1k", 1_000}, {"1M", 1_000_000}} {
		b.Run(size.name, func(b *testing.B) {
			w := seekHistory(b, size.n).Clone()
			w.Snapshot() // the views of the history so far
			more := &script.Send{Producer: "a", TP: script.TopicPartition{Topic: "orders", Partition: 1}, Count: 2}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				if _, ok := w.Step(); !ok {
					w.Apply(more)
				}
				b.StartTimer()
				if s := w.Snapshot(); s.Step != w.Steps() {
					b.Fatal("snapshot of another step")
				}
			}
		})
	}
}
