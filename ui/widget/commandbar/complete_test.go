package commandbar

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/engine/script"
)

var (
	tab      = tea.KeyMsg{Type: tea.KeyTab}
	shiftTab = tea.KeyMsg{Type: tea.KeyShiftTab}
)

func press(m Model, keys ...tea.KeyMsg) Model {
	for _, k := range keys {
		m, _ = m.Update(k)
	}
	return m
}

// opened is a bar opened with s typed.
func opened(s string) Model {
	m := newBar()
	m.Open()
	return typed(m, s)
}

// The three completion defects of the issue: `:send ␣` tab removed the
// space, `:send p1 or` tab gave `send p1 orders-0 p1`, `:l` tab never
// reached `lose response` (the input's whole-line suggestions).
func TestTabCompletesTheWordAtTheCursor(t *testing.T) {
	if m := press(opened("send "), tab); m.Value() != "send p1 " {
		t.Errorf("send ␣ tab: %q, want the producer after the space", m.Value())
	}
	empty := newBar()
	empty.SetWorld(World{})
	empty.Open()
	if m := press(typed(empty, "send "), tab); m.Value() != "send " {
		t.Errorf("send ␣ tab with no producer: %q, want the line kept", m.Value())
	}
	m := press(opened("send p1 or"), tab)
	if m.Value() != "send p1 orders-0 " {
		t.Errorf("send p1 or tab: %q", m.Value())
	}
	if m = press(m, tab); m.Value() != "send p1 orders-1 " {
		t.Errorf("a second tab cycles to the next partition: %q", m.Value())
	}
	m = opened("l")
	var seen []string
	for range 5 {
		m = press(m, tab)
		seen = append(seen, m.Value())
	}
	if !slices.Contains(seen, "lose response ") || seen[0] != "lose request " || seen[4] != seen[0] {
		t.Errorf(":l tab ×5 went %q, want every verb starting with l, in turn, then round again", seen)
	}
}

// Each argument position offers what the verb's syntax puts there.
func TestCompletionByArgumentPosition(t *testing.T) {
	cases := []struct {
		line, label string
		want        []string
	}{
		{"", "command", nil}, // every verb: checked below
		{"restart ", "command", []string{"restart producer", "restart broker", "restart consumer"}},
		{"send ", "NAME", []string{"p1"}},
		{"send p1 ", "TOPIC-PARTITION", []string{"orders-0", "orders-1", "orders-2"}},
		{"send p1 orders-0 ", "COUNT", []string{"1", "2", "3"}},
		{"send p1 orders-0 2 ", "options", []string{"key=", "value="}},
		{"send p1 orders-0 2 key=a ", "options", []string{"value="}},
		{"restart broker ", "ID", []string{"1", "2", "3"}},
		{"restart broker 2 ", "options", []string{"clean"}},
		{"reset connection p1 ", "BROKER", []string{"1", "2", "3"}},
		{"fail request p1 orders-1 ", "options or ERROR", append([]string{"seq="}, script.RefusalErrors...)},
		{"fail request p1 orders-1 not", "ERROR", []string{"NOT_ENOUGH_REPLICAS", "NOT_LEADER_OR_FOLLOWER"}},
		{"fail request p1 orders-1 NOT_ENOUGH_REPLICAS ", "options", []string{"seq="}},
		{"lose request p1 ", "TOPIC-PARTITION", []string{"orders-0", "orders-1", "orders-2"}}, // seq= only with a partition
		{"lose request p1 orders-0 ", "options", []string{"seq="}},
		{"producer p2 ", "options", []string{"idempotent", "plain", "transactional=", "acks=", "retries=", "enable.idempotence="}},
		{"producer p2 plain ", "options", []string{"acks=", "retries=", "enable.idempotence="}},
		{"producer p2 acks=", "acks=", []string{"acks=all", "acks=1", "acks=0"}},
		{"cluster transaction.version=", "transaction.version=", []string{"transaction.version=1", "transaction.version=2"}},
		{"consumer c2 ", "read_committed|read_uncommitted", []string{"read_committed", "read_uncommitted"}},
		{"consumer c2 read_committed orders-1 ", "another TOPIC-PARTITION or options", []string{"orders-0", "orders-2", "group=", "max.poll.records=", "max.poll.interval.ms="}},
		{"poll ", "NAME", []string{"c1"}},
		{"failover ", "TOPIC-PARTITION or coordinator", []string{"orders-0", "orders-1", "orders-2", "coordinator"}},
		{"failover coordinator ", "TXN_ID", []string{"tx-1"}},
		{"failover orders-0 ", "options", []string{"unclean"}},
		{"inject orders-0 ", "options", []string{"pid=", "epoch=", "seq=", "count=", "txn"}},
		{"help ", "VERB", nil},
		{"help lose re", "VERB", []string{"lose request", "lose response"}},
		{"run ", "nothing more: enter runs it", nil},
	}
	for _, c := range cases {
		label, got := opened(c.line).Candidates()
		if c.line == "" || c.line == "help " {
			if len(got) != len(newBar().Verbs()) {
				t.Errorf("%q: %d candidates, want every verb", c.line, len(got))
			}
			continue
		}
		if label != c.label || !slices.Equal(got, c.want) {
			t.Errorf("%q:\n got %s: %q\nwant %s: %q", c.line, label, got, c.label, c.want)
		}
	}
}

