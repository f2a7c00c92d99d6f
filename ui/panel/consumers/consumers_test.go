package consumers

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/paneltest"
	"github.com/eoslab/eoslab/ui/styles"
)

func newPanel(w, h int) Model {
	m := New(paneltest.Styles())
	m.SetSize(w, h)
	return m
}

func data(w *sim.World, part string) panel.Data {
	return panel.Data{Snap: w.Snapshot(), Trace: w.Trace(), Partition: part, Motion: panel.Forward}
}

// column is the text of the consumer column starting at the line that
// holds head: side by side, what lies right of the separator is cut off.
func column(view, head string) string {
	var out []string
	col := -1
	for _, l := range strings.Split(view, "\n") {
		cells := strings.Split(l, "│")
		if col < 0 {
			for i, c := range cells {
				if strings.HasPrefix(strings.TrimSpace(c), head) {
					col = i
				}
			}
		}
		if col >= 0 && col < len(cells) {
			out = append(out, cells[col])
		}
	}
	return strings.Join(out, "\n")
}

// An open transaction at offset 0 holds the read_committed consumer at
// the LSO, even for the plain records behind it; read_uncommitted reads
// to the high watermark, the open transaction's record included.
func TestReadCommittedStopsAtTheLSO(t *testing.T) {
	w := paneltest.World(t, paneltest.UpTo(t, paneltest.ScriptLines(t, "txn-lso.eos"), "run", 4)...)
	pv := w.Snapshot().Partitions[0]
	if pv.HighWatermark != 3 || pv.LastStableOffset != 0 {
		t.Fatalf("HW %d LSO %d", pv.HighWatermark, pv.LastStableOffset)
	}
	m := newPanel(80, 22)
	m.SetData(data(w, "orders-0"))
	view := ansi.Strip(m.View())
	paneltest.RequireAll(t, view,
		"▸orders-0: HW 3 · LSO 0 — read_committed stops at the LSO",
		"rc · read_committed", "ru · read_uncommitted")
	rc, ru := column(view, "rc ·"), column(view, "ru ·")
	paneltest.RequireAll(t, rc, "orders-0 next 0 ⏸ held at LSO 0 < HW 3", "returned nothing yet")
	paneltest.RequireAll(t, ru, "orders-0 next 3 ✓ at HW 3", "0: tx-0  ⧗ open txn", "1: plain-0", "2: plain-1")
	if strings.Contains(rc, ": plain") || strings.Contains(rc, ": tx-") {
		t.Errorf("read_committed returned a record at or past the LSO:\n%s", rc)
	}
	for _, c := range m.facts.cons {
		for _, r := range c.records {
			if c.committed && r.off >= pv.LastStableOffset {
				t.Errorf("%s shows offset %d past the LSO", c.name, r.off)
			}
		}
	}
	golden.RequireEqual(t, []byte(m.View()))

	// The commit lets it through: the marker at 3 is a gap, the LSO is 4.
	w = paneltest.World(t, paneltest.ScriptLines(t, "txn-lso.eos")...)
	m.SetData(data(w, "orders-0"))
	view = ansi.Strip(m.View())
	paneltest.RequireAll(t, view, "▸orders-0: HW 4 = LSO 4 — nothing open")
	paneltest.RequireAll(t, column(view, "rc ·"), "orders-0 next 4 ✓ at HW 4", "0 1 2 ◆", "◆ 1 marker(s)", "0: tx-0  ✓ committed")
}

// Between the marker's append and its replication the transaction is
// complete, yet it still holds the LSO (ProducerStateManager keeps it
// among the unreplicated transactions until the high watermark passes the
// marker): the panel says so, instead of calling it open or saying
// nothing.
func TestUnreplicatedMarkerHoldsTheLSO(t *testing.T) {
	w := paneltest.World(t, paneltest.UpTo(t, paneltest.ScriptLines(t, "txn-lso.eos"), "commit tx", 1)...)
	step, _ := script.ParseLine("step")
	var pv sim.PartitionView
	for range 30 {
		if _, err := w.Apply(step); err != nil {
			t.Fatal(err)
		}
		if pv = w.Snapshot().Partitions[0]; len(pv.Unreplicated) > 0 {
			break
		}
	}
	if len(pv.Unreplicated) != 1 || pv.LastStableOffset != 0 || pv.HighWatermark != 3 || pv.LogEndOffset != 4 {
		t.Fatalf("no moment with the COMMIT marker written and not replicated: HW %d LSO %d LEO %d, unreplicated %v",
			pv.HighWatermark, pv.LastStableOffset, pv.LogEndOffset, pv.Unreplicated)
	}
	m := newPanel(100, 22)
	m.SetData(data(w, "orders-0"))
	view := ansi.Strip(m.View())
	paneltest.RequireAll(t, view, "▸orders-0: HW 3 · LSO 0 — read_committed stops at the LSO",
		"tx (id 0) committed; LSO 0 waits for its COMMIT marker at 3 to be replicated")
	if strings.Contains(view, "open since") {
		t.Errorf("a committed transaction is called open:\n%s", view)
	}
}

