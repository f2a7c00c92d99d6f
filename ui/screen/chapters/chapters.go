// Package chapters is the chapter list: number, title, length, a ✓ for
// the chapters done and how the learner's predictions went in each,
// filterable by typing / (bubbles/list).
package chapters

import (
	"fmt"
	"io"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// OpenMsg asks the app to open chapter Index (in the catalog's order).
type OpenMsg struct{ Index int }

// Score is how a chapter's predictions went: Right of Asked.
type Score struct{ Right, Asked int }

type item struct {
	index int
	l     *lesson.Lesson
	done  bool
	score Score
}

func (i item) FilterValue() string { return i.l.Title }

// delegate draws one chapter per line with the lab's styles.
type delegate struct{ st *styles.Styles }

func (d delegate) Height() int                         { return 1 }
func (d delegate) Spacing() int                        { return 0 }
func (d delegate) Update(tea.Msg, *list.Model) tea.Cmd { return nil }
func (d delegate) Render(w io.Writer, m list.Model, index int, li list.Item) {
	it := li.(item)
	mark := "  "
	if it.done {
		mark = d.st.Good.Render("✓ ")
	}
	if it.score.Asked > 0 {
		// Words, not colour alone: "3/4 right" reads the same in mono.
		mark += d.st.Muted.Render(fmt.Sprintf("%d/%d right", it.score.Right, it.score.Asked))
	}
	steps := "steps"
	if len(it.l.Steps) == 1 {
		steps = "step"
	}
	text := fmt.Sprintf("%2d. %-52s %2d %s", it.l.Number, it.l.Title, len(it.l.Steps), steps)
	if index == m.Index() {
		text = d.st.Selected.Render("▸ " + text)
	} else {
		text = "  " + d.st.Text.Render(text)
	}
	fmt.Fprint(w, box.Line(text+" "+mark, m.Width()))
}

// Model is the chapters screen.
type Model struct {
	st      *styles.Styles
	keys    keymap.KeyMap
	list    list.Model
	lessons []*lesson.Lesson
}

// New lists the lessons; done marks the finished ones by index.
func New(st *styles.Styles, keys keymap.KeyMap, lessons []*lesson.Lesson, done map[int]bool) Model {
	l := list.New(items(lessons, done, nil), delegate{st}, 0, 0)
	l.Title = "Chapters"
	l.SetShowHelp(false) // the app's help bar lists the keys
	l.SetShowStatusBar(true)
	l.SetStatusBarItemName("chapter", "chapters")
	l.DisableQuitKeybindings()
	r := st.Renderer()
	ls := list.DefaultStyles()
	ls.Title = st.Title
	ls.TitleBar = r.NewStyle().Padding(0, 0, 1, 2)
	ls.StatusBar = st.Muted.Padding(0, 0, 1, 2)
	ls.StatusEmpty, ls.NoItems = st.Muted, st.Muted
	ls.StatusBarActiveFilter, ls.StatusBarFilterCount = st.Accent, st.Muted
	ls.FilterPrompt, ls.FilterCursor = st.Accent, st.Accent
	ls.DefaultFilterCharacterMatch = st.Bold.Underline(true)
	ls.PaginationStyle, ls.HelpStyle = st.Muted.PaddingLeft(2), st.Muted
	ls.ActivePaginationDot, ls.InactivePaginationDot, ls.ArabicPagination = st.Text, st.Faint, st.Muted
	ls.DividerDot, ls.Spinner = st.Faint, st.Accent
	l.Styles = ls
	l.FilterInput.PromptStyle, l.FilterInput.Cursor.Style = st.Accent, st.Accent
	l.FilterInput.TextStyle = st.Text
	return Model{st: st, keys: keys, list: l, lessons: lessons}
}

func items(lessons []*lesson.Lesson, done map[int]bool, scores map[int]Score) []list.Item {
	out := make([]list.Item, len(lessons))
	for i := range lessons {
		out[i] = item{index: i, l: lessons[i], done: done[i], score: scores[i]}
	}
	return out
}

// SetMarks updates the ✓ of the chapters done and their prediction
// scores, both by index; the cursor and any filter stay.
func (m *Model) SetMarks(done map[int]bool, scores map[int]Score) {
	m.list.SetItems(items(m.lessons, done, scores))
}

// SetSize sets the screen size.
func (m *Model) SetSize(w, h int) { m.list.SetSize(w, h) }

// Filtering reports whether the learner is typing a filter (keys then
// belong to the filter, not to the app).
func (m Model) Filtering() bool { return m.list.SettingFilter() }

// Update passes keys to the list; Select opens the chapter.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, m.keys.Select) && !m.list.SettingFilter() {
		if it, ok := m.list.SelectedItem().(item); ok {
			return m, func() tea.Msg { return OpenMsg{it.index} }
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.list, cmd = m.list.Update(msg)
	return m, cmd
}

// Keys lists the screen's keys for the help.
func (m Model) Keys() []key.Binding {
	return append([]key.Binding{m.keys.Up, m.keys.Down, m.keys.Select}, m.list.KeyMap.Filter)
}

// View renders the list.
func (m Model) View() string { return m.list.View() }
