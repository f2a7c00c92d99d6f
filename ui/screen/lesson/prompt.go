package lesson

import (
	"fmt"

	"github.com/eoslab/eoslab/lessons/lesson"
)

// promptLines draws what the step asks: a prediction with its choices
// (marked ✓ ✗ by the engine once revealed), a challenge's live
// checklist, the step's expectations once it has played out. Marks are
// glyphs and words, not colour alone.
func (m *Model) promptLines() []string {
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
			if p.Marked[p.Chosen-1] {
				out = append(out, m.st.Good.Render("✓ your prediction was right"))
			} else {
				out = append(out, m.st.Bad.Render("✗ not this time: compare the window and the timeline with your answer"))
			}
		}
	}
	if len(p.Goals) > 0 {
		out = append(out, m.st.Title.Render("Goal — act with keys and commands until every item holds:"))
		out = append(out, m.checks(p.Goals)...)
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
