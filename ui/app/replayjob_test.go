package app

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/eoslab/eoslab/ui/session"
)

// longHistory is a sandbox with a transactional producer retrying into a
// cluster without brokers for 3 000 steps: a history long enough that
// replaying it takes several slices.
func longHistory(t *testing.T) Model {
	m := sandboxAt(t, 120, 40, "producer t1 transactional=tx", "run", "begin t1", "send t1 orders-0 1", "kill broker 1", "kill broker 2", "step 3000")
	m.sliceTime = time.Nanosecond // one piece of work a slice: the progress is exact
	return m
}

// startReplay types a replay into the command bar and submits it; its
// slices are not run here.
func startReplay(t *testing.T, m Model, line string) Model {
	t.Helper()
	m, _ = send(t, m, keyRunes(":"), keyRunes(line))
	next, cmd := m.Update(keyEnter)
	next, _ = next.(Model).Update(cmd())
	m = next.(Model)
	if m.job == nil {
		t.Fatalf("%s did not start as a job: %q", line, m.Status())
	}
	return m
}

// A replay of a long history runs as a job, like run and advance: the lab
// keeps drawing between slices and says how far the replay got, other keys
// wait, and esc stops it — applying nothing: the session is exactly the one
// that never started it (time travel, what :save writes, the lesson state),
// and the replay can be given again and run to its end.
func TestLongReplayRunsAsAJobAndEscCancels(t *testing.T) {
	m, ref := longHistory(t), longHistory(t)
	if !reflect.DeepEqual(m.Session(), ref.Session()) {
		t.Fatal("two sessions played alike are not deeply equal: the comparison below proves nothing")
	}
	steps := m.Session().Step()
	m = startReplay(t, m, "replay t1 transactional=tx")
	for range 2 {
		next, _ := m.Update(jobMsg{})
		m = next.(Model)
	}
	want := "replay t1 transactional=tx: replaying · 995 step(s) of the history's 3 003 · esc stops it"
	if m.job == nil || m.Status() != want {
		t.Fatalf("after two slices: job %v, status %q, want %q", m.job != nil, m.Status(), want)
	}
	golden.RequireEqual(t, []byte(m.View()))
	if view := ansi.Strip(m.View()); !strings.Contains(view, "replaying · 995 step(s) of the history's 3 003") {
		t.Fatalf("the screen does not show the progress:\n%s", view)
	}
	next, _ := m.Update(keyRunes("x")) // other keys wait
	m = next.(Model)
	if m.job == nil || m.pending != nil {
		t.Fatal("a fault key acted while the replay ran")
	}
	next, _ = m.Update(keyEsc)
	m = next.(Model)
	if m.job != nil || m.Screen() != SandboxScreen ||
		m.Status() != "replay t1 transactional=tx: stopped at 995 step(s) of the history's 3 003 · nothing applied" {
		t.Fatalf("esc: job %v, screen %d, status %q", m.job != nil, m.Screen(), m.Status())
	}
	s := m.Session()
	if s.Step() != steps || s.Snapshot().Replay != nil || s.Script() != ref.Session().Script() ||
		!bytes.Equal(s.Snapshot().StateJSON(), ref.Session().Snapshot().StateJSON()) || !reflect.DeepEqual(s, ref.Session()) {
		t.Fatalf("the stopped replay changed the session:\n%s", s.Script())
	}

	// Given again, it runs to its end: applied and logged like any command.
	m = startReplay(t, m, "replay t1 transactional=tx")
	for i := 0; m.job != nil; i++ {
		if i > 100 {
			t.Fatal("the replay never ended")
		}
		next, _ := m.Update(jobMsg{})
		m = next.(Model)
	}
	r := m.Session().Snapshot().Replay
	if r == nil || r.Steps != steps || !strings.HasPrefix(m.Status(), "applied: replay t1 transactional=tx · replayed the history from its start") ||
		!strings.HasSuffix(m.Session().Script(), "replay t1 transactional=tx\n") {
		t.Fatalf("the finished replay: %+v, status %q\n%s", r, m.Status(), m.Session().Script())
	}
}

// A replay the history cannot play (no such producer) is refused at once,
// on the command bar, and starts nothing.
func TestReplayRefusedOnTheBar(t *testing.T) {
	m := sandboxAt(t, 120, 40, "producer p1", "send p1 orders-0 1", "run")
	m = typeLine(t, m, "replay nobody")
	if m.job != nil || !strings.Contains(m.Status(), `creates no producer "nobody"`) {
		t.Fatalf("job %v, status %q", m.job != nil, m.Status())
	}
}

// The served session applies commands at its present, at once — run and
// replay included: no job is left behind (a `run` typed there once also
// started a job that was never continued, recording the run twice and
// holding every key until esc).
func TestServedCommandsApplyAtOnce(t *testing.T) {
	sess := session.New(1, nil)
	opt := testOptions(t, false)
	opt.Serve = &Served{Session: sess, Pump: func() time.Duration { return time.Hour }, Addr: "127.0.0.1:0"}
	m := newModel(t, opt, 120, 40)
	for _, line := range []string{"producer p1", "send p1 orders-0 1", "run", "replay p1"} {
		m = typeLine(t, m, line)
		if m.job != nil || !strings.HasPrefix(m.Status(), "applied: "+line) {
			t.Fatalf("%s: job %v, status %q", line, m.job != nil, m.Status())
		}
	}
	if got := strings.Count(sess.Script(), "\nrun\n") + strings.Count(sess.Script(), "step "); got > 1 || sess.Snapshot().Replay == nil || sess.Snapshot().Replay.Steps != sess.Step() {
		t.Fatalf("the served session's history:\n%s\nreplay %+v", sess.Script(), sess.Snapshot().Replay)
	}
}
