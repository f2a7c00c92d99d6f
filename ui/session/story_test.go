package session

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/story"
)

func builtin(t *testing.T) []*lesson.Lesson {
	t.Helper()
	ls, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

func chapter(t *testing.T, n int) *lesson.Lesson {
	t.Helper()
	for _, l := range builtin(t) {
		if l.Number == n {
			return l
		}
	}
	t.Fatalf("no chapter %d", n)
	return nil
}

// A move by story is a run of →: the world it shows is the world the same
// number of → presses shows, it stops right after a decision (every
// decision it passed is in its last move), and it never runs into the next
// lesson step except from a step's end. In every chapter, to the end.
func TestNextDecisionIsARunOfForward(t *testing.T) {
	for _, l := range builtin(t) {
		t.Run(fmt.Sprint(l.Number), func(t *testing.T) {
			t.Parallel()
			decisionsAreRunsOfForward(t, l)
		})
	}
}

func decisionsAreRunsOfForward(t *testing.T, l *lesson.Lesson) {
	s, ref := New(1, l), New(1, l)
	for press := 0; ; press++ {
		if press > 5000 {
			t.Fatalf("%s: no end after %d presses", l.Title, press)
		}
		before := s.Position()
		sk := s.SkipForward(ByDecision, true)
		for range sk.Moves {
			ref.Forward()
		}
		if got, want := s.Snapshot().StateJSON(), ref.Snapshot().StateJSON(); !bytes.Equal(got, want) {
			t.Fatalf("%s press %d: ) shows another world than %d × →\n got %s\nwant %s", l.Title, press, sk.Moves, got, want)
		}
		if !reflect.DeepEqual(s.Position(), ref.Position()) {
			t.Fatalf("%s press %d: ) is at %+v, → at %+v", l.Title, press, s.Position(), ref.Position())
		}
		after := s.Position()
		if after.Step != before.Step && !before.StepDone && before.Step >= 0 {
			t.Fatalf("%s press %d: ) ran from the middle of step %d into step %d", l.Title, press, before.Step+1, after.Step+1)
		}
		if i := story.LastDecision(sk.Events[:sk.Last]); i >= 0 {
			e := sk.Events[i]
			t.Fatalf("%s press %d: ) passed the decision of step %d (%s) and stopped at step %d", l.Title, press, e.Step, e.Text(), s.Step())
		}
		if sk.Stop == StopDecision && (sk.Decision == nil || !story.Decision(sk.Decision)) {
			t.Fatalf("%s press %d: stopped at a decision without one: %+v", l.Title, press, sk.Decision)
		}
		if sk.Stop == StopEnd {
			break
		}
		if sk.Moves == 0 && sk.Stop != StopReveal {
			t.Fatalf("%s press %d: ) moved nowhere (stop %d)", l.Title, press, sk.Stop)
		}
		if sk.Stop == StopReveal && after.Step == before.Step {
			t.Fatalf("%s press %d: stopped before a reveal that was answered", l.Title, press)
		}
	}
}

// The count: → took 19 presses to reach chapter 8's step 2 and 42
// to reach its step 5. } plays a lesson step to its end in one press, and
// the next } plays the next step (stopping before a reveal not answered).
func TestEndOfStepReachesChapter8Step5InFewPresses(t *testing.T) {
	s := New(1, chapter(t, 8))
	presses := 0
	for s.Position().Step < 4 {
		presses++
		if presses > 12 {
			t.Fatalf("after %d presses of } still at step %d", presses, s.Position().Step+1)
		}
		sk := s.SkipForward(ByStep, false)
		if sk.Stop == StopReveal {
			// The learner answers, then goes on: the reveal plays out.
			sk = s.SkipForward(ByStep, true)
		}
		if sk.Stop != StopStepEnd && sk.Stop != StopReveal {
			t.Fatalf("press %d: } stopped with %d, not at a step's end", presses, sk.Stop)
		}
	}
	if !s.Position().StepDone {
		t.Fatalf("} left step 5 unfinished: %+v", s.Position())
	}
	arrows := New(1, chapter(t, 8))
	n := 0
	for arrows.Position().Step < 4 || !arrows.Position().StepDone {
		arrows.Forward()
		n++
	}
	if got, want := s.Snapshot().StateJSON(), arrows.Snapshot().StateJSON(); !bytes.Equal(got, want) {
		t.Fatalf("} and → end step 5 in different worlds")
	}
	t.Logf("chapter 8, to the end of step 5: %d presses of } (and answers), %d of →", presses, n)
	if presses*3 > n {
		t.Fatalf("} took %d presses where → takes %d", presses, n)
	}
}

// An unanswered prediction stops both moves before its reveal; answered,
// the reveal is applied and played out to the marks.
func TestStoryMovesWaitForTheAnswer(t *testing.T) {
	l := chapter(t, 8)
	s := New(1, l)
	for !s.Position().Reveal {
		if sk := s.SkipForward(ByStep, false); sk.Stop == StopEnd {
			t.Fatal("no prediction in chapter 8")
		}
	}
	for _, u := range []Unit{ByDecision, ByStep} {
		if sk := s.SkipForward(u, false); sk.Stop != StopReveal || sk.Moves != 0 {
			t.Fatalf("unit %d: before an unanswered reveal it moved %d and stopped with %d", u, sk.Moves, sk.Stop)
		}
	}
	left, ok := s.LeftInStep(true)
	sk := s.SkipForward(ByStep, true)
	p := s.Position()
	if sk.Stop != StopStepEnd || !p.Revealed || !p.StepDone {
		t.Fatalf("answered: } stopped with %d at %+v", sk.Stop, p)
	}
	if !ok || left != len(sk.Events) {
		t.Fatalf("LeftInStep said %d (%v), the move showed %d events", left, ok, len(sk.Events))
	}
}

// Along the kept future a move by story stops at every decision it
// stops at when played at the present — and, where one move of the
// present performed many steps (a lesson's advance), at the decisions
// within it too, since travelling can show the steps between.
func TestStoryMovesAlongTheKeptFuture(t *testing.T) {
	for _, n := range []int{2, 8, 17, 19} {
		s := New(1, chapter(t, n))
		decided := func(sk Skip) string {
			if sk.Decision == nil {
				return ""
			}
			return fmt.Sprintf("%d %s", sk.Decision.Step, sk.Decision.Text())
		}
		var present, travelling []string
		for {
			sk := s.SkipForward(ByDecision, true)
			if sk.Stop == StopEnd {
				break
			}
			if d := decided(sk); d != "" {
				present = append(present, d)
			}
		}
		end := s.Snapshot().StateJSON()
		s.Start()
		for s.Behind() || s.AtOrigin() {
			sk := s.SkipForward(ByDecision, true)
			if d := decided(sk); d != "" {
				travelling = append(travelling, d)
			}
			if sk.Moves == 0 && sk.Stop != StopEnd {
				t.Fatalf("chapter %d: travelling, ) moved nowhere (stop %d)", n, sk.Stop)
			}
		}
		if !subsequence(present, travelling) {
			t.Fatalf("chapter %d: travelling, ) stops at\n%q\nwhich misses decisions it stops at played forward\n%q", n, travelling, present)
		}
		s.End()
		if !bytes.Equal(s.Snapshot().StateJSON(), end) {
			t.Fatalf("chapter %d: the timeline changed under the moves", n)
		}
	}
}

// ( goes back to the first position that shows the previous decision, and
// never further back than the start of the lesson step unless it is there.
func TestPreviousDecision(t *testing.T) {
	for _, n := range []int{8, 17, 19, 21} {
		s := New(1, chapter(t, n))
		for s.SkipForward(ByDecision, true).Stop != StopEnd {
		}
		for press := 0; ; press++ {
			if press > 5000 {
				t.Fatalf("chapter %d: ( never reached the origin", n)
			}
			beforeEvents, beforeStep := len(s.Trace().Events()), s.Position().Step
			stop := s.SkipBack(ByDecision)
			if stop == StopOrigin {
				if !s.AtOrigin() {
					t.Fatalf("chapter %d: StopOrigin away from the origin", n)
				}
				break
			}
			if len(s.Trace().Events()) >= beforeEvents && s.Position().Step == beforeStep {
				t.Fatalf("chapter %d press %d: ( did not go back (%d events, then %d)", n, press, beforeEvents, len(s.Trace().Events()))
			}
			if stop == StopDecision {
				tr := s.Trace().Events()
				last := story.LastDecision(tr)
				if last < 0 {
					t.Fatalf("chapter %d press %d: at a decision with none shown", n, press)
				}
				// The first position that shows it: one ← earlier it is not shown.
				probe := s.copy()
				probe.Back()
				if story.LastDecision(probe.Trace().Events()) == last {
					t.Fatalf("chapter %d press %d: ( stopped after the first position showing %q", n, press, tr[last].Text())
				}
			}
			if got := s.Position().Step; got < beforeStep-1 {
				t.Fatalf("chapter %d press %d: ( jumped from lesson step %d to %d", n, press, beforeStep+1, got+1)
			}
		}
	}
}

// { goes to where the lesson step began; from there, to the previous one.
func TestStartOfStep(t *testing.T) {
	s := New(1, chapter(t, 8))
	starts := map[int][]byte{}
	for {
		r := s.Forward()
		if r.Kind == Ended {
			break
		}
		if p := s.Position(); r.Kind == Applied && p.Step >= 0 {
			if _, seen := starts[p.Step]; !seen {
				starts[p.Step] = s.Snapshot().StateJSON()
			}
		}
	}
	want := s.Position().Step
	if bytes.Equal(s.Snapshot().StateJSON(), starts[want]) && s.mark == s.stepStart(s.cur) {
		want-- // the last step ends where it began: { goes on to the one before
	}
	for ; want >= 0; want-- {
		if stop := s.SkipBack(ByStep); stop != StopStart {
			t.Fatalf("{ toward step %d stopped with %d", want+1, stop)
		}
		if got := s.Position().Step; got != want {
			t.Fatalf("{ went to step %d, want %d", got+1, want+1)
		}
		if !bytes.Equal(s.Snapshot().StateJSON(), starts[want]) {
			t.Fatalf("{ at step %d shows another world than when the step began", want+1)
		}
	}
	if stop := s.SkipBack(ByStep); stop != StopOrigin || !s.AtOrigin() {
		t.Fatalf("{ from the first step's start: stop %d, at origin %v", stop, s.AtOrigin())
	}
}

// A fork keeps the future it dropped, and ReturnToAbandoned brings it
// back exactly; the key works both ways. Random sandbox sessions.
func TestReturnToTheAbandonedFuture(t *testing.T) {
	lines := []string{"send p1 orders-0 1", "lose response p1", "restart broker 2", "pause p1", "resume p1", "advance 2s", "failover orders-1"}
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		s := New(seed, nil)
		s.Apply(mustCmd(t, "producer p1"))
		for range 5 + rng.IntN(10) {
			s.Apply(mustCmd(t, lines[rng.IntN(len(lines))]))
			for range rng.IntN(6) {
				s.Forward()
			}
		}
		s.Apply(mustCmd(t, "run"))
		old, oldSteps := s.Snapshot().StateJSON(), s.TimelineSteps()
		s.TravelTo(rng.IntN(s.TimelineSteps()))
		forkStep := s.Step()
		if _, err := s.Apply(mustCmd(t, "send p1 orders-2 1")); err != nil {
			t.Fatal(err)
		}
		s.Apply(mustCmd(t, "run"))
		mine := s.Snapshot().StateJSON()
		if at, steps, ok := s.Fork(); !ok || at != forkStep || steps != oldSteps {
			t.Fatalf("seed %d: Fork() = %d %d %v, want %d %d", seed, at, steps, ok, forkStep, oldSteps)
		}
		if !s.ReturnToAbandoned() || !s.Behind() || s.Step() != forkStep {
			t.Fatalf("seed %d: back on the old timeline at step %d (behind %v), want the fork's step %d", seed, s.Step(), s.Behind(), forkStep)
		}
		s.End()
		if !bytes.Equal(s.Snapshot().StateJSON(), old) {
			t.Fatalf("seed %d: the abandoned future is not the one left", seed)
		}
		s.ReturnToAbandoned()
		s.End()
		if !bytes.Equal(s.Snapshot().StateJSON(), mine) {
			t.Fatalf("seed %d: the way back lost the new timeline", seed)
		}
	}
}

