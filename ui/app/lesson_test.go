package app

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons/lesson"
)

const predictLesson = "---\nchapter: 1\ntitle: Slow motion\nsummary: A plain producer duplicates.\n---\n\nAn introduction.\n\n" +
	"## Send and lose the answer\npanels: network, partition\n\nA plain producer.\n\n```eos\nproducer p1 plain\nsend p1 orders-0 1\nlose response p1\nstep 12\n```\n\n" +
	"```expect\npartitions.orders-0.records == 1\n```\n\n" +
	"## Predict the retry\n\nThe retry comes.\n\n```predict\n? What does the leader do with the retried batch?\n" +
	"- It appends it again => decision.outcome == append && partitions.orders-0.records == 2\n" +
	"- It recognises a duplicate => decision.outcome == duplicate\n```\n\n```reveal\nrun\n```\n\n" +
	"## Your turn\n\n```goal\nTwo producers exist => producers.p2.mode == idempotent\n```\n\n```solution\nproducer p2\n```\n"

func lessonOptions(t *testing.T, src string) Options {
	t.Helper()
	opt := testOptions(t, false)
	opt.Catalog = func() ([]*lesson.Lesson, error) {
		l, err := lesson.Parse("t.md", []byte(src))
		return []*lesson.Lesson{l}, err
	}
	return opt
}

// A prediction is asked before the reveal, answered with a number key and
// marked by the lesson's predicates against what the engine then did.
func TestPredictionIsMarkedByTheEngine(t *testing.T) {
	m := newModel(t, lessonOptions(t, predictLesson), 120, 40)
	m, _ = send(t, m, keyEnter, keyEnter)
	if !strings.Contains(m.View(), "An introduction.") {
		t.Fatal("the introduction is shown first")
	}
	for i := 0; i < 50 && !m.Session().Position().Reveal; i++ {
		m, _ = send(t, m, keyRight)
	}
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "? What does the leader do with the retried batch?") || !strings.Contains(view, "answer first: 1-2") {
		t.Fatalf("the question waits for an answer:\n%s", view)
	}
	if !strings.Contains(view, "step 2/3: Predict the retry") {
		t.Fatal("the step's title is in the header")
	}
	m, _ = send(t, m, keyRunes("1"))
	for i := 0; i < 100 && !m.Session().Position().StepDone; i++ {
		m, _ = send(t, m, keyRight)
	}
	view = ansi.Strip(m.View())
	if !strings.Contains(view, "▸ 1) It appends it again  ✓ what the engine did") || !strings.Contains(view, "✓ your prediction was right") {
		t.Fatalf("the answer should be marked right:\n%s", view)
	}
	m, _ = send(t, m, keyRight) // the challenge
	if view = ansi.Strip(m.View()); !strings.Contains(view, "✗ Two producers exist") {
		t.Fatalf("the challenge shows its goals live:\n%s", view)
	}
	m = typeLine(t, m, "producer p2")
	if view = ansi.Strip(m.View()); !strings.Contains(view, "✓ Two producers exist") {
		t.Fatalf("acting should tick the goal:\n%s", view)
	}
}

// A step's expectations are checked once it has played out.
func TestStepExpectationsAreShown(t *testing.T) {
	m := newModel(t, lessonOptions(t, predictLesson), 120, 40)
	m, _ = send(t, m, keyEnter, keyEnter, keyRight)
	for i := 0; i < 20 && !m.Session().Position().StepDone; i++ {
		m, _ = send(t, m, keyRight)
	}
	if !strings.Contains(ansi.Strip(m.View()), "✓ the lesson's 1 check(s) hold") {
		t.Fatalf("checks:\n%s", ansi.Strip(m.View()))
	}
}
