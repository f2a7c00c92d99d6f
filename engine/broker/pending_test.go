package broker

import (
	"slices"
	"testing"
)

// TestPurgatoryIndex: whatever the order of arrivals and removals, every
// entry of the purgatory is found by its request id and nothing else is,
// the index by id is kept exactly while pendingIndexFrom or more wait, and
// a copy of the broker finds its own entries.
func TestPurgatoryIndex(t *testing.T) {
	steps := []struct {
		add    int // a request arrives (0: none)
		remove int // a request leaves (0: none)
	}{
		{add: 1}, {remove: 1}, {add: 2}, {add: 3}, {remove: 2}, {add: 4}, {add: 5},
		{remove: 5}, {remove: 3}, {remove: 4}, {add: 6}, {add: 7}, {remove: 6}, {add: 8},
		// Past pendingIndexFrom (8) and back, more than once.
		{add: 9}, {add: 10}, {add: 11}, {add: 12}, {add: 13}, {add: 14}, {add: 15},
		{add: 16}, {remove: 10}, {add: 17}, {remove: 7}, {remove: 17}, {add: 18},
		{add: 19}, {remove: 19}, {remove: 8}, {remove: 9}, {add: 20}, {remove: 11},
	}
	b := New(1, Config{})
	var want []int
	for i, s := range steps {
		if s.add != 0 {
			b.addPending(&pendingProduce{request: s.add})
			want = append(want, s.add)
		}
		if s.remove != 0 {
			b.removePending(b.findPending(s.remove))
			want = slices.DeleteFunc(want, func(id int) bool { return id == s.remove })
		}
		for _, c := range []*Broker{b, b.Clone()} {
			checkPurgatory(t, i, c, want)
		}
	}
}

func checkPurgatory(t *testing.T, step int, b *Broker, want []int) {
	t.Helper()
	var got []int
	for _, p := range b.pendingOrder {
		got = append(got, p.request)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("step %d: purgatory holds %v, want %v", step, got, want)
	}
	if n := len(b.pending); (len(want) >= pendingIndexFrom && n != len(want)) || (len(want) < pendingIndexFrom && n != 0) {
		t.Fatalf("step %d: %d entries indexed for %d waiting", step, n, len(want))
	}
	for id := 1; id <= 21; id++ {
		p := b.findPending(id)
		if in := slices.Contains(want, id); in != (p != nil) || (p != nil && p.request != id) || in != b.HasPending(id) {
			t.Fatalf("step %d: request %d found %v, waiting %v", step, id, p != nil, in)
		}
		if p != nil && !slices.Contains(b.pendingOrder, p) {
			t.Fatalf("step %d: request %d found outside the purgatory (a copy's entry?)", step, id)
		}
	}
}
