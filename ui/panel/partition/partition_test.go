package partition

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/paneltest"
)

// fenced is chapter 18 up to p2's commit: p1 wrote offsets 0-1 in a
// transaction and froze; p2, with the same transactional id, fenced it
// (the coordinator aborted p1's transaction: ABORT at 2), then wrote
// offset 3 and committed (COMMIT at 4). Both hold producer id 0.
func fenced(t *testing.T) *sim.World {
	return paneltest.World(t, "producer p1 transactional=payments", "run", "begin p1", "send p1 orders-0 2", "run",
		"pause p1", "producer p2 transactional=payments", "run",
		"begin p2", "send p2 orders-0 1", "commit p2", "run")
}

func render(t *testing.T, w *sim.World, width, height int) string {
	t.Helper()
	m := New(paneltest.Styles())
	m.SetSize(width, height)
	m.SetData(panel.Data{Snap: w.Snapshot(), Trace: w.Trace(), Partition: "orders-0", Motion: panel.Forward})
	return ansi.Strip(m.View())
}

// logLine is the panel's line for the batch at offsets, without its padding.
func logLine(t *testing.T, view, offsets string) string {
	t.Helper()
	for _, l := range strings.Split(view, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == offsets {
			return strings.TrimSpace(l)
		}
	}
	t.Fatalf("no line for offsets %s in\n%s", offsets, view)
	return ""
}

// The log tells who wrote what: p2's batch at offset 3 is p2's although
// p1 holds the same producer id (at an older epoch); the markers are
// named COMMIT and ABORT; p1's aborted batch says it was aborted; and the
// high watermark's line has the readable batches above it, as it says.
// Each of these failed before: "p1" at offset 3, "◆ control marker",
// no "aborted", "readable below".
func TestLogNamesWritersMarkersAndAborts(t *testing.T) {
	w := fenced(t)
	if pv := w.Snapshot().Partitions[0]; len(pv.AbortedTxns) != 1 {
		t.Fatalf("p1's transaction should be aborted: %+v", pv.AbortedTxns)
	}
	view := render(t, w, 60, 12)
	for offsets, want := range map[string]string{
		"0-1": "0-1  p1 id 0 e0 seq 0-1 ✗ aborted",
		"2":   "2    ◆ ABORT marker p1 id 0 e2",
		"3":   "3    p2 id 0 e3 seq 0-0 ✓ committed",
		"4":   "4    ◆ COMMIT marker p2 id 0 e4",
	} {
		if got := logLine(t, view, offsets); got != want {
			t.Errorf("offsets %s: got %q, want %q\n%s", offsets, got, want, view)
		}
	}
	lines := strings.Split(view, "\n")
	hw := -1
	for i, l := range lines {
		if strings.Contains(l, "HW = LSO 5") {
			hw = i
		}
	}
	if hw < 0 || !strings.Contains(lines[hw], "readable above") {
		t.Fatalf("the HW line should say the batches above it are readable:\n%s", view)
	}
	for i, l := range lines {
		if f := strings.Fields(l); i > hw && len(f) > 0 && f[0] >= "0" && f[0] <= "9" {
			t.Errorf("a batch below the HW line: %q\n%s", l, view)
		}
	}
	golden.RequireEqual(t, []byte(view))
}

// A batch no client sent — injected with a forged producer id — shows
// its id and no producer's name; an open transaction's batch says so.
func TestInjectedAndOpen(t *testing.T) {
	w := paneltest.World(t, "producer tx transactional=tx-1", "run", "begin tx", "send tx orders-0 1", "run",
		"inject orders-0 pid=99 epoch=0 seq=0 count=1", "run")
	view := render(t, w, 60, 10)
	if got := logLine(t, view, "0"); got != "0  tx id 0 e0 seq 0-0 ⧗ open" {
		t.Errorf("the open transaction's batch: got %q\n%s", got, view)
	}
	if got := logLine(t, view, "1"); got != "1  id 99 e0 seq 0-0" {
		t.Errorf("the injected batch: got %q\n%s", got, view)
	}
}

// In a narrow panel nothing is cut: the header and long batch lines
// continue on the next line, and the replicas share lines.
func TestNarrowPanelWrapsInsteadOfCutting(t *testing.T) {
	view := render(t, fenced(t), 30, 14)
	for _, l := range strings.Split(view, "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), "…") {
			t.Errorf("a line is cut: %q\n%s", l, view)
		}
	}
	paneltest.RequireAll(t, view, "ISR [1 2 3]", "COMMIT marker", "✓ committed", "b3 LEO 5 HW 5")
}
