package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
)

// findPath is lessons.FindPath, its errors reported as a lesson's are:
// every problem of a path file as file:line: message, exit status 2.
func findPath(cmd *cobra.Command, name string) (*lesson.Path, error) {
	p, err := lessons.FindPath(name)
	if err == nil {
		return p, nil
	}
	var errs lesson.Errors
	if errors.As(err, &errs) {
		for _, e := range errs {
			fmt.Fprintln(cmd.ErrOrStderr(), e)
		}
		return nil, exitError{2}
	}
	return nil, exitError2(cmd, err)
}

// playPath plays every chapter of a path headless, one transcript after
// another, each under a header with its place and time in the path;
// failed checks go to stderr, and the exit status is 1 if any failed.
func playPath(cmd *cobra.Command, cfg *config, name string, presenter bool) error {
	p, err := findPath(cmd, name)
	if err != nil {
		return err
	}
	opt := cfg.Options()
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "Path %s: %s (%d chapters, %d min)\n%s\n", p.Name, p.Title, len(p.Stops), p.Minutes(), p.Summary)
	failed, at := 0, 0
	for i, s := range p.Stops {
		fmt.Fprintf(out, "\n=== %d/%d · chapter %d · %d min (%d-%d)", i+1, len(p.Stops), s.Lesson.Number, s.Minutes, at, at+s.Minutes)
		if s.Note != "" {
			fmt.Fprintf(out, " · %s", s.Note)
		}
		fmt.Fprintln(out)
		at += s.Minutes
		reports, ok := lesson.NewPlayer(s.Lesson, opt.Seed).PlayAll()
		lesson.WriteTranscriptWith(out, s.Lesson, reports, lesson.TranscriptOptions{ASCII: opt.ASCII, Notes: presenter})
		if !ok {
			failed++
			for _, r := range reports {
				for _, line := range r.Failures(s.Lesson.File) {
					fmt.Fprintln(cmd.ErrOrStderr(), line)
				}
			}
		}
	}
	if failed > 0 {
		fmt.Fprintf(out, "\n=== %s: %d of %d chapters failed a check\n", p.Name, failed, len(p.Stops))
		return exitError{1}
	}
	fmt.Fprintf(out, "\n=== %s: %d chapters, %d min, every check holds\n", p.Name, len(p.Stops), p.Minutes())
	return nil
}

// listPaths writes the built-in paths under the chapters of `lessons
// list`: each path's name, title and time, then its chapters in order.
func listPaths(w io.Writer) error {
	all, err := lessons.Paths()
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return nil
	}
	for _, p := range all {
		fmt.Fprintf(w, "\nPath %s: %s (%d chapters, %d min)\n", p.Name, p.Title, len(p.Stops), p.Minutes())
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tCH\tMIN\tAT\tTITLE\tFOR")
		at := 0
		for i, s := range p.Stops {
			fmt.Fprintf(tw, "  %d\t%d\t%d\t%d\t%s\t%s\n", i+1, s.Lesson.Number, s.Minutes, at, s.Lesson.Title, s.Note)
			at += s.Minutes
		}
		tw.Flush()
	}
	names := make([]string, len(all))
	for i, p := range all {
		names[i] = p.Name
	}
	fmt.Fprintf(w, "\nPlay a path with: eoslab play --path %s (every chapter in turn; add --presenter for the notes, --headless for the transcripts).\n", strings.Join(names, "|"))
	return nil
}

// checkPath reads a path file and reports its problems as file:line:
// message; its chapters are checked as lessons by naming their files.
func checkPath(cmd *cobra.Command, file string) bool {
	p, err := lessons.LoadPath(file)
	if err != nil {
		reportLoadError(cmd, err)
		return false
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (path %s, %d chapters, %d min)\n", file, p.Name, len(p.Stops), p.Minutes())
	return true
}
