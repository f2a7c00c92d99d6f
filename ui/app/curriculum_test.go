package app

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons/lesson"
)

// scoredLesson has two predictions (the first is right when answered 1,
// the second wrong) and a challenge with two hints and a three-line
// solution.
const scoredLesson = "---\nchapter: 5\ntitle: Scored\nsummary: Two predictions and a challenge.\n---\n\nAn introduction.\n\n" +
	"## A plain producer\n\n```eos\nproducer p1 plain\nsend p1 orders-0 1\nlose response p1\nstep 12\n```\n\n" +
	"## Predict the retry\n\n```predict\n? What does the leader do with the retried batch?\n" +
	"- It appends it again => decision.outcome == append\n- It recognises a duplicate => decision.outcome == duplicate\n```\n\n```reveal\nrun\n```\n\n" +
	"## An idempotent producer\n\n```eos\nproducer p2\nsend p2 orders-1 1\nlose response p2\nstep 12\n```\n\n" +
	"## Predict again\n\n```predict\n? And this time?\n" +
	"- It appends it again => decision.outcome == append\n- It recognises a duplicate => decision.outcome == duplicate\n```\n\n```reveal\nrun\n```\n\n" +
	"## Your turn\n\n```goal\n- A third producer exists => producers.p3.mode == idempotent\n- It has written to orders-2 => partitions.orders-2.records >= 1\n```\n\n" +
	"```hint\nCreate a producer named p3.\n```\n\n```hint\nThen send one record with it to orders-2, and run.\n```\n\n" +
	"```solution\nproducer p3\nsend p3 orders-2 1\nrun\n```\n\n" +
	"## The end\n\nDone.\n"

// memStore is an in-memory progress store that counts its saves.
type memStore struct {
	saved Progress
	saves int
	err   error
}

func (s *memStore) load() (Progress, error) { return s.saved, nil }
func (s *memStore) save(p Progress) error {
	s.saves++
	if s.err != nil {
		return s.err
	}
	// A round trip through JSON, as the real store does.
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	s.saved = Progress{}
	return json.Unmarshal(data, &s.saved)
}

func scoredOptions(t *testing.T, store *memStore) Options {
	t.Helper()
	opt := lessonOptions(t, scoredLesson)
	if store != nil {
		opt.LoadProgress, opt.SaveProgress = store.load, store.save
	}
	return opt
}

// openScored opens the lesson from Home (→ Chapters → the chapter).
func openScored(t *testing.T, opt Options) Model {
	t.Helper()
	m := newModel(t, opt, 120, 40)
	m, _ = send(t, m, keyEnter, keyEnter)
	if m.Screen() != LessonScreen {
		t.Fatalf("screen %d", m.Screen())
	}
	return m
}

// forwardUntil presses → until cond holds.
func forwardUntil(t *testing.T, m Model, what string, cond func(Model) bool) Model {
	t.Helper()
	for range 300 {
		if cond(m) {
			return m
		}
		m, _ = send(t, m, keyRight)
	}
	t.Fatalf("never reached: %s (status %q)", what, m.Status())
	return m
}

func atStep(i int) func(Model) bool {
	return func(m Model) bool { return m.Session().Position().Step == i }
}

func askingPrediction(m Model) bool {
	p := m.Session().Position()
	return p.Reveal && !m.Session().Behind()
}

func revealed(m Model) bool { p := m.Session().Position(); return p.Revealed && p.StepDone }

// answerPrediction answers the prediction ahead with key k and plays its
// reveal out.
func answerPrediction(t *testing.T, m Model, k string) Model {
	t.Helper()
	m = forwardUntil(t, m, "a prediction", askingPrediction)
	m, _ = send(t, m, keyRunes(k))
	return forwardUntil(t, m, "the reveal played out", revealed)
}

// toChallenge opens the lesson and goes to its challenge step, answering
// both predictions (right, then wrong).
func toChallenge(t *testing.T, opt Options) Model {
	t.Helper()
	m := openScored(t, opt)
	m = answerPrediction(t, m, "1")
	m = answerPrediction(t, m, "1")
	m = forwardUntil(t, m, "the challenge", atStep(4))
	if view := ansi.Strip(m.View()); !strings.Contains(view, "✗ A third producer exists") {
		t.Fatalf("the challenge's checklist:\n%s", view)
	}
	return m
}

