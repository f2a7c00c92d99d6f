package sim

import (
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/eoslab/eoslab/engine/internal/hist"
	"github.com/eoslab/eoslab/engine/script"
)

// seenRecs keeps its first entries inline; it must read as the hist.Vec
// it stands for after any writes, know the highest serial marked by each
// check, and its clones must change independently of it.
func TestInlineRecordsActAsVectors(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		var seen, seenClone seenRecs
		var seenModel, seenCloneModel hist.Vec[seenAt]
		most, mostClone := map[uint32]int64{}, map[uint32]int64{}
		cloned := false
		serial := 0
		for range 2 + rng.IntN(12) {
			// Mostly runs that follow each other at one shift, as batches
			// of one producer do, sometimes anything.
			x := seenAt{shift: int64(rng.IntN(2)), gen: uint32(1 + rng.IntN(3))}
			i, k := serial, 1+rng.IntN(4)
			if rng.IntN(4) == 0 {
				i = rng.IntN(300)
			}
			serial = i + k
			seen.setRange(i, k, x)
			seenModel.SetRange(i, k, x)
			if m, ok := most[x.gen]; !ok || m < int64(i+k-1) {
				most[x.gen] = int64(i + k - 1)
			}
			if !cloned && rng.IntN(3) == 0 {
				cloned = true
				seenClone, seenCloneModel, mostClone = seen.clone(), seenModel.Clone(), maps.Clone(most)
			}
		}
		if cloned {
			seenClone.setRange(0, 3, seenAt{shift: 7, gen: 9})
			seenCloneModel.SetRange(0, 3, seenAt{shift: 7, gen: 9})
			mostClone[9] = max(mostClone[9], 2)
		}
		for gen := range uint32(10) {
			for _, s := range []struct {
				name string
				seen *seenRecs
				most map[uint32]int64
			}{{"seen", &seen, most}, {"the clone", &seenClone, mostClone}} {
				got, ok := s.seen.maxOf(gen)
				want, wok := s.most[gen]
				if (ok || wok) && (ok != wok || got != want) && (cloned || s.seen == &seen) {
					t.Fatalf("seed %d: %s: highest serial of check %d: %d %v, want %d %v", seed, s.name, gen, got, ok, want, wok)
				}
			}
		}
		for i := range 400 {
			if got, want := seen.get(i), seenModel.Get(i); got != want {
				t.Fatalf("seed %d: seen serial %d: %+v, want %+v", seed, i, got, want)
			}
			if got, want := seenClone.get(i), seenCloneModel.Get(i); cloned && got != want {
				t.Fatalf("seed %d: the clone's serial %d: %+v, want %+v", seed, i, got, want)
			}
		}
		// runOf covers every serial once, in pieces that read as the model.
		for i := 0; i < 400; {
			got, k := seen.runOf(i, 400-i)
			if k < 1 {
				t.Fatalf("seed %d: an empty piece at %d", seed, i)
			}
			for j := range k {
				if want := seenModel.Get(i + j); got != want {
					t.Fatalf("seed %d: runOf at %d+%d: %+v, want %+v", seed, i, j, got, want)
				}
			}
			i += k
		}
	}
}

