package coordinator

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

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

func data(w *sim.World, producer string) panel.Data {
	return panel.Data{Snap: w.Snapshot(), Trace: w.Trace(), Partition: "orders-0", Producer: producer, Motion: panel.Forward}
}

// After `lose markers orders-0` and a commit, the coordinator has logged
// PrepareCommit: orders-1 has its COMMIT marker, orders-0 still waits.
func TestPrepareCommitWithAMarkerPending(t *testing.T) {
	w := paneltest.World(t, paneltest.UpTo(t, paneltest.ScriptLines(t, "txn-coordinator-failover.eos"), "advance 1s", 1)...)
	if v := w.Snapshot().Transactions[0]; v.State != "PrepareCommit" || len(v.PendingMarkers) != 1 {
		t.Fatalf("the script should leave a marker pending: %+v", v)
	}
	m := newPanel(80, 22)
	m.SetData(data(w, "p1"))
	view := ansi.Strip(m.View())
	paneltest.RequireAll(t, view,
		"tx-1 · coordinator b3 (__transaction_state-20, coordinator epoch 0)",
		"Empty → Ongoing → ▶[PrepareCommit] → CompleteCommit",
		"orders-0 ⧗ COMMIT marker pending",
		"orders-1 ✓ COMMIT marker @1",
		"client ▸p1 ✓ READY")
	if strings.Contains(view, "orders-0 ✓") {
		t.Errorf("orders-0's marker is not written:\n%s", view)
	}
	golden.RequireEqual(t, []byte(m.View()))

	// The new coordinator sends both markers again, then completes.
	w = paneltest.World(t, paneltest.UpTo(t, paneltest.ScriptLines(t, "txn-coordinator-failover.eos"), "run", 3)...)
	m.SetData(data(w, "p1"))
	paneltest.RequireAll(t, ansi.Strip(m.View()),
		"coordinator b1 (__transaction_state-20, coordinator epoch 1)",
		"PrepareCommit → ▶[CompleteCommit]",
		"orders-0 ✓ COMMIT marker @1 · orders-1 ✓ COMMIT marker @2")
}

// An open transaction: Ongoing on the path, its partition open with no
// marker, the time it has been open against its timeout, the client in
// IN_TRANSACTION.
func TestOngoingTransaction(t *testing.T) {
	w := paneltest.World(t, paneltest.UpTo(t, paneltest.ScriptLines(t, "txn-lso.eos"), "run", 2)...)
	m := newPanel(118, 12)
	m.SetData(data(w, ""))
	view := ansi.Strip(m.View())
	paneltest.RequireAll(t, view,
		"Empty → ▶[Ongoing] → PrepareCommit | PrepareAbort",
		"open: partitions added, nothing decided yet",
		"producer id 0 · epoch 0",
		"client tx ● IN_TRANSACTION · holds id 0 epoch 0",
		"partitions orders-0 ○ open, no marker yet",
		"of transaction.timeout.ms 60 s")
	golden.RequireEqual(t, []byte(m.View()))
}

// The consume-transform-produce run: the group's committed offsets and
// the e-mail sent twice, outside any transaction.
func TestGroupsAndEffects(t *testing.T) {
	w := paneltest.World(t, paneltest.ScriptLines(t, "txn-consume-transform-produce.eos")...)
	m := newPanel(80, 22)
	m.SetData(data(w, "app"))
	view := ansi.Strip(m.View())
	paneltest.RequireAll(t, view,
		"shipper · coordinator b1",
		"group shipping · coordinator b3 · committed orders-0 @3",
		"app performed email-order-2 at step 77 — outside any transaction",
		"app performed email-order-2 at step 110 — outside any transaction")
	golden.RequireEqual(t, []byte(m.View()))
}

// A zombie: p1 still holds epoch 0 after p2 bumped it; the client's view
// and the coordinator's are shown apart.
func TestZombieEpochDiffers(t *testing.T) {
	lines := paneltest.ScriptLines(t, "txn-zombie.eos")
	m := newPanel(100, 14)
	m.SetData(data(paneltest.World(t, paneltest.UpTo(t, lines, "run", 4)...), "p1"))
	paneltest.RequireAll(t, ansi.Strip(m.View()),
		"client ▸p1 ● IN_TRANSACTION ⏸ paused · holds id 0 epoch 0 ≠ coordinator's id 0 epoch 4",
		"client p2 ✓ READY · holds id 0 epoch 4")
	// Resumed, its send is refused (an abortable error); its abort is fenced.
	m.SetData(data(paneltest.World(t, paneltest.UpTo(t, lines, "run", 5)...), "p1"))
	paneltest.RequireAll(t, ansi.Strip(m.View()), "client ▸p1 ⚠ ABORTABLE_ERROR (must abort) · holds id 0 epoch 0 ≠ coordinator's id 0 epoch 4")
	m.SetData(data(paneltest.World(t, paneltest.UpTo(t, lines, "run", 6)...), "p1"))
	paneltest.RequireAll(t, ansi.Strip(m.View()), "client ▸p1 ✗ FATAL_ERROR (PRODUCER_FENCED) · holds id 0 epoch 0 ≠ coordinator's id 0 epoch 4")
}

// A transactional producer before its coordinator knows the id.
func TestProducerNotYetKnown(t *testing.T) {
	w := paneltest.World(t, "producer p1 transactional=tx-1")
	m := newPanel(100, 6)
	m.SetData(data(w, "p1"))
	paneltest.RequireAll(t, ansi.Strip(m.View()), EmptyText, "▸p1 · tx-1 ○ INITIALIZING · not yet known to its coordinator")
	// Narrow, the detail goes under the client.
	m.SetSize(40, 6)
	paneltest.RequireAll(t, ansi.Strip(m.View()), "▸p1 · tx-1 ○ INITIALIZING", "      not yet known to its coordinator")
}

func TestEmpty(t *testing.T) {
	m := newPanel(90, 5)
	m.SetData(data(paneltest.World(t, "producer p1", "send p1 orders-0 1", "run"), "p1"))
	if got := strings.TrimSpace(strings.Split(ansi.Strip(m.View()), "\n")[0]); got != EmptyText {
		t.Fatalf("empty state: %q", got)
	}
}

// Whatever the size, the panel is exactly w×h and the transaction's
// identity survives the squeeze.
func TestEverySizeFits(t *testing.T) {
	w := paneltest.World(t, paneltest.ScriptLines(t, "txn-consume-transform-produce.eos")...)
	d := data(w, "app")
	for width := 1; width <= 130; width += 3 {
		for h := 1; h <= 30; h++ {
			m := newPanel(width, h)
			m.SetData(d)
			lines := strings.Split(m.View(), "\n")
			if len(lines) != h {
				t.Fatalf("%d×%d: %d lines", width, h, len(lines))
			}
			for i, l := range lines {
				if n := ansi.StringWidth(l); n != width {
					t.Fatalf("%d×%d: line %d is %d wide", width, h, i, n)
				}
			}
			if width >= 40 && !strings.Contains(lines[0], "shipper") {
				t.Fatalf("%d×%d: the transactional id should come first:\n%s", width, h, m.View())
			}
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
