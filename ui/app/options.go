package app

import (
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/charmbracelet/lipgloss"

	"github.com/eoslab/eoslab/internal/fileio"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/screen/inspect"
	"github.com/eoslab/eoslab/ui/styles"
)

// Catalog lists the chapters. It is a function so that the source of
// lessons (scripts today, lesson files later) plugs in without the UI
// knowing where they come from.
type Catalog func() ([]*lesson.Lesson, error)

// Progress is what is remembered between runs: the chapters finished,
// where the learner was, and how their predictions went. Files written
// before Scores existed load unchanged (no scores yet).
type Progress struct {
	Done    []int         `json:"done"`             // chapter numbers finished
	Chapter int           `json:"chapter"`          // chapter number last open, 0 for none
	Step    int           `json:"step"`             // 1-based lesson step reached in it
	Scores  map[int]Score `json:"scores,omitempty"` // by chapter number
	// Solved are the challenge steps (1-based) whose goals all held at
	// some point, by chapter number: the chapter list's ◆.
	Solved map[int][]int `json:"solved,omitempty"`
}

// Score is how a chapter's predictions went: of those answered (Asked),
// how many the engine proved right.
type Score struct {
	Right int `json:"right"`
	Asked int `json:"asked"`
	// Steps is each answered prediction's result by 1-based lesson step:
	// a later run through the chapter replaces a step's result instead of
	// counting it twice, so Asked never exceeds the chapter's predictions.
	Steps map[int]bool `json:"steps,omitempty"`
}

// with records the answer to the prediction of lesson step step (1-based).
func (s Score) with(step int, right bool) Score {
	if len(s.Steps) == 0 && s.Asked > 0 {
		// A score without its steps (written by hand): it can only grow.
		s.Asked++
		if right {
			s.Right++
		}
		return s
	}
	steps := make(map[int]bool, len(s.Steps)+1)
	for k, v := range s.Steps {
		steps[k] = v
	}
	steps[step] = right
	s = Score{Steps: steps, Asked: len(steps)}
	for _, ok := range steps {
		if ok {
			s.Right++
		}
	}
	return s
}

// Options is everything the app needs from outside; main fills it from
// flags and configuration. Zero values are usable defaults.
type Options struct {
	Seed    uint64
	Catalog Catalog
	Logo    string

	// Renderer draws the styles; nil uses lipgloss's default (the
	// terminal on standard output). Tests pass an ASCII one.
	Renderer *lipgloss.Renderer
	Palette  *styles.Palette
	// ASCII draws every frame with ASCII only (no box drawing, no
	// glyphs): for limited fonts and serial consoles.
	ASCII bool

	// AutoplayRate is autoplay's pace in moves per second (default 2).
	AutoplayRate float64

	// Chapter and Step open a lesson at once (deep link): chapter number,
	// 1-based step. Inspect opens the inspector on these files instead.
	Chapter, Step int
	// Open opens this lesson at its first step (`eoslab play LESSON`): the
	// catalog's own chapter when it is one of them (same file), else it is
	// added to the end of the chapter list for this run and kept out of
	// the saved progress. It takes precedence over Chapter.
	Open *lesson.Lesson
	// Autoplay starts autoplay on the lesson opened (instructor mode), at
	// AutoplayRate. It pauses at predictions until they are answered.
	Autoplay bool
	// Path plays a path's chapters one after another from its first
	// (`eoslab play --path NAME`): n at a chapter's end opens the path's
	// next one. It takes precedence over Open and Chapter.
	Path *lesson.Path
	// Presenter opens lessons in the presenter view: each step's notes
	// for the instructor above the narration (P toggles it).
	Presenter bool
	Inspect   []inspect.File
	// Sample is what Home's "Inspect a segment file" opens.
	Sample *inspect.File

	// File access for :save and :load (default: the os package) and the
	// progress store (nil: progress lives only as long as the program).
	// When SaveProgress fails, the lab says so once and stops saving.
	ReadFile     func(name string) ([]byte, error)
	WriteFile    func(name string, data []byte) error
	LoadProgress func() (Progress, error)
	SaveProgress func(Progress) error

	// Serve opens the sandbox on a served cluster (eoslab serve --tui).
	Serve *Served
}

// MaxScriptBytes bounds a script read by :load.
const MaxScriptBytes = 16 << 20

func (o *Options) defaults() {
	if o.Renderer == nil {
		o.Renderer = lipgloss.DefaultRenderer()
	}
	if o.Catalog == nil {
		o.Catalog = func() ([]*lesson.Lesson, error) { return nil, nil }
	}
	if o.ReadFile == nil {
		// :load reads a script: at most 16 MiB, as `eoslab play` does.
		o.ReadFile = func(name string) ([]byte, error) { return fileio.ReadLimited(name, MaxScriptBytes, "a script") }
	}
	if o.WriteFile == nil {
		o.WriteFile = fileio.WriteAtomic
	}
	if o.AutoplayRate <= 0 {
		o.AutoplayRate = 2
	}
	if o.Logo == "" {
		o.Logo = "eoslab"
	}
}

// ScriptCatalog makes chapters of the command scripts matching pattern in
// fsys (e.g. "scripts/*.eos"), in file-name order, numbered from first. A
// script's top comment is its title and summary, and each group of
// commands a step narrated by the comments above it.
func ScriptCatalog(fsys fs.FS, pattern string, first int) Catalog {
	return func() ([]*lesson.Lesson, error) {
		names, err := fs.Glob(fsys, pattern)
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		var out []*lesson.Lesson
		for _, name := range names {
			src, err := fs.ReadFile(fsys, name)
			if err != nil {
				return nil, err
			}
			l, err := lesson.FromScript(path.Base(name), src)
			if err != nil {
				return nil, fmt.Errorf("chapter %s: %w", name, err)
			}
			l.Number = first + len(out)
			out = append(out, &l)
		}
		return out, nil
	}
}
