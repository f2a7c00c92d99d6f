// Package chapters is the chapter list, drawn as a level map: the
// curriculum's chapters in order and, apart after them, the example
// scripts; each with a one-line summary (the one under the cursor in
// full), its length, a ◇ when it ends with a challenge (◆ once solved), a
// ✓ when finished, how the learner's predictions went, and → next on the
// first chapter not finished. Typing / filters by title and summary. The
// cursor stays where it was: marks and filters never move it, and the app
// puts it back on the chapter a lesson was left from.
package chapters

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// FirstExample is the number from which the catalog numbers the example
// scripts it lists after the chapters (out of the curriculum's way): they
// are listed apart, and not counted among the chapters to finish.
const FirstExample = 101

// IsExample reports whether l is one of the example scripts.
func IsExample(l *lesson.Lesson) bool { return l.Number >= FirstExample }

// OpenMsg asks the app to open chapter Index (in the catalog's order).
type OpenMsg struct{ Index int }

// Score is how a chapter's predictions went: Right of Asked.
type Score struct{ Right, Asked int }

// Model is the chapters screen.
type Model struct {
	st      *styles.Styles
	keys    keymap.KeyMap
	w, h    int
	lessons []*lesson.Lesson
	order   []int // catalog indices in the order listed: chapters, then examples

	done       map[int]bool
	scores     map[int]Score
	solved     map[int]int // challenge steps solved, by catalog index
	challenges []int       // challenge steps, by catalog index

	cursor    int    // catalog index under the cursor (-1: none listed)
	top       int    // first line shown
	filter    string // what the list is filtered by ("" : all)
	filtering bool   // the learner is typing the filter
}

// New lists the lessons; done marks the finished ones by index.
func New(st *styles.Styles, keys keymap.KeyMap, lessons []*lesson.Lesson, done map[int]bool) Model {
	m := Model{st: st, keys: keys, lessons: lessons, done: done, cursor: -1}
	m.challenges = make([]int, len(lessons))
	for _, examples := range []bool{false, true} {
		for i, l := range lessons {
			if IsExample(l) == examples {
				m.order = append(m.order, i)
			}
		}
	}
	for i, l := range lessons {
		for _, st := range l.Steps {
			if st.Kind == lesson.Challenge {
				m.challenges[i]++
			}
		}
	}
	if len(m.order) > 0 {
		m.cursor = m.order[0]
	}
	return m
}

// SetMarks updates the ✓ of the chapters done and their prediction
// scores, both by index; the cursor and any filter stay.
func (m *Model) SetMarks(done map[int]bool, scores map[int]Score) {
	m.done, m.scores = done, scores
	m.scroll()
}

// SetSolved sets how many of each chapter's challenge steps the learner
// has solved, by index.
func (m *Model) SetSolved(solved map[int]int) { m.solved = solved }

// Select puts the cursor on chapter i (the one a lesson was left from),
// clearing a filter that hides it.
func (m *Model) Select(i int) {
	if i < 0 || i >= len(m.lessons) {
		return
	}
	if !m.matches(i) {
		m.filter = ""
	}
	m.cursor = i
	m.scroll()
}

// Cursor is the catalog index under the cursor (-1 when none is listed).
func (m Model) Cursor() int { return m.cursor }

// SetSize sets the screen size.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.scroll()
}

// Filtering reports whether the learner is typing a filter (keys then
// belong to the filter, not to the app).
func (m Model) Filtering() bool { return m.filtering }

// visible are the catalog indices listed, in order, after the filter.
func (m Model) visible() []int {
	var out []int
	for _, i := range m.order {
		if m.matches(i) {
			out = append(out, i)
		}
	}
	return out
}

func (m Model) matches(i int) bool {
	if m.filter == "" {
		return true
	}
	l := m.lessons[i]
	hay := strings.ToLower(fmt.Sprintf("%d %s %s", l.Number, l.Title, l.Summary))
	return strings.Contains(hay, strings.ToLower(m.filter))
}

// Update moves the cursor (↑ ↓, a page, the first and last), opens the
// chapter under it (enter) and edits the filter (/).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil
	}
	if m.filtering {
		m.editFilter(k)
		return m, nil
	}
	vis := m.visible()
	at := indexOf(vis, m.cursor)
	switch {
	case key.Matches(k, m.keys.Select):
		if at >= 0 {
			i := m.cursor
			return m, func() tea.Msg { return OpenMsg{i} }
		}
		return m, nil
	case key.Matches(k, m.keys.Filter):
		m.filtering = true
		return m, nil
	case key.Matches(k, m.keys.Down):
		at++
	case key.Matches(k, m.keys.Up):
		at--
	case key.Matches(k, m.keys.PageDown):
		at += max(m.h/3, 1)
	case key.Matches(k, m.keys.PageUp):
		at -= max(m.h/3, 1)
	case key.Matches(k, m.keys.Start):
		at = 0
	case key.Matches(k, m.keys.End):
		at = len(vis) - 1
	default:
		return m, nil
	}
	if len(vis) > 0 {
		m.cursor = vis[min(max(at, 0), len(vis)-1)]
	}
	m.scroll()
	return m, nil
}

