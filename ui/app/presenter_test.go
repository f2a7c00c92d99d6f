package app

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

const notesLesson = "---\nchapter: 1\ntitle: Notes\nsummary: A step with presenter notes.\n---\n\nAn introduction.\n\n" +
	"## Send twice\n\nA plain producer writes one record.\n\n```eos\nproducer p1 plain\nsend p1 orders-0 1\nrun\n```\n\n" +
	"```presenter\nmisconception: an acknowledged record is written exactly once\nask: how many copies would a lost answer make?\nanswers: two, the broker cannot tell\n```\n\n" +
	"## No notes here\n\nNothing for the instructor.\n"

// The notes never show in the learner's view; P shows them above the
// narration, for this step and the next, and P again hides them.
func TestPresenterViewToggles(t *testing.T) {
	for _, size := range designSizes {
		m := newModel(t, lessonOptions(t, notesLesson), size[0], size[1])
		m, _ = send(t, m, keyEnter, keyEnter, keyRight) // chapters, the lesson, step 1
		if m.Session().Position().Step != 0 {
			t.Fatalf("at %v: not at step 1: %+v", size, m.Session().Position())
		}
		learner := ansi.Strip(m.View())
		for _, s := range []string{"presenter notes", "exactly once", "how many copies", "two, the broker"} {
			if strings.Contains(learner, s) {
				t.Fatalf("at %v: the learner's view shows %q:\n%s", size, s, learner)
			}
		}
		m, _ = send(t, m, keyRunes("P"))
		view := ansi.Strip(m.View())
		for _, s := range []string{"▌presenter notes", "misconception  an acknowledged record is written exactly once", "ask the room   how many copies", "answers        two, the broker cannot tell", "A plain producer writes"} {
			if !strings.Contains(view, s) {
				t.Fatalf("at %v: the presenter view lacks %q:\n%s", size, s, view)
			}
		}
		m, _ = send(t, m, keyRight, keyRight, keyRight)
		for i := 0; i < 50 && m.Session().Position().Step != 1; i++ {
			m, _ = send(t, m, keyRight)
		}
		if view = ansi.Strip(m.View()); !strings.Contains(view, "this step has none") {
			t.Fatalf("at %v: the presenter view stays on for the next step:\n%s", size, view)
		}
		m, _ = send(t, m, keyRunes("P"))
		if view = ansi.Strip(m.View()); strings.Contains(view, "presenter notes") {
			t.Fatalf("at %v: P again hides the notes:\n%s", size, view)
		}
	}
}

// Options.Presenter (play --presenter) opens the lesson in the presenter
// view, and the help lists P.
func TestPresenterOption(t *testing.T) {
	opt := lessonOptions(t, notesLesson)
	opt.Presenter = true
	m := newModel(t, opt, 120, 40)
	m, _ = send(t, m, keyEnter, keyEnter, keyRight)
	if view := ansi.Strip(m.View()); !strings.Contains(view, "how many copies") {
		t.Fatalf("the presenter view is on from the start:\n%s", view)
	}
	m, _ = send(t, m, keyRunes("?"))
	if view := ansi.Strip(m.View()); !strings.Contains(view, "P") || !strings.Contains(view, "presenter notes") {
		t.Fatalf("the help lists P:\n%s", view)
	}
}
