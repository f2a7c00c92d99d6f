package sim

import (
	"testing"

	"github.com/eoslab/eoslab/engine/partition"
)

// TestJudgedLogsCount: the checker skips a pass while its count of the
// judged logs' changes stands still, so every log a check judges must
// move it, whatever happens to the cluster (failovers, kills, restarts,
// truncations) and in a copy of the world as in the original. Between
// two commands, a check still in place whose count did not move must
// find its log as it was.
func TestJudgedLogsCount(t *testing.T) {
	sessions := 120
	if testing.Short() {
		sessions = 30
	}
	type seen struct {
		pc                   *partCheck
		batches, truncations int
		hw                   int64
	}
	look := func(w *World) (uint64, []seen) {
		var out []seen
		for _, pc := range w.check.parts {
			if pc != nil && pc.quietOf == w.check.token {
				out = append(out, seen{pc, pc.log.NumBatches(), pc.log.Truncations(), pc.log.HighWatermark()})
			}
		}
		return w.check.changes, out
	}
	same := func(l *partition.Log, s seen) bool {
		return l.NumBatches() == s.batches && l.Truncations() == s.truncations && l.HighWatermark() == s.hw
	}
	for seed := uint64(1); seed <= uint64(sessions); seed++ {
		w := New(seed)
		w.SetTracing(false)
		worlds := []*World{w}
		for i, c := range randomSession(seed, 60) {
			if i == 30 {
				worlds = append(worlds, w.clone(true)) // a copy's checks judge its own logs
			}
			for k, x := range worlds {
				before, checks := look(x)
				x.Apply(c)
				if x.check.changes != before {
					continue
				}
				for _, s := range checks {
					if !same(s.pc.log, s) {
						t.Fatalf("seed %d, command %d, world %d: a judged log changed and the count did not move", seed, i, k)
					}
				}
			}
		}
	}
}
