package app

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"

	"github.com/charmbracelet/lipgloss"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/screen/inspect"
	"github.com/eoslab/eoslab/ui/styles"
)

// Catalog lists the chapters. It is a function so that the source of
// lessons (scripts today, lesson files later) plugs in without the UI
// knowing where they come from.
type Catalog func() ([]*lesson.Lesson, error)

// Progress is what is remembered between runs: the chapters finished and
// where the learner was.
type Progress struct {
	Done    []int `json:"done"`    // chapter numbers finished
	Chapter int   `json:"chapter"` // chapter number last open, 0 for none
	Step    int   `json:"step"`    // 1-based lesson step reached in it
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
	Inspect       []inspect.File
	// Sample is what Home's "Inspect a segment file" opens.
	Sample *inspect.File

	// File access for :save and :load (default: the os package) and the
	// progress store (nil: progress lives only as long as the program).
	ReadFile     func(name string) ([]byte, error)
	WriteFile    func(name string, data []byte) error
	LoadProgress func() (Progress, error)
	SaveProgress func(Progress) error
}

func (o *Options) defaults() {
	if o.Renderer == nil {
		o.Renderer = lipgloss.DefaultRenderer()
	}
	if o.Catalog == nil {
		o.Catalog = func() ([]*lesson.Lesson, error) { return nil, nil }
	}
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	if o.WriteFile == nil {
		o.WriteFile = func(name string, data []byte) error { return os.WriteFile(name, data, 0o644) }
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
