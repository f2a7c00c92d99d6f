package app

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

func newHelp(st *styles.Styles) help.Model {
	h := help.New()
	h.Styles = help.Styles{
		Ellipsis: st.Faint, ShortKey: st.Key, ShortDesc: st.KeyDesc, ShortSeparator: st.Faint,
		FullKey: st.Key, FullDesc: st.KeyDesc, FullSeparator: st.Faint,
	}
	return h
}

// shortHelp is the help line: the keys that matter now, most useful first
// (the help view cuts the end with an ellipsis when the line is full).
func (m Model) shortHelp() []key.Binding {
	k := m.keys
	quit := keymap.Relabel(k.Quit, "back")
	switch {
	case m.pending != nil:
		return []key.Binding{k.Confirm, k.Cancel}
	case m.showHelp:
		return []key.Binding{keymap.Relabel(k.Help, "close help"), k.ForceQuit}
	}
	switch m.screen {
	case HomeScreen:
		return []key.Binding{k.Up, k.Down, k.Select, k.Quit, k.Help}
	case ChaptersScreen:
		return append(m.chapters.Keys(), k.Back, k.Help)
	case InspectScreen:
		return append(m.inspect.Keys(), quit, k.Help)
	}
	out := []key.Binding{k.Forward, k.Backward, k.LoseResponse, k.Command, k.FocusNext, k.Zoom, k.Autoplay}
	if m.screen == LessonScreen {
		// What the step asks (answers, hint, solution) comes right after →.
		out = append(append([]key.Binding{k.Forward}, m.lesson.AskKeys()...), out[1:]...)
	}
	return append(append(out, m.benchKeys()...), k.Help, quit)
}

func (m Model) benchKeys() []key.Binding {
	if m.screen == LessonScreen {
		return m.lesson.Keys()
	}
	return m.sandbox.Keys()
}

// fullHelp groups every key of the screen in front for the overlay.
func (m Model) fullHelp() [][]key.Binding {
	k := m.keys
	general := []key.Binding{k.Help, k.Back, keymap.Relabel(k.Quit, "quit (home) / back"), k.ForceQuit}
	switch m.screen {
	case HomeScreen:
		return [][]key.Binding{{k.Up, k.Down, k.Select}, general}
	case ChaptersScreen:
		return [][]key.Binding{m.chapters.Keys(), general}
	case InspectScreen:
		return [][]key.Binding{m.inspect.Keys(), general}
	}
	general = append([]key.Binding{k.Command, k.Answer}, general...)
	if m.screen == LessonScreen {
		general = append([]key.Binding{k.Command, k.Answer, k.Hint, k.Solution}, general[2:]...)
	}
	return [][]key.Binding{
		{k.Forward, k.Backward, k.Start, k.End, k.Autoplay, k.Faster, k.Slower},
		{k.FocusNext, k.FocusPrev, k.Zoom, k.NextPartition, k.PrevPartition, k.NextProducer, k.NarrationDown, k.NarrationUp},
		{k.FieldNext, k.FieldPrev, k.ByteNext, k.BytePrev, k.Up, k.Down, keymap.Relabel(k.Select, "travel / go to")},
		{k.LoseResponse, k.LoseRequest, k.Delay, k.Reset, k.Refuse, k.RestartProducer, k.Pause, k.RestartBroker, k.Failover, k.Advance, k.Confirm},
		general,
	}
}

// helpOverlay replaces the body with every key, grouped, in a frame.
// The groups are drawn three columns to a row, so all of them fit 80
// columns and nothing is cut.
func (m Model) helpOverlay() string {
	h := m.help
	h.ShowAll, h.Width = true, 0
	groups := m.fullHelp()
	var rows []string
	for i := 0; i < len(groups); i += 3 {
		rows = append(rows, h.FullHelpView(groups[i:min(i+3, len(groups))]))
	}
	cols := strings.Join(rows, "\n\n")
	titles := "time travel · panels · bytes and lists / faults (each asks first) · general"
	if m.screen != LessonScreen && m.screen != SandboxScreen {
		titles = "keys of this screen"
	}
	notes := []string{
		m.st.Muted.Render(titles), "", cols, "",
		m.st.Muted.Render("Command bar (:): any command of the language (docs/commands.md), plus"),
		m.st.Muted.Render("  save FILE · load FILE · goto STEP · quit — tab completes, ↑ ↓ history"),
		m.st.Muted.Render("Acting while back in time forks a new timeline from that step."),
	}
	content := strings.Join(notes, "\n")
	w := min(m.w, max(lipgloss.Width(content)+4, 60))
	hgt := min(m.bodyHeight(), strings.Count(content, "\n")+3)
	frame := box.Frame("help · ? or esc closes", content, w, hgt, m.st.BorderFocus, m.st.Title)
	return box.Fit(m.st.Renderer().Place(m.w, m.bodyHeight(), lipgloss.Center, lipgloss.Center, frame), m.w, m.bodyHeight())
}

// statusLine: where you are, what just happened, the seed.
func (m Model) statusLine() string {
	left := "eoslab"
	switch m.screen {
	case ChaptersScreen:
		left = "eoslab · chapters"
	case InspectScreen:
		left = "eoslab · inspect"
	case LessonScreen, SandboxScreen:
		snap := m.sess.Snapshot()
		left = fmt.Sprintf("step %d · %s", snap.Step, trace.FormatTime(snap.TimeMs))
		if m.sess.Behind() {
			left += fmt.Sprintf(" · ◀ %d ahead", m.sess.TimelineSteps()-m.sess.Step())
		}
		if m.autoplay {
			left += " · ▶ " + m.pace()
		}
	}
	right := fmt.Sprintf("seed %d", m.opt.Seed)
	if m.screen == InspectScreen {
		right = "" // a file, not a run: nothing to reproduce
	}
	return statusbar.Render(m.st, m.w, left, m.status, right, m.tone)
}
