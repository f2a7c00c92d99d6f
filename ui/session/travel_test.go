package session

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/lessons/lesson"
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

// Time travel is exact: in random sessions — commands, steps, faults,
// lesson segments, ← → Home End and jumps, and forks made by acting in the
// past — the world shown at any step is byte for byte the world that was
// there when the timeline last had that many steps.
func TestTravelIsExact(t *testing.T) {
	sessions := 1000
	if testing.Short() {
		sessions = 100
	}
	lines := []string{"send p1 orders-0 1", "send p1 orders-1 2", "send p2 orders-2 1", "lose response p1", "lose request p2",
		"delay request p1", "reset connection p1 1", "fail request p1 orders-0 NOT_ENOUGH_REPLICAS", "restart broker 2",
		"failover orders-0", "pause p1", "resume p1", "restart producer p2", "advance 2s", "advance 31s", "step 3", "run",
		"begin t1", "send t1 orders-1 1", "commit t1", "abort t1", "kill broker 3", "restart broker 3 clean"}
	for seed := uint64(1); seed <= uint64(sessions); seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var s *Session
		if seed%3 == 0 {
			s = New(seed, mustLessonT(t, "# t\n\nproducer p1\nproducer p2 plain\nproducer t1 transactional=x\nsend p1 orders-0 2\nstep 4\n\n# more\n\nlose response p1\nsend p1 orders-0 1\nrun\n"))
		} else {
			s = New(seed, nil)
			for _, l := range []string{"producer p1", "producer p2 plain", "producer t1 transactional=x"} {
				s.Apply(mustCmdT(t, l))
			}
		}
		states := map[int][]byte{}
		note := func() {
			if !s.Behind() {
				states[s.Step()] = s.Snapshot().StateJSON()
			}
		}
		note()
		for op := 0; op < 50; op++ {
			switch r := rng.IntN(10); {
			case r < 3:
				c := mustCmdT(t, lines[rng.IntN(len(lines))])
				if s.Behind() {
					// A fork: the future after this step is no longer the timeline's.
					for k := range states {
						if k > s.Step() {
							delete(states, k)
						}
					}
				}
				if job, _, ok := s.StartJob(c); ok {
					for done := false; !done; {
						note()
						_, done = s.Continue(job, 1)
					}
				} else {
					s.Apply(c)
				}
			case r < 6:
				s.Forward()
			case r < 8:
				s.Back()
			case r < 9:
				s.TravelTo(rng.IntN(s.TimelineSteps() + 1))
			default:
				[]func(){s.Start, s.End}[rng.IntN(2)]()
			}
			note()
			if want, ok := states[s.Step()]; ok && !s.AtOrigin() {
				if got := s.Snapshot().StateJSON(); !bytes.Equal(got, want) {
					t.Fatalf("seed %d, op %d: at step %d the world shown differs from the one that was there\n got %s\nwant %s", seed, op, s.Step(), got, want)
				}
			}
		}
	}
}

func mustLessonT(t *testing.T, src string) *lesson.Lesson { return mustLesson(t, src) }
func mustCmdT(t *testing.T, line string) script.Command  { return mustCmd(t, line) }
