package app

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
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
	switch {
	case m.pending != nil:
		return []key.Binding{k.Confirm, k.Cancel}
	case m.showHelp:
		out := []key.Binding{keymap.Relabel(k.Help, "close help")}
		if m.helpScrolls() {
			out = append(out, keymap.Relabel(k.Down, "scroll"), keymap.Relabel(k.PageDown, "page"))
		}
		return append(out, k.ForceQuit)
	}
	switch m.screen {
	case HomeScreen:
		return append(m.home.Keys(), k.Quit, k.Help)
	case ChaptersScreen:
		return append(m.chapters.Keys(), keymap.Relabel(k.Back, "home"), k.Help)
	case InspectScreen:
		// The rest of the bytes' keys are in the full help.
		return []key.Binding{k.NextBatch, k.PrevBatch, k.FieldNext, k.ByteNext, m.quitKey(), k.Help}
	}
	quit := keymap.Relabel(k.Quit, "back")
	out := []key.Binding{k.Forward, k.Backward, k.NextDecision, k.LoseResponse, k.Command, k.FocusNext, k.Zoom, k.Autoplay}
	if m.screen == LessonScreen {
		// What the step asks (answers, hint, solution) comes right after →;
		// at the end of the lesson, the next chapter comes first.
		ask := m.lesson.AskKeys()
		if _, ok := m.nextChapter(); ok {
			ask = append([]key.Binding{m.nextChapterKey()}, ask...)
		}
		out = append(append([]key.Binding{k.Forward}, ask...), out[1:]...)
	}
	return append(append(out, m.benchKeys()...), k.Help, quit)
}

// quitKey is q as it acts on the screen in front: it quits from Home and
// from an inspector opened from the shell, and goes back elsewhere.
func (m Model) quitKey() key.Binding {
	if m.quitsHere() {
		return m.keys.Quit
	}
	return keymap.Relabel(m.keys.Quit, "back")
}

// quitsHere reports whether q quits on the screen in front: on Home, and
// on the inspector when `eoslab inspect FILE --tui` opened it (there is
// nowhere it came from).
func (m Model) quitsHere() bool {
	return m.screen == HomeScreen || m.screen == InspectScreen && m.inspect.Standalone()
}

func (m Model) benchKeys() []key.Binding {
	if m.screen == LessonScreen {
		return m.lesson.Keys()
	}
	return m.sandbox.Keys()
}

// fullHelp groups every key of the screen in front for the overlay: the
// screen's own keys, then the general ones as they act there.
func (m Model) fullHelp() [][]key.Binding {
	k := m.keys
	switch m.screen {
	case HomeScreen:
		// esc does nothing on Home: it is not listed.
		return [][]key.Binding{m.home.Keys(), {k.Help, k.Quit, k.ForceQuit}}
	case ChaptersScreen:
		return [][]key.Binding{m.chapters.Keys(), m.chapters.MoreKeys(),
			{k.Help, keymap.Relabel(k.Back, "home"), keymap.Relabel(k.Quit, "home"), k.ForceQuit}}
	case InspectScreen:
		back := keymap.Relabel(k.Back, "home")
		return [][]key.Binding{m.inspect.Keys(), {k.Help, back, m.quitKey(), k.ForceQuit}}
	}
	general := []key.Binding{k.Command, k.Answer, k.Help, k.Back, keymap.Relabel(k.Quit, "back"), k.ForceQuit}
	if m.screen == LessonScreen {
		general = append([]key.Binding{k.Command, k.Answer, k.Hint, k.Solution, m.nextChapterKey(), k.Presenter}, general[2:]...)
	}
	story := []key.Binding{k.NextDecision, k.PrevDecision, k.StepEnd, k.StepStart, k.Abandoned, k.Replication}
	if m.screen == LessonScreen {
		story = append(story, k.Restart)
	}
	return [][]key.Binding{
		{k.Forward, k.Backward, k.Start, k.End, k.Autoplay, k.Faster, k.Slower},
		story,
		{k.FocusNext, k.FocusPrev, k.Zoom, k.NextPartition, k.PrevPartition, k.NextProducer, k.NarrationDown, k.NarrationUp},
		{k.FieldNext, k.FieldPrev, k.ByteNext, k.BytePrev, k.Up, k.Down, keymap.Relabel(k.Select, "travel / go to")},
		{k.LoseResponse, k.LoseRequest, k.Delay, k.Reset, k.Refuse, k.RestartProducer, k.Pause, k.RestartBroker, k.Failover, k.Advance, k.Confirm},
		general,
	}
}

