package app

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/screen/home"
	"github.com/eoslab/eoslab/ui/screen/inspect"
	lessonscreen "github.com/eoslab/eoslab/ui/screen/lesson"
	"github.com/eoslab/eoslab/ui/screen/sandbox"
	"github.com/eoslab/eoslab/ui/session"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// Autoplay's pace, in moves per second, stays within these bounds.
const (
	slowestRate = 0.25
	fastestRate = 50
)

// interval is the time between two autoplay moves.
func (m *Model) interval() time.Duration {
	return time.Duration(float64(time.Second) / m.rate).Round(time.Millisecond)
}

// pace names the autoplay rate for the status bar.
func (m *Model) pace() string { return fmt.Sprintf("%g/s", m.rate) }

// autoplayMsg is one tick of autoplay generation gen.
type autoplayMsg struct{ gen int }

// openLesson starts chapter i afresh, moving on to lesson step `step`
// (0-based; -1 for the introduction).
func (m *Model) openLesson(i, step int) {
	l := m.lessons[i]
	m.lessonIdx, m.lessonSess = i, session.New(m.opt.Seed, l)
	m.answers = map[int]int{}
	if step >= 0 {
		m.lessonSess.GoToLessonStep(step)
	}
	m.resumeLesson()
	m.setStatus(fmt.Sprintf("chapter %d: → moves on, ← goes back, ? lists every key", l.Number), statusbar.Plain)
}

// resumeLesson brings back the kept lesson session.
func (m *Model) resumeLesson() {
	m.stopAutoplay()
	m.focusPartition, m.focusProducer = "", ""
	m.lesson = lessonscreen.New(m.st, m.keys, m.md, m.lessons[m.lessonIdx])
	m.screen, m.sess = LessonScreen, m.lessonSess
	m.layout()
	m.refresh(panel.Jump)
}

func (m *Model) openSandbox() {
	m.stopAutoplay()
	if m.boxSess == nil {
		m.boxSess = session.New(m.opt.Seed, nil)
	}
	m.focusPartition, m.focusProducer = "", ""
	m.sandbox = sandbox.New(m.st, m.keys)
	m.screen, m.sess = SandboxScreen, m.boxSess
	m.layout()
	m.refresh(panel.Jump)
	m.setStatus("sandbox: a fresh cluster of 3 brokers, topic orders with 3 partitions", statusbar.Plain)
}

func (m *Model) newInspect() inspect.Model {
	in := inspect.New(m.st, m.keys, []inspect.File{*m.opt.Sample})
	in.SetSize(m.w, m.bodyHeight())
	return in
}

// forward is → : one step, one lesson segment, or a redo while behind.
func (m *Model) forward() session.Result {
	r := m.sess.Forward()
	switch r.Kind {
	case session.Stepped, session.Redone:
		m.setStatus(headline(r.Events, m.sess.Step()), statusbar.Plain)
	case session.Applied:
		m.setStatus("applied: "+strings.Join(r.Commands, " · "), statusbar.Plain)
		if r.Err != nil {
			m.setStatus(r.Err.Error(), statusbar.Bad)
		}
	case session.Idle:
		m.setStatus("nothing is due: press : and give a command (e.g. send p1 orders-0 2)", statusbar.Plain)
	case session.Ended:
		m.setStatus("✓ the end of this chapter", statusbar.Plain)
	}
	m.refresh(panel.Forward)
	return r
}

// headline picks the event that matters most in a step for the status
// bar: a broker's decision, a loss, an anomaly, an acknowledgement.
func headline(evs []trace.Event, step int) string {
	if len(evs) == 0 {
		return fmt.Sprintf("step %d", step)
	}
	best := 0
	rank := func(k trace.Kind) int {
		switch k {
		case "anomaly":
			return 5
		case "produce.decision":
			return 4
		case "message.lost", "leader.change", "producer.epoch_bump":
			return 3
		case "producer.ack", "producer.retry", "producer.fail":
			return 2
		}
		return 1
	}
	for i, e := range evs {
		if rank(e.Kind) > rank(evs[best].Kind) {
			best = i
		}
	}
	return fmt.Sprintf("step %d: %s", evs[best].Step, evs[best].Text)
}

