package session

import (
	"fmt"
	"strings"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
)

// Change is what Apply and Load did.
type Change struct {
	Events []trace.Event
	// ForkedAt is the step a new timeline started from, or -1 when the
	// command was applied at the present. At the origin it is 0.
	ForkedAt int
}

// Apply performs one command from the command bar or a fault key. Applied
// while behind, it forks: the future is dropped and the shown world
// becomes the timeline. A command the world refuses changes nothing (and
// does not fork).
func (s *Session) Apply(c script.Command) (Change, error) {
	a := Change{ForkedAt: -1}
	if s.Behind() {
		if err := s.check(c); err != nil {
			return a, err
		}
		a.ForkedAt = max(s.at, 0)
		s.fork()
	}
	before := s.world.Steps()
	evs, err := s.apply(c)
	if err != nil {
		return a, err
	}
	if s.cur.Budget > 0 {
		// Steps the learner took by hand count against the lesson's.
		s.cur.Budget = max(s.cur.Budget-(s.world.Steps()-before), 0)
	}
	s.moved()
	a.Events = evs
	return a, nil
}

// takesSteps reports whether c is performed as steps (step, run,
// advance): such a command cannot be refused, and it may take long.
func takesSteps(c script.Command) bool {
	switch c.(type) {
	case *script.Step, *script.Run, *script.Advance:
		return true
	}
	return false
}

// check tries c on a copy of the shown world, so that a refused command
// leaves the kept future alone.
func (s *Session) check(c script.Command) error {
	if takesSteps(c) {
		return nil // steps cannot be refused
	}
	probe := sim.New(s.seed)
	if s.at != origin {
		w, err := s.timeline.RewindTo(s.world.Moment())
		if err != nil {
			return err
		}
		probe = w
	}
	probe.SetTracing(false)
	_, err := probe.Apply(c)
	return err
}

// fork makes the shown world the timeline, dropping the future: the log
// and the marks keep what the shown moment contains.
func (s *Session) fork() { s.forkAt(s.world.Moment()) }

// forkAt is fork for the shown world as it was at moment shown: a replay
// forks once it is done, when the shown world holds it already.
func (s *Session) forkAt(shown sim.Moment) {
	s.left = &branch{timeline: s.timeline, log: s.log, marks: s.marks, mark: s.mark, at: s.at, cur: s.cur}
	s.timeline = s.world
	if s.at == origin {
		s.log, s.marks, s.at, s.mark = nil, nil, 0, -1
		return
	}
	keep := 0
	for _, e := range s.log {
		// An entry applied at or before the shown moment is part of it. An
		// advance that was cut short by the rewind is dropped: its steps are
		// saved as `step N` (the clock lands where those steps put it).
		if e.moment.After(shown) {
			break
		}
		keep++
	}
	s.log = s.log[:keep:keep]
	n := s.mark + 1 // the shown position and those before it
	if s.mark < 0 {
		for n < len(s.marks) && !s.marks[n].m.After(shown) {
			n++
		}
	}
	s.marks = s.marks[:n:n]
	s.mark = n - 1
}

// apply performs c on the shown world (at the present) and logs it.
// Steps are not logged as commands: Script writes them as `step N` from
// the step counts, which replays them exactly.
func (s *Session) apply(c script.Command) ([]trace.Event, error) {
	before := s.world.Steps()
	switch c := c.(type) {
	case *script.Step:
		var out []trace.Event
		for range max(c.N, 1) {
			evs, ok := s.world.Step()
			if !ok {
				break
			}
			out = append(out, evs...)
		}
		return out, nil
	case *script.Run:
		return s.world.Run(), nil
	}
	evs, err := s.world.Apply(c)
	if err != nil {
		return nil, err
	}
	s.log = append(s.log, Entry{Line: script.Format(c), Before: before, After: s.world.Steps(), moment: s.world.Moment()})
	return evs, nil
}

// Job is a long command — step N, run, advance — that the lab performs a
// slice at a time, drawing between slices, so that it can show progress
// and stop it (sim.Job).
type Job struct {
	j      *sim.Job
	c      script.Command
	before int
	// Forked is the step a new timeline started from, or -1.
	Forked int

	// A replay forks only once it is done: stopped, it leaves the
	// session as it was, time travel included.
	replay bool
	behind bool       // it started in the timeline's past
	shown  sim.Moment // the shown world's moment then
}

// StartJob begins c when it takes steps, forking first when behind; for
// any other command it reports false and does nothing.
func (s *Session) StartJob(c script.Command) (*Job, []trace.Event, bool) {
	if !takesSteps(c) {
		return nil, nil, false
	}
	job := &Job{c: c, Forked: -1}
	if s.Behind() {
		job.Forked = max(s.at, 0)
		s.fork()
	}
	job.before = s.world.Steps()
	j, _ := s.world.StartJob(c)
	job.j = j
	return job, j.Started(), true
}

