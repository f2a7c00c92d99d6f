package sim

import (
	"fmt"
	"sort"

	"github.com/eoslab/eoslab/engine/script"
)

type actionKind uint8

const (
	actApply   actionKind = iota + 1 // a command that takes no steps
	actStep                          // steps, run-length encoded: at = how many
	actAdvance                       // the start of an advance (its announcement)
	actClock                         // an idle clock move to at (the end of an advance)
	// actIdle is a step that found nothing to do within limit. It is
	// history too: looking drops spent timers, holds a paused producer's
	// items and moves the periodic tasks past boundaries where they did
	// nothing, and the world replayed must look the same way.
	actIdle
)

// action is one entry of the world's history; replaying the history on a
// fresh world with the same seed reproduces it exactly.
type action struct {
	kind  actionKind
	cmd   script.Command
	at    int64
	after int   // steps performed once this action was done
	limit int64 // actStep: the horizon the steps were taken within
}

func (w *World) record(a action) {
	a.after = w.steps
	if n := w.actions.len(); a.kind == actIdle && n > 0 && w.actions.at(n-1).kind == actIdle && w.actions.at(n-1).limit == a.limit {
		return // looking again finds the same nothing
	}
	if n := w.actions.len(); a.kind == actStep && n > 0 && w.actions.at(n-1).kind == actStep && w.actions.at(n-1).limit == a.limit {
		last := w.actions.at(n - 1)
		last.at++ // consecutive steps share one entry
		last.after = a.after
		return
	}
	if a.kind == actStep {
		a.at = 1
	}
	w.actions.append(a)
}

// Rewind returns a new world that has replayed this world's history up to
// its step-th step, including the commands given after that step and
// before the next one (time travel). The new world keeps the trace up to
// that point and can be driven on: a command applied to it starts a new
// timeline from there (a fork), leaving this world as it was.
func (w *World) Rewind(step int) (*World, error) {
	if step < 0 || step > w.steps {
		return nil, fmt.Errorf("no step %d: the world is at step %d", step, w.steps)
	}
	r := New(w.seed)
	r.quiet = true // the events are known already: share them instead of rebuilding
	for i := range w.actions.len() {
		a := *w.actions.at(i)
		if a.after > step {
			if a.kind == actStep {
				// Part of a run of steps: take the ones up to step.
				a.at -= int64(a.after - step)
				if a.at > 0 {
					r.replay(a)
				}
			}
			break
		}
		r.replay(a)
	}
	r.quiet = false
	n := sort.Search(len(w.trace), func(i int) bool { return w.trace[i].Step > step })
	r.trace = w.trace[:n:n] // shared; a later append copies
	return r, nil
}

// Moment is a point in a world's history. Several moments share a step
// count when commands were applied between two steps (a lesson's setup, a
// fault armed); a Moment tells them apart, so that travelling back goes
// to each of them and not only to the last one of a step.
type Moment struct {
	Steps   int // steps performed
	actions int // history entries, the last possibly a run of steps cut at Steps
	events  int // trace events
}

// After reports whether m comes later in the history than o.
func (m Moment) After(o Moment) bool {
	return m.actions > o.actions || m.actions == o.actions && m.Steps > o.Steps
}

// Events is how many trace events the world had at the moment.
func (m Moment) Events() int { return m.events }

// Moment is the world's present moment.
func (w *World) Moment() Moment {
	return Moment{Steps: w.steps, actions: w.actions.len(), events: len(w.trace)}
}

// RewindTo returns a new world that has replayed this world's history up
// to moment m, which must be one of its moments (see Rewind).
func (w *World) RewindTo(m Moment) (*World, error) {
	if m.Steps > w.steps || m.actions > w.actions.len() || m.events > len(w.trace) {
		return nil, fmt.Errorf("no such moment (step %d): the world is at step %d", m.Steps, w.steps)
	}
	r := New(w.seed)
	r.quiet = true
	for i := range m.actions {
		a := *w.actions.at(i)
		if a.kind == actStep && a.after > m.Steps {
			a.at -= int64(a.after - m.Steps) // the run had grown since the moment
		}
		if a.kind == actStep && a.at <= 0 {
			break
		}
		r.replay(a)
	}
	r.quiet = false
	r.trace = w.trace[:m.events:m.events]
	return r, nil
}

func (r *World) replay(a action) {
	switch a.kind {
	case actApply:
		if err := r.applyNow(a.cmd); err != nil {
			panic(fmt.Sprintf("replaying %s: %v (the history is not deterministic)", a.cmd.Verb(), err))
		}
		r.check.run(r)
	case actStep:
		for range a.at {
			r.step(a.limit)
			r.record(action{kind: actStep, limit: a.limit})
		}
		r.flush()
		return
	case actIdle:
		if _, ok := r.step(a.limit); ok {
			panic("replaying an idle step performed one (the history is not deterministic)")
		}
	case actAdvance:
		r.announceAdvance(a.at)
	case actClock:
		r.now = max(r.now, a.at)
	}
	r.record(a)
	r.flush()
}
