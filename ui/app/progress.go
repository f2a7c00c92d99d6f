package app

import (
	"errors"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/screen/chapters"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// learning is what the lab keeps of the learner's way through lessons
// beyond the engine session: hints shown, predictions scored, challenges
// completed, and the state of the progress store.
type learning struct {
	hints    map[int]int   // challenge hints shown, by lesson step (this session)
	scored   map[int]bool  // prediction steps scored in this session
	complete map[int]bool  // challenge steps announced complete in this session
	scores   map[int]Score // prediction scores, by catalog index
	solved   map[int][]int // challenge steps solved (1-based), by catalog index
	unsaved  bool          // progress changed since a save was last asked for
	noSave   bool          // the progress store failed once: saving stopped
	waiting  bool          // autoplay paused at a prediction; answering resumes it
	// outside is a lesson opened from outside the catalog (Options.Open):
	// it is listed for this run but kept out of the saved progress.
	outside *lesson.Lesson
	// kept is what the saved progress holds that this run does not manage:
	// chapters no longer in the catalog, and where the learner was (kept
	// while the lesson open is an outside one).
	kept Progress
}

func newLearning() learning {
	return learning{hints: map[int]int{}, scored: map[int]bool{}, complete: map[int]bool{},
		scores: map[int]Score{}, solved: map[int][]int{}, kept: Progress{Scores: map[int]Score{}, Solved: map[int][]int{}}}
}

// newSession forgets what belonged to the previous run of a lesson.
func (l *learning) newSession() {
	l.hints, l.scored, l.complete = map[int]int{}, map[int]bool{}, map[int]bool{}
}

// progress is what saveProgress writes.
func (m Model) progress() Progress {
	p := Progress{Chapter: m.learn.kept.Chapter, Step: m.learn.kept.Step}
	p.Done = append(p.Done, m.learn.kept.Done...)
	for i, l := range m.lessons {
		if m.done[i] && l != m.learn.outside {
			p.Done = append(p.Done, l.Number)
		}
	}
	slices.Sort(p.Done)
	p.Done = slices.Compact(p.Done)
	for n, s := range m.learn.kept.Scores {
		if p.Scores == nil {
			p.Scores = map[int]Score{}
		}
		p.Scores[n] = s
	}
	for i, s := range m.learn.scores {
		if i < len(m.lessons) && m.lessons[i] != m.learn.outside && s.Asked > 0 {
			if p.Scores == nil {
				p.Scores = map[int]Score{}
			}
			p.Scores[m.lessons[i].Number] = s
		}
	}
	m.solvedProgress(&p) // chapters.go
	if m.lessonSess != nil && m.lessons[m.lessonIdx] != m.learn.outside {
		p.Chapter = m.lessons[m.lessonIdx].Number
		p.Step = m.lessonSess.Position().Step + 1
	}
	return p
}

// saveProgress stores progress off the UI loop, if a store is set and
// has not failed.
func (m Model) saveProgress() tea.Cmd {
	store := m.opt.SaveProgress
	if store == nil || m.learn.noSave {
		return nil
	}
	p := m.progress()
	return func() tea.Msg { return progressMsg{store(p)} }
}

// ProgressNotice is what a SaveProgress returns when the save worked
// but the learner should hear of something: the progress file found
// unreadable and kept aside, say. It reaches the status bar the way a
// failure does, but saving goes on. A store returns it once.
type ProgressNotice struct{ Msg string }

func (n *ProgressNotice) Error() string { return n.Msg }

// progressSaved handles the end of a save. The first failure (a state
// directory that cannot be written, say) is said once in the status bar
// and saving stops for the rest of the run; saves already on their way
// fail quietly. A notice is said, and saving goes on.
func (m *Model) progressSaved(err error) {
	if err == nil || m.learn.noSave {
		return
	}
	var notice *ProgressNotice
	if errors.As(err, &notice) {
		m.setStatus(notice.Msg, statusbar.Warn)
		return
	}
	m.learn.noSave = true
	m.setStatus("progress will not be saved this session: "+err.Error(), statusbar.Bad)
}

// persist asks for a save when the last message changed progress that
// was not saved yet (a prediction scored, a lesson step reached).
func persist(next tea.Model, cmd tea.Cmd) (tea.Model, tea.Cmd) {
	m, ok := next.(Model)
	if !ok || !m.learn.unsaved {
		return next, cmd
	}
	m.learn.unsaved = false
	return m, tea.Batch(cmd, m.saveProgress())
}

// restoreProgress marks finished chapters, restores the scores and
// prepares Continue.
func (m *Model) restoreProgress(p Progress) {
	m.learn.kept.Chapter, m.learn.kept.Step = p.Chapter, p.Step
	for _, n := range p.Done {
		if i := m.chapterIndex(n); i >= 0 {
			m.done[i] = true
		} else {
			m.learn.kept.Done = append(m.learn.kept.Done, n)
		}
	}
	for n, s := range p.Scores {
		if i := m.chapterIndex(n); i >= 0 {
			m.learn.scores[i] = s
		} else {
			m.learn.kept.Scores[n] = s
		}
	}
	m.restoreSolved(p.Solved) // chapters.go
	// The inspector opened from the shell leads to Home, whose Continue
	// is the lab's as always; a deep link or a given lesson replaces it.
	if i := m.chapterIndex(p.Chapter); i >= 0 && m.opt.Chapter == 0 && m.opt.Open == nil {
		m.openLesson(i, p.Step-1)
		m.screen, m.sess = HomeScreen, nil // opened for Continue, shown on demand
	}
}

// chapterMarks are the chapter list's ✓ and scores, by catalog index.
func (m Model) chapterMarks() map[int]chapters.Score {
	out := map[int]chapters.Score{}
	for i, s := range m.learn.scores {
		if s.Asked > 0 {
			out[i] = chapters.Score{Right: s.Right, Asked: s.Asked}
		}
	}
	return out
}