// helpNotes are the lines under the keys: what the screen in front does
// beyond them.
func (m Model) helpNotes() []string {
	var notes []string
	switch m.screen {
	case HomeScreen:
		notes = []string{"enter opens the entry under the cursor; Continue goes back to where you",
			"were, or on to the next chapter once that one is finished"}
	case ChaptersScreen:
		notes = []string{"✓ finished · → next: the first not finished · 3/4 right: your predictions",
			"◇ ends with a challenge, ◆ solved · example scripts come after the chapters",
			"/ filters by title and summary: type, enter keeps the filter, esc clears it"}
	case InspectScreen:
		notes = []string{"A real segment file, decoded by the reader of eoslab inspect: every header",
			"field with its bytes, the CRC's range, markers; the wheel scrolls the bytes"}
	default:
		notes = []string{"Command bar (:): any command of the language (docs/commands.md), plus",
			"  help [VERB] · save FILE · load FILE · goto STEP · quit — tab completes, ↑ ↓ history",
			"Acting while back in time forks a new timeline from that step."}
	}
	for i, n := range notes {
		notes[i] = m.st.Muted.Render(n)
	}
	return notes
}

// helpPage is what the help overlay shows — the keys of the screen in
// front (the zero page, `?`) or the command bar's help (`help [VERB]`) —
// and how far it is scrolled.
type helpPage struct {
	title string   // "" for the keys
	lines []string // the command help, styled; nil for the keys
	top   int      // the first line shown
}

// openHelpPage shows a page of command help in the overlay.
func (m *Model) openHelpPage(title string, lines []string) {
	m.showHelp, m.helpPage = true, helpPage{title: title, lines: lines}
}

// helpKey handles a key while the overlay is up: ?, esc or q close it
// (the next ? shows the keys again); the list keys scroll a page that
// does not fit.
func (m Model) helpKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	page := max(m.helpRows()-1, 1)
	switch {
	case key.Matches(k, m.keys.Help, m.keys.Back, m.keys.Quit):
		m.showHelp, m.helpPage = false, helpPage{}
		return m, nil
	case key.Matches(k, m.keys.Down):
		m.helpPage.top++
	case key.Matches(k, m.keys.Up):
		m.helpPage.top--
	case key.Matches(k, m.keys.PageDown, m.keys.Forward):
		m.helpPage.top += page
	case key.Matches(k, m.keys.PageUp, m.keys.Backward):
		m.helpPage.top -= page
	case key.Matches(k, m.keys.Start):
		m.helpPage.top = 0
	case key.Matches(k, m.keys.End):
		m.helpPage.top = len(m.helpContent())
	}
	m.helpPage.top = min(max(m.helpPage.top, 0), max(len(m.helpContent())-m.helpRows(), 0))
	return m, nil
}

// helpContent is the overlay's lines: the keys, grouped three columns to
// a row so that all of them fit 80 columns, and the notes; or a page of
// command help.
func (m Model) helpContent() []string {
	if m.helpPage.lines != nil {
		return m.helpPage.lines
	}
	h := m.help
	h.ShowAll, h.Width = true, 0
	groups := m.fullHelp()
	// As many groups side by side as fit the overlay (three at 120
	// columns, two at 80), so that no key's description is cut.
	var rows []string
	for i := 0; i < len(groups); {
		n := 1
		for i+n < len(groups) && lipgloss.Width(h.FullHelpView(groups[i:i+n+1])) <= m.w-4 {
			n++
		}
		rows = append(rows, h.FullHelpView(groups[i:i+n]))
		i += n
	}
	titles := "time travel · by story · panels · bytes, lists · faults (each asks first) · general"
	if m.screen != LessonScreen && m.screen != SandboxScreen {
		titles = "keys of this screen"
	}
	lines := []string{m.st.Muted.Render(titles), ""}
	lines = append(lines, strings.Split(strings.Join(rows, "\n\n"), "\n")...)
	return append(append(lines, ""), m.helpNotes()...)
}

// helpWidth is the width command help is wrapped to: the overlay's
// inside at most 100 columns wide.
func (m Model) helpWidth() int { return min(m.w, 100) - 4 }

// helpRows is how many lines of content the overlay shows at once.
func (m Model) helpRows() int { return max(m.bodyHeight()-2, 1) }

// helpScrolls reports whether the overlay's content is longer than it.
func (m Model) helpScrolls() bool { return len(m.helpContent()) > m.helpRows() }

// helpOverlay replaces the body with the help page in a frame; a page
// longer than the screen scrolls, and the frame's title says where it is.
func (m Model) helpOverlay() string {
	lines := m.helpContent()
	rows := m.helpRows()
	title := "help · ? or esc closes"
	if m.helpPage.title != "" {
		title = m.helpPage.title + " · esc closes"
	}
	if len(lines) > rows {
		top := min(m.helpPage.top, len(lines)-rows)
		title += fmt.Sprintf(" · lines %d-%d of %d", top+1, top+rows, len(lines)) // the help line names the keys
		lines = lines[top : top+rows]
	}
	content := strings.Join(lines, "\n")
	w := min(m.w, max(lipgloss.Width(content)+4, lipgloss.Width(title)+6, 60))
	hgt := min(m.bodyHeight(), len(lines)+2)
	frame := box.Frame(title, content, w, hgt, m.st.BorderFocus, m.st.Title)
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
		if note := m.pathNote(); note != "" {
			left += " · " + note
		}
	}
	right := fmt.Sprintf("seed %d", m.opt.Seed)
	if m.screen == InspectScreen {
		right = "" // a file, not a run: nothing to reproduce
	}
	return statusbar.Render(m.st, m.w, left, m.status, right, m.tone)
}
