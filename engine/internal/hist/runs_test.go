package hist

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A Runs reads as a plain slice does while copies of it, and copies of
// the copies, are made and written with runs of every length, starting
// anywhere, often with the value a neighbour holds; Run reads what Get
// reads, and a chunk's runs stay maximal.
func TestRunsIsASliceAcrossCopies(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const size = 6*runsChunkLen + 40
	type pair struct {
		r    Runs[int32]
		want []int32
	}
	all := []*pair{{want: make([]int32, size)}}
	for step := int32(1); step <= 60000; step++ {
		p := all[rng.IntN(len(all))]
		switch r := rng.IntN(100); {
		case r < 60:
			i := rng.IntN(size)
			n := min(rng.IntN(3*runsChunkLen/2), size-i)
			if rng.IntN(3) == 0 {
				n = min(rng.IntN(4), size-i)
			}
			x := step
			switch rng.IntN(4) {
			case 0:
				x = 0
			case 1:
				if i > 0 {
					x = p.want[i-1] // extends the run before it
				}
			case 2:
				x = int32(rng.IntN(3))
			}
			p.r.SetRange(i, n, x)
			for k := i; k < i+n; k++ {
				p.want[k] = x
			}
		case r < 97:
			i := rng.IntN(size)
			if got := p.r.Get(i); got != p.want[i] {
				t.Fatalf("step %d: entry %d is %d, want %d", step, i, got, p.want[i])
			}
		case len(all) < 24:
			all = append(all, &pair{r: p.r.Clone(), want: slices.Clone(p.want)})
		}
	}
	for pi, p := range all {
		for i := range size + runsChunkLen {
			want := int32(0)
			if i < size {
				want = p.want[i]
			}
			if got := p.r.Get(i); got != want {
				t.Fatalf("copy %d: entry %d is %d, want %d", pi, i, got, want)
			}
		}
		// Run reads what Get reads, a whole run at a time within a chunk.
		for i := 0; i < size+runsChunkLen; {
			n := 1 + rng.IntN(3*runsChunkLen)
			x, k := p.r.Run(i, n)
			if k < 1 || k > n || (i+k)%runsChunkLen != 0 && k != n && p.r.Get(i+k) == x {
				t.Fatalf("copy %d: Run(%d, %d) = %d, %d entries", pi, i, n, x, k)
			}
			for j := i; j < i+k; j++ {
				if got := p.r.Get(j); got != x {
					t.Fatalf("copy %d: Run(%d, %d) says %d, entry %d is %d", pi, i, n, x, j, got)
				}
			}
			i += k
		}
		for c := range size/runsChunkLen + 1 {
			ch := p.r.chunk(uint(c))
			if ch == nil {
				continue
			}
			starts := ch.starts
			if len(starts) != len(ch.vals) || starts[0] != 0 {
				t.Fatalf("copy %d chunk %d: starts %v, %d values", pi, c, starts, len(ch.vals))
			}
			for j := 1; j < len(starts); j++ {
				if starts[j] <= starts[j-1] || ch.vals[j] == ch.vals[j-1] {
					t.Fatalf("copy %d chunk %d: runs %v of %v are not maximal", pi, c, starts, ch.vals)
				}
			}
		}
	}
}

// Equal values written one after the other stay one run, however many
// chunks they cover; a copy's write copies one chunk.
func TestRunsKeepsARunAsOne(t *testing.T) {
	var r Runs[int64]
	for i := range 100 {
		r.SetRange(i*37, 37, 5)
	}
	for c := range 100 * 37 / runsChunkLen {
		if ch := r.chunk(uint(c)); len(ch.vals) != 1 {
			t.Fatalf("chunk %d holds %d runs", c, len(ch.vals))
		}
	}
	if x, k := r.Run(3, 1000); x != 5 || k != runsChunkLen-3 {
		t.Fatalf("Run(3, 1000) = %d, %d", x, k)
	}
	c := r.Clone()
	c.Set(10, 6)
	if r.Get(10) != 5 || c.Get(10) != 6 || c.Get(11) != 5 || r.chunk(0) == c.chunk(0) || r.chunk(1) != c.chunk(1) {
		t.Fatal("a copy's write is not its own")
	}
}

// Serials marked as a producer's come, batch after batch at the end
// (mostly with the mark of the batch before, sometimes after a gap, or
// over the batch just marked again), with copies taken and written on
// the way: each write ends in the chunk's last run, and the runs stay
// the slice's and maximal after every one.
func TestRunsMarkedInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const size = 5 * runsChunkLen
	type pair struct {
		r    Runs[int32]
		want []int32
		next int
	}
	all := []*pair{{want: make([]int32, size)}}
	maximal := func(p *pair, c int) {
		t.Helper()
		ch := p.r.chunk(uint(c))
		if ch == nil {
			return
		}
		if len(ch.starts) != len(ch.vals) || ch.starts[0] != 0 {
			t.Fatalf("chunk %d: starts %v, %d values", c, ch.starts, len(ch.vals))
		}
		for j := 1; j < len(ch.starts); j++ {
			if ch.starts[j] <= ch.starts[j-1] || ch.vals[j] == ch.vals[j-1] {
				t.Fatalf("chunk %d: runs %v of %v are not maximal", c, ch.starts, ch.vals)
			}
		}
		for k := range runsChunkLen {
			if i := c*runsChunkLen + k; i < size && p.r.Get(i) != p.want[i] {
				t.Fatalf("entry %d is %d, want %d", i, p.r.Get(i), p.want[i])
			}
		}
	}
	for range 40000 {
		p := all[rng.IntN(len(all))]
		if rng.IntN(50) == 0 && len(all) < 16 {
			all = append(all, &pair{r: p.r.Clone(), want: slices.Clone(p.want), next: p.next})
			continue
		}
		i, n := p.next, 1+rng.IntN(5)
		switch rng.IntN(10) {
		case 0:
			i += rng.IntN(4) // a gap
		case 1:
			i = max(0, i-n) // the last batch again
		}
		if i+n > size {
			p.r, p.want, p.next = Runs[int32]{}, make([]int32, size), 0
			continue
		}
		x := int32(rng.IntN(3)) // 0 is the zero value, as the unmarked
		p.r.SetRange(i, n, x)
		for k := i; k < i+n; k++ {
			p.want[k] = x
		}
		p.next = max(p.next, i+n)
		maximal(p, i/runsChunkLen)
		maximal(p, (i+n-1)/runsChunkLen)
	}
}
