package lessons

import (
	"strings"
	"testing"
)

// The built-in paths load, their chapters resolved among the built-in
// ones; the workshop lasts about 90 minutes in about ten chapters.
func TestBuiltinPaths(t *testing.T) {
	all, err := Paths()
	if err != nil {
		t.Fatal(err)
	}
	var workshop bool
	for _, p := range all {
		if p.Name != strings.TrimSuffix(strings.TrimPrefix(p.File, "paths/"), ".path") {
			t.Errorf("%s: path %q is named after its file", p.File, p.Name)
		}
		for _, s := range p.Stops {
			if !strings.HasPrefix(s.Lesson.File, "builtin/") {
				t.Errorf("%s:%d: a built-in path plays built-in chapters, not %s", p.File, s.Line, s.Lesson.File)
			}
		}
		if p.Name == "workshop" {
			workshop = true
			if m := p.Minutes(); m < 85 || m > 95 || len(p.Stops) < 8 || len(p.Stops) > 12 {
				t.Errorf("the workshop: %d chapters, %d minutes; want about 10 and 90", len(p.Stops), m)
			}
		}
	}
	if !workshop {
		t.Fatal("no workshop path")
	}
}

func TestFindPath(t *testing.T) {
	for _, name := range []string{"workshop", "workshop.path"} {
		if p, err := FindPath(name); err != nil || p.Name != "workshop" {
			t.Errorf("FindPath(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := FindPath("worksho"); err == nil || !strings.Contains(err.Error(), `did you mean "workshop"?`) {
		t.Errorf("a near name: %v", err)
	}
	if _, err := FindPath("nope.path"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: %v", err)
	}
}

// Every step of every chapter of the workshop has presenter notes, with a
// question for the room and its answers: the path is meant to be taught.
func TestWorkshopHasPresenterNotes(t *testing.T) {
	p, err := FindPath("workshop")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Stops {
		for i, st := range s.Lesson.Steps {
			if n := st.Notes; n == nil || n.Ask == "" || n.Answers == "" || n.Misconception == "" {
				t.Errorf("%s: step %d (%q, line %d) lacks presenter notes with a misconception, a question and its answers", s.Lesson.File, i+1, st.Title, st.Line)
			}
		}
	}
}
