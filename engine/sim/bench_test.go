package sim

import (
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

// workload builds a world that has performed at least n steps: two
// idempotent acks=all producers writing to all partitions, with a lost
// answer and a delayed request now and then.
func workload(tb testing.TB, n int) *World {
	w := New(1)
	must := func(c script.Command) {
		if _, err := w.Apply(c); err != nil {
			tb.Fatal(err)
		}
	}
	must(&script.Producer{Name: "a"})
	must(&script.Producer{Name: "b"})
	for i := 0; w.Steps() < n; i++ {
		tp := script.TopicPartition{Topic: "orders", Partition: i % 3}
		if i%7 == 3 {
			must(&script.Fault{Action: script.Lose, Target: script.Response, Producer: "a"})
		}
		if i%11 == 5 {
			must(&script.Fault{Action: script.Delay, Target: script.Request, Producer: "b"})
		}
		must(&script.Send{Producer: "a", TP: tp, Count: 3})
		must(&script.Send{Producer: "b", TP: tp, Count: 1})
		must(&script.Step{N: 40})
	}
	return w
}

// BenchmarkReplay10k is time travel's budget: replaying 10 000 steps from
// the start (DESIGN.md: <= 20 ms).
func BenchmarkReplay10k(b *testing.B) {
	w := workload(b, 10_000)
	b.ReportAllocs()
	for b.Loop() {
		r, err := w.Rewind(10_000)
		if err != nil || r.Steps() != 10_000 {
			b.Fatalf("rewind: %v, %d steps", err, r.Steps())
		}
	}
}
