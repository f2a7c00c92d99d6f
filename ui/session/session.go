// Package session drives the engine the way the lab's screens need it:
// one step or one lesson segment at a time, back and forth in time, and
// forking a new timeline when the learner acts in the past. It records
// what was applied so that a session can be saved as a script that
// `eoslab play` replays.
//
// Time travel. The session keeps the latest world of the current timeline
// (the "future" while travelling) and the world shown. ← and → move along
// the timeline's moments: one engine step at a time, and, within a step,
// through each moment the learner saw there (a lesson step's setup, a fault
// armed), so that no lesson position is skipped. A moment is shown by
// replaying the timeline's history up to it (sim.World.RewindTo), so →
// after ← redoes exactly what happened. Any command applied while behind
// drops that future: the shown world becomes the new timeline.
//
// The package has no Bubble Tea dependency; the app calls it from Update.
package session

import (
	"fmt"
	"sort"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/lessons/lesson"
)

// origin is the position before anything was applied: a fresh world.
const origin = -1

// Entry is one command applied on the timeline, with the step counts
// around it (an `advance` performs steps of its own).
type Entry struct {
	Line          string // canonical form (script.Format)
	Before, After int
	moment        sim.Moment // once it was applied
}

// Session is one run of the engine in the lab.
type Session struct {
	seed     uint64
	timeline *sim.World // the latest world of the current timeline
	world    *sim.World // the world shown; == timeline at the present
	at       int        // steps of the shown world, or origin
	mark     int        // the shown mark's index, or -1 (between marks, or the origin)
	log      []Entry
	snap     *sim.Snapshot

	segs  []segment // nil in the sandbox
	cur   Cursor
	marks []mark

	lesson *lesson.Lesson

	// skipping: a move by story is under way; the shown world's snapshot
	// is taken once at its end, not at every move.
	skipping bool
	// left is the abandoned future of the last fork, nil if none.
	left       *branch
	marksCache landmarkCache
}

// New starts a session with a fresh world. l is nil for the sandbox.
func New(seed uint64, l *lesson.Lesson) *Session {
	s := &Session{seed: seed, at: origin, mark: -1, lesson: l, cur: Cursor{Budget: untilIdle}}
	if l != nil {
		s.segs = segments(l)
	}
	s.timeline = sim.New(seed)
	s.world = s.timeline
	s.refresh()
	return s
}

// Seed is the engine seed.
func (s *Session) Seed() uint64 { return s.seed }

// Lesson is the lesson being played, nil in the sandbox.
func (s *Session) Lesson() *lesson.Lesson { return s.lesson }

// Snapshot is the shown world, taken once per change.
func (s *Session) Snapshot() *sim.Snapshot { return s.snap }

// Trace is every event up to the shown step (shared: do not modify).
func (s *Session) Trace() trace.Log { return s.world.Trace() }

// Future is, while travelling, the timeline's whole trace: its events
// after the shown step's (from Trace().Len() on) are the future. Empty in
// the present. Shared, never copied: a long timeline's frame reads it in
// place.
func (s *Session) Future() trace.Log {
	if s.world == s.timeline {
		return trace.Log{}
	}
	return s.timeline.Trace()
}

// Step is the shown world's step count.
func (s *Session) Step() int { return s.world.Steps() }

// TimelineSteps is how far the current timeline goes.
func (s *Session) TimelineSteps() int { return s.timeline.Steps() }

// Behind reports whether the shown world is in the timeline's past: an
// earlier moment, or an earlier lesson position at the present moment.
func (s *Session) Behind() bool {
	return s.world != s.timeline || s.mark >= 0 && s.mark < len(s.marks)-1
}

// AtOrigin reports whether nothing at all is applied in the shown world.
func (s *Session) AtOrigin() bool { return s.at == origin }

func (s *Session) refresh() {
	s.snap = s.world.Snapshot()
}

// Result says what a move forward did.
type Result struct {
	Kind     ResultKind
	Events   []trace.Event
	Commands []string // the commands applied (Applied)
	Err      error    // a lesson command the world refused (the rest still applied)
}

// ResultKind is what → did.
type ResultKind uint8

const (
	Stepped ResultKind = iota + 1 // performed one engine step
	Applied                       // applied the next lesson segment
	Redone                        // moved one step forward along the kept future
	Idle                          // sandbox: nothing is due
	Ended                         // lesson: nothing due and nothing left
	Settled                       // lesson: what was due had nothing to do; the segment has played out
)

