package app

import (
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons/lesson"
)

func TestTooSmall(t *testing.T) {
	for _, size := range [][2]int{{79, 24}, {80, 23}, {20, 5}} {
		m := newModel(t, testOptions(t, false), size[0], size[1])
		want := "terminal too small (need 80×24, have " + strconv.Itoa(size[0]) + "×" + strconv.Itoa(size[1]) + ")"
		if got := m.View(); got != want {
			t.Errorf("%v: got %q", size, got)
		}
	}
	// Growing back restores the screen.
	m := newModel(t, testOptions(t, false), 40, 10)
	m, _ = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if !strings.Contains(m.View(), "Chapters") {
		t.Fatal("the home screen did not come back after a resize")
	}
}

func TestQuitKeys(t *testing.T) {
	m := newModel(t, testOptions(t, false), 80, 24)
	if _, quit := send(t, m, keyRunes("q")); !quit {
		t.Fatal("q on Home should quit")
	}
	m, _ = send(t, m, keyEnter) // Chapters
	if m, quit := send(t, m, keyRunes("q")); quit || m.Screen() != HomeScreen {
		t.Fatalf("q elsewhere goes back: quit %v, screen %d", quit, m.Screen())
	}
	m, _ = send(t, m, keyEnter, keyEnter) // a lesson
	if _, quit := send(t, m, keyCtrlC); !quit {
		t.Fatal("ctrl+c always quits")
	}
	if m, _ := send(t, m, keyEsc); m.Screen() != ChaptersScreen {
		t.Fatalf("esc from a lesson goes to the chapters, got %d", m.Screen())
	}
}

func TestLessonStepsBackAndForth(t *testing.T) {
	m := newModel(t, testOptions(t, false), 120, 40)
	m, _ = send(t, m, keyEnter, keyEnter) // Chapters → chapter 1
	if m.Screen() != LessonScreen || m.Session().Lesson().Title != "A lost acknowledgement, and the duplicate it causes" {
		t.Fatalf("screen %d", m.Screen())
	}
	m, _ = send(t, m, keyRight)
	if !strings.Contains(m.Status(), "applied: producer p1") {
		t.Fatalf("first → applies the first step: %q", m.Status())
	}
	m, _ = send(t, m, keyRight, keyRight)
	at := m.Session().Step()
	m, _ = send(t, m, keyLeft)
	if m.Session().Step() != at-1 || !m.Session().Behind() || !strings.Contains(m.View(), "◀ 1 ahead") {
		t.Fatalf("← should go back one step and say so: step %d (was %d)", m.Session().Step(), at)
	}
	m, _ = send(t, m, keyRight)
	if m.Session().Step() != at || m.Session().Behind() {
		t.Fatalf("→ after ← redoes: step %d, behind %v", m.Session().Step(), m.Session().Behind())
	}
}

// The acceptance path, with keys only: lose an ack with the fault
// key, step, watch the retry recognised as a duplicate of offset 0.
func TestLoseAckShowsTheDuplicate(t *testing.T) {
	m := sandboxAt(t, 120, 40, "producer p1", "send p1 orders-0 2")
	m, _ = send(t, m, keyRunes("a"))
	if m.pending == nil || !strings.Contains(m.View(), "will be lost") || m.pending.line != "lose response p1" {
		t.Fatalf("the fault key should first show what it acts on: %q", m.Status())
	}
	m, _ = send(t, m, keyEnter)
	if m.pending != nil || len(m.Session().Snapshot().Faults) != 1 {
		t.Fatalf("enter applies the fault: %+v", m.Session().Snapshot().Faults)
	}
	for i := 0; i < 200 && m.Session().Snapshot().Due; i++ {
		m, _ = send(t, m, keyRight)
	}
	d := m.Session().Snapshot().LastDecision
	if d == nil || d.Str("outcome") != "duplicate" {
		t.Fatalf("no duplicate decision: %+v", d)
	}
	view := ansi.Strip(m.View())
	for _, want := range []string{"= incoming: duplicate", "⇒ DUPLICATE", "original offsets 0-1", "duplicate?    ▸= duplicate"} {
		if !strings.Contains(view, want) {
			t.Errorf("the window panel should show %q", want)
		}
	}
	if !strings.Contains(m.Session().Script(), "lose response p1\n") {
		t.Fatal(":save would not contain the fault")
	}
}

func TestFaultCancelAndFork(t *testing.T) {
	m := sandboxAt(t, 80, 24, "producer p1", "send p1 orders-0 1", "run")
	m, _ = send(t, m, keyRunes("x"), keyRunes("j")) // another key cancels
	if m.pending != nil || len(m.Session().Snapshot().Faults) != 0 || !strings.HasPrefix(m.Status(), "cancelled") {
		t.Fatalf("cancel: %q", m.Status())
	}
	m, _ = send(t, m, keyLeft, keyLeft, keyLeft)
	m, _ = send(t, m, keyRunes("R"), keyRunes("R")) // the fault's own key confirms too
	if !strings.HasPrefix(m.Status(), "forked: a new timeline from step") || m.Session().Behind() {
		t.Fatalf("acting in the past forks: %q", m.Status())
	}
}

