package app

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
)

// chapterAt opens built-in chapter n at lesson step k (1-based), as
// --chapter N --step K does.
func chapterAt(t *testing.T, n, k, w, h int) Model {
	t.Helper()
	opt := testOptions(t, false)
	opt.Catalog, opt.Chapter, opt.Step = lessons.Builtin, n, k
	return newModel(t, opt, w, h)
}

// The count: 42 presses of → reached chapter 8's step 5. With }
// (and an answer at the prediction) it takes a handful, and the status
// bar says where each stopped.
func TestStoryKeysReachChapter8Step5(t *testing.T) {
	m := chapterAt(t, 8, 1, 120, 40)
	presses := 0
	for pos := m.Session().Position(); pos.Step < 4 || !pos.StepDone; pos = m.Session().Position() {
		if presses++; presses > 15 {
			t.Fatalf("} pressed %d times and still at %+v (%q)", presses, pos, m.Status())
		}
		if pos.Reveal {
			m, _ = send(t, m, keyRunes("1"))
		}
		m, _ = send(t, m, keyRunes("}"))
		if s := m.Status(); !strings.Contains(s, "step") && !strings.Contains(s, "prediction") {
			t.Fatalf("press %d: the status says nothing of where it stopped: %q", presses, s)
		}
	}
	t.Logf("%d presses (answers included) to the end of chapter 8's step 5", presses)
}

// ) stops at the next decision and names it; ( goes back to the one
// before; the count of events left in the lesson step is shown while
// stepping.
func TestNextAndPreviousDecision(t *testing.T) {
	m := chapterAt(t, 8, 1, 120, 40)
	m, _ = send(t, m, keyRunes(")"))
	if s := m.Status(); !strings.Contains(s, "appends pid 0 epoch 0 seq 0-2") {
		t.Fatalf(") should stop at the first append: %q", s)
	}
	if s := m.Status(); !strings.Contains(s, "event(s) left in this step (})") {
		t.Fatalf("the events left in the step are not said: %q", s)
	}
	first := m.Session().Step()
	m, _ = send(t, m, keyRunes("}"), keyRunes("}"))
	m, _ = send(t, m, keyRunes("("))
	if !m.Session().Behind() {
		t.Fatalf("( did not go back: %q", m.Status())
	}
	for range 20 {
		if m.Session().Step() <= first {
			break
		}
		m, _ = send(t, m, keyRunes("("))
	}
	if m.Session().Step() != first || !strings.Contains(m.Status(), "back at the decision of step") {
		t.Fatalf("( back to the first decision: step %d (want %d), %q", m.Session().Step(), first, m.Status())
	}
}

// Replication folds into one line per run in the timeline; f shows it.
func TestTimelineFoldsReplication(t *testing.T) {
	m := chapterAt(t, 8, 1, 120, 40)
	m, _ = send(t, m, keyRunes("}")) // step 1 played out: its answers and the followers' fetches
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "replication event(s) folded (f shows them)") || strings.Contains(view, "sends Fetch") {
		t.Fatalf("replication is not folded:\n%s", view)
	}
	m, _ = send(t, m, keyRunes("f"))
	if view := ansi.Strip(m.View()); strings.Contains(view, "folded (f shows") || !strings.Contains(view, "Fetch") {
		t.Fatalf("f does not show replication:\n%s", view)
	}
}

// After --chapter N --step K, and on its tab at 80×24, the timeline is
// full of history (it once showed one event above empty rows).
func TestTimelineIsFullAfterADeepLink(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		m := chapterAt(t, 19, 3, size[0], size[1])
		bench := m.lesson.Bench()
		for bench.Focus() != lesson.PanelTimeline {
			m, _ = send(t, m, tea.KeyMsg{Type: tea.KeyTab})
			bench = m.lesson.Bench()
		}
		_, _, _, h, ok := bench.Box(lesson.PanelTimeline)
		if !ok {
			t.Fatalf("%dx%d: no timeline", size[0], size[1])
		}
		view := ansi.Strip(m.View())
		rows := 0
		for _, line := range strings.Split(view, "\n") {
			if strings.Contains(line, "0.0") && (strings.Contains(line, "message.") || strings.Contains(line, "fetch") ||
				strings.Contains(line, "produce.") || strings.Contains(line, "txn.") || strings.Contains(line, "folded")) {
				rows++
			}
		}
		if rows < h-4 {
			t.Fatalf("%dx%d: the timeline (%d rows) shows %d events:\n%s", size[0], size[1], h, rows, view)
		}
	}
}