// A sourceIndex finds every batch as a map from batchKey would, whether a
// producer id sent one sequence or many, the same sequence again with
// other bytes (a re-sequenced batch), or the same bytes again (a retry);
// and its clones change independently of it.
func TestSourceIndexActsAsAMap(t *testing.T) {
	type pair struct {
		x    sourceIndex
		want map[batchKey]source
	}
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 10))
		all := []*pair{{want: map[batchKey]source{}}}
		var keys []batchKey
		first := int64(rng.IntN(3000))
		pids := []int64{-1, first, first + 1, first + 2, first + 1000, first + nearPIDs - 1, first + nearPIDs, first + 5*nearPIDs}
		if first > 0 {
			pids = append(pids, 0, first-1)
		}
		for i := range pids {
			j := rng.IntN(i + 1)
			pids[i], pids[j] = pids[j], pids[i]
		}
		for n := range 300 {
			p := all[rng.IntN(len(all))]
			if rng.IntN(10) == 0 && len(all) < 6 {
				all = append(all, &pair{x: p.x.clone(), want: maps.Clone(p.want)})
				continue
			}
			// Producer ids near each other, and some far below or above the
			// first one (found in the map, not the vector).
			pid := pids[rng.IntN(len(pids))]
			k := batchKey{crc: uint32(rng.IntN(3)), pid: pid, seq: int32(rng.IntN(5)*rng.IntN(3)) - int32(rng.IntN(8)/7), size: 70}
			if rng.IntN(3) == 0 && len(keys) > 0 {
				k = keys[rng.IntN(len(keys))] // sent again
			}
			keys = append(keys, k)
			s := source{firstSerial: int64(n), who: int32(k.pid), value: -1}
			if old, ok := p.want[k]; ok && rng.IntN(2) == 0 {
				s = old // a retry, as it was
			}
			p.x.set(k, s)
			p.want[k] = s
		}
		for i, p := range all {
			for _, k := range keys {
				got, ok := p.x.get(k)
				want, wok := p.want[k]
				if ok != wok || got != want {
					t.Fatalf("seed %d, index %d: %+v: %+v %v, want %+v %v", seed, i, k, got, ok, want, wok)
				}
			}
			for crc := range uint32(4) {
				k := batchKey{crc: crc, pid: first, seq: 99, size: 70}
				if _, ok := p.x.get(k); ok {
					t.Fatalf("seed %d: found %+v, never sent", seed, k)
				}
			}
		}
	}
}

// The checker numbers producers in the order they are first sent for,
// by slot or by name (a real client's client.id), and a name keeps its
// number whichever way it comes: a re-created producer's new slot, a
// world producer named by a real client, a real client's name taken by a
// producer created later. A clone numbers on by itself.
func TestProducerNumbers(t *testing.T) {
	w := New(1)
	apply := func(w *World, c script.Command) {
		t.Helper()
		if _, err := w.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	apply(w, &script.Producer{Name: "p"})
	apply(w, &script.Producer{Name: "q"})
	apply(w, &script.Producer{Name: "r", Config: []script.KV{{Key: "acks", Value: "2"}}}) // cannot be created
	c := w.check
	want := func(c *checker, got int32, n int32, name string) {
		t.Helper()
		if got != n || *c.names.at(int(n)) != name {
			var names []string
			for _, v := range c.names.all() {
				names = append(names, *v)
			}
			t.Fatalf("%q: %d, want %d (names %q)", name, got, n, names)
		}
	}
	want(c, c.nameWho(w, "x"), 0, "x") // no producer of the name
	want(c, c.slotWho(w.producers.get("q")), 1, "q")
	want(c, c.slotWho(w.producers.get("q")), 1, "q")
	want(c, c.nameWho(w, "q"), 1, "q")
	want(c, c.nameWho(w, "p"), 2, "p")
	want(c, c.slotWho(w.producers.get("p")), 2, "p")
	want(c, c.nameWho(w, "r"), 3, "r")
	apply(w, &script.Producer{Name: "r"})
	want(c, c.slotWho(w.producers.get("r")), 3, "r")
	apply(w, &script.Producer{Name: "x"})
	want(c, c.slotWho(w.producers.get("x")), 0, "x")
	apply(w, &script.RestartProducer{Name: "p"})
	want(c, c.slotWho(w.producers.get("p")), 2, "p")
	d := w.Clone()
	apply(d, &script.Producer{Name: "y"})
	want(d.check, d.check.slotWho(d.producers.get("y")), 4, "y")
	want(c, c.nameWho(w, "z"), 4, "z")
	want(d.check, d.check.nameWho(d, "z"), 5, "z")
	want(c, c.nameWho(w, "y"), 5, "y")
	want(d.check, d.check.nameWho(d, "x"), 0, "x")
}
