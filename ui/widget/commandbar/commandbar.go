// Package commandbar is the `:` line: one command of the command language
// (or a lab command such as save and load), with history (↑ ↓), completion
// by argument position (tab, shift+tab) with the candidates listed in a
// line above it, and errors shown inline with a caret under the column at
// fault. It knows nothing of the engine: it reads what may come at each
// argument from the verbs' syntax strings, completes names from the World
// it is given, submits lines and shows the errors it is given.
//
// It can also hold a queue of lines given to it (a challenge's solution):
// the first is put on the line, the rest are listed above it, and after
// each line the app has accepted, Next loads the following one — so each
// enter runs one line, and nothing runs unless the learner presses it.
package commandbar

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// SubmitMsg carries a line the learner entered.
type SubmitMsg struct{ Line string }

// Model is the command bar.
type Model struct {
	st      *styles.Styles
	keys    keymap.KeyMap
	input   textinput.Model
	active  bool
	w       int
	history []string
	browse  int // index into history while browsing with ↑ ↓; len(history) when not
	errMsg  string
	errCol  int // 1-based column of the error in the input, 0 for none

	verbs []Verb
	forms map[string][]form // each verb's syntax, read once
	words Words
	world World
	comp  completion // what may come at the cursor, shown above the line
	cycle int        // the candidate tab put on the line, -1 when tab is not cycling
	wrote int        // how many bytes that tab wrote at comp.from

	queue      []string // lines given with Queue, still to be loaded
	queueLabel string   // what they are, e.g. "solution"
	queueTotal int      // how many lines were queued
}

// New returns a closed command bar that completes the given verbs, their
// arguments read from their syntax, with the given vocabularies.
func New(st *styles.Styles, keys keymap.KeyMap, verbs []Verb, words Words) Model {
	in := textinput.New()
	in.Prompt = ":"
	in.PromptStyle, in.TextStyle = st.Accent, st.Text
	in.PlaceholderStyle = st.Faint
	in.Cursor.Style = st.Cursor
	in.Cursor.SetMode(cursor.CursorStatic) // no blink: no timer traffic, stable test output
	// Completion is the bar's own (by argument position, listed above
	// the line): the input's whole-line suggestions are off.
	in.ShowSuggestions = false
	in.KeyMap.AcceptSuggestion = key.NewBinding(key.WithDisabled())
	in.KeyMap.NextSuggestion = key.NewBinding(key.WithDisabled())
	in.KeyMap.PrevSuggestion = key.NewBinding(key.WithDisabled())
	in.Placeholder = "e.g. send p1 orders-0 2 · tab completes · help lists them · ↑ history"
	forms := map[string][]form{}
	for _, v := range verbs {
		forms[v.Verb] = parseSyntax(v.Verb, v.Syntax)
	}
	return Model{st: st, keys: keys, input: in, verbs: verbs, forms: forms, words: words, cycle: -1}
}

// SetWidth sets the bar's width.
func (m *Model) SetWidth(w int) { m.w = w; m.input.Width = max(w-3, 1) }

// SetWorld sets the names completed after the verb: producers,
// consumers, partitions, brokers, transactional ids, groups.
func (m *Model) SetWorld(w World) {
	m.world = w
	if m.cycle < 0 {
		m.suggest()
	}
}

// Verbs are the verbs the bar knows, in the order given.
func (m Model) Verbs() []Verb { return m.verbs }

// Open focuses an empty bar (dropping any queued lines).
func (m *Model) Open() tea.Cmd {
	m.queue, m.queueTotal = nil, 0
	return m.show("")
}

func (m *Model) show(line string) tea.Cmd {
	m.active, m.errMsg, m.errCol = true, "", 0
	m.input.SetValue(line)
	m.input.CursorEnd()
	m.browse = len(m.history)
	m.cycle = -1
	m.suggest()
	return m.input.Focus()
}

// Queue opens the bar with lines[0] on the line, not submitted, and keeps
// the rest for Next; label names them in the bar ("solution").
func (m *Model) Queue(label string, lines []string) tea.Cmd {
	if len(lines) == 0 {
		return nil
	}
	m.queue, m.queueLabel, m.queueTotal = lines[1:], label, len(lines)
	return m.show(lines[0])
}

