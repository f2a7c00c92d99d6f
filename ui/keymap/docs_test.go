package keymap

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// docs/tui.md is the lab's key reference. This test holds it to the key
// map: every key bound is documented, and every key of its key tables is
// bound.

// keyNames spells the keys the page writes as words or arrows the way
// the key map does.
var keyNames = map[string]string{
	"→": "right", "←": "left", "↑": "up", "↓": "down",
	"Home": "home", "End": "end", "home": "home", "end": "end",
	"space": " ", "enter": "enter", "Enter": "enter", "esc": "esc",
	"tab": "tab", "shift+tab": "shift+tab", "pgup": "pgup", "pgdown": "pgdown",
	"ctrl+c": "ctrl+c",
}

var ticked = regexp.MustCompile("`([^`]+)`")

// cellKeys reads the keys of a key table's first cell: "→ `l` space",
// "Home `g` / End `G`", "`w` `b` / `.` `,` / ↑ ↓", "`1`–`9`".
func cellKeys(cell string) []string {
	var out []string
	if m := regexp.MustCompile("`([0-9])`–`([0-9])`").FindStringSubmatch(cell); m != nil {
		for c := m[1][0]; c <= m[2][0]; c++ {
			out = append(out, string(c))
		}
		return out
	}
	for _, m := range ticked.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	for _, w := range strings.Fields(ticked.ReplaceAllString(cell, " ")) {
		w = strings.Trim(w, ",")
		if k, ok := keyNames[w]; ok {
			out = append(out, k)
		}
	}
	return out
}

// proseKeys reads the keys a paragraph names: backticked ones, words and
// arrows for keys, and single characters standing alone ("↑ ↓ (or k j)",
// "w b . , walk the bytes").
func proseKeys(text string) []string {
	var out []string
	for _, m := range ticked.FindAllStringSubmatch(text, -1) {
		if len([]rune(m[1])) == 1 || keyNames[m[1]] != "" {
			out = append(out, m[1])
		}
	}
	for _, w := range strings.Fields(ticked.ReplaceAllString(text, " ")) {
		if k, ok := keyNames[strings.Trim(w, ",;:()")]; ok {
			out = append(out, k)
			continue
		}
		if t := strings.Trim(w, ";:()"); len(t) == 1 {
			out = append(out, t)
		} else if t := strings.Trim(t, ",."); len(t) == 1 {
			out = append(out, t)
		}
	}
	return out
}

// tuiKeys reads docs/tui.md's Screens and Keys sections: the keys of the
// key tables' first column, and every key named anywhere in them.
func tuiKeys(t *testing.T) (tables, named []string) {
	t.Helper()
	src, err := os.ReadFile("../../docs/tui.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	_, screens, _ := strings.Cut(doc, "\n## Screens\n")
	screens, _, _ = strings.Cut(screens, "\n## Panels\n")
	_, keys, _ := strings.Cut(doc, "\n## Keys\n")
	keys, _, _ = strings.Cut(keys, "\n## Layouts\n")
	for _, line := range strings.Split(keys, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| key |") {
			tables = append(tables, cellKeys(strings.Split(line, " | ")[0][2:])...)
		}
	}
	named = append(proseKeys(screens), proseKeys(keys)...)
	return tables, append(named, tables...)
}

// bound lists every key of every binding of the key map, with the
// binding's field name.
func bound(km KeyMap) map[string][]string {
	out := map[string][]string{}
	v := reflect.ValueOf(km)
	for i := 0; i < v.NumField(); i++ {
		b, ok := v.Field(i).Interface().(key.Binding)
		if !ok {
			continue
		}
		for _, k := range b.Keys() {
			out[k] = append(out[k], v.Type().Field(i).Name)
		}
	}
	return out
}

func TestKeysAreDocumented(t *testing.T) {
	tables, named := tuiKeys(t)
	if len(tables) < 40 {
		t.Fatalf("only %d keys read from docs/tui.md's key tables", len(tables))
	}
	keys := bound(Default())
	for k, fields := range keys {
		if !slices.Contains(named, k) {
			t.Errorf("%q (%s) is bound but docs/tui.md's Screens and Keys do not name it", k, strings.Join(fields, ", "))
		}
	}
	for _, k := range tables {
		if _, ok := keys[k]; !ok {
			t.Errorf("docs/tui.md's key tables list %q, which no binding has", k)
		}
	}
}

// The page's ways of writing keys read as the key map spells them.
func TestCellKeys(t *testing.T) {
	cases := map[string][]string{
		"→ `l` space":             {"l", "right", " "},
		"Home `g` / End `G`":      {"g", "G", "home", "end"},
		"`w` `b` / `.` `,` / ↑ ↓": {"w", "b", ".", ",", "up", "down"},
		"`1`–`9`":                 {"1", "2", "3", "4", "5", "6", "7", "8", "9"},
		"`p`, `+`, `-`":           {"p", "+", "-"},
		"tab / shift+tab":         {"tab", "shift+tab"},
	}
	for cell, want := range cases {
		if got := cellKeys(cell); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", cell, got, want)
		}
	}
}
