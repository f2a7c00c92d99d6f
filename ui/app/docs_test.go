package app

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/tui.md's table of the command bar's own commands gives each with
// the syntax that help and completion show (labVerbs), and only those.
func TestLabVerbsAreDocumented(t *testing.T) {
	src, err := os.ReadFile("../../docs/tui.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(src), "\n| command | does |\n")
	var doc []string
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if m := regexp.MustCompile("^\\| `([^`]+)` \\|").FindStringSubmatch(line); m != nil {
			doc = append(doc, m[1])
		}
	}
	var code []string
	for _, v := range labVerbs() {
		code = append(code, v.Syntax)
	}
	if !slices.Equal(doc, code) {
		t.Errorf("docs/tui.md's command bar table gives %q; the bar's help and completion %q", doc, code)
	}
}
