package app

import "github.com/eoslab/eoslab/ui/widget/statusbar"

// togglePresenter turns the lesson screen's presenter view on or off
// (P). The choice holds for the rest of the run, from chapter to
// chapter, until P again.
func (m *Model) togglePresenter() {
	m.presenter = !m.presenter
	m.lesson.SetPresenter(m.presenter)
	if m.presenter {
		m.setStatus("presenter view: the step's notes for the instructor above the narration · "+m.keys.Presenter.Help().Key+" hides them before you project", statusbar.Warn)
	} else {
		m.setStatus("presenter view off: the learner's view", statusbar.Plain)
	}
	m.layout()
}
