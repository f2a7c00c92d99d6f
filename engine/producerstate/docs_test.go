package producerstate

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/trace.md's table of the produce.decision path gives every check,
// in the leader's order, and every answer a check can give, spelt as the
// path spells them.
func TestPathNamesAreDocumented(t *testing.T) {
	src, err := os.ReadFile("../../docs/trace.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(src), "\n| check | answers |\n")
	if !ok {
		t.Fatal("docs/trace.md has no table of the path's checks")
	}
	tick := regexp.MustCompile("`([a-z-]+)`")
	var checks, answers []string
	for _, line := range strings.Split(table, "\n")[1:] {
		if !strings.HasPrefix(line, "| `") {
			break
		}
		cells := strings.Split(line, " | ")
		checks = append(checks, tick.FindStringSubmatch(cells[0])[1])
		// The answers are the backticked words outside the parentheses
		// that explain them.
		plain := regexp.MustCompile(`\([^()]*\)`).ReplaceAllString(cells[1], "")
		for _, m := range tick.FindAllStringSubmatch(plain, -1) {
			answers = append(answers, m[1])
		}
	}
	var codeChecks []string
	for c := CheckProducer; c <= CheckTransaction; c++ {
		codeChecks = append(codeChecks, c.String())
	}
	if !slices.Equal(checks, codeChecks) {
		t.Errorf("docs/trace.md's path checks are %q, the leader's %q", checks, codeChecks)
	}
	code := slices.Clone(resultNames[1:])
	slices.Sort(answers)
	slices.Sort(code)
	if !slices.Equal(answers, code) {
		t.Errorf("docs/trace.md's path answers are\n%q\nthe leader's\n%q", answers, code)
	}
}