// A challenge restarted shows the world its step began with and makes it
// the present; what the learner did there stays reachable as a fork.
func TestRestartChallenge(t *testing.T) {
	var l *lesson.Lesson
	step := -1
	for _, c := range builtin(t) {
		for i, st := range c.Steps {
			if st.Kind == lesson.Challenge && l == nil {
				l, step = c, i
			}
		}
	}
	s := New(1, l)
	s.GoToLessonStep(step)
	for s.Position().Stepping {
		s.Forward()
	}
	start := s.Snapshot().StateJSON()
	s.Apply(mustCmd(t, "advance 5s"))
	tried := s.Snapshot().StateJSON()
	if !s.RestartStep() {
		t.Fatal("RestartStep refused in a challenge")
	}
	if s.Behind() || s.Position().Step != step {
		t.Fatalf("restarted: behind %v, lesson step %d, want the present at step %d", s.Behind(), s.Position().Step+1, step+1)
	}
	s2 := New(1, l)
	s2.GoToLessonStep(step)
	if !bytes.Equal(s.Snapshot().StateJSON(), s2.Snapshot().StateJSON()) {
		t.Fatalf("the restarted challenge is not the world its step began with")
	}
	_ = start
	s.ReturnToAbandoned()
	s.End()
	if !bytes.Equal(s.Snapshot().StateJSON(), tried) {
		t.Fatal("the attempt was lost")
	}
}

