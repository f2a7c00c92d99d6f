package sim

import (
	"slices"
	"testing"

	"github.com/eoslab/eoslab/engine/trace"
)

func scriptEvents(t *testing.T, path string) []trace.Event {
	t.Helper()
	_, w := transcript(t, path, 1)
	return w.Trace().Events()
}

func kinds(evs []trace.Event, kind trace.Kind) []trace.Event {
	var out []trace.Event
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func intField(t *testing.T, e trace.Event, key string) int64 {
	t.Helper()
	if _, ok := e.Get(key); !ok {
		t.Fatalf("%s event has no %q: %s", e.Kind, key, e.Describe())
	}
	return e.Int(key)
}

// KIP-890: the same two transactions under protocol versions 1 and 2 differ
// exactly in the AddPartitionsToTxn round trip, in the epoch per
// transaction (and so in the markers' epochs and the sequences, which
// restart at every new epoch) — and in nothing a reader sees.
func TestTransactionVersionsDiffer(t *testing.T) {
	v1 := scriptEvents(t, "../../assets/scripts/txn-commit-v1.eos")
	v2 := scriptEvents(t, "../../assets/scripts/txn-two-v2.eos")

	adds := func(evs []trace.Event) int {
		n := 0
		for _, e := range kinds(evs, "message.send") {
			if e.Str("api") == "AddPartitionsToTxn" {
				n++
			}
		}
		return n
	}
	if got := adds(v1); got != 4 { // two requests, two answers
		t.Errorf("version 1: %d AddPartitionsToTxn messages, want 4", got)
	}
	if got := adds(v2); got != 0 {
		t.Errorf("version 2: %d AddPartitionsToTxn messages from the producer, want 0", got)
	}

	epochs := func(evs []trace.Event, kind trace.Kind) []int64 {
		var out []int64
		for _, e := range kinds(evs, kind) {
			out = append(out, intField(t, e, "producer_epoch"))
		}
		return out
	}
	if got := epochs(v1, "txn.complete"); !slices.Equal(got, []int64{0, 0}) {
		t.Errorf("version 1 epochs after each commit %v, want [0 0]", got)
	}
	if got := epochs(v2, "txn.complete"); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("version 2 epochs after each commit %v, want [1 2]", got)
	}
	if got := epochs(v1, "txn.marker"); !slices.Equal(got, []int64{0, 0, 0}) {
		t.Errorf("version 1 marker epochs %v, want [0 0 0]", got)
	}
	if got := epochs(v2, "txn.marker"); !slices.Equal(got, []int64{1, 1, 2}) {
		t.Errorf("version 2 marker epochs %v, want [1 1 2] (the bumped epoch)", got)
	}

	// The second transaction's batch to orders-0: sequence 1 at epoch 0
	// under version 1, sequence 0 at epoch 1 under version 2.
	seqOfLast := func(evs []trace.Event) (int64, int64) {
		ds := kinds(evs, "produce.decision")
		last := ds[len(ds)-1]
		return intField(t, last, "producer_epoch"), intField(t, last, "base_sequence")
	}
	if e, s := seqOfLast(v1); e != 0 || s != 1 {
		t.Errorf("version 1 second transaction writes epoch %d seq %d, want epoch 0 seq 1", e, s)
	}
	if e, s := seqOfLast(v2); e != 1 || s != 0 {
		t.Errorf("version 2 second transaction writes epoch %d seq %d, want epoch 1 seq 0", e, s)
	}
}