// H reveals the challenge's hints one at a time, in order, and says so
// when there are no more.
func TestHintsRevealInOrder(t *testing.T) {
	m := toChallenge(t, scoredOptions(t, nil))
	view := ansi.Strip(m.View())
	if strings.Contains(view, "hint 1/2") || !strings.Contains(view, "(H hint 0/2 · S solution)") {
		t.Fatalf("no hint is shown before H, and the keys are offered:\n%s", view)
	}
	if help := ansi.Strip(m.View()); !strings.Contains(help, "H next hint") || !strings.Contains(help, "S solution into the command bar") {
		t.Fatalf("the help line offers H and S on a challenge:\n%s", help)
	}
	m, _ = send(t, m, keyRunes("H"))
	view = ansi.Strip(m.View())
	if m.Status() != "hint 1/2: Create a producer named p3." || !strings.Contains(view, "hint 1/2: Create a producer named p3.") || strings.Contains(view, "hint 2/2") {
		t.Fatalf("the first hint only: %q\n%s", m.Status(), view)
	}
	m, _ = send(t, m, keyRunes("H"))
	view = ansi.Strip(m.View())
	first, second := strings.Index(view, "hint 1/2: Create"), strings.Index(view, "hint 2/2: Then send one record")
	if first < 0 || second < first || !strings.HasPrefix(m.Status(), "hint 2/2: ") {
		t.Fatalf("the second hint under the first: %q\n%s", m.Status(), view)
	}
	m, _ = send(t, m, keyRunes("H"))
	if !strings.HasPrefix(m.Status(), "no more hints (2 of 2 shown)") {
		t.Fatalf("a third H: %q", m.Status())
	}
	// Hints belong to challenges: elsewhere H says so and changes nothing.
	m, _ = send(t, m, keyRight)
	if m.Session().Position().Step != 5 {
		t.Fatal("→ moves on past the challenge")
	}
	m, _ = send(t, m, keyRunes("H"))
	if !strings.HasPrefix(m.Status(), "no hint here") {
		t.Fatalf("H on a narration step: %q", m.Status())
	}
	// In the full help (?) on the lesson screen.
	m, _ = send(t, m, keyRunes("?"))
	if view := m.View(); !strings.Contains(view, "next hint") || !strings.Contains(view, "solution into the command bar") {
		t.Fatalf("the help overlay lists H and S:\n%s", view)
	}
}

// S loads the solution into the command bar without running anything.
func TestShowSolutionLoadsTheCommandBar(t *testing.T) {
	m := toChallenge(t, scoredOptions(t, nil))
	step, events, log := m.Session().Step(), len(m.Session().Trace().Events()), len(m.Session().Log())
	m, _ = send(t, m, keyRunes("S"))
	if !m.cmdbar.Active() || m.cmdbar.Value() != "producer p3" {
		t.Fatalf("the first solution line is on the bar: active %v, %q", m.cmdbar.Active(), m.cmdbar.Value())
	}
	if q := m.cmdbar.Queued(); len(q) != 2 || q[0] != "send p3 orders-2 1" || q[1] != "run" {
		t.Fatalf("the rest is queued: %q", q)
	}
	if m.Session().Step() != step || len(m.Session().Trace().Events()) != events || len(m.Session().Log()) != log {
		t.Fatal("showing the solution ran something")
	}
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "solution 1/3") || !strings.Contains(view, "next: send p3 orders-2 1 · run") {
		t.Fatalf("the bar shows the queued lines:\n%s", view)
	}
	// esc drops the solution; nothing ran.
	m, _ = send(t, m, keyEsc)
	if m.cmdbar.Active() || len(m.cmdbar.Queued()) != 0 || len(m.Session().Log()) != log {
		t.Fatal("esc drops the solution without running it")
	}
}

// Running the solution line by line (enter on each) completes the
// challenge; the checklist follows every line, and → then continues.
func TestSolutionCompletesTheChallenge(t *testing.T) {
	m := toChallenge(t, scoredOptions(t, nil))
	m, _ = send(t, m, keyRunes("S"), keyEnter)
	if !m.cmdbar.Active() || m.cmdbar.Value() != "send p3 orders-2 1" {
		t.Fatalf("enter runs the first line and loads the next: %q", m.cmdbar.Value())
	}
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "✓ A third producer exists") || !strings.Contains(view, "✗ It has written to orders-2") {
		t.Fatalf("the checklist is evaluated after each line:\n%s", view)
	}
	m, _ = send(t, m, keyEnter, keyEnter)
	if m.cmdbar.Active() {
		t.Fatalf("the bar closes after the last line: %q", m.cmdbar.Value())
	}
	view = ansi.Strip(m.View())
	if !strings.Contains(view, "✓ It has written to orders-2") || !strings.Contains(view, "✓ challenge complete") {
		t.Fatalf("every goal holds and the challenge says so:\n%s", view)
	}
	if !strings.Contains(m.Status(), "challenge complete") {
		t.Fatalf("status: %q", m.Status())
	}
	if strings.Contains(view, "move on without reaching the goal") || strings.Contains(view, "S solution") {
		t.Fatalf("a complete challenge no longer offers its solution:\n%s", view)
	}
	m, _ = send(t, m, keyRight)
	if m.Session().Position().Step != 5 {
		t.Fatalf("→ continues: step %d", m.Session().Position().Step)
	}
}

