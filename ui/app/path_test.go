package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons/lesson"
)

// pathOptions: three one-step chapters, and a path that plays chapter 3,
// then chapter 1.
func pathOptions(t *testing.T) Options {
	t.Helper()
	var all []*lesson.Lesson
	for n := 1; n <= 3; n++ {
		src := fmt.Sprintf("---\nchapter: %d\ntitle: Chapter %c\nsummary: S.\n---\n\n## Only step\n\n```eos\nproducer p%d\nrun\n```\n", n, 'A'+n-1, n)
		l, err := lesson.Parse(fmt.Sprintf("builtin/%02d.md", n), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, l)
	}
	opt := testOptions(t, false)
	opt.Catalog = func() ([]*lesson.Lesson, error) {
		// A fresh catalog, as the lab's is: the path finds its chapters by file.
		out := make([]*lesson.Lesson, len(all))
		for i, l := range all {
			c := *l
			out[i] = &c
		}
		return out, nil
	}
	find := func(s string) (*lesson.Lesson, error) {
		for _, l := range all {
			if fmt.Sprint(l.Number) == s {
				return l, nil
			}
		}
		return nil, fmt.Errorf("no lesson %q", s)
	}
	p, err := lesson.ParsePath("demo.path", []byte("path: demo\ntitle: Demo\nsummary: Two stops.\n3 4m last first\n1 5m\n"), find)
	if err != nil {
		t.Fatal(err)
	}
	opt.Path = p
	return opt
}

func toLessonEnd(t *testing.T, m Model) Model {
	t.Helper()
	for i := 0; i < 200 && !m.Session().Position().Done; i++ {
		m, _ = send(t, m, keyRight)
	}
	if !m.Session().Position().Done {
		t.Fatal("the lesson does not end")
	}
	return m
}

// Playing a path opens its first chapter; at each chapter's end n opens
// the path's next one, and after the last the path is complete.
func TestPathMovesFromChapterToChapter(t *testing.T) {
	m := newModel(t, pathOptions(t), 120, 40)
	if m.Screen() != LessonScreen || m.lessons[m.lessonIdx].Number != 3 || m.Session().Position().Step != 0 {
		t.Fatalf("the path's first chapter at its first step: screen %d, chapter %d, %+v", m.Screen(), m.lessons[m.lessonIdx].Number, m.Session().Position())
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "demo 1/2") {
		t.Fatalf("the status line names the path and the stop:\n%s", view)
	}
	m = toLessonEnd(t, m)
	if s := m.Status(); !strings.Contains(s, "n opens the path's next (2/2, 5 min): chapter 1 · Chapter A") {
		t.Fatalf("the end offers the path's next chapter, not chapter 1+1: %q", s)
	}
	m, _ = send(t, m, keyRunes("n"))
	if m.lessons[m.lessonIdx].Number != 1 || m.Session().Position().Step != 0 {
		t.Fatalf("n opens the path's next chapter at its first step: chapter %d, %+v", m.lessons[m.lessonIdx].Number, m.Session().Position())
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "demo 2/2") {
		t.Fatalf("the status line follows:\n%s", view)
	}
	m = toLessonEnd(t, m)
	if s := m.Status(); !strings.Contains(s, "the path demo is complete: 2 chapters, 9 min") {
		t.Fatalf("after the last stop: %q", s)
	}
	m, _ = send(t, m, keyRunes("n"))
	if m.lessons[m.lessonIdx].Number != 1 {
		t.Fatal("n after the path's end opens nothing")
	}
	// Out of the path, chapters follow the curriculum again.
	m, _ = send(t, m, keyEsc)
	if m.Screen() != ChaptersScreen {
		t.Fatalf("esc: screen %d", m.Screen())
	}
}

// In instructor mode (play --path: autoplay on) n sets autoplay going
// again in the next chapter.
func TestPathAutoplayGoesOn(t *testing.T) {
	opt := pathOptions(t)
	opt.Autoplay = true
	m := newModel(t, opt, 120, 40)
	if !m.autoplay {
		t.Fatal("play --path starts autoplay")
	}
	m.stopAutoplay()
	m = toLessonEnd(t, m)
	next, cmd := m.Update(keyRunes("n"))
	m = next.(Model)
	if m.lessons[m.lessonIdx].Number != 1 || !m.autoplay || cmd == nil {
		t.Fatalf("chapter %d, autoplay %v, cmd %v", m.lessons[m.lessonIdx].Number, m.autoplay, cmd != nil)
	}
}