func TestCommandBarErrorsInline(t *testing.T) {
	m := sandboxAt(t, 80, 24)
	m = typeLine(t, m, "sned p1 orders-0 1")
	view := m.View()
	if !strings.Contains(view, `✗ unknown command "sned", did you mean "send"?`) || !strings.Contains(view, "(nothing applied)") {
		t.Fatalf("the parse error should show inline:\n%s", view)
	}
	if !strings.Contains(view, "\n ^") {
		t.Fatalf("a caret should point at column 1:\n%s", view)
	}
	if len(m.Session().Trace().Events()) != 0 {
		t.Fatal("nothing should be applied")
	}
	m, _ = send(t, m, keyEsc)
	m = typeLine(t, m, "send p9 orders-0 1")
	if !strings.Contains(m.View(), `unknown producer "p9"`) {
		t.Fatal("a command the world refuses is shown too")
	}
}

func TestSaveAndLoad(t *testing.T) {
	opt := testOptions(t, false)
	m := newModel(t, opt, 80, 24)
	m, _ = send(t, m, keyDown, keyEnter)
	for _, l := range []string{"producer p1", "send p1 orders-0 2", "lose response p1", "run", "save demo.eos"} {
		m = typeLine(t, m, l)
	}
	if !strings.HasPrefix(m.Status(), "saved demo.eos") {
		t.Fatalf("save: %q", m.Status())
	}
	saved, _ := opt.ReadFile("demo.eos")
	if !strings.Contains(string(saved), "lose response p1\nstep ") {
		t.Fatalf("saved script:\n%s", saved)
	}
	m, _ = send(t, m, keyRunes("g")) // Start: back to the origin
	m = typeLine(t, m, "load demo.eos")
	if d := m.Session().Snapshot().LastDecision; d == nil || d.Str("outcome") != "duplicate" {
		t.Fatalf("loading the saved script should replay the duplicate: %q", m.Status())
	}
}

func TestHelpOverlayListsEveryLabKey(t *testing.T) {
	m := sandboxAt(t, 120, 40)
	m, _ = send(t, m, keyRunes("?"))
	view := m.View()
	k := m.keys
	for _, b := range append(append([]keyHelp{}, helpOf(k.Forward, k.Backward, k.LoseResponse, k.LoseRequest, k.Delay)...),
		helpOf(k.RestartProducer, k.Pause, k.RestartBroker, k.Failover, k.Advance, k.Zoom, k.Command)...) {
		if !strings.Contains(view, b.key) || !strings.Contains(view, b.desc) {
			t.Errorf("the help overlay lacks %s %s", b.key, b.desc)
		}
	}
	if m, _ = send(t, m, keyRunes("?")); m.showHelp {
		t.Fatal("? closes the overlay")
	}
}

func TestFocusZoomAndTabs(t *testing.T) {
	m := sandboxAt(t, 80, 24, "producer p1")
	if !strings.Contains(m.View(), "[header bytes]") {
		t.Fatal("at 80×24 panels are tabs, the bytes first")
	}
	m, _ = send(t, m, keyTab)
	if !strings.Contains(m.View(), "[window]") || m.sandbox.Bench().Focus() != lesson.PanelWindow {
		t.Fatal("tab moves to the window panel")
	}
	m, _ = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40}, keyRunes("z"))
	if !m.sandbox.Bench().Zoomed() || !strings.Contains(m.View(), "▶ window") || strings.Contains(m.View(), "timeline") {
		t.Fatal("z zooms the focused panel over the others")
	}
}

func TestAutoplayIgnoresStaleTicks(t *testing.T) {
	m := sandboxAt(t, 80, 24, "producer p1")
	next, cmd := m.Update(keyRunes("p"))
	m = next.(Model)
	if !m.autoplay || cmd == nil {
		t.Fatal("p starts autoplay with a tick")
	}
	gen := m.gen
	m, _ = send(t, m, autoplayMsg{gen: gen - 1})
	if m.Session().Step() != 0 {
		t.Fatal("a stale tick moved the world")
	}
	next, cmd = m.Update(autoplayMsg{gen: gen})
	m = next.(Model)
	if m.Session().Step() != 1 || cmd == nil {
		t.Fatalf("a current tick steps and schedules the next: step %d", m.Session().Step())
	}
	m, _ = send(t, m, keyRunes("p"), autoplayMsg{gen: gen})
	if m.Session().Step() != 1 {
		t.Fatal("after stopping, the old generation's tick must be ignored")
	}
}

