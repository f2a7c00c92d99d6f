package app

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/timeline"
	"github.com/eoslab/eoslab/ui/screen/chapters"
	"github.com/eoslab/eoslab/ui/screen/home"
	"github.com/eoslab/eoslab/ui/session"
	"github.com/eoslab/eoslab/ui/widget/commandbar"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// handleKey routes a key (routeKey), then saves progress if the key
// changed it.
func (m Model) handleKey(k tea.KeyMsg) (tea.Model, tea.Cmd) { return persist(m.routeKey(k)) }

// routeKey: ctrl+c always quits; then whoever holds the keyboard (the
// command bar, the help overlay, a fault waiting for confirmation, a list
// filter) gets the key; then the keys every screen shares; then the
// screen in front.
func (m Model) routeKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste && !m.cmdbar.Active() {
		return m.splitRunes(k)
	}
	switch {
	case key.Matches(k, m.keys.ForceQuit):
		m.stopJob()
		return m, tea.Quit
	case m.job != nil:
		// A long command is running: esc (or q) stops it; other keys wait.
		if key.Matches(k, m.keys.Back, m.keys.Quit) {
			m.stopJob()
		} else {
			m.setStatus(m.jobNote(m.job, "running")+" · esc stops it first", statusbar.Warn)
		}
		return m, nil
	case m.cmdbar.Active():
		var cmd tea.Cmd
		h := m.cmdbar.Height()
		m.cmdbar, cmd = m.cmdbar.Update(k)
		if m.cmdbar.Height() != h {
			m.layout()
		}
		return m, cmd
	case m.showHelp:
		return m.helpKey(k)
	case m.pending != nil:
		return m.confirmFault(k)
	case m.screen == ChaptersScreen && m.chapters.Filtering():
		var cmd tea.Cmd
		m.chapters, cmd = m.chapters.Update(k)
		return m, cmd
	}
	switch {
	case key.Matches(k, m.keys.Help):
		m.showHelp = true
		return m, nil
	case key.Matches(k, m.keys.Quit) && m.quitsHere():
		return m, tea.Quit
	case key.Matches(k, m.keys.Back) && m.unzoom():
		m.setStatus("back to every panel", statusbar.Plain)
		return m, nil
	case key.Matches(k, m.keys.Quit, m.keys.Back):
		return m.back()
	}
	if m.sess != nil && (m.screen == LessonScreen || m.screen == SandboxScreen) {
		if next, cmd, ok := m.labKey(k); ok {
			return next, cmd
		}
	}
	return m.screenUpdate(k)
}

// splitRunes handles keys typed faster than the terminal is read, which
// arrive as one message (":send p1 …"), one key at a time — until the
// command bar opens, which then takes the rest as typed text.
func (m Model) splitRunes(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	var next tea.Model = m
	for i, r := range k.Runes {
		cur := next.(Model)
		if cur.cmdbar.Active() {
			rest := tea.KeyMsg{Type: tea.KeyRunes, Runes: k.Runes[i:]}
			var cmd tea.Cmd
			next, cmd = cur.handleKey(rest)
			return next, tea.Batch(append(cmds, cmd)...)
		}
		var cmd tea.Cmd
		next, cmd = cur.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt})
		cmds = append(cmds, cmd)
	}
	return next, tea.Batch(cmds...)
}

// unzoom puts a zoomed panel of the screen in front back among the
// others, reporting whether one was zoomed: esc does that before it
// leaves the screen.
func (m *Model) unzoom() bool {
	switch m.screen {
	case LessonScreen:
		return m.lesson.Unzoom()
	case SandboxScreen:
		return m.sandbox.Unzoom()
	}
	return false
}

// back leaves the screen in front for the one it came from.
func (m Model) back() (tea.Model, tea.Cmd) {
	m.stopAutoplay()
	m.setStatus("", statusbar.Plain)
	switch m.screen {
	case LessonScreen:
		m.screen, m.sess = ChaptersScreen, nil
		m.chapters.Select(m.lessonIdx) // the cursor where the lesson was opened
		m.updateHome()
		return m, m.saveProgress()
	case HomeScreen:
		return m, nil
	}
	m.screen, m.sess = HomeScreen, nil
	m.updateHome()
	return m, nil
}

// screenUpdate passes a message to the screen in front.
func (m Model) screenUpdate(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch m.screen {
	case HomeScreen:
		m.home, cmd = m.home.Update(msg)
	case ChaptersScreen:
		m.chapters, cmd = m.chapters.Update(msg)
	case LessonScreen:
		m.lesson, cmd = m.lesson.Update(msg)
	case SandboxScreen:
		m.sandbox, cmd = m.sandbox.Update(msg)
	case InspectScreen:
		m.inspect, cmd = m.inspect.Update(msg)
	}
	return m, cmd
}

