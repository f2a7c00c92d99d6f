package batchbytes

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/paneltest"
)

func newPanel(w, h int) Model {
	m := New(paneltest.Styles(), keymap.Default())
	m.SetSize(w, h)
	return m
}

// world plays lines and steps until the first produce decision.
func world(t *testing.T, lines ...string) *sim.World {
	t.Helper()
	w := paneltest.World(t, lines...)
	for w.Snapshot().LastDecision == nil {
		if _, ok := w.Step(); !ok {
			t.Fatal("no decision")
		}
	}
	return w
}

func data(w *sim.World) panel.Data {
	return panel.Data{Snap: w.Snapshot(), Trace: w.Trace(), Partition: "orders-0", Producer: "p1", Motion: panel.Forward}
}

// At the step a leader stores a batch, the panel compares it with the
// bytes its producer sent: only bytes outside the CRC differ.
func TestStoredBatchComparedWithSent(t *testing.T) {
	w := world(t, "producer p1", "send p1 orders-0 2")
	m := newPanel(64, 16)
	m.SetData(data(w))
	for i, c := range m.changed {
		if c && i >= 21 {
			t.Fatalf("byte %d inside the CRC flagged as changed", i)
		}
	}
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "partitionLeaderEpoch -1→0") || !strings.Contains(view, "crc unchanged ✓") {
		t.Fatalf("the change should be spelt out:\n%s", view)
	}
	golden.RequireEqual(t, []byte(m.View()))
	// The next step shows the same stored batch: nothing changed since.
	w.Step()
	m.SetData(data(w))
	if len(m.notes) != 0 {
		t.Fatalf("flags should clear when the bytes stay the same: %v", m.notes)
	}
}

func TestCursorWalksFieldsThenRecords(t *testing.T) {
	m := newPanel(64, 16)
	m.SetData(data(world(t, "producer p1", "send p1 orders-0 2")))
	next := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("w")}
	var starts []int
	for range 15 {
		m, _ = m.Update(next)
		starts = append(starts, m.Cursor())
	}
	want := []int{8, 12, 16, 17, 21, 23, 27, 35, 43, 51, 53, 57, 61}
	for i, w := range want {
		if starts[i] != w {
			t.Fatalf("field %d starts at %d, want %d (walk %v)", i+1, starts[i], w, starts)
		}
	}
	if starts[13] <= 61 || !strings.Contains(ansi.Strip(m.View()), "▸ record 1") {
		t.Fatalf("after the header the cursor walks records: %v\n%s", starts, ansi.Strip(m.View()))
	}
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(",")})
	if m.Cursor() != starts[14]-1 {
		t.Fatal(", moves back one byte")
	}
}

func TestDifferentBatchesAreNotCompared(t *testing.T) {
	a := world(t, "producer p1", "send p1 orders-0 2").Snapshot().Partitions[0].Batches[0].Bytes
	b := world(t, "producer p1", "send p1 orders-0 3").Snapshot().Partitions[0].Batches[0].Bytes
	if c, notes, _ := changedFields(a, b, false); c != nil || notes != nil {
		t.Fatalf("batches with different CRCs were compared: %v", notes)
	}
}

// Under NO_COLOR (the Ascii profile, which drops reverse video) the
// cursor is still visible: by field, the field is bracketed; by byte, the
// byte is. Before, a byte cursor inside a field was drawn in reverse
// video only, and vanished.
func TestCursorIsBracketedWithoutColour(t *testing.T) {
	w := world(t, "producer p1", "send p1 orders-0 2")
	m := newPanel(64, 16)
	m.SetData(data(w))
	row := func() string { return strings.Split(ansi.Strip(m.View()), "\n")[1] }
	if got := row(); !strings.HasPrefix(got, "   0[00 00 00 00 00 00 00 00]") {
		t.Fatalf("by field, baseOffset (bytes 0-7) is bracketed: %q", got)
	}
	for range 3 {
		m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(".")})
	}
	if m.Cursor() != 3 {
		t.Fatalf("cursor at %d", m.Cursor())
	}
	if got := row(); !strings.HasPrefix(got, "   0 00 00 00[00]00 00 00 00") {
		t.Fatalf("by byte, byte 3 alone is bracketed: %q", got)
	}
}

// A batch the leader rewrote inside the CRC (a wrong maxTimestamp) or
// rebuilt (records whose offset deltas were out of order) is still
// compared with what its producer sent, and the line under the grid says
// that the CRC was recomputed, not that it held.
func TestRewrittenBatchComparedWithSent(t *testing.T) {
	stored := world(t, "producer p1", "send p1 orders-0 2").Snapshot().Partitions[0].Batches[0].Bytes
	h, err := record.ParseHeader(stored)
	if err != nil {
		t.Fatal(err)
	}
	sent := append([]byte(nil), stored...)
	binary.BigEndian.PutUint64(sent[35:], uint64(h.MaxTimestamp-5))
	binary.BigEndian.PutUint32(sent[record.CRCOffset:], record.ComputeCRC(sent))
	m := newPanel(96, 16)
	m.SetBatch("orders-0", stored, panel.Jump)
	m.compare(sent, "as sent → as stored", true)
	view := ansi.Strip(m.View())
	for _, want := range []string{fmt.Sprintf("maxTimestamp %d→%d", h.MaxTimestamp-5, h.MaxTimestamp), "crc 0x", "crc recomputed"} {
		if !strings.Contains(view, want) {
			t.Fatalf("%q not said:\n%s", want, view)
		}
	}
	if strings.Contains(view, "crc unchanged") || !m.changed[35+7] || m.changed[30] {
		t.Fatalf("flags %v\n%s", m.changed, view)
	}
	m.compare(sent[:len(sent)-1], "as sent → as stored", true)
	if view := ansi.Strip(m.View()); !strings.Contains(view, fmt.Sprintf("rebuilt by the leader, %d → %d bytes", len(sent)-1, len(stored))) {
		t.Fatalf("a rebuilt batch is not said:\n%s", view)
	}
	// The same bytes, compared as the step before rather than as sent, are
	// another batch.
	if c, notes, _ := changedFields(sent, stored, false); c != nil || notes != nil {
		t.Fatalf("compared as steps: %v", notes)
	}
}
