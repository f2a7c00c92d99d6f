package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refSources is sourceIndex's meaning, kept the plain way: every batch
// sent with a producer id, newest last, and a map for the others.
type refSources struct {
	sent  []refSent
	plain map[batchKey]source
}

type refSent struct {
	k batchKey
	s source
}

func (r *refSources) set(k batchKey, s source) {
	if k.pid < 0 || k.seq < 0 {
		r.plain[k] = s
		return
	}
	for i := len(r.sent) - 1; i >= 0; i-- {
		if e := r.sent[i]; e.k.pid == k.pid && e.k.seq == k.seq {
			if e.k == k && e.s == s {
				return // the newest of its sequence, sent again
			}
			break
		}
	}
	r.sent = append(r.sent, refSent{k, s})
}

func (r *refSources) get(k batchKey) (source, bool) {
	if k.pid < 0 || k.seq < 0 {
		s, ok := r.plain[k]
		return s, ok
	}
	for i := len(r.sent) - 1; i >= 0; i-- {
		if r.sent[i].k == k {
			return r.sent[i].s, true
		}
	}
	return source{}, false
}

func (r *refSources) clone() *refSources {
	c := &refSources{sent: append([]refSent(nil), r.sent...), plain: map[batchKey]source{}}
	for k, s := range r.plain {
		c.plain[k] = s
	}
	return c
}

// TestSourceIndexProperty sends random batches (a few producer ids, near
// and far ones, retries, re-sequenced batches, plain ones) to an index
// and its copies, and asks after every send what each key holds.
func TestSourceIndexProperty(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		pids := []int64{1000, 1001, 1002, 1003, 999, 1000 + nearPIDs + 5, -1}
		randKey := func() batchKey {
			k := batchKey{pid: pids[rng.IntN(len(pids))], seq: int32(rng.IntN(12)) - 1,
				crc: uint32(rng.IntN(3)), size: int32(60 + rng.IntN(2))}
			if rng.IntN(8) == 0 {
				k.seq = math.MaxInt32 - int32(rng.IntN(2)) // where sequences wrap
			}
			return k
		}
		type pair struct {
			x   *sourceIndex
			ref *refSources
		}
		worlds := []pair{{&sourceIndex{}, &refSources{plain: map[batchKey]source{}}}}
		for step := 0; step < 600; step++ {
			p := worlds[rng.IntN(len(worlds))]
			switch rng.IntN(10) {
			case 0:
				if len(worlds) < 6 {
					x := p.x.clone()
					worlds = append(worlds, pair{&x, p.ref.clone()})
				}
			default:
				k := randKey()
				s := source{firstSerial: int64(rng.IntN(4)), who: int32(rng.IntN(2)), value: -1}
				if rng.IntN(4) == 0 {
					s.value = int32(rng.IntN(3)) // an application-chosen value's number
				}
				p.x.set(k, s)
				p.ref.set(k, s)
			}
			for _, q := range worlds {
				for range 4 {
					k := randKey()
					got, gok := q.x.get(k)
					want, wok := q.ref.get(k)
					if got != want || gok != wok {
						t.Fatalf("seed %d step %d: get(%+v) = %+v %v, want %+v %v", seed, step, k, got, gok, want, wok)
					}
				}
			}
		}
	}
}