// Next loads the next queued line after the previous one was accepted.
// It reports nil (and leaves the bar closed) when nothing is queued.
func (m *Model) Next() tea.Cmd {
	if len(m.queue) == 0 {
		m.queueTotal = 0
		return nil
	}
	line := m.queue[0]
	m.queue = m.queue[1:]
	return m.show(line)
}

// Queued lists the lines still to come after the one on the bar.
func (m Model) Queued() []string { return m.queue }

// Value is the line being edited.
func (m Model) Value() string { return m.input.Value() }

// Close hides the bar.
func (m *Model) Close() { m.active = false; m.input.Blur() }

// Active reports whether the bar has the keyboard.
func (m Model) Active() bool { return m.active }

// Fail reopens the bar with the line that failed and the error, the caret
// under column col (0: no caret). Nothing was applied.
func (m *Model) Fail(line, msg string, col int) tea.Cmd {
	m.active, m.errMsg, m.errCol = true, msg, col
	m.input.SetValue(line)
	m.input.CursorEnd()
	m.cycle = -1
	m.suggest()
	return m.input.Focus()
}

// Update edits the line; enter submits, esc closes, tab and shift+tab
// complete.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok || !m.active {
		return m, nil
	}
	switch k.Type {
	case tea.KeyTab:
		m.tab(1)
		return m, nil
	case tea.KeyShiftTab:
		m.tab(-1)
		return m, nil
	}
	m.cycle = -1 // any other key keeps the candidate tab put there
	switch {
	case k.Type == tea.KeyEnter:
		line := strings.TrimSpace(m.input.Value())
		m.Close()
		if line == "" {
			return m, m.Next() // an emptied queued line is skipped
		}
		if len(m.history) == 0 || m.history[len(m.history)-1] != line {
			m.history = append(m.history, line)
		}
		return m, func() tea.Msg { return SubmitMsg{line} }
	case k.Type == tea.KeyEsc:
		m.Close()
		m.queue, m.queueTotal = nil, 0
		return m, nil
	case k.Type == tea.KeyUp:
		if m.browse > 0 {
			m.browse--
			m.input.SetValue(m.history[m.browse])
			m.input.CursorEnd()
			m.suggest()
		}
		return m, nil
	case k.Type == tea.KeyDown:
		if m.browse < len(m.history) {
			m.browse++
			v := ""
			if m.browse < len(m.history) {
				v = m.history[m.browse]
			}
			m.input.SetValue(v)
			m.input.CursorEnd()
			m.suggest()
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.errMsg, m.errCol = "", 0
	m.suggest()
	return m, cmd
}

// tab puts the next (d = 1) or previous (d = -1) candidate on the line in
// place of the word being typed. The first tab takes the first candidate
// (shift+tab the last); while tab is pressed again the same list cycles,
// each candidate replacing the one before, so `:l` tab tab reaches
// `lose response`. A single candidate is simply taken.
func (m *Model) tab(d int) {
	c := m.comp
	if len(c.cands) == 0 {
		return
	}
	v := m.input.Value()
	end := m.cursorByte()
	switch {
	case m.cycle >= 0:
		end = c.from + m.wrote // replace what the previous tab wrote
		m.cycle = (m.cycle + d + len(c.cands)) % len(c.cands)
	case d > 0:
		m.cycle = 0
	default:
		m.cycle = len(c.cands) - 1
	}
	pick := c.cands[m.cycle]
	if rest := v[end:]; rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
		pick = strings.TrimSuffix(pick, " ") // a blank follows already
	}
	m.input.SetValue(v[:c.from] + pick + v[end:])
	m.wrote = len(pick)
	m.input.SetCursor(utf8.RuneCountInString(v[:c.from] + pick))
	m.errMsg, m.errCol = "", 0
	if len(c.cands) == 1 {
		m.suggest() // nothing to cycle through: on to the next argument's list
	}
}

// cursorByte is the input's cursor as a byte offset into its value.
func (m Model) cursorByte() int {
	r := []rune(m.input.Value())
	return len(string(r[:min(m.input.Position(), len(r))]))
}

// suggest works out what may come at the cursor, for the candidate line
// and the next tab.
func (m *Model) suggest() {
	m.cycle = -1
	m.comp = m.complete(m.input.Value(), m.cursorByte())
}

