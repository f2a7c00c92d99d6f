package lesson

import (
	"errors"
	"strings"
	"testing"
)

// A presenter block becomes the step's notes: keys start notes, the
// lines after a key continue it, and nothing of it reaches the
// narration the learner reads.
func TestPresenterNotes(t *testing.T) {
	src := head + "## S\nThe narration.\n\n```presenter\nmisconception: retries\n  are free\nask: how many copies?\nanswers: two\n  note: an indented line continues\n# a comment for authors\n```\n\n## T\nMore.\n"
	l, err := Parse("l.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n := l.Steps[0].Notes
	if n == nil || n.Line != 9 || n.Misconception != "retries are free" || n.Ask != "how many copies?" || n.Answers != "two note: an indented line continues" {
		t.Fatalf("notes: %#v", n)
	}
	if strings.Contains(l.Steps[0].Narration, "retries") || strings.Contains(l.Steps[0].Narration, "presenter") {
		t.Fatalf("the notes leaked into the narration: %q", l.Steps[0].Narration)
	}
	if l.Steps[1].Notes != nil {
		t.Fatalf("a step without a block has notes: %#v", l.Steps[1].Notes)
	}
}

// Each mistake in a presenter block is an error at its line; a near
// miss of the block's name or of a key gets the name meant.
func TestPresenterNotesErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{head + "## S\n```presentr\nask: q\n```\n", "l.md:7: unknown block \"presentr\", did you mean ```presenter?"},
		{head + "## S\n```Presenter\nask: q\n```\n", "l.md:7: unknown block \"Presenter\", did you mean ```presenter? (block names are lower case)"},
		{head + "## S\n```presenter\nask: q\nanswer: a\n```\n", `l.md:9: presenter: unknown key "answer", did you mean "answers"? (keys: misconception, ask, answers)`},
		{head + "## S\n```presenter\nwhat to say\n```\n", `l.md:8: presenter: a note starts with a key — misconception, ask, answers — then a colon, got "what to say"`},
		{head + "## S\n```presenter\nask: q\n```\n", "l.md:7: presenter: ask: without answers"},
		{head + "## S\n```presenter\nanswers: a\n```\n", "l.md:7: presenter: answers: without ask"},
		{head + "## S\n```presenter\nmisconception:\nask: q\nanswers: a\n```\n", "l.md:8: presenter: misconception: is empty"},
		{head + "## S\n```presenter\nask: q\nask: r\nanswers: a\n```\n", "l.md:9: presenter: ask given twice (first at line 8)"},
		{head + "## S\n```presenter\n\n```\n", "l.md:7: presenter: no notes"},
		{head + "## S\n```presenter\nmisconception: m\n```\n```presenter\nmisconception: n\n```\n", "l.md:10: a step has one ```presenter block (this one's first is at line 7)"},
		{head + "```presenter\nask: q\n```\n## S\n", "l.md:6: a ```presenter block must be inside a step"},
		{head + "## S\n```presenter for the room\nask: q\nanswers: a\n```\n", "l.md:7: ```presenter takes nothing after its name"},
		{head + "## S\n```presenter\nmisconception: " + strings.Repeat("x ", 3000) + "\n```\n", "l.md:7: presenter: the notes are"},
	}
	for _, c := range cases {
		l, err := Parse("l.md", []byte(c.src))
		var errs Errors
		if l != nil || !errors.As(err, &errs) {
			t.Errorf("%q: got lesson %v, error %v; want the error %q", c.src, l != nil, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}
