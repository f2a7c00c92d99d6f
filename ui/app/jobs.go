package app

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/session"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// Long work — a command that takes steps (step N, run, advance), a
// replay (the history played again on a scratch world), or a whole script
// from :load — runs a slice at a time between frames, so that the lab
// keeps drawing, says how far it got, and stops on esc (a replay stopped
// applies nothing). A slice ends after jobSliceTime.
const jobSliceTime = 12 * time.Millisecond

// jobSliceSteps is how many steps a slice asks of the engine at a time
// before it looks at the clock again.
const jobSliceSteps = 500

// runningJob is the long work in progress: the command being performed a
// slice at a time, and for :load the script's commands still to come.
type runningJob struct {
	job     *session.Job // nil between commands of a script
	line    string       // the command being performed
	startMs int64        // the clock when it began
	events  []trace.Event
	forked  int // the step a new timeline started from, or -1

	file    string // :load's file, or ""
	queue   []script.Command
	total   int // the script's commands
	applied int // those done
}

// jobMsg asks for the next slice.
type jobMsg struct{}

func nextSlice() tea.Msg { return jobMsg{} }

// startJob begins a long command and its first slice; it reports false
// for a command that is not long work, and the error of a replay the
// world refuses (nothing starts then).
func (m *Model) startJob(c script.Command) (tea.Cmd, bool, error) {
	r := &runningJob{forked: -1}
	if ok, err := m.begin(r, c); !ok {
		return nil, false, err
	}
	m.stopAutoplay()
	m.job = r
	m.setStatus(m.jobNote(r, "running")+" · esc stops it", statusbar.Warn)
	return nextSlice, true, nil
}

// startLoad plays a script in, a slice at a time.
func (m *Model) startLoad(file string, cmds []script.Command) tea.Cmd {
	m.stopAutoplay()
	m.job = &runningJob{forked: -1, file: file, queue: cmds, total: len(cmds)}
	m.setStatus(fmt.Sprintf("load %s: 0 of %d line(s) applied · esc stops it", file, len(cmds)), statusbar.Warn)
	return nextSlice
}

// begin starts c as the job's current command if it is long work: it
// takes steps, or it is a replay (which the world may refuse).
func (m *Model) begin(r *runningJob, c script.Command) (bool, error) {
	var job *session.Job
	var evs []trace.Event
	if rc, ok := c.(*script.Replay); ok {
		var err error
		if job, err = m.sess.StartReplay(rc); err != nil {
			return false, err
		}
	} else if job, evs, ok = m.sess.StartJob(c); !ok {
		return false, nil
	}
	if job.Forked >= 0 && r.forked < 0 {
		r.forked = job.Forked
	}
	r.job, r.line, r.events, r.startMs = job, script.Format(c), evs, m.sess.Snapshot().TimeMs
	return true, nil
}

// slice works on the job for about jobSliceTime and schedules the next.
func (m Model) slice() (tea.Model, tea.Cmd) {
	r := m.job
	if r == nil {
		return m, nil
	}
	start, budget := time.Now(), jobSliceTime
	if m.sliceTime > 0 {
		budget = m.sliceTime
	}
	var err error
	// At least one piece of work a slice, however slow the machine.
	for first := true; err == nil && (first || time.Since(start) < budget); first = false {
		if r.job == nil {
			if len(r.queue) == 0 {
				break
			}
			c := r.queue[0]
			r.queue = r.queue[1:]
			started, aerr := m.begin(r, c)
			if aerr == nil && !started {
				var ch session.Change
				if ch, aerr = m.sess.Apply(c); aerr == nil {
					if ch.ForkedAt >= 0 && r.forked < 0 {
						r.forked = ch.ForkedAt
					}
					r.line, r.events = script.Format(c), ch.Events
					r.applied++
				}
			}
			if aerr != nil {
				err = fmt.Errorf("%s:%s: %w", r.file, c.Position(), aerr)
				break
			}
			continue
		}
		evs, done := m.sess.Continue(r.job, jobSliceSteps)
		if len(evs) > 0 {
			r.events = evs
		}
		if done {
			if r.job.Forked >= 0 && r.forked < 0 {
				r.forked = r.job.Forked // a replay forks at its end
			}
			r.job = nil
			r.applied++
		}
	}
	if err == nil && (r.job != nil || len(r.queue) > 0) {
		m.refresh(panel.Forward)
		m.setStatus(m.jobNote(r, "running")+" · esc stops it", statusbar.Warn)
		return m, nextSlice
	}
	m.job = nil
	m.finishJob(r, err)
	m.refresh(panel.Forward)
	return persist(m, nil)
}

