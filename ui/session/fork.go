package session

import (
	"sort"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/story"
)

// branch is a timeline a fork left behind, kept so that one key brings it
// back: its latest world, its log and marks, and the position that was
// shown when the learner acted there.
type branch struct {
	timeline *sim.World
	log      []Entry
	marks    []mark
	mark, at int
	cur      Cursor
}

// Fork says where the current timeline branched off the one left behind
// (the step), and how many steps that abandoned future had; ok is false
// when no fork was made.
func (s *Session) Fork() (at, abandoned int, ok bool) {
	if s.left == nil {
		return 0, 0, false
	}
	return max(s.left.at, 0), s.left.timeline.Steps(), true
}

// ReturnToAbandoned swaps the current timeline with the one the last fork
// left behind and shows it where the fork was made, its future ahead (→
// redoes it, End goes to its present). The timeline left now is kept in
// turn, so the same key comes back. It reports false when there was no
// fork.
func (s *Session) ReturnToAbandoned() bool {
	b := s.left
	if b == nil {
		return false
	}
	s.left = &branch{timeline: s.timeline, log: s.log, marks: s.marks, mark: s.mark, at: s.at, cur: s.cur}
	s.timeline, s.log, s.marks = b.timeline, b.log, b.marks
	switch {
	case b.mark >= 0 && b.mark < len(b.marks):
		s.showMark(b.mark)
	default:
		s.travel(b.at)
	}
	return true
}

// RestartStep goes back to the start of the shown lesson step — its
// setup applied, nothing the learner did since — and makes it the
// present, as a challenge restarted; the future dropped is kept as a
// fork's (ReturnToAbandoned). It reports false outside a lesson step.
func (s *Session) RestartStep() bool {
	j := s.stepStart(s.cur)
	if j < 0 {
		return false
	}
	s.showMark(j)
	if s.Behind() {
		s.fork()
		s.refresh()
	}
	return true
}

// Landmarks are the timeline's named points for the scrub bar: where each
// lesson step began, faults, decisions, anomalies and the fork, in step
// order (within a step, in the order they happened).
func (s *Session) Landmarks() []story.Landmark {
	c := &s.marksCache
	tr := s.timeline.Trace()
	if c.timeline != s.timeline || c.left != s.left || c.events > tr.Len() || c.marks > len(s.marks) {
		*c = landmarkCache{timeline: s.timeline}
	}
	if c.events == tr.Len() && c.marks == len(s.marks) && c.out != nil {
		return c.out
	}
	// Lesson steps come from the marks, the rest from the trace. What is
	// new happened after everything seen before (the timeline only grows
	// at its present), so it goes at the end.
	var fresh []story.Landmark
	for j := c.marks; j < len(s.marks); j++ {
		prev := Cursor{}
		if j > 0 {
			prev = s.marks[j-1].cur
		}
		if st := s.stepOf(s.marks[j].cur); st >= 0 && st != s.stepOf(prev) {
			fresh = append(fresh, story.Landmark{Step: s.marks[j].m.Steps, Kind: story.MarkStep, Index: st})
		}
	}
	for i := c.events; i < tr.Len(); i++ {
		if e := tr.At(i); true {
			if k, ok := story.KindOf(e); ok {
				fresh = append(fresh, story.Landmark{Step: e.Step, Kind: k, Index: i})
			}
		}
	}
	sort.SliceStable(fresh, func(a, b int) bool { return fresh[a].Step < fresh[b].Step })
	out := append(c.base[:len(c.base):len(c.base)], fresh...)
	c.base, c.events, c.marks = out, tr.Len(), len(s.marks)
	c.left, c.out = s.left, out
	if at, _, ok := s.Fork(); ok {
		i := sort.Search(len(out), func(i int) bool { return out[i].Step > at })
		withFork := make([]story.Landmark, 0, len(out)+1)
		withFork = append(append(append(withFork, out[:i]...), story.Landmark{Step: at, Kind: story.MarkFork}), out[i:]...)
		c.out = withFork
	}
	return c.out
}

// landmarkCache keeps the landmarks found so far on one timeline, so that
// each refresh looks only at what is new.
type landmarkCache struct {
	timeline      *sim.World
	events, marks int
	left          *branch
	base, out     []story.Landmark
}
