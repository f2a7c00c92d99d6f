// Package commandbar is the `:` line: one command of the command language
// (or a lab command such as save and load), with history (↑ ↓), completion
// of verbs and names (tab), and errors shown inline with a caret under
// the column at fault. It knows nothing of the engine: it submits lines
// and shows the errors it is given.
//
// It can also hold a queue of lines given to it (a challenge's solution):
// the first is put on the line, the rest are listed above it, and after
// each line the app has accepted, Next loads the following one — so each
// enter runs one line, and nothing runs unless the learner presses it.
package commandbar

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

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
	verbs   []string
	names   []string
	errMsg  string
	errCol  int // 1-based column of the error in the input, 0 for none

	queue      []string // lines given with Queue, still to be loaded
	queueLabel string   // what they are, e.g. "solution"
	queueTotal int      // how many lines were queued
}

// New returns a closed command bar completing the given verbs.
func New(st *styles.Styles, keys keymap.KeyMap, verbs []string) Model {
	in := textinput.New()
	in.Prompt = ":"
	in.PromptStyle, in.TextStyle = st.Accent, st.Text
	in.CompletionStyle, in.PlaceholderStyle = st.Faint, st.Faint
	in.Cursor.Style = st.Cursor
	in.Cursor.SetMode(cursor.CursorStatic) // no blink: no timer traffic, stable test output
	in.ShowSuggestions = true
	in.KeyMap.NextSuggestion = key.NewBinding(key.WithKeys("ctrl+n"))
	in.KeyMap.PrevSuggestion = key.NewBinding(key.WithKeys("ctrl+p"))
	in.Placeholder = "a command, e.g. send p1 orders-0 2 — tab completes, ↑ history, esc closes"
	return Model{st: st, keys: keys, input: in, verbs: verbs}
}

// SetWidth sets the bar's width.
func (m *Model) SetWidth(w int) { m.w = w; m.input.Width = max(w-3, 1) }

// SetNames sets the names completed after the verb: producers,
// partitions, broker ids.
func (m *Model) SetNames(names []string) { m.names = names }

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
	m.suggest()
	return m.input.Focus()
}

// Update edits the line; enter submits, esc closes.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok || !m.active {
		return m, nil
	}
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
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.errMsg, m.errCol = "", 0
	m.suggest()
	return m, cmd
}

// suggest offers completions of the word being typed: verbs (one or two
// words) and, after the first word, names. The text input keeps those
// that extend the whole line typed so far.
func (m *Model) suggest() {
	v := m.input.Value()
	out := make([]string, 0, len(m.verbs)+len(m.names))
	for _, verb := range m.verbs {
		out = append(out, verb+" ")
	}
	if i := strings.LastIndexByte(v, ' '); i >= 0 {
		for _, n := range m.names {
			out = append(out, v[:i+1]+n+" ")
		}
	}
	m.input.SetSuggestions(out)
}

// Height is how many lines View takes.
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
	}
	return h
}

// View draws the error (if any), the line and the caret.
func (m Model) View() string {
	if !m.active {
		return ""
	}
	var lines []string
	if m.queueTotal > 0 {
		lines = append(lines, box.Line(m.queueLine(), m.w))
	}
	if m.errMsg != "" {
		lines = append(lines, box.Line(m.st.Bad.Render("✗ "+m.errMsg)+m.st.Muted.Render("  (nothing applied)"), m.w))
	}
	lines = append(lines, box.Line(m.input.View(), m.w))
	if m.errMsg != "" && m.errCol > 0 {
		lines = append(lines, box.Line(strings.Repeat(" ", m.errCol)+m.st.Bad.Render("^"), m.w))
	}
	return strings.Join(lines, "\n")
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
