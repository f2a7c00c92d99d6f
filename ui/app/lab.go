package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/screen/chapters"
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
	m.learn.newSession()
	if step >= 0 {
		m.lessonSess.GoToLessonStep(step)
	}
	m.resumeLesson()
	m.setStatus(fmt.Sprintf("chapter %d: → moves on, ← goes back, ? lists every key", l.Number), statusbar.Plain)
}

// openGiven opens a lesson handed over from outside (Options.Open, `eoslab
// play LESSON`) at its first step: the catalog's own chapter when it is
// one of them, else it joins the end of the chapter list for this run.
func (m *Model) openGiven(l *lesson.Lesson) {
	i := slices.IndexFunc(m.lessons, func(c *lesson.Lesson) bool { return c == l || l.File != "" && c.File == l.File })
	if i < 0 {
		m.lessons = append(m.lessons, l)
		i = len(m.lessons) - 1
		m.learn.outside = l
		m.chapters = chapters.New(m.st, m.keys, m.lessons, m.done)
	}
	m.openLesson(i, 0)
	m.startAutoplay()
	m.updateHome()
}

// startAutoplay turns autoplay on for a lesson opened with
// Options.Autoplay; Init sends its first tick.
func (m *Model) startAutoplay() {
	if !m.opt.Autoplay || m.screen != LessonScreen {
		return
	}
	m.autoplay = true
	m.gen++
	m.setStatus("autoplay "+m.pace()+": it waits at predictions for an answer (1-9) · p stops, +/- pace, ? keys", statusbar.Plain)
}

// initCmd is the program's first command: autoplay's first tick when the
// lab opens in autoplay.
func (m Model) initCmd() tea.Cmd {
	if m.opt.Serve != nil {
		return servedTick(time.Millisecond)
	}
	if !m.autoplay {
		return nil
	}
	return tick(m.gen, m.interval())
}

// resumeLesson brings back the kept lesson session.
func (m *Model) resumeLesson() {
	m.stopAutoplay()
	m.focusPartition, m.focusProducer = "", ""
	m.lesson = lessonscreen.New(m.st, m.keys, m.md, m.lessons[m.lessonIdx])
	m.lesson.SetPresenter(m.presenter)
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
		m.setStatus(m.withLeft(headline(r.Events, m.sess.Step()), 0), statusbar.Plain)
	case session.Applied:
		m.setStatus(m.withLeft(m.appliedNote(r), 0), statusbar.Plain)
		if r.Err != nil {
			m.setStatus(r.Err.Error(), statusbar.Bad)
		}
		if m.screen == LessonScreen {
			m.learn.unsaved = true // a new lesson step: remember it
		}
	case session.Settled:
		m.setStatus(fmt.Sprintf("step %d: nothing more happens here · → moves on", m.sess.Step()), statusbar.Plain)
	case session.Idle:
		m.setStatus("nothing is due: press : and give a command (e.g. send p1 orders-0 2)", statusbar.Plain)
	case session.Ended:
		m.setStatus(m.endNote())
	}
	m.refresh(panel.Forward)
	return r
}

// appliedNote says what a lesson segment applied: its commands, or — a
// reveal or a narration with none — what comes of it.
func (m *Model) appliedNote(r session.Result) string {
	if len(r.Commands) > 0 {
		return "applied: " + strings.Join(r.Commands, " · ")
	}
	pos := m.sess.Position()
	switch {
	case pos.Revealed:
		return "the reveal: watch what the engine does"
	case pos.Step >= 0:
		return fmt.Sprintf("step %d/%d: %s", pos.Step+1, pos.Steps, m.lessons[m.lessonIdx].Steps[pos.Step].Title)
	}
	return "the introduction"
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
	return fmt.Sprintf("step %d: %s", evs[best].Step, evs[best].Text())
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
		Partition: m.shownPartition, Producer: m.shownProducer, Motion: motion,
		Landmarks: m.sess.Landmarks(), Steps: m.sess.TimelineSteps(), Replication: m.showReplication}
	switch m.screen {
	case LessonScreen:
		pos := m.sess.Position()
		p := m.prompt(pos)
		m.scorePrediction(pos, &p)
		m.announceComplete(pos, p)
		m.lesson.SetData(d, pos, m.sess.Behind(), p)
		if pos.Done && !m.done[m.lessonIdx] && len(m.openChallenges()) == 0 {
			m.done[m.lessonIdx] = true
			m.updateHome()
		}
	case SandboxScreen:
		m.sandbox.SetData(d, m.sess.Behind())
	}
	m.cmdbar.SetWorld(m.barWorld())
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
	if ch := st.Challenge; st.Kind == lesson.Challenge && ch != nil {
		p.Goals = lesson.Goals(viewOf(), ch)
		p.Challenge, p.Complete = true, lesson.AllOK(p.Goals)
		p.Hints, p.HintsTotal = ch.Hints[:min(m.learn.hints[pos.Step], len(ch.Hints))], len(ch.Hints)
	}
	if pos.StepDone && len(st.Expect) > 0 {
		p.Checks = lesson.Evaluate(viewOf(), st.Expect)
	}
	if pos.Done {
		for _, i := range m.openChallenges() {
			if i != pos.Step || !p.Complete { // solved in this very frame: announced next
				p.Unsolved = append(p.Unsolved, i+1)
			}
		}
	}
	return p
}

