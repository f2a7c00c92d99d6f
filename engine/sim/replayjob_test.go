package sim

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

// labHistory is a world given seed's lab schedule for producer line.
func labHistory(seed uint64, line string) *World {
	w := New(seed)
	for _, c := range LabSchedule(seed, line, 30, LabAll) {
		w.Apply(c)
	}
	return w
}

// sameReplay compares two replays' results, the replayed worlds' states
// included.
func sameReplay(a, b *ReplayResult) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Command == b.Command && a.Producer == b.Producer && a.Steps == b.Steps && a.Errors == b.Errors &&
		a.FirstError == b.FirstError && sameAnomalies(a.Anomalies, b.Anomalies) &&
		bytes.Equal(a.Snap.StateJSON(), b.Snap.StateJSON()) && bytes.Equal(a.replayJSON(), b.replayJSON())
}

// A replay performed as a job, in slices of any size (the lab draws
// between them), does exactly what Apply does at once: the same events,
// the same result, the same world and history — and time travel through
// it gives the same worlds.
func TestReplayJobSlicesEqualWhole(t *testing.T) {
	replays := []string{"replay p1", "replay p1 acks=all", "replay p1 plain acks=1", "replay p1 max.in.flight.requests.per.connection=1"}
	for seed := uint64(1); seed <= uint64(labRuns(t, 8)); seed++ {
		for i, line := range replays {
			producer := []string{"producer p1 plain", "producer p1 acks=1", "producer p1"}[(int(seed)+i)%3]
			whole, sliced := labHistory(seed, producer), labHistory(seed, producer)
			c := mustLine(line).(*script.Replay)
			want, err := whole.Apply(c)
			if err != nil {
				t.Fatal(err)
			}
			j, err := sliced.StartReplay(c)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			slices := 0
			for !j.Done() {
				size := 1 + (slices*7+int(seed)+i)%(1+slices%40) // 1, then growing and shrinking
				if slices%5 == 4 {
					size = 1 << 20
				}
				evs, done := j.Continue(size)
				if steps, of, ok := j.Replay(); !ok || of != sliced.Steps() || steps != j.Steps {
					t.Fatalf("progress: %d of %d, ok %v, job steps %d", steps, of, ok, j.Steps)
				}
				if !done && len(evs) > 0 {
					t.Fatalf("seed %d: a replay under way said %v", seed, evs)
				}
				for _, e := range evs {
					got = append(got, e.Describe())
				}
				slices++
			}
			var wantText []string
			for _, e := range want {
				wantText = append(wantText, e.Describe())
			}
			ctx := fmt.Sprintf("seed %d, %s then %s (%d slices)", seed, producer, line, slices)
			if strings.Join(got, "\n") != strings.Join(wantText, "\n") {
				t.Fatalf("%s: events\n got %q\nwant %q", ctx, got, wantText)
			}
			if j.Steps != whole.LastReplay().Steps || !sameReplay(sliced.LastReplay(), whole.LastReplay()) {
				t.Fatalf("%s: the results differ: %+v vs %+v", ctx, sliced.LastReplay(), whole.LastReplay())
			}
			if !bytes.Equal(sliced.Snapshot().StateJSON(), whole.Snapshot().StateJSON()) || traceText(sliced, 0) != traceText(whole, 0) ||
				sliced.Moment() != whole.Moment() || !reflect.DeepEqual(sliced.inputs(), whole.inputs()) {
				t.Fatalf("%s: the worlds differ", ctx)
			}
			// The replay is history like any command: the world rewound to
			// just after it, and to just before it, is the same either way.
			m := sliced.Moment()
			applyAll(t, sliced, "run")
			applyAll(t, whole, "run")
			for _, at := range []Moment{m, {Steps: m.Steps, actions: m.actions - 1, events: m.events - len(want)}} {
				a, err := sliced.RewindTo(at)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := whole.RewindTo(at)
				if !bytes.Equal(a.Snapshot().StateJSON(), b.Snapshot().StateJSON()) || !sameReplay(a.LastReplay(), b.LastReplay()) {
					t.Fatalf("%s: rewound to %+v, the worlds differ", ctx, at)
				}
			}
		}
	}
}

