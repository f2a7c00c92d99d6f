package lessons

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