// Forward performs the next step if one is due (within the lesson
// segment's budget, or freely once the lesson is over), otherwise applies
// the next lesson segment. While behind, it redoes the kept future one
// step instead.
func (s *Session) Forward() Result {
	if s.Behind() {
		s.forwardInTime()
		return Result{Kind: Redone, Events: s.eventsAt(s.Step())}
	}
	if s.stepping() {
		if evs, ok := s.world.Step(); ok {
			if s.cur.Budget > 0 {
				s.cur.Budget--
			}
			s.moved()
			return Result{Kind: Stepped, Events: evs}
		}
		// What was due turned out to have nothing to do (a paused
		// producer's items are held, spent timers dropped): the segment
		// has played out. When the next segment starts another lesson
		// step, say so rather than apply it in the same move, so that this
		// step's end — a prediction's marks, the checks — is shown first.
		// (Looking is history, and what the learner now sees — nothing due,
		// the step played out — is a position of its own.)
		s.moved()
		if n := s.cur.Seg; n > 0 && n < len(s.segs) && s.segs[n].step != s.segs[n-1].step && !s.world.Due() {
			return Result{Kind: Settled}
		}
	}
	if s.cur.Seg < len(s.segs) {
		return s.applySegment()
	}
	if s.segs == nil {
		return Result{Kind: Idle}
	}
	return Result{Kind: Ended}
}

// stepping reports whether → performs an engine step next.
func (s *Session) stepping() bool { return s.steppingAt(s.cur, s.world.Due()) }

// steppingAt is stepping for cursor cur when due says whether anything is
// due.
func (s *Session) steppingAt(cur Cursor, due bool) bool {
	return due && (cur.Budget != 0 || cur.Seg >= len(s.segs))
}

func (s *Session) applySegment() Result {
	seg := s.segs[s.cur.Seg]
	start := s.cur.StepStart
	if s.cur.Seg == 0 || s.segs[s.cur.Seg-1].step != seg.step {
		start = s.world.Trace().Len()
	}
	r := Result{Kind: Applied}
	for _, c := range seg.cmds {
		evs, err := s.apply(c)
		r.Events = append(r.Events, evs...)
		r.Commands = append(r.Commands, script.Format(c))
		if err != nil && r.Err == nil {
			r.Err = fmt.Errorf("%s: %w", script.Format(c), err)
		}
	}
	s.cur = Cursor{Seg: s.cur.Seg + 1, Budget: seg.budget, StepStart: start}
	s.moved()
	return r
}

// moved records the position after a change at the present.
func (s *Session) moved() {
	s.at = s.world.Steps()
	if !s.skipping {
		s.refresh()
	}
	mk := mark{m: s.world.Moment(), cur: s.cur, due: s.world.Due()}
	if n := len(s.marks); n == 0 || s.marks[n-1] != mk {
		// A lesson position the learner sees is a position even when the
		// world did not change (a prediction's question after a step's end).
		s.marks = append(s.marks, mk)
	}
	s.mark = len(s.marks) - 1
}

// eventsAt returns the shown trace's events of step k.
func (s *Session) eventsAt(k int) []trace.Event {
	tr := s.world.Trace()
	i := tr.Len()
	for i > 0 && tr.At(i-1).Step == k {
		i--
	}
	return tr.From(i)
}

// Back goes back one position: to the one before it at the same step (a
// lesson step's setup, a fault armed — each position the learner saw), or
// else to the last one of the step before (from step 0, to the origin).
// It reports false when there is nowhere to go.
func (s *Session) Back() bool {
	if s.at == origin {
		return false
	}
	j := s.mark - 1
	if s.mark < 0 {
		j = s.lastMarkBefore(s.world.Moment())
	}
	if j >= 0 && s.marks[j].m.Steps == s.at {
		s.showMark(j)
		return true
	}
	if s.at == 0 {
		if s.mark < 0 && s.world.Moment() == (sim.Moment{}) {
			return false // step 0 with nothing applied and no position seen is the origin
		}
		s.travel(origin)
		return true
	}
	s.travel(s.at - 1)
	return true
}

// forwardInTime redoes the kept future one position: the next one at the
// same step, or else the first one of the next step.
func (s *Session) forwardInTime() {
	next := s.at + 1
	switch {
	case s.at == origin:
		next = 0
	case s.mark >= 0 && s.mark+1 < len(s.marks) && s.marks[s.mark+1].m.Steps == s.at:
		s.showMark(s.mark + 1)
		return
	}
	for j := range s.marks {
		if s.marks[j].m.Steps == next {
			s.showMark(j)
			return
		}
	}
	s.travel(next)
}

// lastMarkBefore is the index of the latest mark earlier than m, or -1.
func (s *Session) lastMarkBefore(m sim.Moment) int {
	for j := len(s.marks) - 1; j >= 0; j-- {
		if m.After(s.marks[j].m) {
			return j
		}
	}
	return -1
}

