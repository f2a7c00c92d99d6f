package session

import (
	"testing"

	"github.com/eoslab/eoslab/lessons"
)

// Every lesson step's end is shown before the next step applies: a
// prediction's marks and a step's checks are evaluated on that position,
// so → must not jump over it — not even when what was still due turns out
// to have nothing to do (a spent timer), which Forward reports as Settled.
func TestEveryStepEndIsShown(t *testing.T) {
	all, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	settled := 0
	for _, l := range all {
		s := New(1, l)
		prev := s.Position()
		for range 100_000 {
			r := s.Forward()
			if r.Kind == Ended {
				break
			}
			if r.Kind == Settled {
				settled++
				if p := s.Position(); !p.StepDone || p.Stepping {
					t.Fatalf("chapter %d: settled but not done: %+v", l.Number, p)
				}
			}
			pos := s.Position()
			if r.Kind == Applied && pos.Step != prev.Step && prev.Step >= 0 && !prev.StepDone {
				t.Errorf("chapter %d: step %d applied before step %d was shown played out", l.Number, pos.Step+1, prev.Step+1)
			}
			prev = pos
		}
	}
	t.Logf("%d settled moves in the built-in chapters", settled)
}
