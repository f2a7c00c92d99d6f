package sim_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
)

// docs/trace.md is the JSON trace's contract. These tests hold it to the
// engine: every kind the code can emit is documented and every documented
// kind is emitted somewhere, and every key an event carries in a played
// session (the scenarios, the example scripts and every built-in chapter)
// is documented for its kind.

const traceDoc = "../../docs/trace.md"

var (
	tick      = regexp.MustCompile("`([^`]+)`")
	kindTitle = regexp.MustCompile("^### `([a-z_.]+)` — ")
	kindPara  = regexp.MustCompile("^`([a-z_.]+)` — ")
	keyRow    = regexp.MustCompile("^\\| `([a-z_]+)` \\| ")
	sameAs    = regexp.MustCompile("^as `([a-z_.]+)`")
)

// docKinds reads docs/trace.md's events: each kind with the keys its
// section or row names. A kind's own section gives a key table; a
// paragraph "`kind` — ..." in a section gives the table under it or the
// "; keys `a`, `b`" it ends with; a row of "Other kinds" gives every key word
// of its second column ("as `K`" takes K's keys too). Values in the
// columns (`transaction.version`) are read as words too: the check that
// uses the result asks only that a key be there.
//
// exact lists the kinds whose keys are a table or a "keys" list, which
// name keys only.
func docKinds(t *testing.T) (kinds map[string][]string, exact map[string]bool) {
	t.Helper()
	src, err := os.ReadFile(traceDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(src), "\n## State")
	kinds, exact = map[string][]string{}, map[string]bool{}
	cur, other, para, keyTable := "", false, "", false
	for _, line := range strings.Split(doc, "\n") {
		if para != "" { // a kind's paragraph, read whole at its end
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "|") {
				para += " " + line
				continue
			}
			if _, keys, ok := strings.Cut(para, "; keys "); ok {
				for _, m := range tick.FindAllStringSubmatch(keys, -1) {
					kinds[cur] = append(kinds[cur], m[1])
				}
			}
			para = ""
		}
		if !strings.HasPrefix(line, "|") {
			keyTable = false
		}
		switch {
		case strings.HasPrefix(line, "| key | type | meaning |"):
			keyTable = true
		case strings.HasPrefix(line, "### "):
			cur, other = "", strings.HasPrefix(line, "### Other kinds")
			if m := kindTitle.FindStringSubmatch(line); m != nil {
				cur = m[1]
				kinds[cur], exact[cur] = kinds[cur][:0:0], true
			}
		case other && strings.HasPrefix(line, "| `"):
			cols := strings.Split(line, " | ")
			var keys []string
			rest := cols[1]
			if m := sameAs.FindStringSubmatch(rest); m != nil {
				keys = append(keys, kinds[m[1]]...)
			}
			for _, m := range tick.FindAllStringSubmatch(rest, -1) {
				keys = append(keys, m[1])
			}
			for _, m := range tick.FindAllStringSubmatch(cols[0], -1) {
				kinds[m[1]] = append(kinds[m[1]], keys...)
			}
		case kindPara.MatchString(line):
			cur = kindPara.FindStringSubmatch(line)[1]
			kinds[cur], exact[cur] = kinds[cur][:0:0], true
			para = line
		case cur != "" && keyTable && keyRow.MatchString(line):
			kinds[cur] = append(kinds[cur], keyRow.FindStringSubmatch(line)[1])
		}
	}
	return kinds, exact
}

// emitPattern finds a kind where the code names one: trace.New("kind",
// a component's ev("kind", producerEvent("kind",
// env.Event("kind" or w.event("kind" (an event filled in where the trace
// keeps it), Kind: "kind" or trace.Kind("kind").
var emitPattern = regexp.MustCompile(`(?:trace\.New|\bev|producerEvent|\.[Ee]vent|trace\.Kind)\("([a-z_.]+)"|Kind: +"([a-z_.]+)"`)

