package hist

import (
	"maps"
	"math/rand/v2"
	"testing"
)

// Maps and Vecs behave like Go maps and slices, and copies never see each
// other's writes, whatever the interleaving of writes and clones.
func TestMapAndVecClonesAreIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type pair struct {
		m     Map[int, int]
		want  map[int]int
		v     Vec[int]
		wantv map[int]int
	}
	all := []*pair{{want: map[int]int{}, wantv: map[int]int{}}}
	for step := range 200000 {
		p := all[rng.IntN(len(all))]
		switch r := rng.IntN(1000); {
		case r < 900:
			k, val := rng.IntN(3000), step
			p.m.Set(k, val)
			p.want[k] = val
			p.v.Set(k, val)
			p.wantv[k] = val
		case len(all) < 300:
			all = append(all, &pair{m: p.m.Clone(), want: maps.Clone(p.want), v: p.v.Clone(), wantv: maps.Clone(p.wantv)})
		}
	}
	for i, p := range all {
		for k := range 3000 {
			got, ok := p.m.Get(k)
			want, wok := p.want[k]
			if ok != wok || got != want {
				t.Fatalf("map %d key %d: got %d %v, want %d %v", i, k, got, ok, want, wok)
			}
			if got, want := p.v.Get(k), p.wantv[k]; got != want {
				t.Fatalf("vec %d entry %d: got %d, want %d", i, k, got, want)
			}
		}
	}
}