func (m *Model) travelNote() string {
	switch {
	case m.sess.AtOrigin():
		return "the start of the timeline"
	case m.sess.Behind():
		return fmt.Sprintf("back at step %d of %d: → redoes, acting here forks a new timeline", m.sess.Step(), m.sess.TimelineSteps())
	}
	return fmt.Sprintf("step %d: the present", m.sess.Step())
}

func (m *Model) setStatus(s string, t statusbar.Tone) { m.status, m.tone = s, t }

// refresh hands the session's new frame to the screen in front.
func (m *Model) refresh(motion panel.Motion) {
	if m.sess == nil {
		return
	}
	snap := m.sess.Snapshot()
	m.shownPartition, m.shownProducer = m.autoFocus()
	d := panel.Data{Snap: snap, Trace: m.sess.Trace(), Future: m.sess.Future(),
		Partition: m.shownPartition, Producer: m.shownProducer, Motion: motion}
	switch m.screen {
	case LessonScreen:
		pos := m.sess.Position()
		m.lesson.SetData(d, pos, m.sess.Behind(), m.prompt(pos))
		if pos.Done && !m.done[m.lessonIdx] {
			m.done[m.lessonIdx] = true
			m.updateHome()
		}
	case SandboxScreen:
		m.sandbox.SetData(d, m.sess.Behind())
	}
	m.cmdbar.SetNames(m.names())
}

// prompt evaluates what the shown lesson step asks — a prediction's
// choices once revealed, a challenge's goals, the step's expectations
// once played out — against the engine's state. The lesson's own
// predicates decide; the UI only shows their answers.
func (m *Model) prompt(pos session.Position) lessonscreen.Prompt {
	var p lessonscreen.Prompt
	if pos.Step < 0 {
		return p
	}
	st := &m.lessons[m.lessonIdx].Steps[pos.Step]
	var view *lesson.View
	viewOf := func() *lesson.View {
		if view == nil {
			view = lesson.NewView(m.sess.Snapshot(), m.sess.Trace(), pos.StepStart)
		}
		return view
	}
	if pr := st.Prediction; st.Kind == lesson.Predict && pr != nil {
		p.Question, p.Chosen = pr.Question, m.answers[pos.Step]
		for _, c := range pr.Choices {
			p.Choices = append(p.Choices, c.Text)
		}
		if pos.Revealed && pos.StepDone {
			for _, r := range lesson.Mark(viewOf(), pr) {
				p.Marked = append(p.Marked, r.Right)
			}
		}
	}
	if st.Kind == lesson.Challenge && st.Challenge != nil {
		p.Goals = lesson.Goals(viewOf(), st.Challenge)
	}
	if pos.StepDone && len(st.Expect) > 0 {
		p.Checks = lesson.Evaluate(viewOf(), st.Expect)
	}
	return p
}

// answer records the learner's prediction for the shown step.
func (m *Model) answer(k string) bool {
	pos := m.sess.Position()
	if m.screen != LessonScreen || pos.Step < 0 || pos.Revealed {
		return false
	}
	pr := m.lessons[m.lessonIdx].Steps[pos.Step].Prediction
	n := int(k[0] - '0')
	if pr == nil || n < 1 || n > len(pr.Choices) {
		return false
	}
	m.answers[pos.Step] = n
	m.setStatus(fmt.Sprintf("your answer: %d · → reveals what the engine does", n), statusbar.Plain)
	m.refresh(panel.Same)
	return true
}

