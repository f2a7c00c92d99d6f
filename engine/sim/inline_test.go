package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/eoslab/eoslab/engine/internal/hist"
)

// seenRecs and seqHeads keep their first entries inline; they must read
// as the hist.Vec they stand for after any writes, and their clones must
// change independently of them.
func TestInlineRecordsActAsVectors(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		var seen, seenClone seenRecs
		var seenModel, seenCloneModel hist.Vec[seenAt]
		var heads, headsClone seqHeads
		var headsModel, headsCloneModel hist.Vec[int32]
		cloned := false
		serial := 0
		for range 2 + rng.IntN(12) {
			// Mostly runs that follow each other at one shift, as batches
			// of one producer do, sometimes anything.
			x := seenAt{shift: int64(rng.IntN(2)), gen: uint32(1 + rng.IntN(2)), part: int32(rng.IntN(2))}
			i, k := serial, 1+rng.IntN(4)
			if rng.IntN(4) == 0 {
				i = rng.IntN(300)
			}
			serial = i + k
			seen.setRange(i, k, x)
			seenModel.SetRange(i, k, x)
			seq, head := rng.IntN(3)*rng.IntN(200), int32(1+rng.IntN(50))
			heads.set(seq, head)
			headsModel.Set(seq, head)
			if !cloned && rng.IntN(3) == 0 {
				cloned = true
				seenClone, seenCloneModel = seen.clone(), seenModel.Clone()
				headsClone, headsCloneModel = heads.clone(), headsModel.Clone()
			}
		}
		if cloned {
			seenClone.setRange(0, 3, seenAt{shift: 7, gen: 9})
			seenCloneModel.SetRange(0, 3, seenAt{shift: 7, gen: 9})
			headsClone.set(1, 99)
			headsCloneModel.Set(1, 99)
		}
		for i := range 400 {
			if got, want := seen.get(i), seenModel.Get(i); got != want {
				t.Fatalf("seed %d: seen serial %d: %+v, want %+v", seed, i, got, want)
			}
			if got, want := heads.get(i), headsModel.Get(i); got != want {
				t.Fatalf("seed %d: head of sequence %d: %d, want %d", seed, i, got, want)
			}
			if got, want := seenClone.get(i), seenCloneModel.Get(i); cloned && got != want {
				t.Fatalf("seed %d: the clone's serial %d: %+v, want %+v", seed, i, got, want)
			}
			if got, want := headsClone.get(i), headsCloneModel.Get(i); cloned && got != want {
				t.Fatalf("seed %d: the clone's head of sequence %d: %d, want %d", seed, i, got, want)
			}
		}
		// runOf covers every serial once, in pieces that read as the model.
		for i := 0; i < 400; {
			stored, one, k := seen.runOf(i, 400-i)
			if k < 1 {
				t.Fatalf("seed %d: an empty piece at %d", seed, i)
			}
			for j := range k {
				var got seenAt
				switch {
				case one:
					got = seen.run
				case j < len(stored):
					got = stored[j]
				}
				if want := seenModel.Get(i + j); got != want {
					t.Fatalf("seed %d: runOf at %d+%d: %+v, want %+v", seed, i, j, got, want)
				}
			}
			i += k
		}
	}
}
