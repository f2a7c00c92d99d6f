package hist

import (
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// SetRange writes what Set would, entry by entry, and copies made before
// or after never see each other's runs, wherever a run starts and however
// many chunks it crosses; Run reads what Get reads.
func TestVecRunsAreEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type pair struct {
		v    Vec[int]
		want []int
	}
	const size = 5 * vecChunkLen
	all := []*pair{{want: make([]int, size)}}
	for step := 1; step <= 50000; step++ {
		p := all[rng.IntN(len(all))]
		switch r := rng.IntN(100); {
		case r < 45:
			i := rng.IntN(size)
			n := min(rng.IntN(3*vecChunkLen), size-i)
			if rng.IntN(4) == 0 {
				n = rng.IntN(3) - 1 // empty and negative runs write nothing
			}
			p.v.SetRange(i, n, step)
			for k := i; k < i+n; k++ {
				p.want[k] = step
			}
		case r < 90:
			k := rng.IntN(size)
			p.v.Set(k, step)
			p.want[k] = step
		case len(all) < 200:
			all = append(all, &pair{v: p.v.Clone(), want: slices.Clone(p.want)})
		}
	}
	for i, p := range all {
		for k := range size + vecChunkLen {
			want := 0
			if k < size {
				want = p.want[k]
			}
			if got := p.v.Get(k); got != want {
				t.Fatalf("vec %d entry %d: got %d, want %d", i, k, got, want)
			}
		}
		// Run reads the same entries, a chunk's part at a time.
		for k := 0; k < size+vecChunkLen; {
			n := 1 + rng.IntN(3*vecChunkLen)
			stored, got := p.v.Run(k, n)
			if got < 1 || got > n || (k+got)%vecChunkLen != 0 && got != n || len(stored) > got {
				t.Fatalf("vec %d: Run(%d, %d) covers %d entries, %d stored", i, k, n, got, len(stored))
			}
			for m := range got {
				x := 0
				if m < len(stored) {
					x = stored[m]
				}
				if x != p.v.Get(k+m) {
					t.Fatalf("vec %d: Run(%d, %d) entry %d is %d, Get says %d", i, k, n, k+m, x, p.v.Get(k+m))
				}
			}
			k += got
		}
	}
}

// pageSpan is how many entries a page of a Vec's table covers.
const pageSpan = vecChunkLen * vecPageLen

