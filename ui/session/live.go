package session

import (
	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
)

// A live session is one whose world is fed from outside — `eoslab serve`
// hands it what real clients send — so its present cannot be forked: the
// clients have seen it. Commands apply at the timeline's present even
// while the learner looks at the past, which stays shown; the moves
// forward from there walk into what happened since.

// Timeline is the newest world of the timeline: the present.
func (s *Session) Timeline() *sim.World { return s.timeline }

// ApplyLive performs c at the timeline's present (steps included) and
// records it like Apply, never forking. While the learner is behind, the
// shown world stays where it is.
func (s *Session) ApplyLive(c script.Command) ([]trace.Event, error) {
	if !s.Behind() {
		ch, err := s.Apply(c)
		return ch.Events, err
	}
	before := s.timeline.Steps()
	var evs []trace.Event
	if st, ok := c.(*script.Step); ok {
		for range max(st.N, 1) {
			e, ok := s.timeline.Step()
			if !ok {
				break
			}
			evs = append(evs, e...)
		}
	} else {
		var err error
		if evs, err = s.timeline.Apply(c); err != nil {
			return nil, err
		}
		s.log = append(s.log, Entry{Line: script.Format(c), Before: before, After: s.timeline.Steps(), moment: s.timeline.Moment()})
	}
	mk := mark{m: s.timeline.Moment(), cur: s.cur, due: s.timeline.Due()}
	if n := len(s.marks); n == 0 || s.marks[n-1] != mk {
		s.marks = append(s.marks, mk)
	}
	return evs, nil
}

// StepLive performs the timeline's next due event (ApplyLive of a step).
func (s *Session) StepLive() ([]trace.Event, bool) {
	before := s.timeline.Steps()
	evs, _ := s.ApplyLive(&script.Step{N: 1})
	return evs, s.timeline.Steps() > before
}

// Batch runs f — a round of live changes — taking the shown world's
// snapshot once at its end instead of after every change.
func (s *Session) Batch(f func()) {
	was := s.skipping
	s.skipping = true
	defer func() {
		s.skipping = was
		if !was {
			s.refresh()
		}
	}()
	f()
}

// LiveEngine is a session driven from outside (eoslab serve): every
// change happens at the timeline's present.
type LiveEngine struct{ S *Session }

func (e LiveEngine) World() *sim.World                             { return e.S.timeline }
func (e LiveEngine) Apply(c script.Command) ([]trace.Event, error) { return e.S.ApplyLive(c) }
func (e LiveEngine) Step() ([]trace.Event, bool)                   { return e.S.StepLive() }