// Every verb's syntax in the language reads into at least one form, and
// its placeholders are all known to the bar or plainly free text.
func TestEverySyntaxReads(t *testing.T) {
	free := []string{"NAME", "LABEL", "FILE", "DURATION", "N", "COUNT", "OFFSET"}
	m := newBar()
	for _, v := range m.Verbs() {
		for _, f := range m.forms[v.Verb] {
			for _, s := range f.slots {
				if s.kind == positional && len(s.words) == 0 && len(m.values(v.Verb, s)) == 0 && !slices.Contains(free, s.name) {
					t.Errorf("%s: nothing completes %s", v.Syntax, s.name)
				}
			}
		}
		if len(m.forms[v.Verb]) == 0 {
			t.Errorf("%s: no form", v.Syntax)
		}
	}
}

// The candidates are listed in a line above the bar, the one tab put on
// the line marked, and shift+tab goes back.
func TestCandidateLine(t *testing.T) {
	m := opened("send p1 ")
	if m.Height() != 2 {
		t.Fatalf("the bar with its candidates is 2 lines, got %d", m.Height())
	}
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	if !strings.HasPrefix(lines[0], "TOPIC-PARTITION:  orders-0   orders-1   orders-2") {
		t.Fatalf("%q", lines[0])
	}
	m = press(m, tab, tab)
	lines = strings.Split(ansi.Strip(m.View()), "\n")
	if !strings.Contains(lines[0], "▸orders-1") || !strings.HasSuffix(strings.TrimRight(lines[0], " "), "(2/3)") || !strings.HasPrefix(lines[1], ":send p1 orders-1") {
		t.Fatalf("%q", lines)
	}
	if m = press(m, shiftTab, shiftTab); m.Value() != "send p1 orders-2 " {
		t.Fatalf("shift+tab goes back round: %q", m.Value())
	}
	// Typing ends the cycle: the list is the next argument's.
	m = typed(m, "3 ")
	if label, c := m.Candidates(); label != "options" || len(c) != 2 {
		t.Fatalf("after the count: %s %q", label, c)
	}
	// With nothing to offer, the line says what comes and the usage.
	lines = strings.Split(ansi.Strip(opened("producer ").View()), "\n")
	if !strings.HasPrefix(lines[0], "NAME · usage: producer NAME [idempotent | plain | transactional=TXN_ID]") {
		t.Fatalf("%q", lines[0])
	}
	// A long list slides so that the marked one stays in view.
	m = opened("")
	for range 20 {
		m = press(m, tab)
	}
	line := ansi.Strip(strings.Split(m.View(), "\n")[0])
	if !strings.Contains(line, "▸"+strings.TrimSpace(m.Value())) || !strings.HasPrefix(line, "command: … ") || ansi.StringWidth(line) != 80 {
		t.Fatalf("%q", line)
	}
}

// Completion in the middle of a line replaces the word at the cursor and
// keeps the rest.
func TestCompletionMidLine(t *testing.T) {
	m := opened("send p1 or 3")
	m = press(m, tea.KeyMsg{Type: tea.KeyLeft}, tea.KeyMsg{Type: tea.KeyLeft}, tab)
	if m.Value() != "send p1 orders-0 3" {
		t.Fatalf("%q", m.Value())
	}
	if m = press(m, tab); m.Value() != "send p1 orders-1 3" {
		t.Fatalf("cycling mid-line: %q", m.Value())
	}
}

// Whatever is typed, completion answers without panicking, and every
// candidate extends the word at the cursor.
func FuzzComplete(f *testing.F) {
	for _, s := range []string{"", "send p1 or", `effect p1 "a b`, "producer p2 acks=", "=", "help lose re", "fail request p1 orders-0 seq=1 n",
		"consumer c read_committed orders-0 orders-1 ", "failover coordinator tx-1 ", "sénd ü", "lose\trequest p1", `send p1 orders-0 1 value="x\"`} {
		f.Add(s, len(s))
	}
	m := newBar()
	f.Fuzz(func(t *testing.T, line string, cursor int) {
		if cursor < 0 || cursor > len(line) {
			cursor = len(line)
		}
		c := m.complete(line, cursor)
		if c.from < 0 || c.from > cursor {
			t.Fatalf("from %d, cursor %d", c.from, cursor)
		}
		// What is replaced, its blanks as one space (a verb of two words
		// may have been typed with a tab between them).
		w := strings.Join(strings.Fields(line[c.from:cursor]), " ")
		if end := line[c.from:cursor]; w != "" && strings.TrimRight(end, " \t") != end {
			w += " "
		}
		for _, cand := range c.cands {
			if !hasPrefixFold(cand, w) {
				t.Fatalf("%q at %d: candidate %q does not extend %q", line, cursor, cand, w)
			}
		}
	})
}
