package session

import (
	"sort"

	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/story"
)

// Stepping by story. → is one engine event, and most events are
// replication traffic; a learner wants the next decision, or the end of
// the lesson step. A move by story is a run of → (or of ← / → along the
// kept future, while travelling) that stops at what matters and never
// runs past a lesson step's boundary unless that is where it was asked to
// go.

// Unit is what a move by story goes to.
type Unit uint8

const (
	ByDecision Unit = iota + 1 // the next (or previous) decision: story.Decision
	ByStep                     // the end (or start) of the lesson step
)

// Stop says why a move by story ended.
type Stop uint8

const (
	StopDecision Stop = iota + 1 // a decision was shown (Skip.Decision)
	StopStepEnd                  // the lesson step has played out
	StopNextStep                 // the next move would begin another lesson step
	StopReveal                   // the next move would reveal a prediction not answered yet
	StopEnd                      // the lesson is over, or nothing is due in the sandbox
	StopLimit                    // maxSkipMoves moves made and nothing found
	StopStart                    // backwards: the start of the lesson step
	StopOrigin                   // backwards: the start of the timeline
)

// maxSkipMoves bounds a move by story played at the present: a sandbox
// whose producers retry for ever still answers the key at once.
const maxSkipMoves = 20_000

// Skip is what a move by story did.
type Skip struct {
	Moves    int
	Events   []trace.Event // every event the moves showed, in order (shared: read only)
	Last     int           // where the last move's events begin in Events
	Stop     Stop
	Decision *trace.Event // the decision it stopped at (StopDecision)
	Commands []string     // lesson commands applied on the way
	Err      error        // the first lesson command the world refused on the way
}

// vpos is a position on the timeline without its world: mark j, or (j <
// 0) the last moment at step k, or the origin (k == origin). Moving by
// story walks vpos along the kept future and shows only where it stops,
// so that a long way costs one rewind.
type vpos struct{ j, k int }

func (s *Session) here() vpos { return vpos{s.mark, s.at} }

// vnext is the position → shows after p (forwardInTime), false at the
// present.
func (s *Session) vnext(p vpos) (vpos, bool) {
	switch {
	case p.k == origin:
		return s.firstAt(0), true
	case p.j >= 0 && p.j+1 < len(s.marks) && s.marks[p.j+1].m.Steps == p.k:
		return vpos{p.j + 1, p.k}, true
	case p.k >= s.timeline.Steps():
		return p, false
	}
	return s.firstAt(p.k + 1), true
}

// firstAt is the first position at step k: its first mark, else the step.
func (s *Session) firstAt(k int) vpos {
	j := sort.Search(len(s.marks), func(i int) bool { return s.marks[i].m.Steps >= k })
	if j < len(s.marks) && s.marks[j].m.Steps == k {
		return vpos{j, k}
	}
	return vpos{-1, k}
}

// events is how many of the timeline's events position p shows.
func (s *Session) events(p vpos) int {
	switch {
	case p.k == origin:
		return 0
	case p.j >= 0:
		return s.marks[p.j].m.Events()
	}
	tr := s.timeline.Trace()
	return sort.Search(tr.Len(), func(i int) bool { return tr.At(i).Step > p.k })
}

// cursorOf is the lesson cursor at p, whether anything was due there,
// and whether p lies inside a move that took many steps. Such a position
// (no mark: the learner saw only where the move ended) belongs to the
// move under way, whose cursor is the next mark's: the steps of a lesson
// segment's advance are that segment's.
func (s *Session) cursorOf(p vpos) (c Cursor, due, between bool) {
	switch {
	case p.k == origin:
		return Cursor{Budget: untilIdle}, true, false
	case p.j >= 0:
		return s.marks[p.j].cur, s.marks[p.j].due, false
	}
	if j := s.nextMarkAfter(p.k); j < len(s.marks) {
		return s.marks[j].cur, true, true
	}
	if j := s.nextMarkAfter(p.k) - 1; j >= 0 {
		return s.marks[j].cur, true, false
	}
	return Cursor{Budget: untilIdle}, true, false
}

// show makes p the shown position.
func (s *Session) show(p vpos) {
	if p.j >= 0 {
		s.showMark(p.j)
		return
	}
	s.travel(p.k)
}

// stepOf is the lesson step the cursor shows (-1 before the first).
func (s *Session) stepOf(c Cursor) int {
	if c.Seg == 0 || s.segs == nil {
		return -1
	}
	return s.segs[c.Seg-1].step
}