// finishJob says what the job did, as for any command: the status first,
// then the panels (which may say more, a challenge complete).
func (m *Model) finishJob(r *runningJob, err error) {
	switch {
	case err != nil:
		m.setStatus(fmt.Sprintf("load %s: %d of %d line(s) applied, %v", r.file, r.applied, r.total, err), statusbar.Bad)
		return
	case r.file != "":
		m.setStatus(fmt.Sprintf("loaded %s: %d of %d line(s) applied, now at step %d", r.file, r.applied, r.total, m.sess.Step()), statusbar.Plain)
	default:
		note := "applied: " + r.line
		if len(r.events) > 0 {
			note += " · " + strings.TrimPrefix(headline(r.events, m.sess.Step()), fmt.Sprintf("step %d: ", m.sess.Step()))
		}
		m.setStatus(note, statusbar.Plain)
	}
	if r.forked >= 0 {
		what := r.line
		if r.file != "" {
			what = "loaded " + r.file
		}
		m.setStatus(fmt.Sprintf("forked: a new timeline from step %d · %s", r.forked, what), statusbar.Warn)
	}
}

// stopJob ends the job in progress where it is.
func (m *Model) stopJob() {
	if m.job == nil {
		return
	}
	r := m.job
	m.job = nil
	if r.job != nil {
		m.sess.Stop(r.job)
	}
	note := m.jobNote(r, "stopped")
	if r.file != "" {
		note = fmt.Sprintf("load %s: stopped · %d of %d line(s) applied, now at step %d", r.file, r.applied, r.total, m.sess.Step())
	}
	m.setStatus(note, statusbar.Warn)
	m.refresh(panel.Forward)
}

// jobNote says how far the job got: "advance 3h: running · 1 234 step(s),
// clock at 2h00m (66% of the way) · step 80: …".
func (m *Model) jobNote(r *runningJob, what string) string {
	var note string
	if steps, of, ok := r.job.Replay(); ok {
		// A replay moves nothing until it is done: its progress is the
		// scratch world's steps against the history's.
		note = fmt.Sprintf("%s: replaying · %s step(s) of the history's %s", r.line, groupDigits(steps), groupDigits(of))
		if what == "stopped" {
			note = fmt.Sprintf("%s: stopped at %s step(s) of the history's %s · nothing applied", r.line, groupDigits(steps), groupDigits(of))
		}
	} else if r.job != nil {
		steps, deadline := r.job.Progress()
		now := m.sess.Snapshot().TimeMs
		note = fmt.Sprintf("%s: %s · %s step(s), clock at %s", r.line, what, groupDigits(steps), trace.FormatTime(now))
		if deadline > r.startMs && what == "running" {
			note += fmt.Sprintf(" (%d%% of the way)", (now-r.startMs)*100/(deadline-r.startMs))
		}
	}
	if len(r.events) > 0 {
		note += " · " + strings.TrimPrefix(headline(r.events, m.sess.Step()), fmt.Sprintf("step %d: ", m.sess.Step()))
	}
	if r.file != "" {
		note = fmt.Sprintf("load %s: %d of %d line(s) applied · ", r.file, r.applied, r.total) + strings.TrimPrefix(note, " · ")
	}
	if r.forked >= 0 {
		note = fmt.Sprintf("forked from step %d · ", r.forked) + note
	}
	return note
}

// groupDigits writes 12345 as "12 345".
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}
