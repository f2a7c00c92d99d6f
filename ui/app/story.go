package app

import (
	"fmt"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/session"
	"github.com/eoslab/eoslab/ui/story"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// skipForward is ) and }.
func (m *Model) skipForward(u session.Unit) {
	if u == session.ByStep && m.screen != LessonScreen {
		m.setStatus("the sandbox has no lesson steps: ) and ( move by decision", statusbar.Plain)
		return
	}
	wasBehind := m.sess.Behind()
	sk := m.sess.SkipForward(u, m.answeredShown())
	if len(sk.Commands) > 0 && m.screen == LessonScreen {
		m.learn.unsaved = true // a new lesson step: remember it
	}
	motion := panel.Forward
	if wasBehind || sk.Moves > 1 {
		motion = panel.Jump
	}
	m.refresh(motion)
	pos := m.sess.Position()
	note := ""
	tone := statusbar.Plain
	switch sk.Stop {
	case session.StopDecision:
		note = fmt.Sprintf("step %d: %s", sk.Decision.Step, sk.Decision.Text())
	case session.StopStepEnd:
		note = m.stepEndNote(pos)
	case session.StopNextStep:
		note = fmt.Sprintf("the end of step %d/%d · } or → begins the next one", pos.Step+1, pos.Steps)
	case session.StopReveal:
		note, tone = "a prediction: answer it first (1-9) · → reveals it unanswered", statusbar.Warn
	case session.StopEnd:
		if m.screen == LessonScreen {
			note, tone = m.endNote()
		} else {
			note = "nothing is due: press : and give a command (e.g. send p1 orders-0 2)"
		}
	case session.StopLimit:
		note, tone = fmt.Sprintf("no decision in %d moves (something retries for ever?) · press again to go on", sk.Moves), statusbar.Warn
	}
	if sk.Err != nil {
		note, tone = sk.Err.Error(), statusbar.Bad
	}
	m.setStatus(m.withLeft(note, sk.Stop), tone)
}

// skipBack is ( and {.
func (m *Model) skipBack(u session.Unit) {
	if u == session.ByStep && m.screen != LessonScreen {
		m.setStatus("the sandbox has no lesson steps: ( and ) move by decision", statusbar.Plain)
		return
	}
	stop := m.sess.SkipBack(u)
	m.refresh(panel.Jump)
	pos := m.sess.Position()
	switch stop {
	case session.StopDecision:
		tr := m.sess.Trace()
		note := fmt.Sprintf("back at step %d", m.sess.Step())
		for _, e := range tr.Backward() {
			if story.Decision(e) {
				note = fmt.Sprintf("back at the decision of step %d: %s", e.Step, e.Text())
				break
			}
		}
		m.setStatus(note+" · → redoes, acting here forks", statusbar.Plain)
	case session.StopStart:
		m.setStatus(fmt.Sprintf("the start of step %d/%d · } plays it to its end", pos.Step+1, pos.Steps), statusbar.Plain)
	case session.StopOrigin:
		m.setStatus("the start of the timeline: nothing applied yet (→ redoes, End returns)", statusbar.Plain)
	}
}

// withLeft adds how much of the lesson step remains, where it is worth
// saying: in a lesson, not at the step's end.
func (m *Model) withLeft(note string, stop session.Stop) string {
	if m.screen != LessonScreen || stop == session.StopStepEnd || stop == session.StopEnd || stop == session.StopReveal {
		return note
	}
	if n, ok := m.sess.LeftInStep(m.answeredShown()); ok && n > 0 {
		return fmt.Sprintf("%d event(s) left in this step (}) · %s", n, note)
	}
	return note
}

// answeredShown reports whether the shown step's prediction has an
// answer (so that moving on may reveal it).
func (m *Model) answeredShown() bool {
	if m.screen != LessonScreen {
		return false
	}
	pos := m.sess.Position()
	return pos.Step >= 0 && m.answers[pos.Step] != 0
}

// stepEndNote says a lesson step has played out, and how its checks went.
func (m *Model) stepEndNote(pos session.Position) string {
	if pos.Step < 0 {
		return "the introduction · → begins the first step"
	}
	st := &m.lessons[m.lessonIdx].Steps[pos.Step]
	note := fmt.Sprintf("the end of step %d/%d", pos.Step+1, pos.Steps)
	if st.Kind == lesson.Challenge && !m.learn.complete[pos.Step] {
		return note + ": the challenge is yours — : gives commands, H a hint"
	}
	if pos.Revealed {
		note += ": the engine has marked the prediction"
	}
	if pos.Done {
		return note
	}
	return note + " · } goes on to the next step"
}

// endNote is what the lesson's end says: ✓ only when every challenge of
// the chapter was solved.
func (m *Model) endNote() (string, statusbar.Tone) {
	if open := m.openChallenges(); len(open) > 0 {
		return fmt.Sprintf("the end of this chapter, but the challenge of step %d is not solved · { goes back, C restarts it", open[0]+1), statusbar.Warn
	}
	return "✓ the end of this chapter" + m.nextChapterOffer(), statusbar.Plain
}

// openChallenges are the lesson's challenge steps not solved in this run
// (0-based), in order.
func (m *Model) openChallenges() []int {
	var out []int
	for i, st := range m.lessons[m.lessonIdx].Steps {
		if st.Kind == lesson.Challenge && !m.learn.complete[i] {
			out = append(out, i)
		}
	}
	return out
}

// returnToAbandoned is u.
func (m *Model) returnToAbandoned() {
	if !m.sess.ReturnToAbandoned() {
		m.setStatus("no fork to return to: acting while back in time makes one", statusbar.Plain)
		return
	}
	m.refresh(panel.Jump)
	m.setStatus(fmt.Sprintf("back on the timeline left at step %d: %d step(s) ahead · → redoes, End goes to its present, u returns",
		m.sess.Step(), m.sess.TimelineSteps()-m.sess.Step()), statusbar.Plain)
}

// restartChallenge is C.
func (m *Model) restartChallenge() {
	ch, step := m.challenge()
	if ch == nil {
		m.setStatus("nothing to restart: C restarts a challenge step", statusbar.Plain)
		return
	}
	m.sess.RestartStep()
	m.learn.complete[step] = false
	m.refresh(panel.Jump)
	m.setStatus(fmt.Sprintf("the challenge of step %d starts again from its setup · u brings back what you did", step+1), statusbar.Plain)
}

// toggleReplication is f.
func (m *Model) toggleReplication() {
	m.showReplication = !m.showReplication
	m.refresh(panel.Same)
	if m.showReplication {
		m.setStatus("the timeline shows replication: every follower Fetch and copy (f folds them)", statusbar.Plain)
		return
	}
	m.setStatus("the timeline folds replication into one line per run (f shows it)", statusbar.Plain)
}
