package lessons

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/lessons/lesson"
)

var update = flag.Bool("update", false, "rewrite golden transcripts")

// Every built-in chapter plays to its end with every expectation true, and
// its transcript matches the golden file (rewrite with -update).
func TestBuiltinLessonsPlay(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no built-in lessons")
	}
	for i, l := range all {
		if i > 0 && l.Number <= all[i-1].Number {
			t.Errorf("%s: chapter %d follows chapter %d", l.File, l.Number, all[i-1].Number)
		}
		t.Run(strings.TrimSuffix(filepath.Base(l.File), ".md"), func(t *testing.T) {
			p := lesson.NewPlayer(l, 1)
			reports, ok := p.PlayAll()
			if !ok {
				for _, r := range reports {
					for _, f := range r.Failures(l.File) {
						t.Error(f)
					}
				}
			}
			var b bytes.Buffer
			lesson.WriteTranscript(&b, l, reports, false)
			golden := filepath.Join("testdata", strings.TrimSuffix(filepath.Base(l.File), ".md")+".golden")
			if *update {
				os.MkdirAll("testdata", 0o755)
				os.WriteFile(golden, b.Bytes(), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./lessons -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("transcript differs from %s (rewrite with -update and read the diff)", golden)
			}
		})
	}
}

// Every prediction of a built-in chapter has exactly one choice the
// engine marks right: with none the lesson no longer fits the engine,
// with two the question does not say what it asks.
func TestBuiltinPredictionsHaveOneRightChoice(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for _, l := range all {
		reports, _ := lesson.NewPlayer(l, 1).PlayAll()
		for _, r := range reports {
			if r.Step.Kind != lesson.Predict {
				continue
			}
			asked++
			var right []string
			for _, c := range r.Choices {
				if c.Right {
					right = append(right, c.Choice.Text)
				}
			}
			if len(right) != 1 {
				t.Errorf("%s:%d: %d choices are marked right, want 1: %q", l.File, r.Step.Prediction.Line, len(right), right)
			}
		}
	}
	if asked == 0 {
		t.Fatal("no predictions in the built-in chapters")
	}
}

// Most built-in chapters end with a challenge: the learner acts last.
func TestBuiltinChaptersEndWithAChallenge(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	ending := 0
	for _, l := range all {
		if n := len(l.Steps); n > 0 && l.Steps[n-1].Kind == lesson.Challenge {
			ending++
		}
	}
	if want := 20; ending < want {
		t.Errorf("%d of %d chapters end with a challenge, want at least %d", ending, len(all), want)
	}
}

// A challenge's hints are graded: they point the way, and only "show
// solution" hands over the commands. No hint quotes a line of its
// solution (a bare verb such as run aside).
func TestBuiltinHintsDoNotGiveTheSolution(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, l := range all {
		for i, st := range l.Steps {
			if st.Challenge == nil {
				continue
			}
			if len(st.Challenge.Hints) < 2 {
				t.Errorf("%s step %d: %d hints, want at least 2", l.File, i+1, len(st.Challenge.Hints))
			}
			for _, c := range st.Challenge.Solution {
				line := script.Format(c)
				if !strings.Contains(line, " ") {
					continue
				}
				for k, h := range st.Challenge.Hints {
					if strings.Contains(squash(h), line) {
						t.Errorf("%s step %d hint %d gives the solution's line %q", l.File, i+1, k+1, line)
					}
				}
			}
		}
	}
}

func TestFind(t *testing.T) {
	for _, name := range []string{"7", "07-broker-checks", "broker-checks", "07-broker-checks.md"} {
		l, err := Find(name)
		if err != nil || l.Number != 7 {
			t.Errorf("Find(%q) = %v, %v; want chapter 7", name, l, err)
		}
	}
	if _, err := Find("broker-check"); err == nil || !strings.Contains(err.Error(), `did you mean "07-broker-checks"?`) {
		t.Errorf("Find of a near name: %v", err)
	}
	if _, err := Find("nope.md"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Find of a missing file: %v", err)
	}
}

// A lesson file on disk is read with a limit, and so is the number of
// files lessons_dir may hold: both errors name the file or directory.
func TestDiskLessonsAreBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.md")
	if err := os.WriteFile(big, make([]byte, MaxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("an oversized lesson file: %v", err)
	}
	many := t.TempDir()
	for i := range MaxDirFiles + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("%03d.md", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Dir(many); err == nil || !strings.Contains(err.Error(), many) {
		t.Fatalf("a lessons_dir of %d files: %v", MaxDirFiles+1, err)
	}
}
