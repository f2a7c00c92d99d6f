package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/eoslab/eoslab/internal/fileio"
	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/spf13/cobra"
)

func newLessonsCommand(cfg *config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lessons",
		Short: "List the chapters, or check lesson files",
		Long: `lessons lists the built-in chapters (and those of lessons_dir), and checks
lesson files written by hand (docs/lessons.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return listLessons(cmd, cfg) },
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the chapters with their steps, then the paths",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return listLessons(cmd, cfg) },
	}
	check := &cobra.Command{
		Use:   "check [FILE...]",
		Short: "Check lesson files (format, commands, panels, expectations, then play them) and path files",
		Long: `check reads each lesson file and reports every problem as file:line: message —
unknown verbs (with a suggestion), bad panel names, expectations on producers,
consumers or partitions the lesson never creates, malformed predictions and
challenges. A file that reads cleanly is then played headless, and every
expectation that does not hold, or a prediction no choice of which matches
what the engine did, is reported the same way. A path file (.path) is
checked for its format and for chapters that exist. Without a FILE it
checks the built-in chapters and paths and every lesson of lessons_dir.
Exit status 1 if anything is wrong.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return checkLessons(cmd, cfg, args) },
	}
	cmd.AddCommand(list, check)
	return cmd
}

func listLessons(cmd *cobra.Command, cfg *config) error {
	all, err := lessons.Builtin()
	if err != nil {
		return err
	}
	extra, err := lessons.Dir(cfg.Options().LessonsDir)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "CH\tTITLE\tSTEPS\tNAME")
	for _, l := range append(all, extra...) {
		name := strings.TrimSuffix(filepath.Base(l.File), ".md")
		if !strings.HasPrefix(l.File, "builtin/") {
			name = l.File
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", l.Number, l.Title, stepCounts(l), name)
	}
	w.Flush()
	fmt.Fprintln(cmd.OutOrStdout(), "\nPlay one with: eoslab play CH (or NAME, or a lesson file); add --headless for a transcript.")
	return listPaths(cmd.OutOrStdout())
}

func stepCounts(l *lesson.Lesson) string {
	n := map[lesson.Kind]int{}
	for _, st := range l.Steps {
		n[st.Kind]++
	}
	s := fmt.Sprint(len(l.Steps))
	var extra []string
	if n[lesson.Predict] > 0 {
		extra = append(extra, fmt.Sprintf("%d predict", n[lesson.Predict]))
	}
	if n[lesson.Challenge] > 0 {
		extra = append(extra, fmt.Sprintf("%d challenge", n[lesson.Challenge]))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

func checkLessons(cmd *cobra.Command, cfg *config, files []string) error {
	if len(files) == 0 {
		return checkInstalled(cmd, cfg)
	}
	bad := false
	for _, f := range files {
		if lessons.IsPathFile(f) {
			bad = !checkPath(cmd, f) || bad
			continue
		}
		l, err := loadLesson(f)
		if err != nil {
			bad = true
			reportLoadError(cmd, err)
			continue
		}
		bad = !checkPlays(cmd, cfg, f, l) || bad
	}
	if bad {
		return exitError{1}
	}
	return nil
}

// checkInstalled checks what the lab offers without being given a file:
// the built-in chapters and paths, and lessons_dir.
func checkInstalled(cmd *cobra.Command, cfg *config) error {
	all, err := lessons.Builtin()
	if err != nil {
		return err
	}
	extra, err := lessons.Dir(cfg.Options().LessonsDir)
	if err != nil {
		reportLoadError(cmd, err)
		return exitError{1}
	}
	bad := false
	for _, l := range append(all, extra...) {
		bad = !checkPlays(cmd, cfg, l.File, l) || bad
	}
	paths, err := lessons.Paths()
	if err != nil {
		reportLoadError(cmd, err)
		return exitError{1}
	}
	for _, p := range paths {
		fmt.Fprintf(cmd.OutOrStdout(), "path %s: ok (%d chapters, %d min)\n", p.Name, len(p.Stops), p.Minutes())
	}
	if bad {
		return exitError{1}
	}
	return nil
}

func reportLoadError(cmd *cobra.Command, err error) {
	var errs lesson.Errors
	if errors.As(err, &errs) {
		for _, e := range errs {
			fmt.Fprintln(cmd.ErrOrStderr(), e)
		}
		return
	}
	fmt.Fprintln(cmd.ErrOrStderr(), fileProblem(err))
}

// checkPlays plays a parsed lesson headless and reports every expectation
// that does not hold as name:line: message.
func checkPlays(cmd *cobra.Command, cfg *config, name string, l *lesson.Lesson) bool {
	reports, ok := lesson.NewPlayer(l, cfg.Options().Seed).PlayAll()
	if !ok {
		for _, r := range reports {
			for _, line := range r.Failures(name) {
				fmt.Fprintln(cmd.ErrOrStderr(), line)
			}
		}
		return false
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (chapter %d, %d steps)\n", name, l.Number, len(l.Steps))
	return true
}

// loadLesson reads a lesson file from disk, at most maxSourceBytes of it.
func loadLesson(path string) (*lesson.Lesson, error) {
	src, err := fileio.ReadLimited(path, maxSourceBytes, "a lesson")
	if err != nil {
		return nil, err
	}
	return lesson.Parse(path, src)
}

// findLesson is lessons.Find with a lesson file read by loadLesson.
func findLesson(name string) (*lesson.Lesson, error) {
	if strings.HasSuffix(name, ".md") {
		if _, err := os.Stat(name); err == nil {
			return loadLesson(name)
		}
	}
	return lessons.Find(name)
}

// playLesson plays a lesson headless: the transcript on stdout, failed
// expectations on stderr, exit status 1 if any.
func playLesson(cmd *cobra.Command, cfg *config, name string, presenter bool) error {
	l, err := findLesson(name)
	if err != nil {
		var errs lesson.Errors
		if errors.As(err, &errs) {
			for _, e := range errs {
				fmt.Fprintln(cmd.ErrOrStderr(), e)
			}
			return exitError{2}
		}
		return exitError2(cmd, err)
	}
	opt := cfg.Options()
	reports, ok := lesson.NewPlayer(l, opt.Seed).PlayAll()
	lesson.WriteTranscriptWith(cmd.OutOrStdout(), l, reports, lesson.TranscriptOptions{ASCII: opt.ASCII, Notes: presenter})
	if !ok {
		for _, r := range reports {
			for _, line := range r.Failures(l.File) {
				fmt.Fprintln(cmd.ErrOrStderr(), line)
			}
		}
		return exitError{1}
	}
	return nil
}
