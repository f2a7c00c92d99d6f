package kerr

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// docs/cheatsheet.md's error table gives each error's name, code and
// whether it is retriable as the engine has them.
func TestCheatsheetErrorsAreKafkas(t *testing.T) {
	src, err := os.ReadFile("../../docs/cheatsheet.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(src), "\n| error | code | retriable | the producer's reaction |\n")
	if !ok {
		t.Fatal("docs/cheatsheet.md has no error table")
	}
	rows := 0
	for _, line := range strings.Split(table, "\n")[1:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		rows++
		cells := strings.Split(line, " | ")
		name := cells[0][2:]
		if i := strings.Index(name, " ("); i >= 0 {
			name = name[:i]
		}
		names, codes := strings.Split(name, " · "), strings.Split(cells[1], " · ")
		if len(names) != len(codes) {
			t.Errorf("cheatsheet: %d names, %d codes: %s", len(names), len(codes), line)
			continue
		}
		for i, n := range names {
			c, ok := Parse(n)
			if !ok {
				t.Errorf("cheatsheet: %s is no error the engine knows", n)
				continue
			}
			if want, _ := strconv.Atoi(codes[i]); int(c) != want {
				t.Errorf("cheatsheet: %s is code %s, the engine's %d", n, codes[i], int16(c))
			}
			if got := cells[2] == "yes"; got != c.Retriable() {
				t.Errorf("cheatsheet: %s retriable %q, the engine's %v", n, cells[2], c.Retriable())
			}
		}
	}
	if rows < 10 {
		t.Fatalf("only %d rows in the cheatsheet's error table", rows)
	}
}