// sourceKinds reads every kind the engine and serve name in their code.
func sourceKinds(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range []string{"../../engine", "../../serve"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, line := range strings.Split(string(src), "\n") {
				if !strings.Contains(line, `("`) && !strings.Contains(line, `Kind: `) {
					continue // most lines; the regexp is slow under -race
				}
				for _, m := range emitPattern.FindAllStringSubmatch(line, -1) {
					k := m[1] + m[2]
					if _, ok := out[k]; !ok {
						out[k] = strings.TrimPrefix(path, "../../")
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	delete(out, "state") // the --state line, documented under State
	return out
}

// Every kind the code emits has its section or row in docs/trace.md, and
// every kind documented there is one the code emits.
func TestTraceKindsAreDocumented(t *testing.T) {
	doc, _ := docKinds(t)
	code := sourceKinds(t)
	if len(code) < 60 {
		t.Fatalf("found only %d kinds in the code: the scan no longer sees how events are built", len(code))
	}
	for _, k := range sortedKeys(code) {
		if _, ok := doc[k]; !ok {
			t.Errorf("%s emits %q, which docs/trace.md does not document", code[k], k)
		}
	}
	for _, k := range sortedKeys(doc) {
		if _, ok := code[k]; !ok {
			t.Errorf("docs/trace.md documents %q, which no code emits", k)
		}
	}
}

// session is what the played sessions showed: every kind seen with the
// keys its events carry, and each world's final --state object.
type session struct {
	keys   map[trace.Kind]map[string]bool
	states []map[string]any
}

var (
	playedOnce sync.Once
	playedAll  session
)

// played plays the scenarios, the example scripts and the built-in
// chapters once for the tests of this file.
func played(t *testing.T) session {
	t.Helper()
	playedOnce.Do(func() { playedAll = play(t) })
	if playedAll.keys == nil {
		t.Fatal("the sessions could not be played")
	}
	return playedAll
}

func play(t *testing.T) session {
	s := session{keys: map[trace.Kind]map[string]bool{}}
	collect := func(w *sim.World) {
		for _, e := range w.Trace().All() {
			ks := s.keys[e.Kind]
			if ks == nil {
				ks = map[string]bool{}
				s.keys[e.Kind] = ks
			}
			for key := range e.Attrs.All() {
				ks[key] = true
			}
		}
		var state map[string]any
		if err := json.Unmarshal(w.Snapshot().StateJSON(), &state); err != nil {
			t.Error(err)
		}
		s.states = append(s.states, state)
	}
	scripts, _ := filepath.Glob("testdata/*.eos")
	examples, _ := filepath.Glob("../../assets/scripts/*.eos")
	for _, path := range append(scripts, examples...) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return session{}
		}
		cmds, err := script.Parse(path, src)
		if err != nil {
			t.Error(err)
			return session{}
		}
		w := sim.New(1)
		for _, c := range cmds {
			w.Apply(c) // a refusal is an event too; the goldens judge the rest
		}
		collect(w)
	}
	chapters, err := lessons.Builtin()
	if err != nil {
		t.Error(err)
		return session{}
	}
	for _, l := range chapters {
		p := lesson.NewPlayer(l, 1)
		p.PlayAll()
		collect(p.W)
	}
	return s
}

// Every key of every event of a played session is documented for its
// kind: a key added to an event without its row fails here. A kind with
// its own key table is held the other way too: each key of the table is
// carried by some event of the sessions, so a key renamed in the code
// fails here whichever side it is looked from.
func TestTraceKeysAreDocumented(t *testing.T) {
	doc, exact := docKinds(t)
	seen := played(t).keys
	if len(seen) < 50 {
		t.Fatalf("only %d kinds seen in the played sessions", len(seen))
	}
	for _, k := range sortedKeys(seen) {
		keys, ok := doc[string(k)]
		if !ok {
			t.Errorf("a played session emits %q, which docs/trace.md does not document", k)
			continue
		}
		for _, key := range sortedKeys(seen[k]) {
			if !slices.Contains(keys, key) {
				t.Errorf("%q events carry %q, which docs/trace.md does not list for them", k, key)
			}
		}
		if exact[string(k)] {
			for _, key := range keys {
				if !seen[k][key] {
					t.Errorf("docs/trace.md lists %q for %q events, and no event of the played sessions carries it", key, k)
				}
			}
		}
	}
}

// Every key the played sessions' events carry is in trace's table of
// keys, so that a packed attribute names it in one byte. (With
// TestTraceKeysAreDocumented, which finds every key of docs/trace.md's
// key tables on some event, every one of those is in the table too.)
func TestTraceKeysAreNumbered(t *testing.T) {
	seen := played(t).keys
	for _, kind := range sortedKeys(seen) {
		for _, key := range sortedKeys(seen[kind]) {
			if _, ok := trace.KeyOf(key); !ok {
				t.Errorf("%q events carry %q, which trace's table of keys does not have", kind, key)
			}
		}
	}
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// stateRows reads the State section's table: each row's path (`producers[]`,
// `partitions[].log[]`, `replay`) with the backticked words of its meaning,
// and the keys its JSON examples show.
func stateRows(t *testing.T) (rows map[string][]string, shown string) {
	t.Helper()
	src, err := os.ReadFile(traceDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, doc, _ := strings.Cut(string(src), "\n## State")
	rows = map[string][]string{}
	for _, line := range strings.Split(doc, "\n") {
		if m := regexp.MustCompile("^\\| `([a-z_\\[\\].]+)` \\| (.*)").FindStringSubmatch(line); m != nil {
			for _, w := range tick.FindAllStringSubmatch(m[2], -1) {
				rows[m[1]] = append(rows[m[1]], w[1])
			}
		}
	}
	return rows, doc
}

// partitionKey is a key that is data, not a name: a partition in a map
// of positions or committed offsets.
var partitionKey = regexp.MustCompile(`^[a-z_.]+-[0-9]+$`)

// Every key of the --state object of the played sessions is documented:
// a key of an object in a list has its own row (`partitions[].log[]`) or
// is named in the row of the list it is in, a top-level key has its row
// or appears in the page's JSON examples, and the replay's object is
// read as a state of its own.
func TestStateKeysAreDocumented(t *testing.T) {
	rows, shown := stateRows(t)
	if len(rows) < 10 {
		t.Fatalf("only %d rows in docs/trace.md's State table", len(rows))
	}
	missing := map[string]bool{}
	var walk func(row string, v any)
	walk = func(row string, v any) {
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				walk(row, x)
			}
		case map[string]any:
			for k, x := range v {
				if partitionKey.MatchString(k) {
					continue
				}
				child := row + "." + k
				if row == "" || row == "replay" && rows[k+"[]"] != nil {
					child = k
				}
				if _, ok := x.([]any); ok {
					child += "[]"
				}
				switch {
				case rows[child] != nil:
					walk(child, x)
				case row == "" || row == "replay" && rows[child] == nil && strings.Contains(shown, `"`+k+`":`):
					if row == "" && !strings.Contains(shown, `"`+k+`":`) {
						missing["`"+k+"`"] = true
					}
					walk(row, x)
				case !slices.Contains(rows[row], k):
					missing["`"+k+"` under `"+row+"`"] = true
				default:
					walk(row, x)
				}
			}
		}
	}
	diagnosed, replayed := false, false
	for _, s := range played(t).states {
		_, d := s["diagnoses"]
		_, r := s["replay"]
		diagnosed, replayed = diagnosed || d, replayed || r
		walk("", s)
	}
	if !diagnosed || !replayed {
		t.Errorf("no played session has a diagnosis and a replay (diagnosed %v, replayed %v)", diagnosed, replayed)
	}
	for _, k := range sortedKeys(missing) {
		t.Errorf("the --state object has %s, which docs/trace.md's State section does not document", k)
	}
}
