package lesson

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Code blocks of the narration keep their languages, even those that
// are as near a block's name as a typo (go and goal, ts and eos).
func TestNarrationBlocksStayNarration(t *testing.T) {
	for _, lang := range []string{"", "go", "text", "ts", "js", "sh", "json", "yaml", "toml", "ini", "r", "log", "ex", "haskell", "go title=x"} {
		src := head + "## S\n\n```" + lang + "\nanything at all\n```\n"
		l, err := Parse("l.md", []byte(src))
		if err != nil {
			t.Errorf("```%s: %v", lang, err)
			continue
		}
		if !strings.Contains(l.Steps[0].Narration, "anything at all") {
			t.Errorf("```%s is not narration: %q", lang, l.Steps[0].Narration)
		}
	}
}

// Every chapter that ships, and the documented example, reads cleanly
// under the parser's rules (whether they play as recorded is the
// lessons package's test).
func TestShippedLessonsParse(t *testing.T) {
	files, _ := filepath.Glob("../builtin/*.md")
	more, _ := filepath.Glob("../../assets/lessons/*.md")
	files = append(files, more...)
	if len(files) < 25 {
		t.Fatalf("found %d lesson files", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, src); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// bigLesson is a lesson of n steps, each with narration, commands and
// an expectation, and optionally a mistake in its last step.
func bigLesson(n int, mistake bool) []byte {
	var b strings.Builder
	b.WriteString("---\nchapter: 9\ntitle: Big\nsummary: Many steps.\n---\n\nIntro.\n")
	for i := range n {
		fmt.Fprintf(&b, "\n## Step %d\npanels: producer, partition\n\nNarration of step %d.\n\n```eos\nproducer p%d\nsend p%d orders-0 1\nrun\n```\n\n```expect\nproducers.p%d.producer_epoch == 0\n```\n", i, i, i, i, i)
	}
	if mistake {
		b.WriteString("\n## Last\n\n```eos\nsned p1 orders-0 1\n```\n")
	}
	return []byte(b.String())
}

// bytesPerStep is what loading a lesson of n steps allocates per step.
func bytesPerStep(t *testing.T, n int) float64 {
	t.Helper()
	src := bigLesson(n, false)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Parse("big.md", src); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// Loading is linear: a lesson of 4000 steps costs per step what one of
// 200 does. (Each block was padded with a newline per line before it, so
// the 4000-step lesson cost 17 times as much per step; 16 000 steps
// took 26 s.) Allocation is counted, not time: budgets are -bench's.
func TestLoadIsLinear(t *testing.T) {
	small, large := bytesPerStep(t, 200), bytesPerStep(t, 4000)
	t.Logf("%.0f bytes per step for 200 steps, %.0f for 4000", small, large)
	if large > 2*small {
		t.Fatalf("loading allocates %.0f bytes per step for 4000 steps, %.0f for 200: not linear", large, small)
	}
}

// In a large lesson an error still names its exact line.
func TestLargeLessonErrorLine(t *testing.T) {
	src := bigLesson(3000, true)
	want := strings.Count(string(src), "\n") - 1 // the line of "sned"
	_, err := Parse("big.md", src)
	if err == nil || err.Error() != fmt.Sprintf(`big.md:%d: unknown command "sned", did you mean "send"?`, want) {
		t.Fatalf("got %v, want line %d", err, want)
	}
}

// A file with thousands of problems reports the first hundred and says
// how many more there are.
func TestTooManyProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(head + "## S\n\n```eos\n")
	for range 5000 {
		b.WriteString("sned p1 orders-0 1\n")
	}
	b.WriteString("```\n")
	_, err := Parse("l.md", []byte(b.String()))
	errs, _ := err.(Errors)
	if len(errs) != maxErrors+1 || errs[0].Line != 9 || errs[maxErrors-1].Line != 9+maxErrors-1 ||
		errs[maxErrors].Msg != "too many problems: 4900 more not shown" {
		t.Fatalf("%d errors; first %v, last %v", len(errs), errs[0], errs[len(errs)-1])
	}
}

// go test ./lessons/lesson -run xxx -bench ParseLesson: loading a lesson
// of 16 000 steps (about 3 MB), the size that took 26 s.
func BenchmarkParseLesson16k(b *testing.B) {
	src := bigLesson(16000, false)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse("big.md", src); err != nil {
			b.Fatal(err)
		}
	}
}

// narratedLesson is a lesson of n steps that each add a record to the
// log and check nothing.
func narratedLesson(n int) []byte {
	var b strings.Builder
	b.WriteString("---\nchapter: 9\ntitle: Big\nsummary: Many steps.\n---\n\n## First\n\n```eos\nproducer p1\n```\n")
	for i := range n {
		fmt.Fprintf(&b, "\n## Step %d\n\nNarration.\n\n```eos\nsend p1 orders-0 1\nrun\n```\n", i)
	}
	return []byte(b.String())
}

// playBytesPerStep is what playing a narrated lesson of n steps
// allocates per step.
func playBytesPerStep(t *testing.T, n int) float64 {
	t.Helper()
	l, err := Parse("n.md", narratedLesson(n))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, ok := NewPlayer(l, 1).PlayAll(); !ok {
		t.Fatal("the lesson fails")
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// A step with nothing to check builds no view of the state, whose size
// grows with the log: playing narrated steps costs the same per step in
// a long lesson as in a short one.
func TestPlayWithoutChecksIsLinear(t *testing.T) {
	small, large := playBytesPerStep(t, 100), playBytesPerStep(t, 1500)
	t.Logf("%.0f bytes per step for 100 steps, %.0f for 1500", small, large)
	if large > 2*small {
		t.Fatalf("playing allocates %.0f bytes per step for 1500 steps, %.0f for 100: not linear", large, small)
	}
}