// The scrub bar shows the lesson steps; a click on one travels there.
func TestScrubBarClickTravels(t *testing.T) {
	m := chapterAt(t, 8, 4, 120, 40)
	x, y, w, h, ok := m.lesson.Bench().Box(lesson.PanelTimeline)
	if !ok {
		t.Fatal("no timeline")
	}
	_ = y
	// The bar is the timeline's last line: "│├1──…┤│" in the box's columns.
	row, col := -1, -1
	for i, line := range strings.Split(ansi.Strip(m.View()), "\n") {
		r := []rune(line)
		if len(r) >= x+w && strings.HasPrefix(string(r[x:x+w]), "│├") {
			row, col = i, strings.IndexRune(string(r[x:x+w]), '2')
			if col >= 0 {
				col = len([]rune(string(r[x : x+w])[:col]))
			}
		}
	}
	if row < 0 || col < 0 {
		t.Fatalf("no scrub bar with step 2 in the timeline (%d rows):\n%s", h, ansi.Strip(m.View()))
	}
	end := m.Session().Step()
	m, _ = send(t, m, tea.MouseMsg{X: x + col, Y: row, Button: tea.MouseButtonLeft, Action: tea.MouseActionRelease})
	if !m.Session().Behind() || m.Session().Step() >= end || m.Session().Position().Step != 1 {
		t.Fatalf("a click on the bar's 2 should travel to lesson step 2: step %d of %d, lesson step %d", m.Session().Step(), end, m.Session().Position().Step+1)
	}
}

// A fork is undoable: u goes back to the future it left, and u again
// returns.
func TestUndoAFork(t *testing.T) {
	m := sandboxAt(t, 120, 40, "producer p1", "send p1 orders-0 3", "run")
	end := m.Session().TimelineSteps()
	m, _ = send(t, m, keyRunes("h"), keyRunes("h"), keyRunes("h"))
	m = typeLine(t, m, "send p1 orders-1 1")
	if !strings.HasPrefix(m.Status(), "forked") {
		t.Fatalf("no fork: %q", m.Status())
	}
	m = typeLine(t, m, "run")
	if !strings.Contains(ansi.Strip(m.View()), "Y") {
		t.Fatal("the scrub bar does not show the fork")
	}
	m, _ = send(t, m, keyRunes("u"))
	if !m.Session().Behind() || m.Session().TimelineSteps() != end || !strings.HasPrefix(m.Status(), "back on the timeline left at step") {
		t.Fatalf("u: behind %v, timeline %d (want %d), %q", m.Session().Behind(), m.Session().TimelineSteps(), end, m.Status())
	}
	m, _ = send(t, m, keyRunes("u"))
	if m.Session().TimelineSteps() == end {
		t.Fatal("u again did not return to the new timeline")
	}
}

// The end of a chapter whose challenge is unsolved says so, and the
// chapter gets no ✓ (chapters 5, 8 and 19 once said "✓ the end").
func TestUnsolvedChallengeIsNotTheEnd(t *testing.T) {
	ls, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{5, 8, 19} {
		l := ls[n-1]
		m := chapterAt(t, n, len(l.Steps), 120, 40)
		for range 3000 {
			if m.Session().Position().Done {
				break
			}
			if p := m.Session().Position(); p.Reveal {
				m, _ = send(t, m, keyRunes("1"))
			}
			m, _ = send(t, m, keyRunes("l"))
		}
		m, _ = send(t, m, keyRunes("l"))
		hasChallenge := false
		for _, st := range l.Steps {
			hasChallenge = hasChallenge || st.Kind == lesson.Challenge
		}
		if !hasChallenge {
			t.Fatalf("chapter %d has no challenge", n)
		}
		if s := m.Status(); strings.HasPrefix(s, "✓") || !strings.Contains(s, "is not solved") {
			t.Fatalf("chapter %d: the end of an unsolved chapter says %q", n, s)
		}
		if view := ansi.Strip(m.View()); strings.Contains(view, "✓ end of the lesson") || !strings.Contains(view, "is not solved") {
			t.Fatalf("chapter %d: the lesson screen's last line claims the end:\n%s", n, view)
		}
		if m.done[n-1] {
			t.Fatalf("chapter %d is marked done with its challenge unsolved", n)
		}
	}
}