// labKey handles the keys of the lesson and sandbox screens: time travel,
// autoplay, focus of partition and producer, fault keys, the command bar.
func (m Model) labKey(k tea.KeyMsg) (tea.Model, tea.Cmd, bool) {
	switch {
	case key.Matches(k, m.keys.Command):
		cmd := m.cmdbar.Open()
		m.layout()
		return m, cmd, true
	case key.Matches(k, m.keys.Forward):
		m.learn.waiting = false // moving on by hand: autoplay stays off
		m.forward()             // a new lesson step is saved (persist)
	case key.Matches(k, m.keys.Backward):
		if m.sess.Back() {
			m.setStatus(m.travelNote(), statusbar.Plain)
		} else {
			m.setStatus("this is the start: nothing happened before", statusbar.Plain)
		}
		m.refresh(panel.Jump)
	case key.Matches(k, m.keys.NextDecision):
		m.learn.waiting = false
		m.skipForward(session.ByDecision)
	case key.Matches(k, m.keys.StepEnd):
		m.learn.waiting = false
		m.skipForward(session.ByStep)
	case key.Matches(k, m.keys.PrevDecision):
		m.skipBack(session.ByDecision)
	case key.Matches(k, m.keys.StepStart):
		m.skipBack(session.ByStep)
	case key.Matches(k, m.keys.Abandoned):
		m.returnToAbandoned()
	case key.Matches(k, m.keys.Restart) && m.screen == LessonScreen:
		m.restartChallenge()
	case key.Matches(k, m.keys.Replication):
		m.toggleReplication()
	case key.Matches(k, m.keys.Start):
		m.sess.Start()
		m.setStatus("the start: nothing applied yet (→ redoes, End returns)", statusbar.Plain)
		m.refresh(panel.Jump)
	case key.Matches(k, m.keys.End):
		m.sess.End()
		m.setStatus("the present of this timeline", statusbar.Plain)
		m.refresh(panel.Jump)
	case key.Matches(k, m.keys.Autoplay):
		return m, m.toggleAutoplay(), true
	case key.Matches(k, m.keys.Faster):
		m.rate = min(m.rate*2, fastestRate)
		m.setStatus("autoplay: "+m.pace(), statusbar.Plain)
	case key.Matches(k, m.keys.Slower):
		m.rate = max(m.rate/2, slowestRate)
		m.setStatus("autoplay: "+m.pace(), statusbar.Plain)
	case key.Matches(k, m.keys.NextPartition):
		m.cyclePartition(1)
	case key.Matches(k, m.keys.PrevPartition):
		m.cyclePartition(-1)
	case key.Matches(k, m.keys.NextProducer):
		m.cycleProducer()
	case key.Matches(k, m.keys.Answer):
		if !m.answer(k.String()) {
			return m, nil, false
		}
		if m.learn.waiting { // autoplay waited for this answer
			m.setStatus(fmt.Sprintf("your answer: %s · autoplay goes on: the reveal next", k.String()), statusbar.Plain)
			return m, m.resumeAutoplay(), true
		}
	case key.Matches(k, m.keys.Hint):
		return m, nil, m.hint()
	case key.Matches(k, m.keys.Solution):
		cmd, ok := m.showSolution()
		return m, cmd, ok
	case key.Matches(k, m.keys.NextChapter):
		cmd, ok := m.openNextChapter()
		return m, cmd, ok
	case key.Matches(k, m.keys.Presenter) && m.screen == LessonScreen:
		m.togglePresenter()
	default:
		if f, ok := m.faultFor(k); ok {
			m.proposeFault(f)
			return m, nil, true
		}
		return m, nil, false
	}
	return m, nil, true
}

// handleMouse passes clicks and the wheel to the screen in front; the
// screens lay out from the top of the terminal, so no offset is needed.
func (m Model) handleMouse(msg tea.MouseMsg) (tea.Model, tea.Cmd) {
	if m.showHelp || m.cmdbar.Active() || msg.Y >= m.bodyHeight() {
		return m, nil
	}
	return m.screenUpdate(msg)
}

// handleEvent routes a message (routeEvent), then saves progress if the
// message changed it (an autoplay step, a travel to a revealed answer).
func (m Model) handleEvent(msg tea.Msg) (tea.Model, tea.Cmd) { return persist(m.routeEvent(msg)) }

// routeEvent handles the messages screens, widgets and commands send.
func (m Model) routeEvent(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case home.ChoseMsg:
		return m.choose(msg.Choice)
	case chapters.OpenMsg:
		m.openLesson(msg.Index, -1)
		return m, m.saveProgress()
	case timeline.TravelMsg:
		if m.sess != nil {
			m.sess.TravelTo(msg.Step)
			if msg.Partition != "" {
				m.focusPartition = msg.Partition
			}
			m.setStatus(m.travelNote(), statusbar.Plain)
			m.refresh(panel.Jump)
		}
		return m, nil
	case commandbar.SubmitMsg:
		cmd := m.submit(msg.Line)
		if !m.cmdbar.Active() {
			// Accepted: the next queued line (a solution's), if any.
			cmd = tea.Batch(cmd, m.cmdbar.Next())
		}
		m.layout()
		return m, cmd
	case autoplayMsg:
		return m.autoplayTick(msg)
	case jobMsg:
		return m.slice()
	case savedMsg, loadedMsg, progressMsg:
		return m.fileDone(msg)
	}
	return m.screenUpdate(msg)
}

func (m Model) choose(c home.Choice) (tea.Model, tea.Cmd) {
	switch c {
	case home.Continue:
		m.continueLesson()
	case home.Chapters:
		m.screen = ChaptersScreen
	case home.Sandbox:
		m.openSandbox()
	case home.Inspect:
		if m.opt.Sample == nil {
			m.setStatus("no sample segment file: run eoslab inspect FILE --tui", statusbar.Bad)
			return m, nil
		}
		m.inspect = m.newInspect()
		m.screen = InspectScreen
	case home.Quit:
		return m, tea.Quit
	}
	return m, nil
}
