package sim

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

// liveRun plays commands one step at a time and keeps the state after the
// steps and commands asked for: what time travel must give back.
type liveRun struct {
	w       *World
	steps   map[int]bool   // the steps whose state is kept
	byStep  map[int][]byte // the state after step k and the commands before step k+1
	moments []Moment       // after each command
	states  map[int][]byte // the state after the commands asked for
	keep    map[int]bool
}

func newLive(w *World, steps, keep map[int]bool) *liveRun {
	l := &liveRun{w: w, steps: steps, byStep: map[int][]byte{}, states: map[int][]byte{}, keep: keep}
	l.note()
	return l
}

func (l *liveRun) note() {
	if k := l.w.Steps(); l.steps[k] {
		l.byStep[k] = l.w.Snapshot().StateJSON()
	}
}

func (l *liveRun) apply(c script.Command) {
	w := l.w
	if j, ok := w.StartJob(c); ok {
		for !j.Done() {
			before := w.Steps()
			j.Continue(1)
			if w.Steps() != before {
				l.note()
			}
		}
	} else {
		w.Apply(c)
	}
	l.note()
	if l.keep[len(l.moments)] {
		l.states[len(l.moments)] = w.Snapshot().StateJSON()
	}
	l.moments = append(l.moments, w.Moment())
}

func dense(w *World, every int) *World {
	w.ckptEvery, w.nextCkpt, w.ckptFixed = every, every, true
	return w
}

func traceText(w *World, from int) string {
	var b []byte
	for _, e := range w.Trace().Events()[from:] {
		b = append(b, e.Describe()...)
		b = append(b, '\n')
		b = e.AppendJSON(b)
		b = append(b, '\n')
	}
	return string(b)
}

// sameTrace reports whether two worlds have the same events from from on.
func sameTrace(a, b *World, from int) bool {
	ta, tb := a.Trace().Events(), b.Trace().Events()
	if len(ta) != len(tb) {
		return false
	}
	for i := from; i < len(ta); i++ {
		if !reflect.DeepEqual(ta[i], tb[i]) {
			return false
		}
	}
	return true
}

// stepsOf is how many steps the commands take.
func stepsOf(seed uint64, cmds []script.Command) int {
	w := New(seed)
	w.SetTracing(false)
	for _, c := range cmds {
		w.Apply(c)
	}
	return w.Steps()
}

// Time travel is exact at any step of any history: a world rewound to step
// k (or to any moment) is the world played forward to it, byte for byte in
// its state; played forward again with the same commands it gives the same
// trace; rewound again it is still exact; and a fork — a timeline of its
// own from a rewound world — behaves like a world given its commands from
// the start, with exact time travel of its own, leaving the original as it
// was. Checkpoints are taken every few steps here, so that replays start
// from them.
func TestTimeTravelProperty(t *testing.T) {
	sessions := 200
	if testing.Short() {
		sessions = 50
	}
	for seed := uint64(1); seed <= uint64(sessions); seed++ {
		timeTravelSession(t, seed)
	}
}