// StartReplay begins a replay (`replay NAME ...`) as a job: it plays the
// history up to the shown world again on a scratch world, a slice at a
// time. Nothing changes until it is done; then it is applied as Apply
// applies it, forking first when it was started behind. Its error (no such
// producer in this history) is Apply's, and changes nothing.
func (s *Session) StartReplay(c *script.Replay) (*Job, error) {
	j, err := s.world.StartReplay(c)
	if err != nil {
		return nil, err
	}
	return &Job{j: j, c: c, before: s.world.Steps(), Forked: -1, replay: true, behind: s.Behind(), shown: s.world.Moment()}, nil
}

// Continue performs at most maxSteps more of the job and returns their
// events, and whether it is done.
func (s *Session) Continue(job *Job, maxSteps int) ([]trace.Event, bool) {
	if job.replay {
		return s.continueReplay(job, maxSteps)
	}
	before := s.world.Steps()
	evs, done := job.j.Continue(maxSteps)
	if s.cur.Budget > 0 {
		s.cur.Budget = max(s.cur.Budget-(s.world.Steps()-before), 0)
	}
	if done {
		s.finish(job)
	}
	s.moved()
	return evs, done
}

// continueReplay is Continue for a replay: the session changes only
// when it is done.
func (s *Session) continueReplay(job *Job, maxSteps int) ([]trace.Event, bool) {
	evs, done := job.j.Continue(maxSteps)
	if !done {
		return nil, false
	}
	if job.behind {
		job.Forked = max(s.at, 0)
		s.forkAt(job.shown)
	}
	s.log = append(s.log, Entry{Line: script.Format(job.c), Before: job.before, After: s.world.Steps(), moment: s.world.Moment()})
	s.moved()
	return evs, true
}

// Stop ends the job where it is. A replay stopped leaves the session
// exactly as it was.
func (s *Session) Stop(job *Job) []trace.Event {
	if job.replay {
		return job.j.Stop()
	}
	evs := job.j.Stop()
	s.moved()
	return evs
}

// finish logs a job that ran to its end: an advance as itself (steps are
// written from the step counts).
func (s *Session) finish(job *Job) {
	if _, ok := job.c.(*script.Advance); ok {
		s.log = append(s.log, Entry{Line: script.Format(job.c), Before: job.before, After: s.world.Steps(), moment: s.world.Moment()})
	}
}

// JobSteps is how many steps the job has performed, and the clock it moves
// to (0 unless it is an advance).
func (job *Job) Progress() (steps int, deadline int64) { return job.j.Steps, job.j.Deadline() }

// Replay reports, for a replay, the steps replayed so far and the steps of
// the history it plays again; ok is false for other jobs (and no job).
func (job *Job) Replay() (steps, of int, ok bool) {
	if job == nil {
		return 0, 0, false
	}
	return job.j.Replay()
}

// Load applies a whole script (`:load`), forking first when behind. It
// stops at the first command the world refuses and reports it with its
// line; what came before stays applied.
func (s *Session) Load(file string, cmds []script.Command) (Change, error) {
	a := Change{ForkedAt: -1}
	if s.Behind() {
		a.ForkedAt = max(s.at, 0)
		s.fork()
	}
	for _, c := range cmds {
		evs, err := s.apply(c)
		a.Events = append(a.Events, evs...)
		if err != nil {
			s.moved()
			return a, fmt.Errorf("%s:%s: %w", file, c.Position(), err)
		}
	}
	s.moved()
	return a, nil
}

// Log is every command applied on the timeline up to the shown world.
func (s *Session) Log() []Entry {
	var out []Entry
	shown := s.world.Moment()
	for _, e := range s.log {
		if s.at == origin || e.moment.After(shown) {
			break
		}
		out = append(out, e)
	}
	return out
}

// Script renders the shown world's history as a script that `eoslab play
// --seed N` replays to the same state: each command in canonical form,
// and the steps between them as `step N`.
func (s *Session) Script() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# eoslab session: seed %d, %d step(s).\n", s.seed, max(s.Step(), 0))
	fmt.Fprintf(&b, "# Replay it with: eoslab play --seed %d FILE\n\n", s.seed)
	done := 0
	for _, e := range s.Log() {
		if gap := e.Before - done; gap > 0 {
			fmt.Fprintf(&b, "step %d\n", gap)
		}
		b.WriteString(e.Line + "\n")
		done = e.After
	}
	if s.at != origin {
		if gap := s.world.Steps() - done; gap > 0 {
			fmt.Fprintf(&b, "step %d\n", gap)
		}
	}
	return b.String()
}
