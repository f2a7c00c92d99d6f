package sim

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/record"
)

// checkStored checks every replica's stored batches: the bytes are one
// whole batch with a header, what a batch answers for its header fields is
// what the header says, and the batches follow each other offset by offset
// up to the log end: the log keeps nothing but the bytes, so they must
// carry the assigned offsets. Stored bytes never change once appended
// (followers keep their leader's bytes, copies of a world share them): seen
// holds the bytes found at each address so far, and they must still be
// there.
func checkStored(t *testing.T, w *World, where string, seen map[*byte]string) {
	t.Helper()
	for _, b := range w.brokers {
		for _, r := range b.Replicas() {
			l, next := r.Log, int64(-1)
			l.EachBatch(0, func(i int, s *partition.Stored) bool {
				h, err := record.ParseHeader(s.Bytes())
				switch {
				case err != nil:
					t.Fatalf("%s: broker %d %s batch %d: %v", where, b.ID, l.Name(), i, err)
				case s.BaseOffset() != h.BaseOffset || s.LastOffset() != h.LastOffset() || s.Attributes() != h.Attributes ||
					s.ProducerID() != h.ProducerID || s.ProducerEpoch() != h.ProducerEpoch || s.RecordsCount() != h.RecordsCount:
					t.Fatalf("%s: broker %d %s batch %d: fields %d-%d %v %d %d %d, header %+v", where, b.ID, l.Name(), i,
						s.BaseOffset(), s.LastOffset(), s.Attributes(), s.ProducerID(), s.ProducerEpoch(), s.RecordsCount(), h)
				case h.Size() != len(s.Bytes()):
					t.Fatalf("%s: broker %d %s batch %d: %d bytes for a batch of %d", where, b.ID, l.Name(), i, len(s.Bytes()), h.Size())
				case next >= 0 && h.BaseOffset != next:
					t.Fatalf("%s: broker %d %s batch %d: base offset %d after a batch ending at %d", where, b.ID, l.Name(), i, h.BaseOffset, next-1)
				}
				if was, ok := seen[&s.Bytes()[0]]; !ok {
					seen[&s.Bytes()[0]] = string(s.Bytes())
				} else if was != string(s.Bytes()) {
					t.Fatalf("%s: broker %d %s batch %d: stored bytes changed from %x to %x", where, b.ID, l.Name(), i, was, s.Bytes())
				}
				next = h.LastOffset() + 1
				return true
			})
			if next >= 0 && next != l.LogEndOffset() {
				t.Fatalf("%s: broker %d %s: batches end at %d, log end offset %d", where, b.ID, l.Name(), next-1, l.LogEndOffset())
			}
		}
	}
}

// Every stored batch is whole and in place (checkStored) after every
// command of every golden script and of random sessions (faults,
// failovers, unclean elections, restarts, truncations, markers, expiry),
// in rewound worlds and in forks driven on from them.
func TestStoredBatchIsItsBytes(t *testing.T) {
	scripts, _ := filepath.Glob("testdata/*.eos")
	examples, _ := filepath.Glob("../../assets/scripts/*.eos")
	for _, path := range append(scripts, examples...) {
		w, seen := New(1), map[*byte]string{}
		for _, c := range parseFile(t, path) {
			w.Apply(c)
			checkStored(t, w, path+":"+c.Position().String(), seen)
		}
	}
	sessions := 120
	if testing.Short() {
		sessions = 30
	}
	for seed := uint64(1); seed <= uint64(sessions); seed++ {
		w, seen := New(seed), map[*byte]string{}
		for i, c := range randomSession(seed, 60) {
			w.Apply(c)
			checkStored(t, w, fmt.Sprintf("seed %d command %d", seed, i), seen)
		}
		r, err := w.Rewind(w.Steps() / 2)
		if err != nil {
			t.Fatal(err)
		}
		checkStored(t, r, fmt.Sprintf("seed %d rewound", seed), seen)
		for i, c := range randomSession(seed+1000, 15) {
			r.Apply(c)
			checkStored(t, r, fmt.Sprintf("seed %d fork command %d", seed, i), seen)
		}
		checkStored(t, w, fmt.Sprintf("seed %d after the fork", seed), seen)
	}
}
