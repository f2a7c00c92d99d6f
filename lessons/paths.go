package lessons

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/eoslab/eoslab/internal/fileio"
	"github.com/eoslab/eoslab/lessons/lesson"
)

//go:embed paths/*.path
var builtinPaths embed.FS

// maxPathBytes bounds a path file read from disk: a path lists chapters,
// one a line; 1 MiB is far past any.
const maxPathBytes = 1 << 20

// Paths returns the built-in paths (lessons/paths/*.path), in name order,
// their chapters resolved among the built-in ones. They are checked by
// the test suite, so an error here is a build defect.
func Paths() ([]*lesson.Path, error) {
	names, err := fs.Glob(builtinPaths, "paths/*.path")
	if err != nil {
		return nil, err
	}
	var out []*lesson.Path
	for _, n := range names {
		src, err := builtinPaths.ReadFile(n)
		if err != nil {
			return nil, err
		}
		p, err := lesson.ParsePath(n, src, Find)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// LoadPath reads a path file from disk; its chapters are found as
// `eoslab play` finds them (numbers, names, lesson files).
func LoadPath(file string) (*lesson.Path, error) {
	src, err := fileio.ReadLimited(file, maxPathBytes, "a path")
	if err != nil {
		return nil, err
	}
	return lesson.ParsePath(file, src, Find)
}

// IsPathFile reports whether name is a path file rather than a path's name.
func IsPathFile(name string) bool { return strings.HasSuffix(name, ".path") }

// FindPath resolves what a user typed after --path: a built-in path's
// name, or a path file (.path).
func FindPath(name string) (*lesson.Path, error) {
	if IsPathFile(name) {
		if _, err := os.Stat(name); err == nil {
			return LoadPath(name)
		}
	}
	all, err := Paths()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range all {
		if p.Name == name || filepath.Base(p.File) == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	if IsPathFile(name) {
		return nil, fmt.Errorf("%s: no such file", name)
	}
	hint := ""
	for _, n := range names {
		if strings.Contains(n, name) || strings.Contains(name, n) {
			hint = fmt.Sprintf(", did you mean %q?", n)
			break
		}
	}
	return nil, fmt.Errorf("no path %q%s (paths: %s; eoslab lessons list shows them)", name, hint, strings.Join(names, ", "))
}
