package app

import (
	"fmt"
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/screen/chapters"
	"github.com/eoslab/eoslab/ui/screen/home"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// FirstExample is the number from which a catalog numbers its example
// scripts: they are listed apart from the chapters and not counted among
// those to finish (Home's "3 of 26 done").
const FirstExample = chapters.FirstExample

// nextOf is the chapter after catalog index i in the same list — the
// curriculum's next chapter, or the next example script — or -1 after
// the last.
func (m *Model) nextOf(i int) int {
	if k := m.path.stopOf(i); k >= 0 {
		// On a path, its next chapter (none after its last).
		if k+1 < len(m.path.idx) {
			return m.path.idx[k+1]
		}
		return -1
	}
	ex := chapters.IsExample(m.lessons[i])
	for j := i + 1; j < len(m.lessons); j++ {
		if chapters.IsExample(m.lessons[j]) == ex {
			return j
		}
	}
	return -1
}

// finished reports whether the lesson kept for Continue is one the
// learner finished and has left at its end: Continue then leads on to the
// next chapter, not back to the end of this one.
func (m *Model) finished() bool {
	if m.lessonSess == nil || !m.done[m.lessonIdx] {
		return false
	}
	pos := m.lessonSess.Position()
	return pos.Done || pos.Step >= pos.Steps-1
}

// continueLesson is Home's Continue: back to where the learner was, or —
// when that chapter is finished — on to the next one from its start (the
// chapter list when there is none).
func (m *Model) continueLesson() {
	switch {
	case m.lessonSess == nil:
	case !m.finished():
		m.resumeLesson()
	case m.nextOf(m.lessonIdx) >= 0:
		m.openLesson(m.nextOf(m.lessonIdx), -1)
	default:
		m.chapters.Select(m.lessonIdx)
		m.screen = ChaptersScreen
		m.setStatus("that was the last one: every chapter is here", statusbar.Plain)
	}
}

// nextChapter is the chapter the lesson in front offers at its end: the
// next one in its list. ok is false before the end, in the past, and
// after the last chapter.
func (m Model) nextChapter() (int, bool) {
	if m.screen != LessonScreen || m.sess == nil || m.sess.Behind() || !m.sess.Position().Done {
		return -1, false
	}
	i := m.nextOf(m.lessonIdx)
	return i, i >= 0
}

// nextChapterKey is n, labelled with the chapter it opens when there is
// one.
func (m Model) nextChapterKey() key.Binding {
	if i, ok := m.nextChapter(); ok {
		return keymap.Relabel(m.keys.NextChapter, fmt.Sprintf("next: chapter %d", m.lessons[i].Number))
	}
	return m.keys.NextChapter
}

// nextChapterOffer is what the status bar adds at a lesson's end.
func (m Model) nextChapterOffer() string {
	i, ok := m.nextChapter()
	if m.path.stopOf(m.lessonIdx) >= 0 && m.screen == LessonScreen && m.sess != nil && m.sess.Position().Done {
		return m.pathOffer(i)
	}
	if !ok {
		return ""
	}
	return fmt.Sprintf(" · %s opens the next: chapter %d · %s", m.keys.NextChapter.Help().Key, m.lessons[i].Number, m.lessons[i].Title)
}

// openNextChapter is n at a lesson's end; elsewhere the key is not
// taken (ok false).
func (m *Model) openNextChapter() (tea.Cmd, bool) {
	i, ok := m.nextChapter()
	if !ok {
		return nil, false
	}
	if m.path.stopOf(m.lessonIdx) >= 0 {
		return m.openPathNext(i), true
	}
	m.openLesson(i, -1)
	return m.saveProgress(), true
}

// updateHome refreshes the home screen's progress and Continue entry,
// and the chapter list's marks.
func (m *Model) updateHome() {
	var p home.Progress
	for i, l := range m.lessons {
		if chapters.IsExample(l) {
			p.Examples++
			continue
		}
		p.Total++
		if m.done[i] {
			p.Done++
		}
	}
	if m.lessonSess != nil {
		l := m.lessons[m.lessonIdx]
		switch next := m.nextOf(m.lessonIdx); {
		case m.finished() && next >= 0:
			n := m.lessons[next]
			p.Resume = fmt.Sprintf("next: Chapter %d · %s", n.Number, n.Title)
		case m.finished():
			p.Resume = fmt.Sprintf("Chapter %d finished: the chapter list", l.Number)
		default:
			p.Resume = fmt.Sprintf("Chapter %d · %s", l.Number, l.Title)
			if pos := m.lessonSess.Position(); pos.Step >= 0 {
				p.Resume += fmt.Sprintf(", step %d", pos.Step+1)
			}
			if s := m.learn.scores[m.lessonIdx]; s.Asked > 0 {
				p.Score = fmt.Sprintf("predictions %d/%d right", s.Right, s.Asked)
			}
		}
	}
	m.home.SetProgress(p)
	m.chapters.SetMarks(m.done, m.chapterMarks())
	m.chapters.SetSolved(m.solvedMarks())
}

// markSolved records that the goals of lesson step step (0-based) of the
// lesson in front all held: the chapter list shows ◆ once every challenge
// of a chapter is solved, and the progress file keeps it.
func (m *Model) markSolved(step int) {
	if m.screen != LessonScreen || slices.Contains(m.learn.solved[m.lessonIdx], step+1) {
		return
	}
	m.learn.solved[m.lessonIdx] = append(m.learn.solved[m.lessonIdx], step+1)
	m.learn.unsaved = true
	m.chapters.SetSolved(m.solvedMarks())
}

// solvedMarks are how many challenge steps of each chapter are solved,
// by catalog index.
func (m *Model) solvedMarks() map[int]int {
	out := map[int]int{}
	for i, steps := range m.learn.solved {
		out[i] = len(steps)
	}
	return out
}

// solvedProgress writes the solved challenges into p, by chapter number
// (with those of chapters this run does not list, kept as they were).
func (m Model) solvedProgress(p *Progress) {
	for n, steps := range m.learn.kept.Solved {
		if p.Solved == nil {
			p.Solved = map[int][]int{}
		}
		p.Solved[n] = steps
	}
	for i, steps := range m.learn.solved {
		if i < len(m.lessons) && m.lessons[i] != m.learn.outside && len(steps) > 0 {
			if p.Solved == nil {
				p.Solved = map[int][]int{}
			}
			p.Solved[m.lessons[i].Number] = slices.Sorted(slices.Values(steps))
		}
	}
}

// restoreSolved reads the solved challenges back from the progress file.
func (m *Model) restoreSolved(solved map[int][]int) {
	for n, steps := range solved {
		if i := m.chapterIndex(n); i >= 0 {
			m.learn.solved[i] = slices.Clone(steps)
		} else {
			m.learn.kept.Solved[n] = steps
		}
	}
	m.chapters.SetSolved(m.solvedMarks())
}