// A solution line that fails stays on the bar with its error and the
// queue stays; an emptied line is skipped.
func TestSolutionLineRefused(t *testing.T) {
	m := toChallenge(t, scoredOptions(t, nil))
	m = typeLine(t, m, "producer p3") // done by hand already
	m, _ = send(t, m, keyRunes("S"), keyEnter)
	if !m.cmdbar.Active() || m.cmdbar.Value() != "producer p3" || len(m.cmdbar.Queued()) != 2 {
		t.Fatalf("a refused line stays, the rest stays queued: %q %q", m.cmdbar.Value(), m.cmdbar.Queued())
	}
	for range len("producer p3") {
		m, _ = send(t, m, backspace)
	}
	m, _ = send(t, m, keyEnter)
	if m.cmdbar.Value() != "send p3 orders-2 1" {
		t.Fatalf("an emptied line is skipped: %q", m.cmdbar.Value())
	}
	m, _ = send(t, m, keyEnter, keyEnter)
	if !strings.Contains(ansi.Strip(m.View()), "✓ challenge complete") {
		t.Fatal("the rest of the solution completes the challenge")
	}
}

// Each prediction is scored once it is revealed; the chapter's score is
// saved, shown with the marks, in the chapter list and on Home.
func TestPredictionsAreScoredAndSaved(t *testing.T) {
	store := &memStore{}
	m := openScored(t, scoredOptions(t, store))
	m = answerPrediction(t, m, "1") // append: right
	if s := store.saved.Scores[5]; s.Right != 1 || s.Asked != 1 {
		t.Fatalf("after a right answer the saved score is 1/1: %+v", store.saved)
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "✓ your prediction was right · predictions in this chapter: 1/1 right") {
		t.Fatalf("the score is shown with the marks:\n%s", view)
	}
	m = answerPrediction(t, m, "1") // append, but the engine recognises a duplicate: wrong
	if s := store.saved.Scores[5]; s.Right != 1 || s.Asked != 2 || s.Steps[2] != true || s.Steps[4] != false {
		t.Fatalf("after a wrong answer the saved score is 1/2: %+v", store.saved.Scores)
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "✗ not this time") || !strings.Contains(view, "1/2 right") {
		t.Fatalf("the wrong answer is marked and counted:\n%s", view)
	}
	// Travelling back and forth over a revealed prediction does not count
	// it again.
	m, _ = send(t, m, keyLeft, keyLeft, keyRight, keyRight)
	if s := m.learn.scores[0]; s.Asked != 2 {
		t.Fatalf("counted twice: %+v", s)
	}
	m, _ = send(t, m, keyEsc)
	if view := ansi.Strip(m.View()); !strings.Contains(view, "Scored") || !strings.Contains(view, "1/2 right") {
		t.Fatalf("the chapter list shows the score:\n%s", view)
	}
	m, _ = send(t, m, keyEsc)
	if view := ansi.Strip(m.View()); !strings.Contains(view, "Chapter 5 · Scored, step 4 · predictions 1/2 right") {
		t.Fatalf("Home's Continue shows the score:\n%s", view)
	}
	// A new run loads the score; answering the first prediction again
	// (wrong this time) replaces its result instead of adding to it.
	m = openScored(t, scoredOptions(t, store))
	m, _ = send(t, m, keyEsc)
	if view := ansi.Strip(m.View()); !strings.Contains(view, "1/2 right") {
		t.Fatalf("the saved score is loaded:\n%s", view)
	}
	m, _ = send(t, m, keyEnter)
	m = answerPrediction(t, m, "2")
	if s := store.saved.Scores[5]; s.Right != 0 || s.Asked != 2 {
		t.Fatalf("the first prediction's new answer replaces the old one: %+v", s)
	}
}

// Progress files written before scores existed still load.
func TestOldProgressLoads(t *testing.T) {
	var p Progress
	if err := json.Unmarshal([]byte(`{"done":[5],"chapter":5,"step":2}`), &p); err != nil {
		t.Fatal(err)
	}
	store := &memStore{saved: p}
	m := newModel(t, scoredOptions(t, store), 120, 40)
	if view := ansi.Strip(m.View()); !strings.Contains(view, "Chapter 5 · Scored, step 2") || strings.Contains(view, "predictions") {
		t.Fatalf("Continue from an old file:\n%s", view)
	}
	data, _ := json.Marshal(Progress{Done: []int{5}, Chapter: 5, Step: 2})
	if string(data) != `{"done":[5],"chapter":5,"step":2}` {
		t.Fatalf("without scores the file keeps its old shape: %s", data)
	}
}

