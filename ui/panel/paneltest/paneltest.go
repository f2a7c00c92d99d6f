// Package paneltest builds what panel tests need: ASCII styles (no
// terminal queries, no colour in goldens), worlds played from command
// lines, and the example scripts' commands.
package paneltest

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/styles"
)

// Styles are the default palette drawn with the ASCII profile.
func Styles() *styles.Styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return styles.New(r, styles.DefaultPalette())
}

// World is a fresh world (seed 1) that has applied lines.
func World(t testing.TB, lines ...string) *sim.World {
	t.Helper()
	w := sim.New(1)
	for _, l := range lines {
		c, err := script.ParseLine(l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Apply(c); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	return w
}

// ScriptLines reads an example script of assets/scripts (its commands:
// no comments, no blank lines).
func ScriptLines(t testing.TB, file string) []string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "..", "assets", "scripts", file))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// UpTo is lines up to and including the n-th occurrence of line.
func UpTo(t testing.TB, lines []string, line string, n int) []string {
	t.Helper()
	for i, l := range lines {
		if l == line {
			if n--; n == 0 {
				return lines[:i+1]
			}
		}
	}
	t.Fatalf("no %q", line)
	return nil
}

// RequireAll fails for every want the view lacks.
func RequireAll(t testing.TB, view string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(view, want) {
			t.Errorf("missing %q in\n%s", want, view)
		}
	}
}
