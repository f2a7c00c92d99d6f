package app

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/lessons"
)

// Chapter 19's "Who skips the aborted records?" once revealed, at 120×40:
// the consumers panel (the step's focus) shows read_committed's offsets
// with the aborted ones and the markers as gaps, and read_uncommitted
// returning the aborted records, marked so.
func TestChapter19AbortedRecordsAreGaps(t *testing.T) {
	opt := testOptions(t, false)
	opt.Catalog = lessons.Builtin
	opt.Chapter, opt.Step = 19, 5
	m := newModel(t, opt, 120, 40)
	if m.Screen() != LessonScreen {
		t.Fatalf("chapter 19 did not open: %s", m.Status())
	}
	for i := 0; i < 100 && !m.Session().Position().Reveal; i++ {
		m, _ = send(t, m, keyRight)
	}
	m, _ = send(t, m, keyRunes("2"))
	for i := 0; i < 200; i++ {
		if p := m.Session().Position(); p.Revealed && p.StepDone {
			break
		}
		m, _ = send(t, m, keyRight)
	}
	if p := m.Session().Position(); !p.Revealed || !p.StepDone || p.Step != 4 {
		t.Fatalf("the reveal did not play out: %+v", p)
	}
	view := ansi.Strip(m.View())
	checkFills(t, m.View(), 120, 40)
	for _, want := range []string{
		"─ ▶ consumers ─",
		"▸orders-0: HW 10 = LSO 10",
		"rc · read_committed", "ru · read_uncommitted",
		"0 1 2 ◆ · · · ◆ 8 ◆", "0 1 2 ◆ 4 5 6 ◆ 8 ◆",
		"skipped: ◆ 3 marker(s), · 3 aborted",
		"4: tx-1  ✗ aborted txn", "8: tx-4  ✓ committed",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("missing %q in\n%s", want, view)
		}
	}
	golden.RequireEqual(t, []byte(m.View()))
}

// Chapter 21's new coordinator, at 80×24: the step's panels are tabs, the
// coordinator's among them, showing PrepareCommit with both markers
// pending while the new coordinator sends them again.
func TestChapter21CoordinatorTab(t *testing.T) {
	opt := testOptions(t, false)
	opt.Catalog = lessons.Builtin
	opt.Chapter, opt.Step = 21, 7
	m := newModel(t, opt, 80, 24)
	if m.Screen() != LessonScreen {
		t.Fatalf("chapter 21 did not open: %s", m.Status())
	}
	for i := 0; i < 100; i++ {
		// The panel, not the narration (which says "coordinator epoch 1"
		// too, and at 80×24 now has the lines to show it).
		if s := m.Session().Snapshot(); len(s.Transactions) > 0 && txnState(s.Transactions, "tx-1") == "PrepareCommit" &&
			strings.Contains(ansi.Strip(m.View()), "tx-1 · coordinator b1") {
			break
		}
		m, _ = send(t, m, keyRight)
	}
	view := ansi.Strip(m.View())
	checkFills(t, m.View(), 80, 24)
	for _, want := range []string{"[transactions]", "tx-1 · coordinator b1 (__transaction_state-20, coordinator epoch 1)",
		"▶[PrepareCommit]", "⧗ COMMIT marker pending"} {
		if !strings.Contains(view, want) {
			t.Errorf("missing %q in\n%s", want, view)
		}
	}
}

func txnState(ts []sim.TxnView, id string) string {
	for _, v := range ts {
		if v.TransactionalID == id {
			return v.State
		}
	}
	return ""
}