// Copies made with Clone keep what they held when made, wherever the
// writes fall: within a chunk, across chunks, pages, or past the end.
func TestVecCopyOnWrite(t *testing.T) {
	type write struct {
		i, n int // n == 0: Set(i); else SetRange(i, n)
		copy bool
	}
	tests := []struct {
		name   string
		before []int // entries set to i+1 before the Clone
		writes []write
	}{
		{"empty, then the original writes", nil, []write{{i: 5}}},
		{"empty, then the copy writes", nil, []write{{i: 5, copy: true}}},
		{"same chunk", []int{1}, []write{{i: 2}, {i: 3, copy: true}}},
		{"another chunk of the same page", []int{1}, []write{{i: vecChunkLen + 1}, {i: 3*vecChunkLen + 1, copy: true}}},
		{"another page", []int{1, pageSpan + 1}, []write{{i: 2*pageSpan + 7}, {i: pageSpan + 2, copy: true}}},
		{"past the end", []int{3}, []write{{i: 5*pageSpan + 3}, {i: 7 * pageSpan, copy: true}}},
		{"a run across a page boundary", []int{pageSpan - 1, pageSpan}, []write{{i: pageSpan - 10, n: 20}, {i: pageSpan - 3, n: vecChunkLen + 6, copy: true}}},
		{"a run over pages", []int{0, pageSpan, 2 * pageSpan}, []write{{i: 1, n: 2*pageSpan + 5}}},
		{"both write the same entry", []int{pageSpan + 9}, []write{{i: pageSpan + 9}, {i: pageSpan + 9, copy: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v Vec[int]
			want := map[int]int{}
			for _, i := range tc.before {
				v.Set(i, i+1)
				want[i] = i + 1
			}
			c := v.Clone()
			wantc := maps.Clone(want)
			for k, w := range tc.writes {
				x, m := &v, want
				if w.copy {
					x, m = &c, wantc
				}
				val := -(k + 1)
				if w.n == 0 {
					x.Set(w.i, val)
					m[w.i] = val
					continue
				}
				x.SetRange(w.i, w.n, val)
				for j := w.i; j < w.i+w.n; j++ {
					m[j] = val
				}
			}
			for _, side := range []struct {
				name string
				v    *Vec[int]
				want map[int]int
			}{{"original", &v, want}, {"copy", &c, wantc}} {
				for i := range 8*pageSpan + vecChunkLen {
					if got := side.v.Get(i); got != side.want[i] {
						t.Fatalf("%s: entry %d is %d, want %d", side.name, i, got, side.want[i])
					}
				}
			}
		})
	}
}

// A Vec reads as a plain slice does, over several pages of its table,
// while copies of it and copies of the copies are made and written: the
// reads are checked as they go, on every copy.
func TestVecIsASliceAcrossCopies(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const size = 3*pageSpan + 100
	type pair struct {
		v    Vec[int32]
		want []int32
	}
	all := []*pair{{want: make([]int32, size)}}
	// Writes and reads cluster around a few spots, as a producer's
	// sequence numbers do, so that chunks and pages are shared and written
	// again after a clone; a few land anywhere.
	spot := func() int {
		if rng.IntN(8) == 0 {
			return rng.IntN(size)
		}
		return min(size-1, rng.IntN(4)*pageSpan+rng.IntN(3*vecChunkLen)-vecChunkLen+pageSpan/2*rng.IntN(2))
	}
	check := func(p *pair, i int) {
		t.Helper()
		if got := p.v.Get(i); got != p.want[i] {
			t.Fatalf("entry %d is %d, want %d", i, got, p.want[i])
		}
	}
	for step := int32(1); step <= 60000; step++ {
		p := all[rng.IntN(len(all))]
		switch r := rng.IntN(100); {
		case r < 35:
			i := max(0, spot())
			p.v.Set(i, step)
			p.want[i] = step
		case r < 50:
			i := max(0, spot())
			n := min(rng.IntN(2*vecChunkLen), size-i)
			if rng.IntN(50) == 0 {
				n = min(rng.IntN(2*pageSpan), size-i)
			}
			p.v.SetRange(i, n, step)
			for k := i; k < i+n; k++ {
				p.want[k] = step
			}
		case r < 97:
			check(p, max(0, spot()))
		case len(all) < 24:
			all = append(all, &pair{v: p.v.Clone(), want: slices.Clone(p.want)})
		}
	}
	for _, p := range all {
		for i := range size {
			check(p, i)
		}
	}
}

// The first write after a Clone copies a chunk and a page, not the whole
// table: what it allocates does not grow with the Vec's length.
func TestVecWriteAfterCloneIsSmall(t *testing.T) {
	for _, n := range []int{pageSpan, 128 * pageSpan} {
		var v Vec[int32]
		v.SetRange(0, n, 1)
		var copies []Vec[int32]
		var most uint64
		for round := range 4 {
			// TotalAlloc counts the whole process's allocations: the least
			// of three equal writes (each after a fresh Clone) is the
			// write's own, whatever else ran meanwhile.
			least := uint64(math.MaxUint64)
			for range 3 {
				copies = append(copies, v.Clone())
				x := &v
				if round%2 == 1 {
					x = &copies[len(copies)-1]
				}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				x.Set(n-1-round, 2)
				runtime.ReadMemStats(&after)
				least = min(least, after.TotalAlloc-before.TotalAlloc)
			}
			most = max(most, least)
		}
		// A chunk of int32 (512 B), a page (1 KiB) and a top table of at
		// most 128 pointers (1 KiB), with their headers.
		if most > 3<<10 {
			t.Errorf("length %d: a write after a Clone allocated %d bytes", n, most)
		}
	}
}
