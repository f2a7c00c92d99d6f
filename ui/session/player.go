package session

import (
	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/lessons/lesson"
)

// untilIdle is a segment budget: step while anything is due.
const untilIdle = -1

// segment is a run of a lesson step's commands that apply together. The
// pacing commands `run` and `step N` end a segment: instead of performing
// the events at once, the learner steps through them with → and the
// budget says how many steps belong to the segment before the next one
// may apply (run: until nothing is due; step N: N). Commands with no
// pacing after them take no step, exactly as when the lesson is played
// headless: the next → applies what follows.
type segment struct {
	step   int // index of the lesson step it belongs to
	cmds   []script.Command
	budget int
	reveal bool // a prediction's reveal: applied once the learner has answered
}

// segments flattens a lesson into segments, in order. A step without
// commands still gets an (empty) segment so that → reaches its narration.
// A prediction's reveal follows its step's own commands; a challenge's
// solution is never applied by →: the learner reaches the goal.
func segments(l *lesson.Lesson) []segment {
	var out []segment
	for i, st := range l.Steps {
		out = append(out, split(i, st.Commands, false, true)...)
		if st.Kind == lesson.Predict && st.Prediction != nil {
			out = append(out, split(i, st.Prediction.Reveal, true, true)...)
		}
	}
	return out
}

// split cuts commands into segments at the pacing commands.
func split(step int, cmds []script.Command, reveal, keepEmpty bool) []segment {
	var out []segment
	cur := segment{step: step, reveal: reveal}
	open := true // cur has not been emitted yet
	for _, c := range cmds {
		switch c := c.(type) {
		case *script.Run:
			cur.budget = untilIdle
		case *script.Step:
			cur.budget = max(c.N, 1)
		default:
			cur.cmds = append(cur.cmds, c)
			open = true
			continue
		}
		out, cur = append(out, cur), segment{step: step, reveal: reveal}
		open = false
	}
	if open && (len(cur.cmds) > 0 || len(cmds) == 0 && keepEmpty) {
		out = append(out, cur)
	}
	return out
}

// Cursor is where a lesson is: the next segment to apply and how many
// steps the last applied segment still owns.
type Cursor struct {
	Seg       int
	Budget    int // untilIdle, or steps left before the next segment may apply
	StepStart int // trace length when the shown lesson step began
}

// mark remembers a moment the learner saw at the present — after a → or
// a command — with the lesson cursor that went with it, so that travelling
// in time stops there and restores the lesson position.
type mark struct {
	m   sim.Moment
	cur Cursor
	due bool // something was due then (the snapshot's Due)
}

// Position is the lesson as the learner sees it.
type Position struct {
	Step  int // index of the lesson step shown (-1: the introduction)
	Steps int // how many steps the lesson has
	// Stepping: → performs an engine step next (something is due and the
	// segment's budget allows it).
	Stepping bool
	// Next lists the commands → will apply once nothing more is due; empty
	// at the end of the lesson.
	Next []string
	// Reveal: the next segment is a prediction's reveal (ask first).
	Reveal bool
	// StepDone: the shown step's commands (and reveal) are all applied
	// and its events played out: time to check its expectations.
	StepDone bool
	// Revealed: the shown step is a prediction whose reveal was applied.
	Revealed  bool
	StepStart int  // trace index where the shown step began
	Done      bool // every segment applied and nothing due
}