// A progress store that cannot be written is said once, then left alone.
func TestFailingSaveProgressSaysSoOnce(t *testing.T) {
	store := &memStore{err: errors.New("mkdir /state/eoslab: permission denied")}
	m := newModel(t, scoredOptions(t, store), 120, 40)
	m, _ = send(t, m, keyEnter, keyEnter) // opening a chapter saves
	const notice = "progress will not be saved this session: mkdir /state/eoslab: permission denied"
	if m.Status() != notice || store.saves != 1 {
		t.Fatalf("one notice after the first failure: %q (%d saves)", m.Status(), store.saves)
	}
	notices := 0
	for range 30 {
		m, _ = send(t, m, keyRight)
		if strings.Contains(m.Status(), "will not be saved") {
			notices++
		}
	}
	m = answerPrediction(t, m, "1")
	m, _ = send(t, m, keyEsc, keyEnter)
	if notices != 0 || strings.Contains(m.Status(), "will not be saved") || store.saves != 1 {
		t.Fatalf("the notice came back %d time(s), %d saves tried; status %q", notices, store.saves, m.Status())
	}
}

// Options.Open opens a lesson from outside the catalog at its first step
// in autoplay (eoslab play LESSON); it joins the chapter list for the
// run but stays out of the saved progress.
func TestOpenLessonInAutoplay(t *testing.T) {
	store := &memStore{}
	opt := testOptions(t, false)
	opt.LoadProgress, opt.SaveProgress = store.load, store.save
	l, err := lesson.Parse("/tmp/scored.md", []byte(scoredLesson))
	if err != nil {
		t.Fatal(err)
	}
	opt.Open, opt.Autoplay, opt.AutoplayRate = l, true, 4
	m := newModel(t, opt, 120, 40)
	if m.Screen() != LessonScreen || m.Session().Lesson() != l || m.Session().Position().Step != 0 {
		t.Fatalf("the lesson opens at step 1: screen %d, %+v", m.Screen(), m.Session().Position())
	}
	if !m.autoplay || m.Init() == nil || !strings.Contains(m.View(), "▶ 4/s") {
		t.Fatalf("autoplay is on at the speed given: %v\n%s", m.autoplay, m.View())
	}
	// Autoplay waits at the prediction, and the answer sets it going.
	// (Ticks are delivered by hand: send would run their timers.)
	tickOnce := func(m Model) Model {
		next, _ := m.Update(autoplayMsg{gen: m.gen})
		return next.(Model)
	}
	pauses := 0
	for range 100 {
		if !m.autoplay && strings.HasPrefix(m.Status(), "autoplay paused at the end of step") {
			// Each step's end is a pause; p goes on.
			pauses++
			m, _ = send(t, m, keyRunes("p"))
		}
		if !m.autoplay {
			break
		}
		m = tickOnce(m)
	}
	if pauses == 0 {
		t.Fatal("autoplay never paused at a step's end")
	}
	if m.autoplay || !m.Session().Position().Reveal || !strings.HasPrefix(m.Status(), "autoplay waits: answer the prediction") {
		t.Fatalf("autoplay should wait at the prediction: %q %+v", m.Status(), m.Session().Position())
	}
	next, cmd := m.Update(keyRunes("1"))
	m = next.(Model)
	if !m.autoplay || cmd == nil {
		t.Fatalf("the answer resumes autoplay: %q", m.Status())
	}
	if m = tickOnce(m); !m.Session().Position().Revealed {
		t.Fatal("the next tick reveals")
	}
	m, _ = send(t, m, keyRunes("p"), keyEsc)
	if view := ansi.Strip(m.View()); !strings.Contains(view, "Scored") || !strings.Contains(view, "4 chapters") {
		t.Fatalf("the lesson joins the chapter list:\n%s", view)
	}
	if store.saves == 0 || store.saved.Chapter == 5 || store.saved.Scores != nil {
		t.Fatalf("an outside lesson stays out of the saved progress: %+v", store.saved)
	}

	// A catalog lesson handed over (same file) opens as that chapter.
	opt = lessonOptions(t, scoredLesson)
	l2, _ := lesson.Parse("t.md", []byte(scoredLesson))
	opt.Open = l2
	m = newModel(t, opt, 120, 40)
	if m.Screen() != LessonScreen || len(m.lessons) != 1 || m.autoplay || m.Init() != nil {
		t.Fatalf("the catalog's chapter, without autoplay: %d lessons, autoplay %v", len(m.lessons), m.autoplay)
	}
}

var backspace = tea.KeyMsg{Type: tea.KeyBackspace}
