package serve

import (
	"fmt"
	"strings"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
)

// Recorder drives a world and remembers every command applied to it, so
// that a headless session can be written as a script that `eoslab play`
// replays to the same world (the lab's session does the same for :save).
type Recorder struct {
	w     *sim.World
	lines []recorded
}

type recorded struct {
	line          string
	before, after int
}

// NewRecorder records what is applied to w from now on; w must be fresh.
func NewRecorder(w *sim.World) *Recorder { return &Recorder{w: w} }

func (r *Recorder) World() *sim.World { return r.w }

func (r *Recorder) Apply(c script.Command) ([]trace.Event, error) {
	before := r.w.Steps()
	evs, err := r.w.Apply(c)
	if err == nil {
		r.lines = append(r.lines, recorded{script.Format(c), before, r.w.Steps()})
	}
	return evs, err
}

func (r *Recorder) Step() ([]trace.Event, bool) { return r.w.Step() }

// Script renders the session as a script: each command in canonical form
// and the steps between them as `step N`.
func (r *Recorder) Script() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# eoslab serve session: seed %d, %d step(s).\n", r.w.Seed(), r.w.Steps())
	fmt.Fprintf(&b, "# Replay it with: eoslab play --seed %d FILE\n\n", r.w.Seed())
	done := 0
	for _, l := range r.lines {
		if gap := l.before - done; gap > 0 {
			fmt.Fprintf(&b, "step %d\n", gap)
		}
		b.WriteString(l.line + "\n")
		done = l.after
	}
	if gap := r.w.Steps() - done; gap > 0 {
		fmt.Fprintf(&b, "step %d\n", gap)
	}
	return b.String()
}
