// Package lessons holds the built-in curriculum and finds lessons: the
// embedded chapters, lesson files on disk, and a directory of extra ones.
package lessons

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/eoslab/eoslab/internal/fileio"
	"github.com/eoslab/eoslab/lessons/lesson"
)

//go:embed builtin/*.md
var builtin embed.FS

// Builtin returns the embedded chapters in chapter order. They are
// checked by the test suite, so an error here is a build defect.
func Builtin() ([]*lesson.Lesson, error) {
	names, err := fs.Glob(builtin, "builtin/*.md")
	if err != nil {
		return nil, err
	}
	var out []*lesson.Lesson
	for _, n := range names {
		src, err := builtin.ReadFile(n)
		if err != nil {
			return nil, err
		}
		l, err := lesson.Parse(n, src)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	slices.SortStableFunc(out, func(a, b *lesson.Lesson) int { return a.Number - b.Number })
	return out, nil
}

// Source returns the text of a built-in lesson file.
func Source(file string) ([]byte, error) { return builtin.ReadFile(file) }

// Limits on lessons read from disk: a lesson file is text a person wrote,
// and lessons_dir is a shelf of them, not a dump.
const (
	MaxFileBytes = 16 << 20
	MaxDirFiles  = 500
)

// Load reads a lesson file from disk (at most MaxFileBytes).
func Load(path string) (*lesson.Lesson, error) {
	src, err := fileio.ReadLimited(path, MaxFileBytes, "a lesson file")
	if err != nil {
		return nil, err
	}
	return lesson.Parse(path, src)
}

// Dir reads every *.md lesson of a directory (lessons_dir). A directory
// that does not exist holds no lessons; a broken file is an error.
func Dir(dir string) ([]*lesson.Lesson, error) {
	if dir == "" {
		return nil, nil
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	if len(paths) > MaxDirFiles {
		return nil, fmt.Errorf("%s: %d lesson files, more than the %d lessons_dir may hold", dir, len(paths), MaxDirFiles)
	}
	var out []*lesson.Lesson
	for _, p := range paths {
		l, err := Load(p)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// Find resolves what a user typed: a chapter number ("7"), a built-in
// file's name ("07-broker-checks"), or a path to a lesson file.
func Find(name string) (*lesson.Lesson, error) {
	if strings.HasSuffix(name, ".md") {
		if _, err := os.Stat(name); err == nil {
			return Load(name)
		}
	}
	all, err := Builtin()
	if err != nil {
		return nil, err
	}
	n, numErr := strconv.Atoi(name)
	var names []string
	for _, l := range all {
		base := strings.TrimSuffix(filepath.Base(l.File), ".md")
		names = append(names, base)
		_, slug, _ := strings.Cut(base, "-") // "07-broker-checks" is also "broker-checks"
		if (numErr == nil && l.Number == n) || base == name || slug == name || filepath.Base(l.File) == name {
			return l, nil
		}
	}
	if strings.HasSuffix(name, ".md") {
		return nil, fmt.Errorf("%s: no such file", name)
	}
	hint := ""
	for _, c := range names {
		if strings.Contains(c, name) {
			hint = fmt.Sprintf(", did you mean %q?", c)
			break
		}
	}
	return nil, fmt.Errorf("no lesson %q%s (eoslab lessons list shows them)", name, hint)
}

// IsLesson reports whether a path names a lesson (Markdown) rather than a
// command script.
func IsLesson(path string) bool {
	if strings.HasSuffix(path, ".md") {
		return true
	}
	if strings.HasSuffix(path, ".eos") {
		return false
	}
	_, err := Find(path)
	return err == nil
}
