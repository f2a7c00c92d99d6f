// Package commandbar is the `:` line: one command of the command language
// (or a lab command such as save and load), with history (↑ ↓), completion
// of verbs and names (tab), and errors shown inline with a caret under
// the column at fault. It knows nothing of the engine: it submits lines
// and shows the errors it is given.
package commandbar

import (
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

// Open focuses an empty bar.
func (m *Model) Open() tea.Cmd {
	m.active, m.errMsg, m.errCol = true, "", 0
	m.input.SetValue("")
	m.browse = len(m.history)
	m.suggest()
	return m.input.Focus()
}

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
			return m, nil
		}
		if len(m.history) == 0 || m.history[len(m.history)-1] != line {
			m.history = append(m.history, line)
		}
		return m, func() tea.Msg { return SubmitMsg{line} }
	case k.Type == tea.KeyEsc:
		m.Close()
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
	switch {
	case !m.active:
		return 0
	case m.errMsg != "" && m.errCol > 0:
		return 3
	case m.errMsg != "":
		return 2
	}
	return 1
}

// View draws the error (if any), the line and the caret.
func (m Model) View() string {
	if !m.active {
		return ""
	}
	var lines []string
	if m.errMsg != "" {
		lines = append(lines, box.Line(m.st.Bad.Render("✗ "+m.errMsg)+m.st.Muted.Render("  (nothing applied)"), m.w))
	}
	lines = append(lines, box.Line(m.input.View(), m.w))
	if m.errMsg != "" && m.errCol > 0 {
		lines = append(lines, box.Line(strings.Repeat(" ", m.errCol)+m.st.Bad.Render("^"), m.w))
	}
	return strings.Join(lines, "\n")
}