// editFilter types into the filter: enter keeps it, esc clears it. The
// cursor stays on its chapter while that one still matches, else goes to
// the first that does.
func (m *Model) editFilter(k tea.KeyMsg) {
	switch k.Type {
	case tea.KeyEnter:
		m.filtering = false
	case tea.KeyEsc:
		m.filtering, m.filter = false, ""
	case tea.KeyBackspace:
		if r := []rune(m.filter); len(r) > 0 {
			m.filter = string(r[:len(r)-1])
		}
	case tea.KeyRunes, tea.KeySpace:
		m.filter += string(k.Runes)
	case tea.KeyUp, tea.KeyDown:
		m.filtering = false
		*m, _ = m.Update(k)
		return
	}
	if vis := m.visible(); indexOf(vis, m.cursor) < 0 && len(vis) > 0 {
		m.cursor = vis[0]
	}
	m.scroll()
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// Keys lists the screen's keys for the help line.
func (m Model) Keys() []key.Binding {
	if m.filtering {
		return []key.Binding{keymap.Relabel(m.keys.Select, "keep the filter"), keymap.Relabel(m.keys.Back, "clear it")}
	}
	return []key.Binding{m.keys.Up, m.keys.Down, keymap.Relabel(m.keys.Select, "open the chapter"), m.keys.Filter}
}

// MoreKeys are the screen's other keys, for the full help.
func (m Model) MoreKeys() []key.Binding {
	return []key.Binding{m.keys.PageUp, m.keys.PageDown, keymap.Relabel(m.keys.Start, "first"), keymap.Relabel(m.keys.End, "last")}
}

// row is one line of the map, and the catalog index it belongs to (-1
// for headings).
type row struct {
	text  string
	index int
}

// rows lays the whole list out at the screen's width.
func (m Model) rows() []row {
	vis := m.visible()
	var out []row
	sections := []struct {
		title    string
		examples bool
	}{{"", false}, {"Example scripts · each a script of the command language, stepped through", true}}
	for _, sec := range sections {
		// Each list has its own columns: the examples' long titles do not
		// push the chapters' marks away.
		var in []int
		for _, i := range vis {
			if IsExample(m.lessons[i]) == sec.examples {
				in = append(in, i)
			}
		}
		cols := m.columns(in)
		first := true
		for _, i := range vis {
			if IsExample(m.lessons[i]) != sec.examples {
				continue
			}
			if first && sec.title != "" {
				// The examples apart: a blank line and their heading.
				if len(out) > 0 {
					out = append(out, row{"", -1})
				}
				out = append(out, row{m.st.Muted.Render(sec.title), -1})
			}
			first = false
			for _, t := range m.item(i, cols) {
				out = append(out, row{t, i})
			}
		}
	}
	return out
}

// columns are the widths of the marks' columns: only as wide as what
// some listed chapter shows, so that titles keep the room.
type columns struct{ title, steps, challenge, score int }

func (m Model) columns(vis []int) columns {
	var c columns
	for _, i := range vis {
		c.title = max(c.title, ansi.StringWidth(m.lessons[i].Title))
		c.steps = max(c.steps, len(m.stepsText(i)))
		c.challenge = max(c.challenge, ansi.StringWidth(m.challengeText(i)))
		if s := m.scores[i]; s.Asked > 0 {
			c.score = max(c.score, len(fmt.Sprintf("%d/%d right", s.Right, s.Asked)))
		}
	}
	// The length is what matters least: it goes first when a title
	// would be cut for it.
	marks := 2 + c.steps + 2 + 6
	if c.challenge > 0 {
		marks += 2 + c.challenge
	}
	if c.score > 0 {
		marks += 2 + c.score
	}
	if 7+c.title+marks > m.w {
		c.steps = 0
	}
	return c
}

func (m Model) stepsText(i int) string {
	if n := len(m.lessons[i].Steps); n != 1 {
		return fmt.Sprintf("%d steps", n)
	}
	return "1 step"
}

// challengeText is the challenge mark: words with the glyph, so that it
// reads the same without colour.
func (m Model) challengeText(i int) string {
	n := m.challenges[i]
	switch s := m.solved[i]; {
	case n == 0:
		return ""
	case s >= n:
		return "◆ solved"
	case s > 0:
		return fmt.Sprintf("◆ %d/%d solved", s, n)
	}
	return "◇ challenge"
}

// next is the first chapter of the curriculum not finished (-1: none).
func (m Model) next() int {
	for _, i := range m.order {
		if !IsExample(m.lessons[i]) && !m.done[i] {
			return i
		}
	}
	return -1
}

// item is a chapter's lines: number, title and marks; then its summary,
// cut to one line — or in full under the cursor.
func (m Model) item(i int, c columns) []string {
	l := m.lessons[i]
	sel := i == m.cursor
	state := "      "
	switch {
	case m.done[i]:
		state = m.st.Good.Render("✓ done")
	case i == m.next():
		state = m.st.Accent.Render("→ next")
	}
	marks := ""
	if c.steps > 0 {
		marks = fmt.Sprintf("  %*s", c.steps, m.stepsText(i))
	}
	if c.challenge > 0 {
		ch := m.challengeText(i)
		style := m.st.Muted
		if strings.HasPrefix(ch, "◆") {
			style = m.st.Good
		}
		marks += "  " + style.Render(ch) + strings.Repeat(" ", c.challenge-ansi.StringWidth(ch))
	}
	marks += "  " + state
	if s := m.scores[i]; s.Asked > 0 {
		// Words, not colour alone: "3/4 right" reads the same in mono.
		marks += "  " + m.st.Muted.Render(fmt.Sprintf("%d/%d right", s.Right, s.Asked))
	} else if c.score > 0 {
		marks += strings.Repeat(" ", c.score+2)
	}
	prefix := fmt.Sprintf("  %3d. ", l.Number)
	if sel {
		prefix = fmt.Sprintf("▸ %3d. ", l.Number)
	}
	room := min(max(m.w-ansi.StringWidth(prefix)-ansi.StringWidth(marks), 10), c.title)
	title := box.Line(l.Title, room) // the marks are never the part cut
	first := prefix + title
	if sel {
		first = m.st.Selected.Render(first)
	} else {
		first = m.st.Text.Render(first)
	}
	lines := []string{box.Line(first+marks, m.w)}
	summary := strings.Join(strings.Fields(l.Summary), " ")
	if summary == "" {
		return lines
	}
	const indent = "        "
	if !sel {
		return append(lines, box.Line(m.st.Muted.Render(indent+summary), m.w))
	}
	for _, s := range strings.Split(box.Wrap(summary, max(m.w-len(indent)-1, 10)), "\n") {
		lines = append(lines, box.Line(m.st.Text.Render(indent+s), m.w))
	}
	return lines
}

// scroll moves the window over the list so that the chapter under the
// cursor is in view, all its lines, with a line of context when it can.
func (m *Model) scroll() {
	rows := m.rows()
	h := m.listHeight()
	first, last := -1, -1
	for j, r := range rows {
		if r.index == m.cursor {
			if first < 0 {
				first = j
			}
			last = j
		}
	}
	if first < 0 || h <= 0 {
		m.top = 0
		return
	}
	if first > 0 && rows[first-1].index < 0 {
		first-- // keep a section's title with its first chapter
	}
	if last+1 > m.top+h {
		m.top = last + 1 - h
	}
	if first < m.top {
		m.top = first
	}
	m.top = min(max(m.top, 0), max(len(rows)-h, 0))
}

// listHeight is the lines left for the list under the title and the
// status line.
func (m Model) listHeight() int { return m.h - 3 }

// View draws the title, the counts (or the filter) and the window of the
// list.
func (m Model) View() string {
	chapters, examples, done := 0, 0, 0
	for i, l := range m.lessons {
		if IsExample(l) {
			examples++
			continue
		}
		chapters++
		if m.done[i] {
			done++
		}
	}
	status := fmt.Sprintf("%d chapters · %d done", chapters, done)
	switch {
	case examples == 1:
		status += " · 1 example script"
	case examples > 1:
		status += fmt.Sprintf(" · %d example scripts", examples)
	}
	switch {
	case m.filtering:
		status = m.st.Accent.Render("filter: "+m.filter+"▏") + m.st.Muted.Render("  enter keeps it, esc clears it")
	case m.filter != "":
		status = m.st.Accent.Render("filter: "+m.filter) + m.st.Muted.Render(fmt.Sprintf(" · %d shown · / changes it", len(m.visible())))
	default:
		status = m.st.Muted.Render(status)
	}
	rows := m.rows()
	lines := []string{"  " + m.st.Title.Render("Chapters"), "  " + status, ""}
	if len(rows) == 0 {
		lines = append(lines, m.st.Muted.Render("  no chapter matches"))
	}
	for j := m.top; j < len(rows) && j < m.top+m.listHeight(); j++ {
		r := rows[j]
		if r.index < 0 && r.text != "" {
			r.text = "  " + r.text
		}
		lines = append(lines, r.text)
	}
	return box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}
