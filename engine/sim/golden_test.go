package sim

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
)

var update = flag.Bool("update", false, "rewrite golden traces")

// transcript runs a script and renders every command and event in the
// canonical text form.
func transcript(t *testing.T, path string, seed uint64) ([]byte, *World) {
	t.Helper()
	return transcriptWith(t, path, seed, nil)
}

// transcriptWith is transcript on a world that set changes first.
func transcriptWith(t *testing.T, path string, seed uint64, set func(*World)) ([]byte, *World) {
	t.Helper()
	cmds := parseFile(t, path)
	w := New(seed)
	if set != nil {
		set(w)
	}
	var b bytes.Buffer
	for _, c := range cmds {
		b.WriteString("> " + script.Format(c) + "\n")
		evs, err := w.Apply(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Position(), err)
		}
		for _, e := range evs {
			b.WriteString(e.Describe() + "\n")
		}
	}
	return b.Bytes(), w
}

// Each scenario in testdata/ is a script whose first lines say what it
// proves; its trace is compared with the .golden file next to it (rewrite
// with -update and read the diff).
func TestGoldenTraces(t *testing.T) {
	scripts, _ := filepath.Glob("testdata/*.eos")
	examples, _ := filepath.Glob("../../assets/scripts/*.eos")
	scripts = append(scripts, examples...)
	if len(scripts) == 0 {
		t.Fatal("no scenarios")
	}
	for _, path := range scripts {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".eos"), func(t *testing.T) {
			got, _ := transcript(t, path, 1)
			golden := filepath.Join("testdata", strings.TrimSuffix(filepath.Base(path), ".eos")+".golden")
			if *update {
				os.WriteFile(golden, got, 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("trace differs from %s (run with -update and review)", golden)
			}
		})
	}
}

func eventsOf(w *World, kind trace.Kind) []trace.Event {
	var out []trace.Event
	for _, e := range w.Trace().Events() {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parseFile reads and parses a script file, failing the test if it cannot.
func parseFile(t *testing.T, path string) []script.Command {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := script.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	return cmds
}
