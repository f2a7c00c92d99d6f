package app

import (
	"fmt"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/screen/chapters"
)

// pathState is a path being played (`eoslab play --path NAME`): its
// chapters in order, as indexes of the catalog. While it is set, "the
// next chapter" — n at a lesson's end, Continue — is the path's next.
type pathState struct {
	p   *lesson.Path
	idx []int // by stop: the catalog index of its chapter
}

// stopOf is the stop that plays catalog index i, or -1.
func (ps *pathState) stopOf(i int) int {
	if ps == nil {
		return -1
	}
	return slices.Index(ps.idx, i)
}

// openPath opens a path's first chapter at its first step. A chapter the
// catalog does not hold (a lesson file a path file names) joins the end
// of the chapter list for this run, as a lesson given to `play` does.
func (m *Model) openPath(p *lesson.Path) {
	ps := &pathState{p: p}
	for _, s := range p.Stops {
		i := slices.IndexFunc(m.lessons, func(c *lesson.Lesson) bool { return c == s.Lesson || s.Lesson.File != "" && c.File == s.Lesson.File })
		if i < 0 {
			m.lessons = append(m.lessons, s.Lesson)
			i = len(m.lessons) - 1
			m.chapters = chapters.New(m.st, m.keys, m.lessons, m.done)
		}
		ps.idx = append(ps.idx, i)
	}
	m.path = ps
	m.openLesson(ps.idx[0], 0)
	m.startAutoplay()
	m.updateHome()
}

// pathNote names the path and the place of the lesson in front in it,
// for the status line: "workshop 3/10".
func (m Model) pathNote() string {
	if m.screen != LessonScreen {
		return ""
	}
	k := m.path.stopOf(m.lessonIdx)
	if k < 0 {
		return ""
	}
	return fmt.Sprintf("%s %d/%d", m.path.p.Name, k+1, len(m.path.idx))
}

// pathOffer is what the status bar says at the end of a chapter of the
// path: the next stop with its time, or that the path is complete.
func (m Model) pathOffer(next int) string {
	k := m.path.stopOf(m.lessonIdx)
	if k < 0 {
		return ""
	}
	if next < 0 {
		return fmt.Sprintf(" · the path %s is complete: %d chapters, %d min", m.path.p.Name, len(m.path.idx), m.path.p.Minutes())
	}
	s := m.path.p.Stops[k+1]
	return fmt.Sprintf(" · %s opens the path's next (%d/%d, %d min): chapter %d · %s",
		m.keys.NextChapter.Help().Key, k+2, len(m.path.idx), s.Minutes, s.Lesson.Number, s.Lesson.Title)
}

// openPathNext opens the path's next chapter at its first step and, in
// instructor mode (autoplay asked for), sets autoplay going again.
func (m *Model) openPathNext(i int) tea.Cmd {
	m.openLesson(i, 0)
	if !m.opt.Autoplay {
		return m.saveProgress()
	}
	m.startAutoplay()
	return tea.Batch(m.saveProgress(), tick(m.gen, m.interval()))
}
