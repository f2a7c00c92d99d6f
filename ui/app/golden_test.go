package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// Screens as text at the two sizes the lab is designed for. Regenerate
// with `go test ./ui/app -update` and read the diff before committing.
func TestGolden(t *testing.T) {
	cases := []struct {
		name  string
		sizes [][2]int
		build func(t *testing.T, w, h int) Model
	}{
		{"home", designSizes, func(t *testing.T, w, h int) Model { return newModel(t, testOptions(t, false), w, h) }},
		{"chapters", designSizes, func(t *testing.T, w, h int) Model {
			m, _ := send(t, newModel(t, testOptions(t, false), w, h), keyEnter)
			return m
		}},
		// The worked example at the leader's first verdict on p1's batches:
		// the stored batch's offset and leader epoch flagged, the CRC
		// unchanged, the window holding its first batch.
		{"lesson-midway", designSizes, func(t *testing.T, w, h int) Model { return workedExampleAtFirstAppend(t, w, h) }},
		{"lesson-midway-window", [][2]int{{80, 24}}, func(t *testing.T, w, h int) Model {
			m, _ := send(t, workedExampleAtFirstAppend(t, w, h), keyTab)
			return m
		}},
		// The duplicate decision, built by commands.
		{"duplicate", designSizes, func(t *testing.T, w, h int) Model {
			m := sandboxAt(t, w, h, "producer p1", "send p1 orders-0 2", "lose response p1", "run")
			if w < 100 {
				m, _ = send(t, m, keyTab) // the window tab
			}
			return m
		}},
		// A zombie fenced: p1 paused mid-transaction, p2 took over the
		// transactional id; p1's late write and its abort are refused.
		{"zombie-fenced", designSizes, func(t *testing.T, w, h int) Model {
			m := sandboxAt(t, w, h, "producer p1 transactional=payments", "run", "begin p1", "send p1 orders-0 2", "run",
				"pause p1", "producer p2 transactional=payments", "run", "begin p2", "send p2 orders-0 1", "commit p2", "run",
				"resume p1", "send p1 orders-0 1", "commit p1", "run", "abort p1", "run")
			return tabTo(t, m, "PRODUCER_FENCED")
		}},
		// An LSO block: an open transaction holds the read_committed
		// consumer at offset 0 while the read_uncommitted one reads on.
		{"lso-block", designSizes, func(t *testing.T, w, h int) Model {
			m := sandboxAt(t, w, h, "producer tx transactional=tx-1", "producer plain", "run", "begin tx", "send tx orders-0 1", "run",
				"send plain orders-0 2", "run", "consumer rc read_committed orders-0", "consumer ru read_uncommitted orders-0",
				"poll rc", "poll ru", "run")
			return tabTo(t, m, "read_committed stops at the LSO")
		}},
		{"help", [][2]int{{120, 40}}, func(t *testing.T, w, h int) Model {
			m, _ := send(t, sandboxAt(t, w, h), keyRunes("?"))
			return m
		}},
		{"too-small", [][2]int{{79, 24}, {60, 20}}, func(t *testing.T, w, h int) Model {
			return newModel(t, testOptions(t, false), w, h)
		}},
	}
	for _, c := range cases {
		for _, size := range c.sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, size[0], size[1]), func(t *testing.T) {
				golden.RequireEqual(t, []byte(c.build(t, size[0], size[1]).View()))
			})
		}
	}
}

var designSizes = [][2]int{{80, 24}, {120, 40}}

func workedExampleAtFirstAppend(t testing.TB, w, h int) Model {
	t.Helper()
	m, _ := send(t, newModel(t, testOptions(t, true), w, h), keyEnter, keyEnter)
	for range 500 {
		if d := m.Session().Snapshot().LastDecision; d != nil && d.Str("producer") == "p1" {
			return m
		}
		m, _ = send(t, m, keyRight)
	}
	t.Fatal("p1's first batch was never decided")
	return m
}

// tabTo moves the panel focus until the screen shows want (at 80×24 the
// panels are tabs), or fails.
func tabTo(t *testing.T, m Model, want string) Model {
	t.Helper()
	for range 12 {
		if strings.Contains(m.View(), want) {
			return m
		}
		m, _ = send(t, m, keyTab)
	}
	t.Fatalf("no panel shows %q:\n%s", want, m.View())
	return m
}
