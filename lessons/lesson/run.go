package lesson

import (
	"fmt"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
)

// Check is one evaluated predicate.
type Check struct {
	Label string // the goal's text, or the predicate as written
	OK    bool
	Got   string // what the path gave (or why it could not be read)
	Line  int
}

// ChoiceResult is one choice of a prediction, marked by the engine.
type ChoiceResult struct {
	Choice Choice
	Right  bool
	Checks []Check
}

// Evaluate checks predicates against a view.
func Evaluate(v *View, es []Expect) []Check {
	out := make([]Check, len(es))
	for i, e := range es {
		ok, got := v.Eval(e)
		out[i] = Check{Label: e.Text, OK: ok, Got: got, Line: e.Line}
	}
	return out
}

// AllOK reports whether every check holds.
func AllOK(cs []Check) bool {
	for _, c := range cs {
		if !c.OK {
			return false
		}
	}
	return true
}

// Goals evaluates a challenge's checklist.
func Goals(v *View, ch *ChallengeSpec) []Check {
	out := make([]Check, len(ch.Goals))
	for i, g := range ch.Goals {
		cs := Evaluate(v, g.When)
		out[i] = Check{Label: g.Text, OK: AllOK(cs), Line: g.Line}
		for _, c := range cs {
			if !c.OK {
				out[i].Got = c.Label + " (got " + c.Got + ")"
				break
			}
		}
	}
	return out
}

// Mark marks a prediction's choices once its reveal has run.
func Mark(v *View, p *Prediction) []ChoiceResult {
	out := make([]ChoiceResult, len(p.Choices))
	for i, c := range p.Choices {
		cs := Evaluate(v, c.When)
		out[i] = ChoiceResult{Choice: c, Right: AllOK(cs), Checks: cs}
	}
	return out
}

// StepReport is what a headless run of one step did and found.
type StepReport struct {
	Index    int
	Step     *Step
	Commands []Performed // the step's commands, then the reveal or solution
	Choices  []ChoiceResult
	Goals    []Check
	Checks   []Check
}

// Performed is one command with the events it caused.
type Performed struct {
	Command script.Command
	Events  []trace.Event
	Err     error
}

// OK reports whether the step held: every expectation and goal true, and
// for a prediction at least one choice right (a prediction no choice
// matches means the lesson no longer fits the engine).
func (r *StepReport) OK() bool {
	if !AllOK(r.Checks) || !AllOK(r.Goals) {
		return false
	}
	for _, p := range r.Commands {
		if p.Err != nil {
			return false
		}
	}
	if r.Step.Kind == Predict {
		for _, c := range r.Choices {
			if c.Right {
				return true
			}
		}
		return false
	}
	return true
}

// Player drives a lesson on a world, step by step, as the lesson screen
// and headless playback both do.
type Player struct {
	L *Lesson
	W *sim.World
}

// NewPlayer starts a lesson on a fresh world.
func NewPlayer(l *Lesson, seed uint64) *Player { return &Player{L: l, W: sim.New(seed)} }

func (p *Player) apply(cmds []script.Command) []Performed {
	var out []Performed
	for _, c := range cmds {
		evs, err := p.W.Apply(c)
		out = append(out, Performed{Command: c, Events: evs, Err: err})
	}
	return out
}

// View is the world now, with the current step beginning at trace index from.
func (p *Player) View(from int) *View {
	return NewView(p.W.Snapshot(), p.W.Trace(), from)
}

// PlayStep performs step i headless: its commands, then a prediction's
// reveal or a challenge's solution, then the checks.
func (p *Player) PlayStep(i int) StepReport {
	st := &p.L.Steps[i]
	r := StepReport{Index: i, Step: st}
	from := p.W.Trace().Len()
	r.Commands = p.apply(st.Commands)
	// A view decodes the whole state, so the step builds one at most, and
	// only if something reads it: a long lesson of narrated steps would
	// otherwise cost the square of its length.
	var v *View
	view := func() *View {
		if v == nil {
			v = p.View(from)
		}
		return v
	}
	switch st.Kind {
	case Predict:
		r.Commands = append(r.Commands, p.apply(st.Prediction.Reveal)...)
		r.Choices = Mark(view(), st.Prediction)
	case Challenge:
		r.Commands = append(r.Commands, p.apply(st.Challenge.Solution)...)
		r.Goals = Goals(view(), st.Challenge)
	}
	r.Checks = []Check{}
	if len(st.Expect) > 0 {
		r.Checks = Evaluate(view(), st.Expect)
	}
	return r
}

// PlayAll plays every step; ok is false if any step failed.
func (p *Player) PlayAll() (reports []StepReport, ok bool) {
	ok = true
	for i := range p.L.Steps {
		r := p.PlayStep(i)
		ok = ok && r.OK()
		reports = append(reports, r)
	}
	return reports, ok
}

// Failures lists what failed in a report, one line each, file:line first.
func (r *StepReport) Failures(file string) []string {
	var out []string
	for _, p := range r.Commands {
		if p.Err != nil {
			out = append(out, fmt.Sprintf("%s:%d: %s: %v", file, p.Command.Position().Line, script.Format(p.Command), p.Err))
		}
	}
	for _, c := range append(r.Checks, r.Goals...) {
		if !c.OK {
			out = append(out, fmt.Sprintf("%s:%d: expected %s, got %s", file, c.Line, c.Label, c.Got))
		}
	}
	if r.Step.Kind == Predict {
		right := false
		for _, c := range r.Choices {
			right = right || c.Right
		}
		if !right {
			out = append(out, fmt.Sprintf("%s:%d: no choice of the prediction matches what the engine did", file, r.Step.Prediction.Line))
		}
	}
	return out
}