// A replay stopped before its end leaves no trace: the world is exactly
// the one that never started it (the same fields, state, trace, history
// and last replay), and goes on like it — its time travel, its inputs (what
// :save writes) and a later replay included.
func TestReplayJobStoppedLeavesNoTrace(t *testing.T) {
	for seed := uint64(1); seed <= uint64(labRuns(t, 10)); seed++ {
		ref, w := labHistory(seed, "producer p1 acks=1"), labHistory(seed, "producer p1 acks=1")
		if seed%2 == 0 { // a replay already kept, which a stopped one must not replace
			applyAll(t, ref, "replay p1 plain")
			applyAll(t, w, "replay p1 plain")
		}
		if !reflect.DeepEqual(w, ref) {
			t.Fatalf("seed %d: two worlds given the same commands are not deeply equal: the comparison below proves nothing", seed)
		}
		j, err := w.StartReplay(mustLine("replay p1 acks=all").(*script.Replay))
		if err != nil {
			t.Fatal(err)
		}
		evs, done := j.Continue(1 + int(seed)%(w.Steps()/2+1))
		if done || len(evs) != 0 {
			t.Fatalf("seed %d: the replay ended in its first slice (%d steps of %d)", seed, j.Steps, w.Steps())
		}
		if evs := j.Stop(); len(evs) != 0 || !j.Done() {
			t.Fatalf("seed %d: a stopped replay said %v (done %v)", seed, evs, j.Done())
		}
		if evs, done := j.Continue(100); len(evs) != 0 || !done {
			t.Fatalf("seed %d: a stopped replay went on", seed)
		}
		if !reflect.DeepEqual(w, ref) {
			t.Fatalf("seed %d: the stopped replay changed the world", seed)
		}
		if !bytes.Equal(w.Snapshot().StateJSON(), ref.Snapshot().StateJSON()) || w.Moment() != ref.Moment() || !sameReplay(w.LastReplay(), ref.LastReplay()) {
			t.Fatalf("seed %d: the stopped replay changed the state", seed)
		}
		for _, line := range []string{"send p1 orders-0 2", "run", "replay p1"} {
			applyAll(t, w, line)
			applyAll(t, ref, line)
		}
		if !reflect.DeepEqual(w.inputs(), ref.inputs()) || traceText(w, 0) != traceText(ref, 0) || !sameReplay(w.LastReplay(), ref.LastReplay()) {
			t.Fatalf("seed %d: played on, the world differs from one that never started the replay", seed)
		}
		k := w.Steps() / 2
		a, _ := w.Rewind(k)
		b, _ := ref.Rewind(k)
		if !bytes.Equal(a.Snapshot().StateJSON(), b.Snapshot().StateJSON()) {
			t.Fatalf("seed %d: rewound to step %d, the worlds differ", seed, k)
		}
	}
}

// A replay of a producer the history does not have is refused at the
// start, with Apply's error, and changes nothing.
func TestReplayJobRefused(t *testing.T) {
	ref, w := labHistory(3, "producer p1"), labHistory(3, "producer p1")
	c := mustLine("replay nobody").(*script.Replay)
	_, aerr := ref.Apply(c)
	j, err := w.StartReplay(c)
	if j != nil || err == nil || aerr == nil || err.Error() != aerr.Error() {
		t.Fatalf("StartReplay: %v, %v; Apply: %v", j, err, aerr)
	}
	if !reflect.DeepEqual(w, ref) {
		t.Fatal("a refused replay changed the world")
	}
}

// Time travel past a `replay` keeps what it found instead of playing the
// history again: the world rewound to any step after it holds the very
// result the replay made (a replay played again would make a new one), and
// that result equals what a replay from scratch finds there.
func TestTravelPastReplayKeepsItsResult(t *testing.T) {
	w := labHistory(3, "producer p1 plain")
	if _, err := w.Apply(mustLine("replay p1")); err != nil {
		t.Fatal(err)
	}
	res := w.LastReplay()
	at := w.Steps()
	for _, line := range []string{"send p1 orders-0 2", "run"} {
		if _, err := w.Apply(mustLine(line)); err != nil {
			t.Fatal(err)
		}
	}
	if w.Steps() <= at+1 {
		t.Fatalf("the history after the replay has %d steps", w.Steps()-at)
	}
	for _, step := range []int{at, at + 1, w.Steps()} {
		r, err := w.Rewind(step)
		if err != nil {
			t.Fatal(err)
		}
		if r.LastReplay() != res {
			t.Fatalf("rewound to step %d: the replay was played again (result %p, the history's %p)", step, r.LastReplay(), res)
		}
	}
	fresh := labHistory(3, "producer p1 plain")
	if _, err := fresh.Apply(mustLine("replay p1")); err != nil {
		t.Fatal(err)
	}
	if !sameReplay(fresh.LastReplay(), res) {
		t.Fatal("the kept result differs from a replay's")
	}
	if before, err := w.Rewind(at - 1); err != nil || before.LastReplay() != nil {
		t.Fatalf("before the replay: %v, %v", before.LastReplay(), err)
	}
}