// scorePrediction records a prediction's result in the chapter's score
// once the engine has marked it — the first answer revealed in a run of
// the lesson counts (going back in time to answer again does not) — and
// shows the score with the marks.
func (m *Model) scorePrediction(pos session.Position, p *lessonscreen.Prompt) {
	if p.Marked == nil || p.Chosen == 0 {
		return
	}
	if !m.learn.scored[pos.Step] {
		m.learn.scored[pos.Step] = true
		m.learn.scores[m.lessonIdx] = m.learn.scores[m.lessonIdx].with(pos.Step+1, p.Marked[p.Chosen-1])
		m.learn.unsaved = true
		m.updateHome()
	}
	s := m.learn.scores[m.lessonIdx]
	p.Right, p.Asked = s.Right, s.Asked
}

// announceComplete says once, in the status bar, that the shown
// challenge's goals all hold.
func (m *Model) announceComplete(pos session.Position, p lessonscreen.Prompt) {
	if !p.Challenge || !p.Complete || m.learn.complete[pos.Step] {
		return
	}
	m.markSolved(pos.Step) // the chapter list's ◆ (chapters.go)
	m.learn.complete[pos.Step] = true
	next := " · → continues"
	if len(pos.Next) == 0 {
		next = ""
	}
	m.setStatus("✓ challenge complete: every goal holds"+next, statusbar.Plain)
}

// challenge is the shown lesson step's challenge (nil when the step is
// not one) and the step's index.
func (m *Model) challenge() (*lesson.ChallengeSpec, int) {
	if m.screen != LessonScreen || m.sess == nil {
		return nil, -1
	}
	pos := m.sess.Position()
	if pos.Step < 0 {
		return nil, pos.Step
	}
	st := &m.lessons[m.lessonIdx].Steps[pos.Step]
	if st.Kind != lesson.Challenge {
		return nil, pos.Step
	}
	return st.Challenge, pos.Step
}

// hint reveals the shown challenge's next hint (H), one at a time.
func (m *Model) hint() bool {
	if m.screen != LessonScreen {
		return false
	}
	solution := m.keys.Solution.Help().Key + " puts the solution in the command bar"
	ch, step := m.challenge()
	switch {
	case ch == nil:
		m.setStatus("no hint here: hints belong to challenge steps", statusbar.Plain)
	case len(ch.Hints) == 0:
		m.setStatus("this challenge has no hints · "+solution, statusbar.Plain)
	case m.learn.hints[step] >= len(ch.Hints):
		m.setStatus(fmt.Sprintf("no more hints (%d of %d shown) · %s", len(ch.Hints), len(ch.Hints), solution), statusbar.Plain)
	default:
		n := m.learn.hints[step] + 1
		m.learn.hints[step] = n
		plain := strings.NewReplacer("`", "", "**", "", "__", "").Replace(ch.Hints[n-1]) // the panel renders it; the status bar is plain
		m.setStatus(fmt.Sprintf("hint %d/%d: %s", n, len(ch.Hints), strings.Join(strings.Fields(plain), " ")), statusbar.Plain)
		m.refresh(panel.Same)
	}
	return true
}

// showSolution loads the shown challenge's solution into the command bar
// (S) without running it: the first command on the line, the rest queued
// after it; each enter runs one line and loads the next.
func (m *Model) showSolution() (tea.Cmd, bool) {
	if m.screen != LessonScreen {
		return nil, false
	}
	ch, _ := m.challenge()
	if ch == nil || len(ch.Solution) == 0 {
		m.setStatus("no solution here: solutions belong to challenge steps", statusbar.Plain)
		return nil, true
	}
	lines := make([]string, len(ch.Solution))
	for i, c := range ch.Solution {
		lines[i] = script.Format(c)
	}
	cmd := m.cmdbar.Queue("solution", lines)
	m.layout()
	m.setStatus(fmt.Sprintf("the solution's %d command(s) are in the command bar, not run yet", len(lines)), statusbar.Plain)
	return cmd, true
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
		for _, e := range tr.Backward() {
			if part != "" && prod != "" {
				break
			}
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
	m.stopAutoplay() // no longer waiting for an answer
	m.autoplay = true
	m.setStatus("autoplay on: "+m.pace()+" (+/- to change, p to stop)", statusbar.Plain)
	return tick(m.gen, m.interval())
}

// resumeAutoplay goes on after the prediction autoplay waited for was
// answered.
func (m *Model) resumeAutoplay() tea.Cmd {
	m.stopAutoplay()
	m.autoplay = true
	return tick(m.gen, m.interval())
}

func (m *Model) stopAutoplay() {
	m.autoplay, m.learn.waiting = false, false
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
		// A prediction is the learner's to make: autoplay waits for it,
		// and the answer sets it going again.
		m.stopAutoplay()
		m.learn.waiting = true
		m.setStatus("autoplay waits: answer the prediction (1-9) and it goes on · p stops", statusbar.Warn)
		return m, nil
	}
	before := m.sess.Position()
	if r := m.forward(); r.Kind == session.Ended || r.Kind == session.Idle {
		m.stopAutoplay()
		return m, nil
	}
	if pos := m.sess.Position(); m.screen == LessonScreen && pos.StepDone && !before.StepDone && !pos.Done {
		// A step's end (a reveal's marks among them) is where an
		// instructor talks: autoplay waits for p.
		m.stopAutoplay()
		note := fmt.Sprintf("autoplay paused at the end of step %d/%d", pos.Step+1, pos.Steps)
		if pos.Revealed {
			note += ": the prediction is marked"
		}
		m.setStatus(note+" · p goes on", statusbar.Plain)
		return m, nil
	}
	return m, tick(m.gen, m.interval())
}
