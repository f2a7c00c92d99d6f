package producerstate

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEntriesByID appends, expires, clones and reloads producers whose ids
// are dense from 0, far beyond them, and negative, checking the entries
// against a map of what each producer last did: every id found where it
// is, none twice, through the slice's growths and the moves of far ids
// into it; a clone keeps what it copied while the original goes on.
func TestEntriesByID(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := New(Config{ExpirationMs: 1000})
	want := map[int64]int64{} // pid -> last timestamp
	check := func(step int, m *Manager, want map[int64]int64) {
		t.Helper()
		es := m.Entries()
		if m.Len() != len(want) || len(es) != len(want) {
			t.Fatalf("step %d: Len %d, %d entries, want %d", step, m.Len(), len(es), len(want))
		}
		for i, e := range es {
			if i > 0 && es[i-1].ProducerID() >= e.ProducerID() {
				t.Fatalf("step %d: entries out of order at %d", step, e.ProducerID())
			}
			if ts, ok := want[e.ProducerID()]; !ok || ts != e.LastTimestamp() {
				t.Fatalf("step %d: producer %d at %d, want %d (%v)", step, e.ProducerID(), e.LastTimestamp(), ts, ok)
			}
			if got, ok := m.Lookup(e.ProducerID()); !ok || got.LastTimestamp() != e.LastTimestamp() {
				t.Fatalf("step %d: Lookup(%d) misses it", step, e.ProducerID())
			}
		}
	}
	var clone *Manager
	var cloned map[int64]int64
	now, off := int64(0), int64(0)
	for step := range 30000 {
		var pid int64
		switch r := rng.IntN(20); {
		case r == 0:
			pid = 1_000_000_000 + rng.Int64N(50)
		case r == 1:
			pid = -2 - rng.Int64N(3)
		case r < 4:
			pid = 2000 + rng.Int64N(4000) // beyond the slice at first, reached as it grows
		default:
			pid = rng.Int64N(min(int64(step)/4+8, 2000))
		}
		now += rng.Int64N(3)
		m.Append(Batch{ProducerID: pid, MaxTimestamp: now}, off)
		off++
		want[pid] = now
		if _, ok := m.Lookup(pid - 1_000_000); ok && pid >= 0 && pid < 1_000_000 {
			t.Fatalf("step %d: a negative id far below %d is found", step, pid)
		}
		if step%997 == 0 {
			gone := m.RemoveExpired(now)
			if !slices.IsSorted(gone) {
				t.Fatalf("step %d: removed ids not sorted", step)
			}
			for _, id := range gone {
				if now-want[id] < 1000 {
					t.Fatalf("step %d: %d removed, last seen at %d", step, id, want[id])
				}
				delete(want, id)
			}
			for id, ts := range want {
				if now-ts >= 1000 {
					t.Fatalf("step %d: %d expired but kept", step, id)
				}
			}
		}
		if step%1999 == 0 {
			if clone != nil {
				check(step, clone, cloned)
			}
			clone, cloned = m.Clone(), make(map[int64]int64, len(want))
			for id, ts := range want {
				cloned[id] = ts
			}
		}
		if step%50 == 0 {
			check(step, m, want)
		}
	}
	check(-1, clone, cloned)
	r := New(Config{ExpirationMs: 1000})
	r.Load(m.Snapshot(), off, now)
	live := map[int64]int64{} // Load skips the producers expired by now
	for id, ts := range want {
		if now-ts < 1000 {
			live[id] = ts
		}
	}
	check(-2, r, live)
}