// startsReveal reports whether going from cursor a to b applies a
// prediction's reveal.
func (s *Session) startsReveal(a, b Cursor) bool {
	return b.Seg > a.Seg && s.segs[b.Seg-1].reveal && (b.Seg < 2 || !s.segs[b.Seg-2].reveal)
}

// skipRule says where a move forward stops.
type skipRule struct {
	unit     Unit
	answered bool // the shown step's prediction is answered: its reveal may be applied
	cross    bool // the first move may begin another lesson step
	limit    int
}

// SkipForward moves forward to the next decision (ByDecision) or to the
// end of the lesson step (ByStep), along the kept future while travelling
// and playing on at the present. Either stops at the end of the lesson
// step; at a step's end it goes on into the next one. It never applies a
// prediction's reveal unless answered says the learner has answered it.
func (s *Session) SkipForward(u Unit, answered bool) Skip {
	p := s.Position()
	return s.skip(skipRule{unit: u, answered: answered, cross: p.StepDone || p.Step < 0, limit: maxSkipMoves})
}

// LeftInStep is how many events remain before the shown lesson step has
// played out, found by playing a copy of the session to that end; ok is
// false outside a lesson, at a step's end, and when the way is longer than
// a move by story goes.
func (s *Session) LeftInStep(answered bool) (events int, ok bool) {
	if s.lesson == nil || s.Position().StepDone {
		return 0, false
	}
	probe := s.copy()
	sk := probe.skip(skipRule{unit: ByStep, answered: answered, limit: maxSkipMoves})
	return len(sk.Events), sk.Stop == StopStepEnd || sk.Stop == StopEnd || sk.Stop == StopReveal
}

// copy is a session that can be played on without touching this one: its
// own timeline, the slices clipped so that appends copy them.
func (s *Session) copy() *Session {
	c := *s
	tl, err := s.timeline.RewindTo(s.timeline.Moment())
	if err != nil {
		panic(err)
	}
	if s.world == s.timeline {
		c.world = tl
	}
	c.timeline = tl
	c.log = s.log[:len(s.log):len(s.log)]
	c.marks = s.marks[:len(s.marks):len(s.marks)]
	c.left = nil
	return &c
}

func (s *Session) skip(r skipRule) Skip {
	var sk Skip
	from := s.world.Trace().Len()
	start := s.stepOf(s.cur)
	last := from // trace length before the last move
	done := func() Skip {
		s.skipping = false
		s.refresh()
		tr := s.world.Trace()
		sk.Events = tr.From(min(from, tr.Len()))
		sk.Last = max(min(last-from, len(sk.Events)), 0)
		if sk.Stop == StopDecision {
			if i := story.LastDecision(sk.Events); i >= 0 {
				sk.Decision = &sk.Events[i]
			}
		}
		return sk
	}
	// May the move from cursor a to b be made? Once, when asked, into the
	// next lesson step.
	crossed := false
	blocked := func(a, b Cursor) Stop {
		switch {
		case s.segs == nil || b.Seg == a.Seg:
			return 0
		case s.stepOf(b) != s.stepOf(a) && (!r.cross || crossed):
			return StopNextStep
		case s.startsReveal(a, b) && !(r.answered && s.stepOf(b) == start):
			return StopReveal
		}
		return 0
	}
	// Did the move to cursor c (due: something is due; between: inside a
	// move of many steps) with events evs end it?
	arrived := func(c Cursor, due, between bool, evs []trace.Event) Stop {
		if r.unit == ByDecision && story.LastDecision(evs) >= 0 {
			return StopDecision
		}
		if s.segs == nil || between {
			return 0
		}
		if pos := s.positionAt(c, s.steppingAt(c, due)); pos.Done {
			return StopEnd
		} else if pos.StepDone {
			return StopStepEnd
		}
		return 0
	}

	// Along the kept future, without a world per move.
	if s.Behind() {
		p := s.here()
		pc, _, _ := s.cursorOf(p)
		for {
			q, ok := s.vnext(p)
			if !ok {
				break
			}
			qc, due, between := s.cursorOf(q)
			if stop := blocked(pc, qc); stop != 0 {
				sk.Stop = stop
				s.show(p)
				return done()
			}
			sk.Moves++
			crossed = crossed || s.stepOf(qc) != s.stepOf(pc)
			last = s.events(p)
			evs := s.timeline.Trace().Slice(last, s.events(q))
			p, pc = q, qc
			if stop := arrived(qc, due, between, evs); stop != 0 {
				sk.Stop = stop
				s.show(p)
				return done()
			}
		}
		s.show(p) // the present: play on from here
		if s.Behind() {
			s.End()
		}
	}

	// At the present, → by →.
	s.skipping = true
	for sk.Moves < r.limit {
		if !s.stepping() && s.cur.Seg < len(s.segs) {
			if stop := blocked(s.cur, Cursor{Seg: s.cur.Seg + 1}); stop != 0 {
				sk.Stop = stop
				return done()
			}
		}
		before, was := s.world.Trace().Len(), s.stepOf(s.cur)
		last = before
		res := s.Forward()
		crossed = crossed || s.stepOf(s.cur) != was
		sk.Moves++
		sk.Commands = append(sk.Commands, res.Commands...)
		if res.Err != nil && sk.Err == nil {
			sk.Err = res.Err
		}
		switch res.Kind {
		case Ended, Idle:
			sk.Stop = StopEnd
			return done()
		case Settled:
			sk.Stop = StopStepEnd
			return done()
		}
		if stop := arrived(s.cur, s.world.Due(), false, s.world.Trace().From(before)); stop != 0 {
			sk.Stop = stop
			return done()
		}
	}
	sk.Stop = StopLimit
	return done()
}

