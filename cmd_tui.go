package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"

	"github.com/eoslab/eoslab/assets"
	"github.com/eoslab/eoslab/internal/fileio"
	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/themes"
	"github.com/eoslab/eoslab/ui/app"
	"github.com/eoslab/eoslab/ui/screen/inspect"
)

// tuiFlags are the flags of the interactive lab.
type tuiFlags struct {
	chapter, step int
	altScreen     bool
	mouse         bool
}

// bind declares the lab's flags: the deep link on the root command, the
// screen options for every command that opens the lab.
func (f *tuiFlags) bind(root *cobra.Command) {
	root.Flags().IntVar(&f.chapter, "chapter", 0, "open chapter N at once")
	root.Flags().IntVar(&f.step, "step", 0, "with --chapter: start at step K of the chapter")
	pf := root.PersistentFlags()
	pf.BoolVar(&f.altScreen, "alt-screen", true, "draw the lab on the terminal's alternate screen (off: keep it in the scrollback)")
	pf.BoolVar(&f.mouse, "mouse", true, "let the lab use the mouse (click timeline events, scroll panels)")
}

func (f *tuiFlags) program() []tea.ProgramOption {
	var opts []tea.ProgramOption
	if f.altScreen {
		opts = append(opts, tea.WithAltScreen())
	}
	if f.mouse {
		opts = append(opts, tea.WithMouseCellMotion())
	}
	return opts
}

// runTUI opens the lab: Home, or a chapter with --chapter.
func runTUI(cmd *cobra.Command, cfg *config, f *tuiFlags) error {
	if f.step > 0 && f.chapter == 0 {
		return errors.New("--step needs --chapter")
	}
	opt, err := lessonOptions(cfg)
	if err != nil {
		return err
	}
	opt.Chapter, opt.Step = f.chapter, f.step
	f.mouse = cfg.Options().Mouse // the flag, the environment or the config file
	return app.Run(opt, f.program()...)
}

// lessonOptions are the lab's options for lessons: the chapter catalog,
// autoplay's speed, the progress store, the theme and ASCII mode.
func lessonOptions(cfg *config) (app.Options, error) {
	o, err := cfg.checked() // a bad --speed is an error, not autoplay's default
	if err != nil {
		return app.Options{}, err
	}
	opt, err := labOptions(o.Seed)
	if err != nil {
		return opt, err
	}
	opt.Catalog = catalog(o.LessonsDir)
	opt.AutoplayRate = o.Speed
	opt.LoadProgress, opt.SaveProgress = progressStore()
	if err := applyLook(&opt, o); err != nil {
		return opt, err
	}
	return opt, nil
}

// screenFlags are the screen options of a command other than the root
// (whose persistent flags they are): alternate screen and mouse.
func screenFlags(cmd *cobra.Command, cfg *config) *tuiFlags {
	f := &tuiFlags{}
	f.altScreen, _ = cmd.Flags().GetBool("alt-screen")
	f.mouse = cfg.Options().Mouse
	return f
}

// applyLook sets the renderer, the theme's palette and ASCII mode. The
// renderer is the terminal's, so NO_COLOR (any value) leaves no colour
// codes at all; "auto" asks the terminal for its background here, before
// the program reads keys (asking later would race with its input).
func applyLook(opt *app.Options, o Options) error {
	r := lipgloss.NewRenderer(os.Stdout)
	dark := true
	if o.Theme == "" || o.Theme == "auto" {
		dark = r.HasDarkBackground()
	}
	t, err := themes.Resolve(o.Theme, themes.UserDir(), dark)
	if err != nil {
		return fmt.Errorf("theme: %w", err)
	}
	opt.Renderer, opt.Palette, opt.ASCII = r, &t.Palette, o.ASCII
	return nil
}

// runInspectTUI opens the inspector on segment files. The screen options
// are the root's persistent flags and the configuration (mouse), as for
// every command that opens the lab.
func runInspectTUI(cmd *cobra.Command, cfg *config, paths []string) error {
	opt, err := inspectOptions(cfg, paths)
	if err != nil {
		return err
	}
	return app.Run(opt, screenFlags(cmd, cfg).program()...)
}

// inspectOptions are the lab's options with the inspector as its first
// screen. Esc leads from it to Home, so everything there is the lab's
// own: the configured seed (worlds once ran with seed 0 from here), the
// chapters with the lessons of lessons_dir, autoplay's speed, the
// progress store and the look.
func inspectOptions(cfg *config, paths []string) (app.Options, error) {
	opt, err := lessonOptions(cfg)
	if err != nil {
		return opt, err
	}
	for _, p := range paths {
		// The browser holds a file whole; `eoslab inspect FILE` streams one
		// of any size.
		data, err := fileio.ReadLimited(p, maxBrowsedSegment, "a segment for --tui")
		if err != nil {
			return opt, fmt.Errorf("%w (eoslab inspect %s streams a file of any size)", err, p)
		}
		opt.Inspect = append(opt.Inspect, inspect.File{Name: filepath.Base(p), Data: data})
	}
	return opt, nil
}

// maxBrowsedSegment bounds a segment file `inspect --tui` holds in memory:
// Kafka's default segment.bytes is 1 GiB, but the browser is for looking,
// and a quarter of that is already far more than a screen shows.
const maxBrowsedSegment = 256 << 20

// catalog lists the chapters: the built-in lessons, the lessons of
// lessons_dir, then the example scripts as extra chapters numbered from
// app.FirstExample (101, out of the curriculum's way; the lab lists them
// apart and does not count them among the chapters to finish).
func catalog(dir string) app.Catalog {
	examples := app.ScriptCatalog(assets.FS, "scripts/*.eos", app.FirstExample)
	return func() ([]*lesson.Lesson, error) {
		out, err := lessons.Builtin()
		if err != nil {
			return nil, err
		}
		extra, err := lessons.Dir(dir)
		if err != nil {
			return nil, err
		}
		ex, err := examples()
		if err != nil {
			return nil, err
		}
		for _, l := range ex {
			l.Title = "Example: " + l.Title
		}
		return append(append(out, extra...), ex...), nil
	}
}

// labOptions are the lab's options from what the binary embeds: the
// example scripts as chapters, the logo and the sample segment.
func labOptions(seed uint64) (app.Options, error) {
	logo, err := fs.ReadFile(assets.FS, "logo.txt")
	if err != nil {
		return app.Options{}, err
	}
	sample, err := fs.ReadFile(assets.FS, assets.SamplePath)
	if err != nil {
		return app.Options{}, err
	}
	return app.Options{
		Seed:    seed,
		Catalog: app.ScriptCatalog(assets.FS, "scripts/*.eos", app.FirstExample),
		Logo:    string(logo),
		Sample:  &inspect.File{Name: filepath.Base(assets.SamplePath) + " (sample)", Data: sample},
	}, nil
}