func TestDeepLinkAndInspect(t *testing.T) {
	opt := testOptions(t, false)
	opt.Chapter, opt.Step = 1, 2
	m := newModel(t, opt, 80, 24)
	if m.Screen() != LessonScreen || m.Session().Position().Step != 1 || !strings.Contains(m.View(), "step 2/2") {
		t.Fatalf("--chapter 1 --step 2: screen %d position %+v", m.Screen(), m.Session().Position())
	}
	m = newModel(t, testOptions(t, false), 120, 40)
	m, _ = send(t, m, keyDown, keyDown, keyEnter)
	if m.Screen() != InspectScreen || !strings.Contains(m.View(), "batch 1 of 7") {
		t.Fatalf("Home → Inspect opens the sample:\n%s", m.View())
	}
	for range 3 {
		m, _ = send(t, m, keyRight)
	}
	if !strings.Contains(m.View(), "◆ control batch: COMMIT marker, coordinator epoch 7") {
		t.Fatalf("the last batch is a control batch with its marker:\n%s", m.View())
	}
}

type keyHelp struct{ key, desc string }

func helpOf(bs ...key.Binding) []keyHelp {
	var out []keyHelp
	for _, b := range bs {
		out = append(out, keyHelp{b.Help().Key, b.Help().Desc})
	}
	return out
}

// Clicking an event of the timeline travels to its step; clicking a tab
// at 80×24 shows its panel.
func TestMouse(t *testing.T) {
	m := sandboxAt(t, 120, 40, "producer p1", "send p1 orders-0 1", "run")
	end := m.Session().Step()
	x, y, _, _, ok := m.sandbox.Bench().Box(lesson.PanelTimeline)
	if !ok {
		t.Fatal("no timeline at 120×40")
	}
	// The sandbox draws one hint line above the panels; row 0 of the
	// timeline is inside its frame.
	click := func(x, y int) tea.MouseMsg {
		return tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionRelease}
	}
	m, _ = send(t, m, click(x+3, 1+y+1))
	if m.Session().Step() >= end || !m.Session().Behind() {
		t.Fatalf("a click on the first visible event should travel back: step %d of %d", m.Session().Step(), end)
	}
	if m.sandbox.Bench().Focus() != lesson.PanelTimeline {
		t.Fatal("the clicked panel takes the focus")
	}
	m, _ = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24}, click(17, 1)) // " header bytes " is 14 wide, then "[window]"/" window "
	if m.sandbox.Bench().Focus() != lesson.PanelWindow {
		t.Fatalf("a click on a tab focuses it, got %s", m.sandbox.Bench().Focus())
	}
}

// A long command runs a slice at a time between frames: the lab keeps
// answering keys, says how far it got, and esc stops it where it is (it
// once ran to its end inside one Update, ignoring ctrl+c, q and signals).
func TestLongCommandRunsInSlicesAndStops(t *testing.T) {
	m := sandboxAt(t, 80, 24, "producer t1 transactional=tx", "run", "begin t1", "send t1 orders-0 1", "kill broker 1", "kill broker 2")
	m, _ = send(t, m, keyRunes(":"), keyRunes("advance 100000h"))
	next, cmd := m.Update(keyEnter)
	next, _ = next.(Model).Update(cmd()) // submitted; its slices are not run here
	m = next.(Model)
	if m.job == nil {
		t.Fatalf("advance did not start as a job: %q", m.Status())
	}
	for range 3 {
		next, _ = m.Update(jobMsg{})
		m = next.(Model)
	}
	if m.job == nil || !strings.Contains(m.Status(), "advance 4166d16h: running") || !strings.Contains(m.Status(), "% of the way") ||
		!strings.Contains(m.Status(), "esc stops it") {
		t.Fatalf("after three slices: job %v, status %q", m.job != nil, m.Status())
	}
	steps := m.Session().Step()
	next, _ = m.Update(keyRunes("x")) // other keys wait
	m = next.(Model)
	if m.job == nil || m.pending != nil {
		t.Fatal("a fault key acted while a job ran")
	}
	next, _ = m.Update(keyEsc)
	m = next.(Model)
	if m.job != nil || !strings.Contains(m.Status(), "advance 4166d16h: stopped") || m.Session().Step() != steps {
		t.Fatalf("esc: job %v, status %q, steps %d → %d", m.job != nil, m.Status(), steps, m.Session().Step())
	}
	if m.Session().Snapshot().TimeMs >= 100_000*3_600_000 {
		t.Fatal("a stopped advance moved the clock to its end")
	}
	if m.Screen() != SandboxScreen {
		t.Fatal("esc left the sandbox instead of stopping the job")
	}
}
