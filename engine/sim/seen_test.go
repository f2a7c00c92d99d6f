package sim

import (
	"math/rand/v2"
	"testing"
)

// TestSeenRecsProperty marks random runs of serials (mostly rising, as
// batches are judged, with gaps, rewrites and copies) and checks every
// serial's mark, span's counts and each check's highest serial against
// a plain slice.
func TestSeenRecsProperty(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		type pair struct {
			s    *seenRecs
			ref  []seenAt
			most map[uint32]int64 // the highest serial ever marked, by gen
		}
		worlds := []pair{{&seenRecs{}, nil, map[uint32]int64{}}}
		next := 0
		for step := 0; step < 200; step++ {
			p := &worlds[rng.IntN(len(worlds))]
			switch r := rng.IntN(12); {
			case r == 0 && len(worlds) < 5:
				c := p.s.clone()
				most := map[uint32]int64{}
				for g, m := range p.most {
					most[g] = m
				}
				worlds = append(worlds, pair{&c, append([]seenAt(nil), p.ref...), most})
				continue
			default:
				i := next
				if r < 3 {
					i = rng.IntN(next + 1)
				}
				k := 1 + rng.IntN(4)
				x := seenAt{shift: int64(rng.IntN(3)), gen: uint32(1 + rng.IntN(3))}
				p.s.setRange(i, k, x)
				for len(p.ref) < i+k {
					p.ref = append(p.ref, seenAt{})
				}
				for j := i; j < i+k; j++ {
					p.ref[j] = x
				}
				if m, ok := p.most[x.gen]; !ok || m < int64(i+k-1) {
					p.most[x.gen] = int64(i + k - 1)
				}
				next = max(next, i+k)
				if rng.IntN(4) == 0 {
					next += rng.IntN(3) // a gap
				}
			}
			for _, q := range worlds {
				at := func(j int) seenAt {
					if j < len(q.ref) {
						return q.ref[j]
					}
					return seenAt{}
				}
				for j := 0; j < next+3; j++ {
					if got := q.s.get(j); got != at(j) {
						t.Fatalf("seed %d step %d: get(%d) = %v, want %v", seed, step, j, got, at(j))
					}
					for gen := uint32(1); gen <= 3; gen++ {
						n := int64(1 + rng.IntN(6))
						for _, held := range []bool{false, true} {
							var want int64
							for want < n && (at(j+int(want)).gen == gen) == held {
								want++
							}
							if got := q.s.span(int64(j), n, gen, held); got != want {
								t.Fatalf("seed %d step %d: span(%d, %d, %d, %v) = %d, want %d", seed, step, j, n, gen, held, got, want)
							}
						}
					}
				}
				for gen := uint32(1); gen <= 3; gen++ {
					want, wok := q.most[gen]
					if got, ok := q.s.maxOf(gen); ok != wok || (ok && got != want) {
						t.Fatalf("seed %d step %d: maxOf(%d) = %d %v, want %d %v", seed, step, gen, got, ok, want, wok)
					}
				}
			}
		}
	}
}
