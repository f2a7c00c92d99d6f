package session

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/lessons"
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
	// Sessions are independent: spread over the cores in shards.
	const shards = 4
	for sh := range uint64(shards) {
		t.Run(fmt.Sprintf("shard%d", sh), func(t *testing.T) {
			t.Parallel()
			for seed := 1 + sh; seed <= uint64(sessions); seed += shards {
				travelSession(t, seed, lines)
			}
		})
	}
}

// travelSession is one random session of TestTravelIsExact.
func travelSession(t *testing.T, seed uint64, lines []string) {
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
	// What was there: the state at every moment the timeline passed
	// at the present (the session may show any of them).
	states := map[sim.Moment][]byte{}
	note := func() {
		if !s.Behind() {
			states[s.world.Moment()] = s.Snapshot().StateJSON()
		}
	}
	note()
	for op := 0; op < 50; op++ {
		switch r := rng.IntN(10); {
		case r < 3:
			c := mustCmdT(t, lines[rng.IntN(len(lines))])
			if s.Behind() {
				// A fork: the future after the shown moment is no longer the timeline's.
				shown := s.world.Moment()
				for m := range states {
					if m.After(shown) {
						delete(states, m)
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
		if s.AtOrigin() {
			continue
		}
		want, ok := states[s.world.Moment()]
		if !ok {
			// Only a moment inside a long command is shown without having
			// been seen: it must still be one the timeline had.
			if !s.Behind() {
				t.Fatalf("seed %d, op %d: the present was not noted", seed, op)
			}
			continue
		}
		if got := s.Snapshot().StateJSON(); !bytes.Equal(got, want) {
			t.Fatalf("seed %d, op %d: at step %d the world shown differs from the one that was there\n got %s\nwant %s", seed, op, s.Step(), got, want)
		}
	}
}

func mustLessonT(t *testing.T, src string) *lesson.Lesson { return mustLesson(t, src) }
func mustCmdT(t *testing.T, line string) script.Command   { return mustCmd(t, line) }

// ← and → pass through every lesson position: in every built-in chapter,
// going back from the end visits each position the lesson went through,
// in reverse, and going forward again visits them in order (← once
// skipped chapter 4's step 5 and lost an answered prediction's marks).
func TestTravelVisitsEveryLessonPosition(t *testing.T) {
	ls, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	type at struct {
		step            int
		revealed, done  bool
		engineStep, seg int
	}
	where := func(s *Session) at {
		p := s.Position()
		return at{p.Step, p.Revealed, p.StepDone, s.Step(), s.cur.Seg}
	}
	for _, l := range ls {
		t.Run(fmt.Sprint(l.Number), func(t *testing.T) {
			t.Parallel()
			visitsEveryPosition(t, l, where)
		})
	}
}

// visitsEveryPosition is TestTravelVisitsEveryLessonPosition for one lesson.
func visitsEveryPosition[P comparable](t *testing.T, l *lesson.Lesson, where func(*Session) P) {
	s := New(1, l)
	var path []P
	for i := 0; i < 20_000; i++ {
		path = append(path, where(s))
		if r := s.Forward(); r.Kind == Ended {
			break
		}
	}
	// Consecutive duplicates are one position (→ that changed nothing).
	var want []P
	for _, p := range path {
		if len(want) == 0 || want[len(want)-1] != p {
			want = append(want, p)
		}
	}
	var back []P
	for {
		back = append(back, where(s))
		if !s.Back() {
			break
		}
	}
	var got []P
	for i := len(back) - 1; i >= 0; i-- {
		if len(got) == 0 || got[len(got)-1] != back[i] {
			got = append(got, back[i])
		}
	}
	// Going back also stops at engine steps the learner passed in one
	// move (a segment's `run`); every position the learner saw must
	// be among the stops, in order.
	if !subsequence(want, got) {
		t.Fatalf("%s: ← visits\n%v\nwhich misses positions the lesson went through\n%v", l.Title, got, want)
	}
	// And → from the origin passes through them again.
	var again []P
	for s.Behind() || s.AtOrigin() {
		again = append(again, where(s))
		s.Forward()
	}
	again = append(again, where(s))
	if !subsequence(want, again) {
		t.Fatalf("%s: → from the origin visits\n%v\nwhich misses positions the lesson went through\n%v", l.Title, again, want)
	}
}

// subsequence reports whether every element of want appears in got, in order.
func subsequence[T comparable](want, got []T) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}