// autoFocus is the partition and producer the panels follow: the
// learner's choice, else where the latest decision or send happened.
func (m *Model) autoFocus() (string, string) {
	snap := m.sess.Snapshot()
	part, prod := m.focusPartition, m.focusProducer
	if part == "" || prod == "" {
		tr := m.sess.Trace()
		for i := len(tr) - 1; i >= 0 && (part == "" || prod == ""); i-- {
			e := &tr[i]
			if e.Kind != "produce.decision" && e.Kind != "producer.enqueue" {
				continue
			}
			if part == "" {
				part = e.Str("partition")
			}
			if prod == "" && e.Str("producer") != "inject" {
				prod = e.Str("producer")
			}
		}
	}
	if part == "" && len(snap.Partitions) > 0 {
		part = snap.Partitions[0].Name
	}
	if prod == "" && len(snap.Producers) > 0 {
		prod = snap.Producers[len(snap.Producers)-1].Name
	}
	return part, prod
}

// names are what the command bar completes after a verb.
func (m *Model) names() []string {
	snap := m.sess.Snapshot()
	var out []string
	for _, p := range snap.Producers {
		out = append(out, p.Name)
	}
	for _, p := range snap.Partitions {
		out = append(out, p.Name)
	}
	for _, b := range snap.Brokers {
		out = append(out, fmt.Sprint(b.ID))
	}
	return out
}

func (m *Model) cyclePartition(d int) {
	parts := m.sess.Snapshot().Partitions
	if len(parts) == 0 {
		return
	}
	i := 0
	for k, p := range parts {
		if p.Name == m.shownPartition {
			i = k
		}
	}
	m.focusPartition = parts[(i+d+len(parts))%len(parts)].Name
	m.setStatus("partition in focus: "+m.focusPartition, statusbar.Plain)
	m.refresh(panel.Same)
}

func (m *Model) cycleProducer() {
	ps := m.sess.Snapshot().Producers
	if len(ps) == 0 {
		m.setStatus("no producer yet", statusbar.Plain)
		return
	}
	i := -1
	for k, p := range ps {
		if p.Name == m.shownProducer {
			i = k
		}
	}
	m.focusProducer = ps[(i+1)%len(ps)].Name
	m.setStatus("producer in focus: "+m.focusProducer+" (fault keys act on it)", statusbar.Plain)
	m.refresh(panel.Same)
}

func (m *Model) toggleAutoplay() tea.Cmd {
	if m.autoplay {
		m.stopAutoplay()
		m.setStatus("autoplay off", statusbar.Plain)
		return nil
	}
	m.autoplay = true
	m.gen++
	m.setStatus("autoplay on: "+m.pace()+" (+/- to change, p to stop)", statusbar.Plain)
	return tick(m.gen, m.interval())
}

func (m *Model) stopAutoplay() {
	m.autoplay = false
	m.gen++ // a tick already on its way is now stale
}

func tick(gen int, d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return autoplayMsg{gen} })
}

func (m Model) autoplayTick(msg autoplayMsg) (tea.Model, tea.Cmd) {
	if !m.autoplay || msg.gen != m.gen || m.sess == nil {
		return m, nil
	}
	if pos := m.sess.Position(); m.screen == LessonScreen && pos.Reveal && m.answers[pos.Step] == 0 && !m.sess.Behind() {
		// A prediction is the learner's to make: autoplay waits for it.
		m.stopAutoplay()
		m.setStatus("autoplay paused: answer the prediction (1-9), then → or p", statusbar.Warn)
		return m, nil
	}
	if r := m.forward(); r.Kind == session.Ended || r.Kind == session.Idle {
		m.stopAutoplay()
		return m, nil
	}
	return m, tick(m.gen, m.interval())
}

// updateHome refreshes the home screen's progress and Continue entry.
func (m *Model) updateHome() {
	p := home.Progress{Total: len(m.lessons)}
	for range m.done {
		p.Done++
	}
	if m.lessonSess != nil {
		l := m.lessons[m.lessonIdx]
		p.Resume = fmt.Sprintf("Chapter %d · %s", l.Number, l.Title)
		if pos := m.lessonSess.Position(); pos.Step >= 0 {
			p.Resume += fmt.Sprintf(", step %d", pos.Step+1)
		}
	}
	m.home.SetProgress(p)
}