// The scrub bar's landmarks: every lesson step's start, in step order, and
// the fork once made.
func TestLandmarks(t *testing.T) {
	l := chapter(t, 8)
	s := New(1, l)
	for s.Forward().Kind != Ended {
		_ = s.Landmarks() // incremental: asked at every move, as the lab does
	}
	lm := s.Landmarks()
	steps := map[int]bool{}
	last := -1
	for _, m := range lm {
		if m.Step < last {
			t.Fatalf("landmarks out of order: %+v", lm)
		}
		last = m.Step
		if m.Kind == story.MarkStep {
			steps[m.Index] = true
		}
	}
	if len(steps) != len(l.Steps) {
		t.Fatalf("%d lesson steps among the landmarks, want %d", len(steps), len(l.Steps))
	}
	var fresh Session = *s
	fresh.marksCache = landmarkCache{}
	if len(fresh.Landmarks()) != len(lm) {
		t.Fatalf("incremental landmarks (%d) differ from a fresh count (%d)", len(lm), len(fresh.Landmarks()))
	}
	s.TravelTo(10)
	s.Apply(mustCmd(t, "advance 1s"))
	found := false
	for _, m := range s.Landmarks() {
		found = found || m.Kind == story.MarkFork && m.Step == 10
	}
	if !found {
		t.Fatal("no fork landmark at step 10")
	}
}

// The status bar's "N events left" plays a copy of the session to the
// step's end at every →: it must stay far below a frame.
func BenchmarkLeftInStep(b *testing.B) {
	ls, err := lessons.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	l := ls[len(ls)-1]
	s := New(1, l)
	// The last point of the chapter with events still to come in its step.
	at := -1
	for i := 0; ; i++ {
		if p := s.Position(); p.Stepping && !p.StepDone {
			at = i
		}
		if s.Forward().Kind == Ended {
			break
		}
	}
	s = New(1, l)
	for range at {
		s.Forward()
	}
	n, ok := s.LeftInStep(true)
	if !ok || n == 0 {
		b.Fatalf("nothing left at move %d", at)
	}
	b.Logf("chapter %d, move %d, engine step %d: %d events left", l.Number, at, s.Step(), n)
	for b.Loop() {
		s.LeftInStep(true)
	}
}