func timeTravelSession(t *testing.T, seed uint64) {
	const rounds = 4
	rng := rand.New(rand.NewPCG(seed, 77))
	cmds := randomSession(seed, 50)
	every := 3 + rng.IntN(30)
	total := stepsOf(seed, cmds)
	type pick struct{ k, k2, i int }
	picks := make([]pick, rounds)
	wantSteps, wantMoments := map[int]bool{}, map[int]bool{}
	for r := range picks {
		k := rng.IntN(total + 1)
		p := pick{k, rng.IntN(k + 1), rng.IntN(len(cmds))}
		picks[r] = p
		wantSteps[p.k], wantSteps[p.k2], wantMoments[p.i] = true, true, true
	}
	l := newLive(dense(New(seed), every), wantSteps, wantMoments)
	for _, c := range cmds {
		l.apply(c)
	}
	w := l.w
	final, finalSteps, finalTrace := w.Snapshot().StateJSON(), w.Steps(), traceText(w, 0)
	round := 0
	fail := func(format string, a ...any) {
		t.Helper()
		t.Fatalf("seed %d round %d (%d steps, a checkpoint every %d, %d in all): %s", seed, round, w.Steps(), every, len(w.ckpts), fmt.Sprintf(format, a...))
	}
	for round = range rounds {
		p := picks[round]
		// Any step, and a step of the rewound world.
		r, err := w.Rewind(p.k)
		if err != nil {
			fail("rewind %d: %v", p.k, err)
		}
		if got := r.Snapshot().StateJSON(); !bytes.Equal(got, l.byStep[p.k]) {
			fail("rewind to step %d differs from the live state\n got %s\nwant %s", p.k, got, l.byStep[p.k])
		}
		if n := len(r.Trace().Events()); n > 0 && r.Trace().Events()[n-1].Step > p.k {
			fail("the trace rewound to %d reaches step %d", p.k, r.Trace().Events()[n-1].Step)
		}
		r2, _ := r.Rewind(p.k2)
		if got := r2.Snapshot().StateJSON(); !bytes.Equal(got, l.byStep[p.k2]) {
			fail("rewind to %d, then to %d, differs from the live state", p.k, p.k2)
		}

		// Any moment, played forward with the rest of the commands.
		m := l.moments[p.i]
		f, err := w.RewindTo(m)
		if err != nil {
			fail("rewind to moment %d: %v", p.i, err)
		}
		if got := f.Snapshot().StateJSON(); !bytes.Equal(got, l.states[p.i]) {
			fail("rewind to the moment after command %d (%s) differs\n got %s\nwant %s", p.i, script.Format(cmds[p.i]), got, l.states[p.i])
		}
		for _, c := range cmds[p.i+1:] {
			f.Apply(c)
		}
		if got := f.Snapshot().StateJSON(); !bytes.Equal(got, final) {
			fail("played on from command %d, the state differs at the end", p.i)
		}
		if got, want := traceText(f, m.Events()), traceText(w, m.Events()); got != want {
			fail("played on from command %d, the trace differs", p.i)
		}

		// A fork: other commands from that moment, against a world given
		// the same commands from the start; then the fork's own time travel.
		extra := randomSession(seed+1000+uint64(p.i), 15)
		fork, _ := w.RewindTo(m)
		for _, c := range extra {
			fork.Apply(c)
		}
		all := append(append([]script.Command(nil), cmds[:p.i+1]...), extra...)
		fresh := New(seed)
		for _, c := range all {
			fresh.Apply(c)
		}
		if got, want := fork.Snapshot().StateJSON(), fresh.Snapshot().StateJSON(); !bytes.Equal(got, want) {
			fail("a fork after command %d differs from a world given its commands from the start\n got %s\nwant %s", p.i, got, want)
		}
		if !sameTrace(fork, fresh, 0) {
			fail("a fork after command %d has another trace than a world given its commands from the start", p.i)
		}
		k := rng.IntN(fork.Steps() + 1)
		ref := newLive(New(seed), map[int]bool{k: true}, nil)
		for _, c := range all {
			ref.apply(c)
		}
		if r, _ := fork.Rewind(k); !bytes.Equal(r.Snapshot().StateJSON(), ref.byStep[k]) {
			fail("the fork rewound to %d differs from a world played to that step", k)
		}

		// Clones go on like the original.
		c, d := fork.Clone(), fork.Clone()
		for _, cmd := range extra[:6] {
			c.Apply(cmd)
			d.Apply(cmd)
		}
		if !bytes.Equal(c.Snapshot().StateJSON(), d.Snapshot().StateJSON()) || !sameTrace(c, d, 0) {
			fail("two clones given the same commands differ")
		}
	}
	if !bytes.Equal(w.Snapshot().StateJSON(), final) || w.Steps() != finalSteps || traceText(w, 0) != finalTrace {
		fail("time travel changed the original world")
	}
}

// With checkpoints at their usual spacing, a long history rewinds to the
// same worlds as replaying it from the start.
func TestCheckpointedRewindEqualsFullReplay(t *testing.T) {
	n := 3*checkpointMost + 1000
	if testing.Short() {
		n = checkpointMost + 1000
	}
	w := workload(t, n)
	if len(w.ckpts) < n/checkpointMost {
		t.Fatalf("%d checkpoints in %d steps", len(w.ckpts), w.Steps())
	}
	none := w.Clone()
	none.ckpts = nil
	rng := rand.New(rand.NewPCG(5, 6))
	for range 12 {
		k := rng.IntN(w.Steps() + 1)
		a, _ := w.Rewind(k)
		b, _ := none.Rewind(k)
		if !bytes.Equal(a.Snapshot().StateJSON(), b.Snapshot().StateJSON()) {
			t.Fatalf("step %d: the world rewound from a checkpoint differs from the one replayed from the start", k)
		}
		a.Apply(&script.Step{N: 300})
		b.Apply(&script.Step{N: 300})
		if !bytes.Equal(a.Snapshot().StateJSON(), b.Snapshot().StateJSON()) || !sameTrace(a, b, 0) {
			t.Fatalf("step %d: played on 300 steps, the two differ", k)
		}
	}
}

// Checkpoints are checkpointMost steps apart in a world whose steps store
// a record or so, and closer, down to checkpointEvery, in one whose steps
// store hundreds: a seek replays fewer of its costlier steps.
func TestCheckpointSpacingFollowsRecords(t *testing.T) {
	spacing := func(w *World) (least, most int) {
		least = math.MaxInt
		for i := 1; i < len(w.ckpts); i++ {
			d := w.ckpts[i].steps - w.ckpts[i-1].steps
			least, most = min(least, d), max(most, d)
		}
		return least, most
	}
	light := workload(t, 3*checkpointMost+100)
	if least, most := spacing(light); len(light.ckpts) < 3 || least != checkpointMost || most != checkpointMost {
		t.Errorf("a record or so a step: %d checkpoints, %d to %d steps apart, want %d", len(light.ckpts), least, most, checkpointMost)
	}
	heavy := New(1)
	heavy.SetTracing(false)
	heavy.Apply(&script.Producer{Name: "a"})
	for i := 0; heavy.Steps() < 3*checkpointMost; i++ {
		heavy.Apply(&script.Send{Producer: "a", TP: script.TopicPartition{Topic: "orders", Partition: i % 3}, Count: 200})
		heavy.Apply(&script.Step{N: 40})
	}
	if least, most := spacing(heavy); len(heavy.ckpts) < 4 || least < checkpointEvery || most >= checkpointMost {
		t.Errorf("hundreds of records a step: %d checkpoints, %d to %d steps apart, want %d to %d", len(heavy.ckpts), least, most, checkpointEvery, checkpointMost-1)
	}
}
