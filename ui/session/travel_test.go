package session

import (
	"bytes"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
)

// The case: after :load of this script, one step back showed a
// world that was never there (a later clock, another producer id).
func TestBackAfterLoadShowsThePast(t *testing.T) {
	src := "producer p1\nsend p1 orders-0 3\nrestart broker 1\nstep 10\nfailover orders-0\npause p1\nadvance 30s\nresume p1\nstep 30\n"
	cmds, err := script.Parse("t.eos", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := New(1, nil)
	states := forwardStates(cmds)
	if _, err := s.Load("t.eos", cmds); err != nil {
		t.Fatal(err)
	}
	top := s.Step()
	for k := top; k >= 0; k-- {
		if got := s.Snapshot().StateJSON(); !bytes.Equal(got, states[k]) {
			t.Fatalf("at step %d (of %d) after ←: the world differs from the world played forward\n got %s\nwant %s", k, top, got, states[k])
		}
		if !s.Back() {
			break
		}
	}
}

// forwardStates plays cmds forward on a fresh world, one step at a time,
// and returns the last state the world had at each step count: what time
// travel must show at that step.
func forwardStates(cmds []script.Command) map[int][]byte {
	w := sim.New(1)
	states := map[int][]byte{}
	for _, c := range cmds {
		states[w.Steps()] = w.Snapshot().StateJSON()
		if j, ok := w.StartJob(c); ok {
			for !j.Done() {
				states[w.Steps()] = w.Snapshot().StateJSON()
				j.Continue(1)
			}
			continue
		}
		w.Apply(c)
	}
	states[w.Steps()] = w.Snapshot().StateJSON()
	return states
}
