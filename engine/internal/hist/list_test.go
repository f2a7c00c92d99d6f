package hist

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A List behaves like a slice, and clones never see each other's appends
// or truncations, whatever the interleaving.
func TestListClonesAreIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type pair struct {
		l    List[int]
		want []int
	}
	lists := []*pair{{}}
	next := 0
	for range 20000 {
		p := lists[rng.IntN(len(lists))]
		switch r := rng.IntN(100); {
		case r < 80:
			next++
			p.l.Append(next)
			p.want = append(p.want, next)
		case r < 85:
			n := rng.IntN(len(p.want) + 1)
			p.l.Truncate(n)
			p.want = slices.Clone(p.want[:n])
		case r < 95 && len(lists) < 40:
			lists = append(lists, &pair{l: p.l.Clone(), want: slices.Clone(p.want)})
		}
	}
	for i, p := range lists {
		if p.l.Len() != len(p.want) {
			t.Fatalf("list %d: len %d, want %d", i, p.l.Len(), len(p.want))
		}
		var got []int
		p.l.All(0, func(_ int, v *int) bool { got = append(got, *v); return true })
		if !slices.Equal(got, p.want) {
			t.Fatalf("list %d differs", i)
		}
		for j, v := range p.want {
			if p.l.At(j) != v {
				t.Fatalf("list %d: At(%d) = %d, want %d", i, j, p.l.At(j), v)
			}
		}
	}
}