// Height is how many lines View takes: the line, with the candidates
// above it — or, after a failure, the error above and the caret under it
// — and a queue's line on top.
func (m Model) Height() int {
	if !m.active {
		return 0
	}
	h := 1
	if m.queueTotal > 0 {
		h++
	}
	switch {
	case m.errMsg != "" && m.errCol > 0:
		h += 2
	case m.errMsg != "":
		h++
	case m.queueTotal == 0:
		h++ // the candidates
	}
	return h
}

// View draws the queue (if any), the error or the candidates, the line
// and the caret.
func (m Model) View() string {
	if !m.active {
		return ""
	}
	var lines []string
	if m.queueTotal > 0 {
		lines = append(lines, box.Line(m.queueLine(), m.w))
	}
	switch {
	case m.errMsg != "":
		lines = append(lines, box.Line(m.st.Bad.Render("✗ "+m.errMsg)+m.st.Muted.Render("  (nothing applied)"), m.w))
	case m.queueTotal == 0:
		lines = append(lines, m.candidateLine())
	}
	lines = append(lines, box.Line(m.input.View(), m.w))
	if m.errMsg != "" && m.errCol > 0 {
		lines = append(lines, box.Line(strings.Repeat(" ", m.errCol)+m.st.Bad.Render("^"), m.w))
	}
	return strings.Join(lines, "\n")
}

// Candidates are what tab would put at the cursor now, as they are
// written (without the space that follows them), and what they are.
func (m Model) Candidates() (label string, cands []string) {
	for _, c := range m.comp.cands {
		cands = append(cands, strings.TrimSuffix(c, " "))
	}
	return m.comp.label, cands
}

// candidateLine lists what may come at the cursor: "TOPIC-PARTITION:
// orders-0  ▸orders-1  orders-2 (2/3)" — the one tab put on the line
// marked, and the list slid along so that it stays in view. With nothing
// to offer it says what comes and shows the verb's syntax.
func (m Model) candidateLine() string {
	label, cands := m.Candidates()
	if len(cands) == 0 {
		text := m.st.Muted.Render(label)
		switch {
		case m.comp.usage != "":
			text += m.st.Muted.Render(" · usage: ") + m.st.Text.Render(m.comp.usage)
		case label == "command":
			text = m.st.Muted.Render("no command starts so · help lists them")
		}
		return box.Line(text, m.w)
	}
	head := label + ": "
	count := ""
	if m.cycle >= 0 {
		count = fmt.Sprintf(" (%d/%d)", m.cycle+1, len(cands))
	}
	const more = 8 // room kept for " …+NNN"
	room := m.w - ansi.StringWidth(head) - ansi.StringWidth(count) - more
	width := func(i int) int { return ansi.StringWidth(cands[i]) + 3 } // "▸" or " ", the word, two spaces
	span := func(a, b int) int {
		n := 0
		for i := a; i <= b; i++ {
			n += width(i)
		}
		return n
	}
	first := 0
	for m.cycle >= 0 && first < m.cycle && span(first, m.cycle) > room-2 {
		first++ // slide the window until the marked candidate fits ("… " takes 2)
	}
	var b strings.Builder
	if first > 0 {
		b.WriteString(m.st.Faint.Render("… "))
		room -= 2
	}
	last := first
	for used := 0; last < len(cands); last++ {
		if used+width(last) > room && last > first {
			break
		}
		used += width(last)
		if last == m.cycle {
			b.WriteString(m.st.Selected.Render("▸" + cands[last]))
		} else {
			b.WriteString(" " + m.st.Accent.Render(cands[last]))
		}
		b.WriteString("  ")
	}
	line := m.st.Muted.Render(head) + b.String()
	if last < len(cands) {
		line += m.st.Faint.Render(fmt.Sprintf("…+%d", len(cands)-last))
	}
	return box.Line(line+m.st.Muted.Render(count), m.w)
}

// queueLine says where the queued lines stand: "▸ solution 2/5 · enter
// runs it, esc drops the rest · next: run · poll rc". The list comes last
// so that a narrow bar cuts it, not the keys.
func (m Model) queueLine() string {
	at := m.queueTotal - len(m.queue)
	line := "▸ " + m.st.Title.Render(fmt.Sprintf("%s %d/%d", m.queueLabel, at, m.queueTotal)) +
		m.st.Muted.Render(" · enter runs it, esc drops the rest")
	if len(m.queue) > 0 {
		line += m.st.Muted.Render(" · next: ") + m.st.Accent.Render(strings.Join(m.queue, " · "))
	}
	return line
}
