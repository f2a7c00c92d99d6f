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

// docs/tui.md's table of fault keys gives the command each key applies:
// in a sandbox with p1 and orders-0 (led by broker 1) in focus, each key
// proposes exactly that line.
func TestFaultKeysAreDocumented(t *testing.T) {
	src, err := os.ReadFile("../../docs/tui.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(src), "\n| key | command applied | acts on |\n")
	if !ok {
		t.Fatal("docs/tui.md has no table of fault keys")
	}
	m := sandboxAt(t, 120, 40, "producer p1", "run")
	m.shownProducer, m.shownPartition = "p1", "orders-0"
	placeholders := map[string]string{"P": "p1", "N": "1", "T-N": "orders-0"}
	fill := func(cmd string) string {
		words := strings.Fields(cmd)
		for i, w := range words {
			if v, ok := placeholders[w]; ok {
				words[i] = v
			}
		}
		return strings.Join(words, " ")
	}
	rows := 0
	for _, line := range strings.Split(table, "\n")[1:] {
		if !strings.HasPrefix(line, "| `") {
			break
		}
		rows++
		cells := strings.Split(line, " | ")
		k := strings.Trim(cells[0], "|` ")
		want := fill(strings.Trim(strings.Split(cells[1], " / ")[0], "` "))
		f, ok := m.faultFor(keyRunes(k))
		if !ok || f.line != want {
			t.Errorf("docs/tui.md: %s applies %q; the key proposes %q", k, want, f.line)
		}
	}
	if rows != 10 {
		t.Errorf("docs/tui.md lists %d fault keys, want the key map's 10", rows)
	}
}
