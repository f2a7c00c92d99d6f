package lesson

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// The presenter view: the step's presenter notes (the misconception it
// targets, what to ask the room, the answers to expect) above the
// narration. It is off unless the app turns it on (a key toggles it);
// with it off, nothing of the notes is drawn.

// maxNoteRows is the most rows the notes add to the narration's room;
// longer notes scroll with the narration.
const maxNoteRows = 10

// SetPresenter shows or hides the presenter notes.
func (m *Model) SetPresenter(on bool) {
	if m.presenter == on {
		return
	}
	m.presenter = on
	m.renderNarration()
	m.bench.SetSize(m.w, max(m.h-m.narrationHeight(), 0))
	m.frame()
}

// Presenter reports whether the presenter view is on.
func (m Model) Presenter() bool { return m.presenter }

// notesOf is the shown step's notes (nil for the introduction and for a
// step without any).
func (m *Model) notesOf() *lesson.Notes {
	if m.shown < 0 || m.shown >= len(m.lesson.Steps) {
		return nil
	}
	return m.lesson.Steps[m.shown].Notes
}

// presenterLines draws the notes for the presenter view, each under a
// label, wrapped to the screen; nothing when the view is off. It also
// records how many rows they take (noteRows).
func (m *Model) presenterLines() []string {
	m.noteRows = 0
	if !m.presenter {
		return nil
	}
	bar := m.st.Warn.Render("▌")
	out := []string{bar + m.st.Warn.Render("presenter notes") + m.st.Muted.Render(" · not in the learner's view · "+m.keys.Presenter.Help().Key+" hides them")}
	n := m.notesOf()
	if n == nil {
		what := "this step has none"
		if m.shown < 0 {
			what = "the introduction has none"
		}
		out = append(out, bar+m.st.Muted.Render(" "+what))
	} else {
		const label = 15
		width := max(m.w-2-label-1, 20)
		for _, f := range []struct{ name, text string }{
			{"misconception", n.Misconception}, {"ask the room", n.Ask}, {"answers", n.Answers},
		} {
			if f.text == "" {
				continue
			}
			for i, l := range strings.Split(box.Wrap(f.text, width), "\n") {
				name := ""
				if i == 0 {
					name = f.name
				}
				pad := strings.Repeat(" ", max(label-lipgloss.Width(name), 0))
				out = append(out, bar+" "+m.st.Accent.Render(name)+pad+m.st.Text.Render(l))
			}
		}
	}
	m.noteRows = min(len(out), maxNoteRows)
	return out
}