// After an answer, → applies the reveal and says what it is (it once
// said "applied:" with nothing after it).
func TestRevealSaysWhatItIs(t *testing.T) {
	m := chapterAt(t, 8, 2, 120, 40)
	for range 50 {
		if m.Session().Position().Reveal {
			break
		}
		m, _ = send(t, m, keyRunes("l"))
	}
	m, _ = send(t, m, keyRunes("1"), keyRunes("l"))
	if s := m.Status(); strings.HasSuffix(strings.TrimSpace(s), "applied:") || !strings.Contains(s, "reveal") {
		t.Fatalf("after the answer, → says %q", s)
	}
	if !strings.Contains(m.Status(), "left in this step") {
		t.Fatalf("the reveal does not say how far the marks are: %q", m.Status())
	}
}

// Solved, the same chapter ends with its ✓ and counts as done.
func TestSolvedChallengeEndsTheChapter(t *testing.T) {
	ls, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	l := ls[4] // chapter 5: its last step is a challenge
	m := chapterAt(t, 5, len(l.Steps), 120, 40)
	for range 200 {
		if m.Session().Position().Done {
			break
		}
		m, _ = send(t, m, keyRunes("l"))
	}
	m, _ = send(t, m, keyRunes("S"))
	for range len(l.Steps[len(l.Steps)-1].Challenge.Solution) {
		m, _ = send(t, m, keyEnter)
	}
	m = typeLine(t, m, "run")
	m, _ = send(t, m, keyRunes("l"))
	if !m.done[4] {
		t.Fatalf("chapter 5 solved is not done: %q\n%s", m.Status(), ansi.Strip(m.View()))
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "✓ end of the lesson") {
		t.Fatalf("no ✓ at the end of a solved chapter:\n%s", view)
	}
}

// Esc while a panel is zoomed unzooms it; only the next esc leaves (it
// once left the lesson at once).
func TestEscUnzoomsFirst(t *testing.T) {
	m := chapterAt(t, 8, 2, 120, 40)
	m, _ = send(t, m, keyRunes("z"))
	if !m.lesson.Bench().Zoomed() {
		t.Fatal("z did not zoom")
	}
	m, _ = send(t, m, keyEsc)
	if m.Screen() != LessonScreen || m.lesson.Bench().Zoomed() {
		t.Fatalf("esc while zoomed: screen %d, zoomed %v", m.Screen(), m.lesson.Bench().Zoomed())
	}
	m, _ = send(t, m, keyEsc)
	if m.Screen() != ChaptersScreen {
		t.Fatalf("the next esc leaves for the chapters: screen %d", m.Screen())
	}
	s := sandboxAt(t, 120, 40, "producer p1")
	s, _ = send(t, s, keyRunes("z"), keyEsc)
	if s.Screen() != SandboxScreen || s.sandbox.Bench().Zoomed() {
		t.Fatalf("sandbox: esc while zoomed: screen %d, zoomed %v", s.Screen(), s.sandbox.Bench().Zoomed())
	}
}

// A command-bar error with a challenge's hints shown keeps 120×40 a grid
// (it once turned into the 80×24 tabs); the narration scrolls instead.
func TestCommandBarErrorKeepsTheGrid(t *testing.T) {
	m := chapterAt(t, 8, 6, 120, 40)
	m, _ = send(t, m, keyRunes("H"), keyRunes("H"))
	grid := func(m Model) bool {
		_, _, _, _, ok := m.lesson.Bench().Box(lesson.PanelWindow)
		_, _, _, _, ok2 := m.lesson.Bench().Box(lesson.PanelTimeline)
		return ok && ok2 // both on screen at once: not tabs
	}
	if !grid(m) {
		t.Fatalf("no grid at 120x40 with hints:\n%s", ansi.Strip(m.View()))
	}
	m, _ = send(t, m, keyRunes(":"), keyRunes("sendd p1 x"), keyEnter)
	if !strings.Contains(ansi.Strip(m.View()), "did you mean") {
		t.Fatalf("no error on the bar:\n%s", ansi.Strip(m.View()))
	}
	if !grid(m) {
		t.Fatalf("the error turned the grid into tabs:\n%s", ansi.Strip(m.View()))
	}
}