// SkipBack moves back to the previous decision (ByDecision: the first
// position that shows it) or to the start of the lesson step (ByStep). It
// stops at the start of the shown lesson step, and from there goes on to
// the previous one. It reports StopOrigin, moving nowhere, at the origin.
func (s *Session) SkipBack(u Unit) Stop {
	if s.at == origin {
		return StopOrigin
	}
	startMark := s.stepStart(s.cur)
	// At the start, or before it: inside the move that applied the step's
	// first segment (an advance of its setup, seen only when travelling).
	atStart := startMark >= 0 && !s.before(vpos{startMark, s.marks[startMark].m.Steps}, s.here())
	if atStart || startMark < 0 {
		// From a step's start, the previous step's.
		c := s.cur
		if startMark >= 0 {
			c = s.marksBefore(startMark)
		}
		startMark = s.stepStart(c)
		if startMark >= 0 && startMark == s.mark {
			startMark = -1
		}
	}
	if u == ByDecision {
		if p, ok := s.prevDecision(); ok && (startMark < 0 || s.before(vpos{startMark, s.marks[startMark].m.Steps}, p)) {
			s.show(p)
			return StopDecision
		}
	}
	if startMark >= 0 {
		s.showMark(startMark)
		return StopStart
	}
	s.travel(origin)
	return StopOrigin
}

// marksBefore is the cursor of the mark before mark j, or the origin's.
func (s *Session) marksBefore(j int) Cursor {
	if j == 0 {
		return Cursor{Budget: untilIdle}
	}
	return s.marks[j-1].cur
}

// stepStart is the mark where the lesson step of cursor c began (its
// first segment applied), or -1 (the introduction, the sandbox).
func (s *Session) stepStart(c Cursor) int {
	step := s.stepOf(c)
	if step < 0 {
		return -1
	}
	first := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].step >= step })
	for j := range s.marks {
		if s.marks[j].cur.Seg == first+1 {
			return j
		}
	}
	return -1
}

// before reports whether position a comes earlier than b on the timeline.
func (s *Session) before(a, b vpos) bool {
	if a.k != b.k {
		return a.k < b.k
	}
	switch {
	case a.j >= 0 && b.j >= 0:
		return a.j < b.j
	case b.j < 0:
		return a.j >= 0 // the marks at a step come before its last moment
	}
	return false
}

// prevDecision is the first position showing the latest decision that a
// position before the shown one already shows.
func (s *Session) prevDecision() (vpos, bool) {
	tr := s.timeline.Trace()
	// The events the position before this one shows (see Back).
	n := 0
	j := s.mark - 1
	if s.mark < 0 {
		j = s.lastMarkBefore(s.world.Moment())
	}
	switch {
	case j >= 0 && s.marks[j].m.Steps == s.at:
		n = s.marks[j].m.Events()
	case s.at > 0:
		n = s.events(vpos{-1, s.at - 1})
	}
	e := story.LastDecisionIn(tr, n)
	if e < 0 {
		return vpos{}, false
	}
	// The first position at the decision's step whose events include it.
	k := tr.At(e).Step
	for p := s.firstAt(k); p.j >= 0 && s.marks[p.j].m.Steps == k; p.j++ {
		if s.marks[p.j].m.Events() > e {
			return p, true
		}
		if p.j+1 >= len(s.marks) {
			break
		}
	}
	return vpos{-1, k}, true
}
