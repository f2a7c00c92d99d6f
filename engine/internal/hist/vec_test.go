package hist

import (
	"math/rand/v2"
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
