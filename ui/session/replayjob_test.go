package session

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

// replayLesson is a lesson whose history a replay plays again.
const replayLesson = `# A lost answer.

producer p1 plain acks=1

# Send, lose the answer, send again.
send p1 orders-0 2
lose response p1
run
send p1 orders-0 1
run
`

// replaySession is the lesson played to its end, then moved as where says.
func replaySession(t *testing.T, where func(*Session)) *Session {
	s := New(1, mustLesson(t, replayLesson))
	playToEnd(t, s)
	where(s)
	return s
}

// replayPlaces are where a replay is given: the present, the middle, a
// step back, and 13 positions back — between the first run's end and the
// lesson's next command, where the command's own log entry follows the
// shown moment at once — and the one before.
func replayPlaces() map[string]func(*Session) {
	places := map[string]func(*Session){
		"at the present": func(*Session) {},
		"in the middle":  func(s *Session) { s.TravelTo(s.TimelineSteps() / 2) },
	}
	for _, n := range []int{1, 13, 14} {
		places[fmt.Sprintf("%d position(s) back", n)] = func(s *Session) {
			for range n {
				s.Back()
			}
		}
	}
	return places
}

// A replay performed as a job, a step at a time, leaves the session as
// Apply does — forking when it was given in the past — and one stopped
// before its end leaves it exactly as it was: time travel, the log (what
// :save writes) and the lesson's position included.
func TestReplayJobInTheSession(t *testing.T) {
	c := mustCmd(t, "replay p1 acks=all").(*script.Replay)
	for name, where := range replayPlaces() {
		whole, sliced := replaySession(t, where), replaySession(t, where)
		if !reflect.DeepEqual(whole, sliced) {
			t.Fatalf("%s: two sessions played alike are not deeply equal: the comparisons below prove nothing", name)
		}
		if whole.Behind() != (name != "at the present") {
			t.Fatalf("%s: behind %v", name, whole.Behind())
		}
		ch, err := whole.Apply(c)
		if err != nil {
			t.Fatal(err)
		}
		job, err := sliced.StartReplay(c)
		if err != nil {
			t.Fatal(err)
		}
		var evs []byte
		slices := 0
		for done := false; !done; slices++ {
			var more []byte
			e, d := sliced.Continue(job, 1)
			for _, ev := range e {
				more = append(more, ev.Describe()+"\n"...)
			}
			evs, done = append(evs, more...), d
		}
		var want []byte
		for _, ev := range ch.Events {
			want = append(want, ev.Describe()+"\n"...)
		}
		if slices < 3 || !bytes.Equal(evs, want) || job.Forked != ch.ForkedAt {
			t.Fatalf("%s: %d slices, events %q, want %q; forked at %d, want %d", name, slices, evs, want, job.Forked, ch.ForkedAt)
		}
		if whole.Script() != sliced.Script() || whole.Behind() || sliced.Behind() || whole.TimelineSteps() != sliced.TimelineSteps() ||
			!bytes.Equal(whole.Snapshot().StateJSON(), sliced.Snapshot().StateJSON()) || !reflect.DeepEqual(whole.Position(), sliced.Position()) {
			t.Fatalf("%s: the sessions differ:\n%s\n%s", name, whole.Script(), sliced.Script())
		}
		whole.Back()
		sliced.Back()
		if !bytes.Equal(whole.Snapshot().StateJSON(), sliced.Snapshot().StateJSON()) || !reflect.DeepEqual(whole.Position(), sliced.Position()) {
			t.Fatalf("%s: one step back, the sessions differ", name)
		}

		ref, stopped := replaySession(t, where), replaySession(t, where)
		job, err = stopped.StartReplay(c)
		if err != nil {
			t.Fatal(err)
		}
		if _, done := stopped.Continue(job, 2); done {
			t.Fatalf("%s: the replay ended in its first slice", name)
		}
		if evs := stopped.Stop(job); len(evs) != 0 {
			t.Fatalf("%s: a stopped replay said %v", name, evs)
		}
		if !reflect.DeepEqual(stopped, ref) {
			t.Fatalf("%s: a stopped replay changed the session (behind %v → %v, script\n%s\nwas\n%s)", name, ref.Behind(), stopped.Behind(), stopped.Script(), ref.Script())
		}
	}
	if _, err := New(1, nil).StartReplay(c); err == nil {
		t.Fatal("a replay of an empty history was started")
	}
}