// Start travels to the origin; End to the timeline's last step.
func (s *Session) Start() { s.travel(origin) }

// End travels to the present of the timeline.
func (s *Session) End() { s.travel(s.timeline.Steps()) }

// TravelTo shows the timeline at step k (clamped to the timeline): its
// last moment there.
func (s *Session) TravelTo(k int) { s.travel(min(max(k, 0), s.timeline.Steps())) }

// travel shows the last moment at step k (or the origin).
func (s *Session) travel(k int) {
	switch {
	case k == origin:
		s.world, s.mark = sim.New(s.seed), -1
	case k >= s.timeline.Steps():
		k = s.timeline.Steps()
		s.world, s.mark = s.timeline, -1
		if n := len(s.marks); n > 0 && s.marks[n-1].m == s.timeline.Moment() {
			s.mark = n - 1
		}
	default:
		w, err := s.timeline.Rewind(k)
		if err != nil {
			panic(fmt.Sprintf("rewinding to step %d of %d: %v", k, s.timeline.Steps(), err))
		}
		s.world, s.mark = w, -1
		for j := len(s.marks) - 1; j >= 0 && !w.Moment().After(s.marks[j].m); j-- {
			if s.marks[j].m == w.Moment() {
				s.mark = j // the last position at that moment
				break
			}
		}
	}
	s.at = k
	s.cur = s.cursorAt(k)
	s.refresh()
}

// showMark shows the moment of mark j.
func (s *Session) showMark(j int) {
	if s.marks[j].m == s.timeline.Moment() {
		s.world = s.timeline
	} else {
		w, err := s.timeline.RewindTo(s.marks[j].m)
		if err != nil {
			panic(fmt.Sprintf("rewinding to a moment at step %d: %v", s.marks[j].m.Steps, err))
		}
		s.world = w
	}
	s.mark, s.at, s.cur = j, s.marks[j].m.Steps, s.marks[j].cur
	s.refresh()
}

// cursorAt is the lesson cursor that went with the shown world: its
// mark's, or else the last one recorded before it.
func (s *Session) cursorAt(k int) Cursor {
	if k == origin {
		return Cursor{Budget: untilIdle}
	}
	if s.mark >= 0 {
		return s.marks[s.mark].cur
	}
	c, _, _ := s.cursorOf(vpos{-1, k})
	return c
}

// between reports whether the shown world is not a position the learner
// saw but one inside a move that took many steps (a lesson segment's
// advance, a long command), seen only when travelling.
func (s *Session) between() bool {
	return s.mark < 0 && s.at != origin && s.nextMarkAfter(s.at) < len(s.marks)
}

// nextMarkAfter is the index of the first mark later than step k, or
// len(s.marks).
func (s *Session) nextMarkAfter(k int) int {
	return sort.Search(len(s.marks), func(i int) bool { return s.marks[i].m.Steps > k })
}

// Position describes the lesson position; the zero Position in the sandbox.
func (s *Session) Position() Position {
	p := s.positionAt(s.cur, s.stepping())
	if s.between() {
		p.StepDone, p.Done = false, false // a move was under way
	}
	return p
}

// positionAt is the lesson position of cursor cur, with stepping saying
// whether → performs an engine step there.
func (s *Session) positionAt(cur Cursor, stepping bool) Position {
	if s.lesson == nil {
		return Position{Step: -1, Stepping: stepping}
	}
	p := Position{Step: -1, Steps: len(s.lesson.Steps), Stepping: stepping, StepStart: cur.StepStart}
	if cur.Seg > 0 {
		last := s.segs[cur.Seg-1]
		p.Step, p.Revealed = last.step, last.reveal
	}
	if cur.Seg < len(s.segs) {
		next := s.segs[cur.Seg]
		for _, c := range next.cmds {
			p.Next = append(p.Next, script.Format(c))
		}
		if len(p.Next) == 0 {
			p.Next = []string{"(narration only)"}
		}
		p.Reveal = next.reveal && (cur.Seg == 0 || !s.segs[cur.Seg-1].reveal)
		p.StepDone = next.step != p.Step && !stepping
	} else {
		p.Done = !stepping
		p.StepDone = p.Done
	}
	return p
}

// GoToLessonStep moves forward until lesson step k (0-based) has been
// applied, for deep links. It stops at the end of the lesson.
func (s *Session) GoToLessonStep(k int) {
	for range 1_000_000 {
		if p := s.Position(); p.Step >= k || p.Done {
			return
		}
		if r := s.Forward(); r.Kind == Ended || r.Kind == Idle {
			return
		}
	}
}
