package lesson

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// promptLines draws what the step asks: a prediction with its choices
// (marked ✓ ✗ by the engine once revealed, with the chapter's score), a
// challenge's live checklist with the hints revealed and its verdict,
// the step's expectations once it has played out. Marks are glyphs and
// words, not colour alone. A line too long for the screen continues under
// its text: a goal's failing predicate is what the learner acts on.
func (m *Model) promptLines() []string {
	var out []string
	for _, l := range m.asked() {
		plain := ansi.Strip(l)
		indent := len(plain) - len(strings.TrimLeft(plain, " ▸"))
		switch t := strings.TrimLeft(plain, " ▸"); {
		case strings.HasPrefix(t, "✓ "), strings.HasPrefix(t, "✗ "), strings.HasPrefix(t, "? "):
			indent += 2
		case len(t) > 2 && t[1] == ')':
			indent += 3
		}
		out = append(out, box.Reflow(l, m.w, indent)...)
	}
	return out
}

// asked is promptLines before they are fitted to the width.
func (m *Model) asked() []string {
	p := m.prompt
	var out []string
	if p.Question != "" {
		out = append(out, m.st.Title.Render("? "+p.Question))
		for i, c := range p.Choices {
			mark := "  "
			if p.Chosen == i+1 {
				mark = "▸ "
			}
			line := fmt.Sprintf("%s%d) %s", mark, i+1, c)
			switch {
			case p.Marked == nil:
				line = m.st.Text.Render(line)
			case p.Marked[i]:
				line = m.st.Good.Render(line + "  ✓ what the engine did")
			default:
				line = m.st.Muted.Render(line + "  ✗")
			}
			out = append(out, line)
		}
		if p.Marked != nil && p.Chosen > 0 {
			score := ""
			if p.Asked > 0 {
				score = m.st.Muted.Render(fmt.Sprintf(" · predictions in this chapter: %d/%d right", p.Right, p.Asked))
			}
			if p.Marked[p.Chosen-1] {
				out = append(out, m.st.Good.Render("✓ your prediction was right")+score)
			} else {
				out = append(out, m.st.Bad.Render("✗ not this time: compare the window and the timeline with your answer")+score)
			}
		}
	}
	if len(p.Goals) > 0 {
		title := m.st.Title.Render("Goal — act with keys and commands until every item holds:")
		if p.Challenge && !p.Complete {
			more := m.keys.Solution.Help().Key + " solution"
			if p.HintsTotal > 0 {
				more = fmt.Sprintf("%s hint %d/%d · %s", m.keys.Hint.Help().Key, len(p.Hints), p.HintsTotal, more)
			}
			title = m.st.Title.Render("Goal — act until every item holds") + m.st.Muted.Render(" ("+more+"):")
		}
		out = append(out, title)
		out = append(out, m.goals(p.Goals)...)
		for i, h := range p.Hints {
			out = append(out, m.hintLines(i+1, p.HintsTotal, h)...)
		}
		if p.Challenge && p.Complete {
			next := " · → continues"
			if len(m.pos.Next) == 0 {
				next = ""
			}
			out = append(out, m.st.Good.Render("✓ challenge complete")+m.st.Muted.Render(" — every goal holds"+next))
		}
	}
	if len(p.Checks) > 0 {
		ok := 0
		for _, c := range p.Checks {
			if c.OK {
				ok++
			}
		}
		if ok == len(p.Checks) {
			out = append(out, m.st.Good.Render(fmt.Sprintf("✓ the lesson's %d check(s) hold", ok)))
		} else {
			out = append(out, m.checks(p.Checks)...)
		}
	}
	return out
}

// goals draws a challenge's checklist; an item that does not hold names
// the predicate that fails and what it gave ("— producers.p3.mode ==
// idempotent (got null)").
func (m *Model) goals(cs []lesson.Check) []string {
	var out []string
	for _, c := range cs {
		if c.OK {
			out = append(out, m.st.Good.Render("  ✓ "+c.Label))
			continue
		}
		line := "  ✗ " + c.Label
		if c.Got != "" {
			line += " — " + c.Got
		}
		out = append(out, m.st.Bad.Render(line))
	}
	return out
}

func (m *Model) checks(cs []lesson.Check) []string {
	var out []string
	for _, c := range cs {
		if c.OK {
			out = append(out, m.st.Good.Render("  ✓ "+c.Label))
			continue
		}
		line := "  ✗ " + c.Label
		if c.Got != "" {
			line += " (got " + c.Got + ")"
		}
		out = append(out, m.st.Bad.Render(line))
	}
	return out
}

// hintLines draws hint n of total, rendered as Markdown like the
// narration (hints name commands in `code`), reflowed to the screen's
// width and hanging under its label: "hint 1/2: Open a transaction…".
func (m *Model) hintLines(n, total int, text string) []string {
	label := fmt.Sprintf("hint %d/%d: ", n, total)
	body := m.md.Render(text, max(m.w-2-len(label), 20))
	var out []string
	for i, l := range strings.Split(body, "\n") {
		if i == 0 {
			out = append(out, m.st.Accent.Render(label)+l)
			continue
		}
		out = append(out, strings.Repeat(" ", len(label))+l)
	}
	return out
}
