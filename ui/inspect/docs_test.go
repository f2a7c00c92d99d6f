package inspect

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/inspect.md's JSON table is the order of the keys of every line:
// each line of the sample has the table's keys in the table's order,
// leaving out only those the table says are conditional (control_type
// and coordinator_epoch on control batches, error on a problem).
func TestJSONKeysAreDocumented(t *testing.T) {
	src, err := os.ReadFile("../../docs/inspect.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(src), "\n## JSON output (`--json`)\n")
	var doc []string
	for _, line := range strings.Split(table, "\n") {
		if m := regexp.MustCompile("^\\| `([a-z_]+)` \\| ").FindStringSubmatch(line); m != nil {
			doc = append(doc, m[1])
		}
		if strings.HasPrefix(line, "## ") {
			break
		}
	}
	js, _ := jsonOf(t, sampleData(t), sampleName)
	for i, line := range strings.Split(strings.TrimSpace(js), "\n") {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		want := slices.DeleteFunc(slices.Clone(doc), func(k string) bool {
			switch k {
			case "control_type", "coordinator_epoch":
				return m["control"] != true
			case "error":
				_, has := m["error"]
				return !has
			}
			return false
		})
		if got := orderedKeys(t, []byte(line)); got != strings.Join(want, " ") {
			t.Errorf("line %d: keys\n got %s\nwant %s (docs/inspect.md's table)", i+1, got, strings.Join(want, " "))
		}
	}
}