// An aborted transaction's records are gaps for read_committed and
// records for read_uncommitted, marked aborted.
func TestAbortedOffsetsAreGaps(t *testing.T) {
	w := paneltest.World(t, paneltest.ScriptLines(t, "txn-abort.eos")...)
	m := newPanel(118, 16)
	m.SetData(data(w, "orders-0"))
	view := ansi.Strip(m.View())
	committed, everything := column(view, "committed ·"), column(view, "everything ·")
	paneltest.RequireAll(t, committed, "0 1 ◆ · · · ◆ 7 ◆", "◆ 3 marker(s), · 3 aborted", "7: p1-5  ✓ committed")
	paneltest.RequireAll(t, everything, "0 1 ◆ 3 4 5 ◆ 7 ◆", "3: p1-2  ✗ aborted txn", "5: p1-4  ✗ aborted txn")
	if strings.Contains(committed, "aborted txn") || strings.Contains(committed, "3: p1-2") {
		t.Errorf("read_committed returned an aborted record:\n%s", committed)
	}
	golden.RequireEqual(t, []byte(m.View()))
}

// Narrow, the consumers are stacked; a consumer of two partitions names
// the partition of each record.
func TestNarrowStacksAndNamesPartitions(t *testing.T) {
	w := paneltest.World(t, paneltest.UpTo(t, paneltest.ScriptLines(t, "txn-coordinator-failover.eos"), "poll reader", 1)...)
	w.Step()
	for w.Snapshot().Consumers[0].Read == nil {
		if _, ok := w.Step(); !ok {
			t.Fatal("the reader never read")
		}
	}
	m := newPanel(60, 12)
	m.SetData(data(w, "orders-0"))
	view := ansi.Strip(m.View())
	paneltest.RequireAll(t, view, "reader · read_committed", "orders-0 next 0 ⏸ held at LSO 0 < HW 1", "orders-1@0: p1-1  ✓ committed")
}

func TestSideBySideOrStacked(t *testing.T) {
	w := paneltest.World(t, paneltest.ScriptLines(t, "txn-abort.eos")...)
	for _, c := range []struct {
		w    int
		side bool
	}{{118, true}, {80, true}, {56, false}} {
		m := newPanel(c.w, 20)
		m.SetData(data(w, "orders-0"))
		if got := strings.Contains(m.View(), "│"); got != c.side {
			t.Errorf("width %d: side by side %v, want %v\n%s", c.w, got, c.side, ansi.Strip(m.View()))
		}
	}
}

func TestEmpty(t *testing.T) {
	m := newPanel(90, 5)
	m.SetData(data(paneltest.World(t, "producer p1", "send p1 orders-0 1", "run"), "orders-0"))
	if got := strings.TrimSpace(strings.Split(ansi.Strip(m.View()), "\n")[0]); got != EmptyText {
		t.Fatalf("empty state: %q", got)
	}
}

// Whatever the size, the panel is exactly w×h.
func TestEverySizeFits(t *testing.T) {
	for _, file := range []string{"txn-abort.eos", "txn-consume-transform-produce.eos"} {
		d := data(paneltest.World(t, paneltest.ScriptLines(t, file)...), "orders-0")
		for width := 1; width <= 130; width += 3 {
			for h := 1; h <= 30; h++ {
				m := newPanel(width, h)
				m.SetData(d)
				lines := strings.Split(m.View(), "\n")
				if len(lines) != h {
					t.Fatalf("%s %d×%d: %d lines", file, width, h, len(lines))
				}
				for i, l := range lines {
					if n := ansi.StringWidth(l); n != width {
						t.Fatalf("%s %d×%d: line %d is %d wide", file, width, h, i, n)
					}
				}
			}
		}
	}
}

// A long log collapses runs in the strip and keeps its newest end.
func TestLongStripCollapses(t *testing.T) {
	lines := []string{"producer p1 transactional=tx-1", "run"}
	for range 6 {
		lines = append(lines, "begin p1", "send p1 orders-0 5", "run", "abort p1", "run", "begin p1", "send p1 orders-0 5", "commit p1", "run")
	}
	lines = append(lines, "consumer c read_committed orders-0", "poll c", "run", "poll c", "run", "poll c", "run")
	w := paneltest.World(t, lines...)
	m := newPanel(40, 14)
	m.SetData(data(w, "orders-0"))
	view := ansi.Strip(m.View())
	paneltest.RequireAll(t, view, "·×5", "◆")
	for _, l := range strings.Split(view, "\n") {
		if ansi.StringWidth(l) != 40 {
			t.Fatalf("line %q", l)
		}
	}
}

// Colour changes no character: the layout never depends on styling.
func TestColourDrawsTheSameText(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	for _, file := range []string{"txn-lso.eos", "txn-abort.eos", "txn-consume-transform-produce.eos", "txn-coordinator-failover.eos"} {
		lines := paneltest.ScriptLines(t, file)
		for n := 1; n <= len(lines); n += 3 {
			d := data(paneltest.World(t, lines[:n]...), "orders-0")
			for _, size := range [][2]int{{118, 12}, {80, 22}, {50, 9}} {
				plain, colour := newPanel(size[0], size[1]), New(styles.New(r, styles.DefaultPalette()))
				colour.SetSize(size[0], size[1])
				plain.SetData(d)
				colour.SetData(d)
				if colour.View() == plain.View() {
					t.Fatal("the colour profile drew no colour")
				}
				if got, want := ansi.Strip(colour.View()), plain.View(); got != want {
					t.Fatalf("%s, %d lines, %v: colour\n%s\nplain\n%s", file, n, size, got, want)
				}
			}
		}
	}
}
