package session

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/lessons/lesson"
)

func mustLesson(t *testing.T, src string) *lesson.Lesson {
	t.Helper()
	l, err := lesson.FromScript("t.eos", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return &l
}

func mustCmd(t *testing.T, line string) script.Command {
	t.Helper()
	c, err := script.ParseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const lostAck = `# A lost answer.

producer p1

# Send two records; the answer is lost.
send p1 orders-0 2
lose response p1
run
`

// playToEnd presses → until the lesson ends and returns how many presses it took.
func playToEnd(t *testing.T, s *Session) int {
	t.Helper()
	for i := 1; i < 10_000; i++ {
		if r := s.Forward(); r.Kind == Ended {
			return i
		}
	}
	t.Fatal("the lesson never ended")
	return 0
}

func TestSegmentsSplitAtPacing(t *testing.T) {
	l := mustLesson(t, "# t\n\nproducer p1\nsend p1 orders-0 1\nstep 2\nlose response p1\nrun\n\n# narration only\n")
	segs := segments(l)
	want := []struct {
		step, cmds, budget int
	}{{0, 2, 2}, {0, 1, untilIdle}}
	if len(segs) != len(want) {
		t.Fatalf("got %d segments: %+v", len(segs), segs)
	}
	for i, w := range want {
		if segs[i].step != w.step || len(segs[i].cmds) != w.cmds || segs[i].budget != w.budget {
			t.Errorf("segment %d = %+v, want %+v", i, segs[i], w)
		}
	}
}

func TestLessonPlaysStepByStepToTheDuplicate(t *testing.T) {
	s := New(1, mustLesson(t, lostAck))
	if p := s.Position(); p.Step != -1 || p.Next[0] != "producer p1" {
		t.Fatalf("start: %+v", p)
	}
	if r := s.Forward(); r.Kind != Applied || r.Commands[0] != "producer p1" {
		t.Fatalf("first → should apply the first segment: %+v", r)
	}
	if r := s.Forward(); r.Kind != Applied || r.Commands[0] != "send p1 orders-0 2" {
		t.Fatalf("with no pacing command after it, the next → applies the next step, as play does: %+v", r)
	}
	if r := s.Forward(); r.Kind != Stepped {
		t.Fatalf("after run, → steps: %+v", r)
	}
	playToEnd(t, s)
	d := s.Snapshot().LastDecision
	if d == nil || d.Str("outcome") != "duplicate" || d.Int("base_offset") != 0 {
		t.Fatalf("the retry should be recognised as a duplicate of offset 0, got %+v", d)
	}
	// The whole script, played by `play`, ends in the same state.
	w := sim.New(1)
	cmds, _ := script.Parse("t", []byte(lostAck))
	for _, c := range cmds {
		w.Apply(c)
	}
	if !bytes.Equal(w.Snapshot().StateJSON(), s.Snapshot().StateJSON()) {
		t.Fatal("stepping the lesson by hand ends elsewhere than playing the script")
	}
}

func TestBackThenForwardRedoesTheSameFuture(t *testing.T) {
	s := New(1, mustLesson(t, lostAck))
	playToEnd(t, s)
	end, endState := s.Step(), s.Snapshot().StateJSON()
	future := s.timeline
	presses := 0
	for s.Step() > end-5 {
		if !s.Back() {
			t.Fatal("cannot go back")
		}
		presses++
	}
	if s.Step() != end-5 || !s.Behind() || s.Future().Len() <= s.Trace().Len() {
		t.Fatalf("after %d × ←: step %d (end %d), behind %v", presses, s.Step(), end, s.Behind())
	}
	for range presses {
		if r := s.Forward(); r.Kind != Redone {
			t.Fatalf("→ while behind should redo, got %v", r.Kind)
		}
	}
	if s.Behind() || s.world != future || !bytes.Equal(s.Snapshot().StateJSON(), endState) {
		t.Fatal("redoing should land on the very same future world")
	}
	if r := s.Forward(); r.Kind != Ended {
		t.Fatalf("the lesson position was not restored: %v", r.Kind)
	}
}

func TestActingInThePastForks(t *testing.T) {
	s := New(1, mustLesson(t, lostAck))
	playToEnd(t, s)
	s.TravelTo(4)
	if _, err := s.Apply(mustCmd(t, "send p9 orders-0 1")); err == nil {
		t.Fatal("an unknown producer should be refused")
	}
	if !s.Behind() {
		t.Fatal("a refused command must not drop the future")
	}
	ch, err := s.Apply(mustCmd(t, "restart producer p1"))
	if err != nil || ch.ForkedAt != 4 {
		t.Fatalf("fork: %+v %v", ch, err)
	}
	if s.Behind() || s.TimelineSteps() != 4 || s.Future().Len() != 0 {
		t.Fatalf("after the fork the shown world is the timeline: behind %v, timeline %d", s.Behind(), s.TimelineSteps())
	}
	// Back in the fork, forward again: the fork's own future.
	s.Back()
	s.Forward()
	if s.Step() != 4 || s.Behind() {
		t.Fatalf("step %d behind %v", s.Step(), s.Behind())
	}
}

func TestStartIsTheOrigin(t *testing.T) {
	s := New(1, mustLesson(t, lostAck))
	playToEnd(t, s)
	s.Start()
	if !s.AtOrigin() || s.Position().Step != -1 || len(s.Snapshot().Producers) != 0 {
		t.Fatalf("start: origin %v, position %+v", s.AtOrigin(), s.Position())
	}
	if s.Back() {
		t.Fatal("nothing is before the origin")
	}
	s.End()
	if s.Behind() || s.Snapshot().LastDecision == nil {
		t.Fatal("end should be the timeline's present")
	}
}

// :save writes a script that `eoslab play` replays to the same state,
// forks and hand-taken steps included.
func TestScriptReplaysTheSession(t *testing.T) {
	s := New(7, nil)
	for _, line := range []string{"producer p1", "send p1 orders-0 2", "lose response p1", "step 3"} {
		if _, err := s.Apply(mustCmd(t, line)); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		s.Forward()
	}
	s.Back()
	s.Back()
	s.Apply(mustCmd(t, "advance 30s"))
	s.Forward()
	src := s.Script()
	if !strings.Contains(src, "step 5\nadvance 30s\n") {
		t.Fatalf("unexpected script:\n%s", src)
	}
	cmds, err := script.Parse("saved.eos", []byte(src))
	if err != nil {
		t.Fatalf("the saved script does not parse: %v\n%s", err, src)
	}
	w := sim.New(7)
	for _, c := range cmds {
		if _, err := w.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(w.Snapshot().StateJSON(), s.Snapshot().StateJSON()) || w.Steps() != s.Step() {
		t.Fatalf("replaying the saved script differs (steps %d vs %d):\n%s", w.Steps(), s.Step(), src)
	}
}

func TestLoadAppliesAScript(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "engine", "sim", "testdata", "lose-response.eos"))
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := script.Parse("lose-response.eos", src)
	if err != nil {
		t.Fatal(err)
	}
	s := New(1, nil)
	if _, err := s.Load("lose-response.eos", cmds); err != nil {
		t.Fatal(err)
	}
	if d := s.Snapshot().LastDecision; d == nil || d.Str("outcome") != "duplicate" {
		t.Fatalf("after loading: %+v", d)
	}
	bad, _ := script.Parse("bad.eos", []byte("producer p1\nsend p2 orders-0 1\n"))
	if _, err := New(1, nil).Load("bad.eos", bad); err == nil || !strings.Contains(err.Error(), "bad.eos:2:1") {
		t.Fatalf("a refused line should be reported with its position, got %v", err)
	}
}

func TestDeepLinkToALessonStep(t *testing.T) {
	s := New(1, mustLesson(t, lostAck))
	s.GoToLessonStep(1)
	if p := s.Position(); p.Step != 1 {
		t.Fatalf("position %+v", p)
	}
}

// A prediction's reveal is its own segment: → shows the question first,
// and the reveal's commands run only on the next →.
func TestPredictionRevealWaits(t *testing.T) {
	src := "---\nchapter: 9\ntitle: t\nsummary: s\n---\n\n## Send\n\n```eos\nproducer p1 plain\nsend p1 orders-0 1\nlose response p1\nstep 12\n```\n\n" +
		"## Predict\n\n```predict\n? What happens?\n- appended twice => decision.outcome == append\n- duplicate => decision.outcome == duplicate\n```\n\n```reveal\nrun\n```\n"
	l, err := lesson.Parse("t.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := New(1, l)
	for range 100 {
		if p := s.Position(); p.Reveal {
			break
		}
		s.Forward()
	}
	p := s.Position()
	if !p.Reveal || p.Step != 1 || p.Revealed || p.StepDone {
		t.Fatalf("before the reveal: %+v", p)
	}
	if d := s.Snapshot().LastDecision; d == nil || d.Str("outcome") != "append" {
		t.Fatal("only the first write should have happened")
	}
	if r := s.Forward(); r.Kind != Applied {
		t.Fatalf("→ applies the reveal: %v", r.Kind)
	}
	playToEnd(t, s)
	if p := s.Position(); !p.Revealed || !p.StepDone || p.StepStart == 0 {
		t.Fatalf("after the reveal: %+v", p)
	}
}
