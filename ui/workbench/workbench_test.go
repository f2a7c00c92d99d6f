package workbench

import (
	"io"
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/paneltest"
	"github.com/eoslab/eoslab/ui/styles"
)

func keyMsg(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func newBench(w, h int) Model {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	m := New(styles.New(r, styles.DefaultPalette()), keymap.Default())
	m.SetSize(w, h)
	return m
}

// scriptWorld plays an example script (comments and blank lines skipped).
func scriptWorld(t *testing.T, file string) *sim.World {
	t.Helper()
	b, err := os.ReadFile("../../assets/scripts/" + file)
	if err != nil {
		t.Fatal(err)
	}
	w := sim.New(1)
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c, err := script.ParseLine(l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Apply(c); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	return w
}

func frame(w *sim.World) panel.Data {
	return panel.Data{Snap: w.Snapshot(), Trace: w.Trace(), Partition: "orders-0", Motion: panel.Forward}
}

func has(ps []lesson.Panel, p lesson.Panel) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

func checkFills(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Fatalf("%d×%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			t.Fatalf("%d×%d: line %d is %d wide: %q", w, h, i, n, ansi.Strip(l))
		}
	}
}

// Showing every panel (the sandbox), the transaction panels stay out
// until the world has something for them, then take a row of the grid;
// back in time they leave again, and the focus with them.
func TestTransactionPanelsJoinWhenThereIsSomethingToShow(t *testing.T) {
	m := newBench(120, 37)
	m.SetData(frame(scriptWorld(t, "worked-example.eos")))
	for _, p := range []lesson.Panel{lesson.PanelCoordinator, lesson.PanelConsumers} {
		if _, _, _, _, ok := m.Box(p); ok || has(m.shown, p) {
			t.Fatalf("%s shown without transactions", p)
		}
	}
	m.SetData(frame(scriptWorld(t, "txn-abort.eos")))
	_, cy, _, ch, ok := m.Box(lesson.PanelCoordinator)
	_, ny, _, _, ok2 := m.Box(lesson.PanelConsumers)
	_, py, _, _, _ := m.Box(lesson.PanelPartition)
	_, ty, _, _, _ := m.Box(lesson.PanelTimeline)
	if !ok || !ok2 || cy != ny || cy <= py || ty != cy+ch {
		t.Fatalf("coordinator and consumers should share a row between the actors and the timeline: %v", m.boxes)
	}
	view := ansi.Strip(m.View())
	checkFills(t, m.View(), 120, 37)
	for _, want := range []string{"─ transactions · coordinator ─", "─ consumers ─", "▶[CompleteCommit]", "0 1 ◆ · · · ◆ 7 ◆"} {
		if !strings.Contains(view, want) {
			t.Errorf("missing %q in\n%s", want, view)
		}
	}
	// Focus the consumers, then travel back before any transaction.
	for m.Focus() != lesson.PanelConsumers {
		m.cycle(1)
	}
	m.SetData(frame(scriptWorld(t, "worked-example.eos")))
	if m.Focus() == lesson.PanelConsumers || has(m.shown, lesson.PanelConsumers) {
		t.Fatalf("the consumers panel should leave with its data (focus %s)", m.Focus())
	}
	checkFills(t, m.View(), 120, 37)
}

// A lesson step that names the panels shows them, empty or not, with the
// focus it asks for.
func TestLessonStepNamesThem(t *testing.T) {
	m := newBench(120, 28)
	m.SetPanels([]lesson.Panel{lesson.PanelConsumers, lesson.PanelCoordinator, lesson.PanelPartition, lesson.PanelTimeline}, lesson.PanelConsumers)
	m.SetData(frame(sim.New(1)))
	if got := m.shown; len(got) != 4 || m.Focus() != lesson.PanelConsumers {
		t.Fatalf("shown %v focus %s", got, m.Focus())
	}
	view := ansi.Strip(m.View())
	for _, want := range []string{"─ ▶ consumers ─", "─ transactions · coordinator ─", "no consumer yet (try :consumer c1",
		"no transactional producer yet (try :producer p1"} {
		if !strings.Contains(view, want) {
			t.Errorf("missing %q in\n%s", want, view)
		}
	}
	checkFills(t, m.View(), 120, 28)
	// At 80×24 the same step is tabs, in the panel order.
	m.SetSize(80, 20)
	if bar := ansi.Strip(strings.Split(m.View(), "\n")[0]); !strings.HasPrefix(bar, " partition log  transactions [consumers] timeline") {
		t.Fatalf("tabs: %q", bar)
	}
}

// With every panel shown at 80 columns the tabs do not all fit: the bar
// keeps the focused tab in view, marks what it leaves out with …, and a
// click finds the tab under it.
func TestTabsScrollToTheFocus(t *testing.T) {
	m := newBench(80, 21)
	m.SetData(frame(scriptWorld(t, "txn-consume-transform-produce.eos")))
	if len(m.shown) != 9 {
		t.Fatalf("every panel should be shown: %v", m.shown)
	}
	for range m.shown {
		bar := ansi.Strip(strings.Split(m.View(), "\n")[0])
		checkFills(t, m.View(), 80, 21)
		name := "[" + m.tabName(m.Focus()) + "]"
		at := strings.Index(bar, name)
		if at < 0 {
			t.Fatalf("focused tab %s not in %q", name, bar)
		}
		if id, ok := m.tabAt(ansi.StringWidth(bar[:at]) + 1); !ok || id != m.Focus() {
			t.Fatalf("tabAt under %s gives %s", name, id)
		}
		m.cycle(1)
	}
	m.focus = lesson.PanelAnomalies
	if bar := ansi.Strip(strings.Split(m.View(), "\n")[0]); !strings.HasPrefix(bar, "…") || !strings.Contains(bar, "[anomalies]") {
		t.Fatalf("the bar should show it left tabs out: %q", bar)
	}
}

// Every size from the minimum up fills the area exactly, with the
// transaction row in the grid.
func TestEverySizeFillsWithTransactions(t *testing.T) {
	d := frame(scriptWorld(t, "txn-consume-transform-produce.eos"))
	for _, panels := range [][]lesson.Panel{nil,
		{lesson.PanelProducer, lesson.PanelCoordinator, lesson.PanelPartition, lesson.PanelTimeline},
		{lesson.PanelConsumers, lesson.PanelPartition}} {
		m := newBench(80, 20)
		m.SetPanels(panels, "")
		m.SetData(d)
		for w := 80; w <= 200; w += 7 {
			for h := 14; h <= 70; h += 3 {
				m.SetSize(w, h)
				checkFills(t, m.View(), w, h)
			}
		}
	}
}

// boxLines is the inside of a panel's frame as drawn.
func boxLines(m Model, id lesson.Panel) []string {
	x, y, w, h, ok := m.Box(id)
	if !ok {
		return nil
	}
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	var out []string
	for _, l := range lines[y+1 : y+h-1] {
		r := []rune(l)
		out = append(out, string(r[x+1:x+w-1]))
	}
	return out
}

// Space goes to the panel that needs it: beside the header bytes (whose
// grid needs 53 columns), the window's decision tree and verdict are not
// cut, and the row is as tall as the verdict needs, the timeline giving
// up lines. Before, the window was cut at "before-wi…" and its verdict at
// "nothing appended," while the bytes panel had columns to spare.
func TestRoomGoesToThePanelThatNeedsIt(t *testing.T) {
	m := newBench(120, 30)
	m.SetPanels([]lesson.Panel{lesson.PanelBytes, lesson.PanelWindow, lesson.PanelTimeline}, lesson.PanelWindow)
	w := paneltest.World(t, "producer p1", "send p1 orders-0 2", "run", "send p1 orders-0 1", "run")
	m.SetData(frame(w))
	checkFills(t, m.View(), 120, 30)
	win := boxLines(m, lesson.PanelWindow)
	for _, l := range win {
		if strings.HasSuffix(strings.TrimRight(l, " "), "…") {
			t.Errorf("the window cuts %q:\n%s", l, strings.Join(win, "\n"))
		}
	}
	if text := strings.Join(win, "\n"); !strings.Contains(text, "before-window") || !strings.Contains(text, "at offsets 2-2") {
		t.Errorf("the window should show the sequence check's answers and the whole verdict:\n%s", text)
	}
	_, _, bw, _, _ := m.Box(lesson.PanelBytes)
	if bw >= 120*56/100 {
		t.Errorf("the bytes panel kept its share (%d columns) although its grid needs 53", bw)
	}
}

// A row whose panel needs more lines than its share takes them from the
// timeline (a log, which gives up lines first): the window keeps its five
// remembered batches instead of folding them away.
func TestRowsGrowForTheirContent(t *testing.T) {
	m := newBench(100, 28)
	m.SetPanels([]lesson.Panel{lesson.PanelBytes, lesson.PanelWindow, lesson.PanelTimeline}, lesson.PanelWindow)
	lines := []string{"producer p1"}
	for range 5 {
		lines = append(lines, "send p1 orders-0 1", "run")
	}
	m.SetData(frame(paneltest.World(t, lines...)))
	checkFills(t, m.View(), 100, 28)
	_, _, _, top, _ := m.Box(lesson.PanelWindow)
	_, _, _, tl, _ := m.Box(lesson.PanelTimeline)
	text := strings.Join(boxLines(m, lesson.PanelWindow), "\n")
	if top+tl != 28 || tl >= 8 {
		t.Errorf("the timeline should give lines to the top row (top %d, timeline %d)", top, tl)
	}
	for _, want := range []string{"  1  0-0 ", "  5  4-4 ", "└ transaction?", "⇒ APPEND"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in the window:\n%s", want, text)
		}
	}
}

// Esc on a zoomed panel unzooms it: the screen asks Unzoom first.
func TestUnzoom(t *testing.T) {
	m := newBench(120, 30)
	m.SetData(frame(paneltest.World(t, "producer p1")))
	if m.Unzoom() {
		t.Fatal("nothing was zoomed")
	}
	m, _ = m.Update(keyMsg("z"))
	if !m.Zoomed() || len(m.boxes) != 1 {
		t.Fatalf("z should zoom the focused panel: %v", m.boxes)
	}
	if !m.Unzoom() || m.Zoomed() || len(m.boxes) < 2 {
		t.Fatalf("Unzoom should put the panels back: %v", m.boxes)
	}
}
