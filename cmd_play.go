package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/internal/fileio"
	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/ui/app"
	"github.com/eoslab/eoslab/ui/transcript"
)

func newPlayCommand(cfg *config) *cobra.Command {
	var headless, presenter bool
	var traceFormat, stateFormat, path string
	cmd := &cobra.Command{
		Use:   "play SCRIPT|LESSON | play --path PATH",
		Short: "Play a script or a lesson: a transcript, or a lesson in the lab on autoplay",
		Long: `play runs a script written in eoslab's command language (docs/commands.md)
on a fresh world and prints a transcript: every command, then every event it
caused, step by step, and a summary of the final state.

  --headless --trace json   one JSON object per event (JSON Lines; docs/trace.md)
  --state json              end with the final state as {"kind":"state", ...}

A malformed script is reported as file:line:col: message and nothing runs
(exit status 2). The same seed and script always give the same output.

A lesson (a chapter number, a built-in lesson's name, or a lesson file .md)
opens in the lab at its first step with autoplay on — instructor mode — at
--speed steps per second (default: the speed setting). Autoplay waits at
each prediction until it is answered (1-9) and pauses at the end of each
lesson step (p goes on); every key works as usual (p pauses, +/- change
the pace). With --headless, or when standard output is
not a terminal (a pipe, CI), a lesson prints its transcript instead: every
step, its commands and events, the predictions marked by the engine, the
checks; exit status 1 if a check fails.

--path PATH plays a path — an ordered selection of chapters with a time for
each, such as the 90-minute "workshop" (eoslab lessons list shows them), or
a path file (.path, docs/lessons.md#paths) — in the lab from its first
chapter, autoplay on; at each chapter's end n opens the path's next one.
Headless, it prints every chapter's transcript in turn and exits 1 if any
check fails. --presenter opens the lab in the presenter view: each step's
notes for the instructor above the narration (P toggles it); headless, it
prints the notes in the transcript, an instructor's copy.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if path != "" {
				if len(args) > 0 {
					return fmt.Errorf("--path plays a path: give no lesson or script besides it (got %q)", args[0])
				}
				return nil
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if traceFormat != "" && traceFormat != "json" && traceFormat != "text" {
				return fmt.Errorf("--trace must be json or text, not %q", traceFormat)
			}
			if stateFormat != "" && stateFormat != "json" && stateFormat != "text" {
				return fmt.Errorf("--state must be json or text, not %q", stateFormat)
			}
			if path != "" {
				if !headless && isTerminal(cmd.OutOrStdout()) {
					return playPathTUI(cmd, cfg, path, presenter)
				}
				return playPath(cmd, cfg, path, presenter)
			}
			if lessons.IsLesson(args[0]) {
				if !headless && isTerminal(cmd.OutOrStdout()) {
					return playLessonTUI(cmd, cfg, args[0], presenter)
				}
				return playLesson(cmd, cfg, args[0], presenter)
			}
			return play(cmd, args[0], cfg.Options().Seed, traceFormat == "json" || (stateFormat == "json" && traceFormat == ""), stateFormat != "")
		},
	}
	cmd.Flags().BoolVar(&headless, "headless", false, "print a lesson's transcript instead of opening the lab (the default when stdout is not a terminal; scripts are always headless)")
	cmd.Flags().StringVar(&traceFormat, "trace", "", "event output: text (default) or json")
	cmd.Flags().StringVar(&stateFormat, "state", "", "print the final state: text or json")
	cmd.Flags().StringVar(&path, "path", "", "play a path of chapters (e.g. workshop; or a .path file) one after another")
	cmd.Flags().BoolVar(&presenter, "presenter", false, "open the lab in the presenter view: each step's notes for the instructor (P toggles it); headless, print them in the transcript")
	return cmd
}

// maxSourceBytes bounds a script or a lesson file read by the CLI. The
// longest chapter is about 30 KiB; 16 MiB is far past any real one, and
// short of what would keep the lab parsing, or playing, for minutes.
const maxSourceBytes = 16 << 20

func play(cmd *cobra.Command, path string, seed uint64, asJSON, withState bool) error {
	src, err := fileio.ReadLimited(path, maxSourceBytes, "a script")
	if errors.Is(err, os.ErrNotExist) && !strings.HasSuffix(path, ".eos") {
		// Neither a file nor a chapter: say what could have been meant.
		_, lerr := lessons.Find(path)
		return fmt.Errorf("%s is neither a script file nor a chapter: %w", path, lerr)
	}
	if err != nil {
		return exitError2(cmd, err)
	}
	cmds, err := script.Parse(path, src)
	if err == nil {
		err = checkScript(path, seed, cmds)
	}
	if err != nil {
		var list script.ErrorList
		var one *script.Error
		switch {
		case errors.As(err, &list):
			for _, e := range list {
				fmt.Fprintln(cmd.ErrOrStderr(), e)
			}
		case errors.As(err, &one):
			fmt.Fprintln(cmd.ErrOrStderr(), one)
		default:
			return err
		}
		return exitError{2}
	}
	opt := transcript.Options{State: withState || !asJSON}
	if asJSON {
		opt.Format = transcript.JSON
	}
	w := sim.New(seed)
	w.KeepTrace(false) // the transcript writes the events as they come
	return transcript.Run(cmd.OutOrStdout(), w, cmds, opt)
}

// checkScript applies the commands to a scratch world, untraced — the
// events are not needed to find a command the world refuses, and tracing
// never changes what a world does — so that a refused command is reported
// before anything is printed.
func checkScript(file string, seed uint64, cmds []script.Command) error {
	w := sim.New(seed)
	w.SetTracing(false)
	for _, c := range cmds {
		if _, err := w.Apply(c); err != nil {
			return &script.Error{File: file, Pos: c.Position(), Msg: err.Error()}
		}
	}
	return nil
}

// isTerminal reports whether w is a terminal: a lesson opens in the lab
// only then, and prints its transcript into pipes and files.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// exitError2 reports a file that could not be read and exits 2: bad
// input, as a malformed script is.
func exitError2(cmd *cobra.Command, err error) error {
	fmt.Fprintf(cmd.ErrOrStderr(), "eoslab: %s\n", fileProblem(err))
	return exitError{2}
}

// fileProblem renders an error about a file as "file: problem", the
// path said once (os says "open file: ...").
func fileProblem(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", pe.Path, pe.Err)
	}
	return err.Error()
}

// playLessonTUI opens the lab on a lesson at its first step, autoplay on
// at the speed setting (--speed). A lesson that cannot be read is
// reported as the headless path reports it.
func playLessonTUI(cmd *cobra.Command, cfg *config, name string, presenter bool) error {
	l, err := findLesson(name)
	if err != nil {
		return playLesson(cmd, cfg, name, presenter)
	}
	opt, err := lessonOptions(cfg)
	if err != nil {
		return err
	}
	opt.Open, opt.Autoplay, opt.Presenter = l, true, presenter
	return app.Run(opt, screenFlags(cmd, cfg).program()...)
}

// playPathTUI opens the lab on a path's first chapter, autoplay on; the
// lab then leads from each chapter of the path to the next.
func playPathTUI(cmd *cobra.Command, cfg *config, name string, presenter bool) error {
	p, err := findPath(cmd, name)
	if err != nil {
		return err
	}
	opt, err := lessonOptions(cfg)
	if err != nil {
		return err
	}
	opt.Path, opt.Autoplay, opt.Presenter = p, true, presenter
	return app.Run(opt, screenFlags(cmd, cfg).program()...)
}
