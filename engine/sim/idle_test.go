package sim

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// idleEverywhere makes a world drop the state of every quiet producer
// connection at once, as a world past idleAbove connections does.
func idleEverywhere(w *World) { w.connsKept = 0 }

// idlePairs counts the producers' connections whose state is dropped.
func idlePairs(w *World) int {
	n := 0
	for _, e := range w.producers.all.all() {
		for _, ps := range e.slot.pairs {
			if ps.idle != 0 {
				n++
			}
		}
	}
	return n
}

// Every scenario gives its golden trace when every quiet connection is
// made idle and made again when used: idle connections are a
// representation, not something the world does.
func TestGoldenTracesWithIdleConnections(t *testing.T) {
	scripts, _ := filepath.Glob("testdata/*.eos")
	examples, _ := filepath.Glob("../../assets/scripts/*.eos")
	idled := 0
	for _, path := range append(scripts, examples...) {
		name := strings.TrimSuffix(filepath.Base(path), ".eos")
		got, w := transcriptWith(t, path, 1, idleEverywhere)
		idled += idlePairs(w)
		if want := mustRead(t, filepath.Join("testdata", name+".golden")); !bytes.Equal(got, want) {
			t.Errorf("%s: with idle connections the trace differs from its golden file", name)
		}
	}
	if idled == 0 {
		t.Fatal("no connection was ever idle: the test proves nothing")
	}
}

// Random sessions — every fault, restarts, kills, failovers, pauses —
// played with every quiet connection made idle give the trace and the
// states of the same session played with connections kept whole; and a
// world with idle connections rewinds, travels and clones exactly.
func TestIdleConnectionsProperty(t *testing.T) {
	sessions := 60
	if testing.Short() {
		sessions = 20
	}
	idled := 0
	for seed := uint64(1); seed <= uint64(sessions); seed++ {
		cmds := randomSession(seed, 60)
		rng := rand.New(rand.NewPCG(seed, 15))
		total := stepsOf(seed, cmds)
		ks := map[int]bool{}
		for range 3 {
			ks[rng.IntN(total+1)] = true
		}
		whole := newLive(New(seed), ks, nil)
		idle := New(seed)
		idleEverywhere(dense(idle, 4+rng.IntN(20)))
		half := len(cmds) / 2
		var fork *World
		for i, c := range cmds {
			whole.apply(c)
			idle.Apply(c)
			idled += idlePairs(idle)
			if i == half {
				fork = idle.Clone()
			}
		}
		if !bytes.Equal(whole.w.Snapshot().StateJSON(), idle.Snapshot().StateJSON()) {
			t.Fatalf("seed %d: with idle connections the state differs", seed)
		}
		if traceText(whole.w, 0) != traceText(idle, 0) {
			t.Fatalf("seed %d: with idle connections the trace differs", seed)
		}
		for _, c := range cmds[half+1:] {
			fork.Apply(c)
		}
		if !bytes.Equal(fork.Snapshot().StateJSON(), idle.Snapshot().StateJSON()) || !sameTrace(fork, idle, 0) {
			t.Fatalf("seed %d: a clone with idle connections, played on, differs from the original", seed)
		}
		for k := range ks {
			r, err := idle.Rewind(k)
			if err != nil {
				t.Fatalf("seed %d: rewind %d: %v", seed, k, err)
			}
			if !bytes.Equal(r.Snapshot().StateJSON(), whole.byStep[k]) {
				t.Fatalf("seed %d: rewound to step %d, the world with idle connections differs", seed, k)
			}
		}
	}
	if idled == 0 {
		t.Fatal("no connection was ever idle: the test proves nothing")
	}
}
