package app

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/screen/inspect"
)

// The command bar's tests drive the lab as a learner does: the keys, then
// what the bar holds and what the screen shows. Each of them failed
// before the fix it names.

// Completion by argument position: `:send ␣` tab once removed the space,
// `:send p1 or` tab gave `send p1 orders-0 p1`, and `:l` tab never
// reached `lose response`; no list of candidates was shown.
func TestCommandBarCompletesByArgument(t *testing.T) {
	m := sandboxAt(t, 120, 40, "producer p1")
	m, _ = send(t, m, keyRunes(":"), keyRunes("send "), keyTab)
	if got := m.cmdbar.Value(); got != "send p1 " {
		t.Errorf(":send ␣ tab gave %q, want %q", got, "send p1 ")
	}
	m, _ = send(t, m, keyEsc, keyRunes(":"), keyRunes("send p1 or"), keyTab)
	if got := m.cmdbar.Value(); got != "send p1 orders-0 " {
		t.Errorf(":send p1 or tab gave %q", got)
	}
	if !strings.Contains(m.View(), "TOPIC-PARTITION:") || !strings.Contains(m.View(), "▸orders-0") || !strings.Contains(m.View(), "orders-2") {
		t.Errorf("no candidate line above the bar:\n%s", lastLines(m.View(), 4))
	}
	m, _ = send(t, m, keyEsc, keyRunes(":"), keyRunes("l"))
	reached := false
	for range 6 {
		m, _ = send(t, m, keyTab)
		reached = reached || m.cmdbar.Value() == "lose response "
	}
	if !reached {
		t.Errorf(":l tab… never reached lose response (last %q)", m.cmdbar.Value())
	}
	// The partitions, brokers and producers are the world's.
	m, _ = send(t, m, keyEsc, keyRunes(":"), keyRunes("restart broker "))
	if line := lastLines(m.View(), 2); !strings.Contains(line, "ID:  1   2   3") {
		t.Errorf("restart broker:\n%s", line)
	}
}

// `help` lists every verb with its summary; `help VERB` gives its syntax;
// an unknown VERB is refused with the nearest suggested. (help was an
// unknown command.)
func TestHelpCommand(t *testing.T) {
	m := sandboxAt(t, 120, 40)
	m = typeLine(t, m, "help")
	view := m.View()
	for _, want := range []string{"send", "enqueue COUNT records as one batch", "restart broker"} {
		if !m.showHelp || !strings.Contains(view, want) {
			t.Fatalf("help lacks %q:\n%s", want, view)
		}
	}
	// The lab's own commands come last, below the fold at 40 rows.
	for range 40 {
		if strings.Contains(view, "goto") {
			break
		}
		m, _ = send(t, m, keyRunes("j"))
		view = m.View()
	}
	for _, want := range []string{"diagnose", "replay", "goto", "travel to a step of the timeline"} {
		if !m.showHelp || !strings.Contains(view, want) {
			t.Fatalf("help lacks %q:\n%s", want, view)
		}
	}
	m, _ = send(t, m, keyEsc)
	m = typeLine(t, m, "help fail request")
	if view = m.View(); !m.showHelp || !strings.Contains(view, "fail request NAME TOPIC-PARTITION [seq=N] ERROR") ||
		!strings.Contains(view, "make the leader refuse a batch before appending it") {
		t.Fatalf("help fail request:\n%s", view)
	}
	m, _ = send(t, m, keyEsc)
	m = typeLine(t, m, "help lose")
	if view = m.View(); !strings.Contains(view, "lose request NAME") || !strings.Contains(view, "lose markers TOPIC-PARTITION") {
		t.Fatalf("help lose shows every lose verb:\n%s", view)
	}
	m, _ = send(t, m, keyEsc)
	m = typeLine(t, m, "help sned")
	if m.showHelp || !m.cmdbar.Active() || !strings.Contains(m.View(), `help: unknown command "sned", did you mean "send"?`) {
		t.Fatalf("help sned:\n%s", lastLines(m.View(), 4))
	}
	// At 80×24 the list is longer than the screen: it scrolls.
	m = sandboxAt(t, 80, 24)
	m = typeLine(t, m, "help")
	if !strings.Contains(m.View(), "lines 1-") {
		t.Fatalf("the long list says it scrolls:\n%s", m.View())
	}
	m, _ = send(t, m, keyRunes("G"))
	if !strings.Contains(m.View(), "quit the lab") {
		t.Fatalf("End shows the end of the list:\n%s", m.View())
	}
}

// `:goto 999` past the timeline's end was accepted silently (and went to
// the end). It is refused, with where the timeline ends, and nothing
// moves.
func TestGotoPastTheEndIsRefused(t *testing.T) {
	m := sandboxAt(t, 80, 24, "producer p1", "send p1 orders-0 1", "run", "goto 2")
	end := m.Session().TimelineSteps()
	if m.Session().Step() != 2 {
		t.Fatalf("goto 2: at step %d", m.Session().Step())
	}
	m = typeLine(t, m, "goto 999")
	if m.Session().Step() != 2 || !m.cmdbar.Active() || m.cmdbar.Value() != "goto 999" {
		t.Fatalf("goto 999 moved to %d or closed the bar", m.Session().Step())
	}
	if want := "the timeline ends at step " + strconv.Itoa(end); !strings.Contains(m.View(), want) {
		t.Fatalf("want %q:\n%s", want, lastLines(m.View(), 4))
	}
}

// Help (?) listed keys Home, Chapters and Inspect do not have (the lab's
// command bar, esc on Home, ↑/k ↓/j rows where k and j walk batches).
func TestEachScreensHelpListsItsOwnKeys(t *testing.T) {
	home := newModel(t, testOptions(t, false), 80, 24)
	chapters, _ := send(t, home, keyEnter)
	inspected, _ := send(t, home, keyDown, keyDown, keyEnter)
	cases := []struct {
		name    string
		m       Model
		want    []string
		notWant []string
	}{
		{"home", home, []string{"↑/k", "enter", "q      quit"}, []string{"esc    ", "Command bar", "forks"}},
		{"chapters", chapters, []string{"/     filter", "pgdown", "esc    home", "q      home", "◆ solved"}, []string{"Command bar", "forks", "quit (home)"}},
		{"inspect", inspected, []string{"next batch", "→/l/j", "↑     row up", "q      back", "esc    home"}, []string{"Command bar", "↑/k", "quit (home)"}},
	}
	for _, c := range cases {
		m, _ := send(t, c.m, keyRunes("?"))
		view := m.View()
		for _, w := range c.want {
			if !strings.Contains(view, w) {
				t.Errorf("%s: the help lacks %q:\n%s", c.name, w, view)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(view, w) {
				t.Errorf("%s: the help has %q:\n%s", c.name, w, view)
			}
		}
	}
}

// inspect --tui: q went Home instead of quitting; j/k did not walk the
// batch list; worlds opened from there must run with the configured seed.
func TestInspectorFromTheShell(t *testing.T) {
	data, err := os.ReadFile("../../assets/sample/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	opt := testOptions(t, false)
	opt.Seed = 42
	opt.Inspect = []inspect.File{{Name: "given.log", Data: data}}
	store := &memStore{saved: Progress{Chapter: 2, Step: 1}}
	opt.LoadProgress, opt.SaveProgress = store.load, store.save
	m := newModel(t, opt, 120, 40)
	if _, quit := send(t, m, keyRunes("q")); !quit {
		t.Error("q on the inspector opened from the shell must quit")
	}
	if !strings.Contains(lastLines(m.View(), 1), "q quit") {
		t.Errorf("the help line says q quits:\n%s", lastLines(m.View(), 1))
	}
	m, _ = send(t, m, keyRunes("j"), keyRunes("j"))
	if !strings.Contains(m.View(), "batch 3 of 7 · given.log") || !strings.Contains(m.View(), "▸ 3  6-7 transactional") {
		t.Errorf("j j: want the third batch selected in the list:\n%s", m.View())
	}
	m, _ = send(t, m, keyRunes("k"))
	if !strings.Contains(m.View(), "batch 2 of 7") {
		t.Error("k goes back a batch")
	}
	// A click in the list chooses a batch: the title, the frame's top,
	// then one row a batch.
	m, _ = send(t, m, tea.MouseMsg{X: 5, Y: 2 + 4, Button: tea.MouseButtonLeft, Action: tea.MouseActionRelease})
	if !strings.Contains(m.View(), "batch 5 of 7") {
		t.Errorf("a click on the fifth row:\n%s", m.View())
	}
	// esc goes Home; the worlds there run with the configured seed.
	m, _ = send(t, m, keyEsc)
	if m.Screen() != HomeScreen || !strings.Contains(m.View(), "Chapter 2 · Without idempotence, a retry is written twice, step 1") {
		t.Fatalf("esc: screen %d, Continue as the lab has it:\n%s", m.Screen(), m.View())
	}
	m, _ = send(t, m, keyDown, keyDown, keyEnter) // Continue → Chapters → Sandbox
	if m.Screen() != SandboxScreen || m.Session().Seed() != 42 || !strings.Contains(m.View(), "seed 42") {
		t.Fatalf("the sandbox from the inspector runs with seed %d", m.Session().Seed())
	}
	// The sample opened from Home is not the first screen: q goes back.
	m, _ = send(t, m, keyEsc, keyDown, keyEnter)
	if m.Screen() != InspectScreen {
		t.Fatalf("Home → Inspect: screen %d", m.Screen())
	}
	if m, quit := send(t, m, keyRunes("q")); quit || m.Screen() != HomeScreen {
		t.Fatalf("q on the sample: quit %v, screen %d", quit, m.Screen())
	}
}

// fullCatalog is the catalog the lab ships: the built-in chapters, then
// the example scripts numbered from FirstExample.
func fullCatalog() ([]*lesson.Lesson, error) {
	out, err := lessons.Builtin()
	if err != nil {
		return nil, err
	}
	ex, err := ScriptCatalog(os.DirFS("../../assets"), "scripts/*.eos", 101)() // FirstExample
	return append(out, ex...), err
}

// Home said "0 of 35 done": the example scripts counted as chapters.
func TestHomeCountsTheChaptersApartFromTheExamples(t *testing.T) {
	opt := testOptions(t, false)
	opt.Catalog = fullCatalog
	builtin, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	n := len(builtin) // the count follows the chapters: nothing says 24
	m := newModel(t, opt, 80, 24)
	if view := m.View(); !strings.Contains(view, fmt.Sprintf("0 of %d done · 11 example scripts", n)) {
		t.Fatalf("home:\n%s", view)
	}
	m, _ = send(t, m, keyEnter)
	view := m.View()
	if !strings.Contains(view, fmt.Sprintf("%d chapters · 0 done · 11 example scripts", n)) {
		t.Fatalf("chapters:\n%s", view)
	}
	for range n {
		m, _ = send(t, m, keyDown)
	}
	if view = m.View(); !strings.Contains(view, "Example scripts") || !strings.Contains(view, "▸ 101.") {
		t.Fatalf("the examples come apart, after chapter %d:\n%s", builtin[n-1].Number, view)
	}
}

// Continue of a finished chapter opened its end; it opens the next
// chapter from its start.
func TestContinueAfterAFinishedChapterOpensTheNext(t *testing.T) {
	store := &memStore{saved: Progress{Done: []int{1}, Chapter: 1, Step: 2}}
	opt := testOptions(t, false)
	opt.LoadProgress, opt.SaveProgress = store.load, store.save
	m := newModel(t, opt, 80, 24)
	if view := m.View(); !strings.Contains(view, "next: Chapter 2 · Without idempotence") || !strings.Contains(view, "1 of 3 done") {
		t.Fatalf("home:\n%s", view)
	}
	m, _ = send(t, m, keyEnter) // the cursor is on Continue
	if m.Screen() != LessonScreen || m.lessons[m.lessonIdx].Number != 2 || m.Session().Position().Step != -1 {
		t.Fatalf("Continue opened chapter %d at step %d", m.lessons[m.lessonIdx].Number, m.Session().Position().Step)
	}
	// After the last chapter, Continue opens the list, on that chapter.
	store = &memStore{saved: Progress{Done: []int{3}, Chapter: 3, Step: 1}}
	opt.LoadProgress, opt.SaveProgress = store.load, store.save
	m = newModel(t, opt, 80, 24)
	if !strings.Contains(m.View(), "Chapter 3 finished: the chapter list") {
		t.Fatalf("home after the last chapter:\n%s", m.View())
	}
	if m, _ = send(t, m, keyEnter); m.Screen() != ChaptersScreen || !strings.Contains(m.View(), "▸   3.") {
		t.Fatalf("Continue after the last chapter:\n%s", m.View())
	}
	// An unfinished chapter is continued where it was left.
	store = &memStore{saved: Progress{Chapter: 1, Step: 1}}
	opt.LoadProgress, opt.SaveProgress = store.load, store.save
	m = newModel(t, opt, 80, 24)
	m, _ = send(t, m, keyEnter)
	if m.lessons[m.lessonIdx].Number != 1 || m.Session().Position().Step != 0 {
		t.Fatalf("Continue of an unfinished chapter: chapter %d step %d", m.lessons[m.lessonIdx].Number, m.Session().Position().Step)
	}
}

// The chapter list is a level map: a summary under each chapter, the
// challenge and solved marks, → next, and a cursor that stays where it
// was (leaving a lesson used to put it back on chapter 1).
func TestChapterListIsALevelMap(t *testing.T) {
	store := &memStore{}
	m := newModel(t, scoredOptions(t, store), 120, 40)
	m, _ = send(t, m, keyEnter)
	view := m.View()
	if !strings.Contains(view, "Two predictions and a challenge.") || !strings.Contains(view, "◇ challenge") || !strings.Contains(view, "→ next") {
		t.Fatalf("the list:\n%s", view)
	}
	// Solve the challenge with its solution; the chapter list marks it.
	m, _ = send(t, m, keyEnter)
	for range 200 {
		if _, step := m.challenge(); step >= 0 && m.lessons[m.lessonIdx].Steps[step].Challenge != nil {
			break
		}
		m, _ = send(t, m, keyRight)
	}
	m, _ = send(t, m, keyRunes("S"), keyEnter, keyEnter, keyEnter)
	if !strings.Contains(m.Status(), "challenge complete") {
		t.Fatalf("the solution did not complete the challenge: %q", m.Status())
	}
	m, _ = send(t, m, keyEsc)
	if view = m.View(); !strings.Contains(view, "◆ solved") {
		t.Fatalf("solved:\n%s", view)
	}
	// The mark survives a new run.
	m = newModel(t, scoredOptions(t, store), 120, 40)
	if m, _ = send(t, m, keyDown, keyEnter); !strings.Contains(m.View(), "◆ solved") {
		t.Fatalf("after a restart:\n%s", m.View())
	}

	// The cursor stays on the chapter a lesson was left from.
	m = newModel(t, testOptions(t, false), 80, 24)
	m, _ = send(t, m, keyEnter, keyDown, keyDown, keyEnter)
	if m.lessons[m.lessonIdx].Number != 3 {
		t.Fatalf("opened chapter %d", m.lessons[m.lessonIdx].Number)
	}
	m, _ = send(t, m, keyEsc)
	if m.Screen() != ChaptersScreen || !strings.Contains(m.View(), "▸   3.") {
		t.Fatalf("back from chapter 3, the cursor is not on it:\n%s", m.View())
	}
	m, _ = send(t, m, keyEsc, keyDown, keyEnter) // Home → Chapters (Continue is first now)
	if m.Screen() != ChaptersScreen || !strings.Contains(m.View(), "▸   3.") {
		t.Fatalf("Home → Chapters again:\n%s", m.View())
	}
}

// At a lesson's end the next chapter is offered, and n opens it.
func TestNextChapterAtTheEnd(t *testing.T) {
	m := newModel(t, testOptions(t, false), 80, 24)
	m, _ = send(t, m, keyEnter, keyEnter) // chapter 1
	for range 200 {
		if m.Session().Position().Done {
			break
		}
		m, _ = send(t, m, keyRight)
	}
	m, _ = send(t, m, keyRight)
	if !strings.Contains(m.Status(), "n opens the next: chapter 2 · Without idempotence") {
		t.Fatalf("the end: %q", m.Status())
	}
	if !strings.Contains(lastLines(m.View(), 1), "n next: chapter 2") {
		t.Fatalf("the help line offers n:\n%s", lastLines(m.View(), 1))
	}
	m, _ = send(t, m, keyRunes("n"))
	if m.Screen() != LessonScreen || m.lessons[m.lessonIdx].Number != 2 {
		t.Fatalf("n opened chapter %d", m.lessons[m.lessonIdx].Number)
	}
	// Before the end n does nothing.
	if m, _ = send(t, m, keyRunes("n")); m.lessons[m.lessonIdx].Number != 2 {
		t.Fatal("n before the end moved on")
	}
}

// lastLines is the end of a frame, for messages.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// The producer's config keys the bar completes are the parser's own (it
// lists them when a key is unknown and nothing is near).
func TestProducerConfigKeysAreTheParsers(t *testing.T) {
	_, err := script.ParseLine("producer p1 zzzzzzzzzzzzzzzz=1")
	var perr *script.Error
	if !errors.As(err, &perr) {
		t.Fatalf("%v", err)
	}
	_, known, ok := strings.Cut(perr.Msg, "(known: ")
	if !ok {
		t.Fatalf("no list of keys in %q", perr.Msg)
	}
	want := append([]string{"transactional"}, producerConfigKeys...)
	want = append(want, "transactional.id")
	if got := strings.Split(strings.TrimSuffix(known, ")"), ", "); !slices.Equal(got, want) {
		t.Fatalf("the parser knows %q,\nthe bar completes %q (and the mode keys)", got, want)
	}
}
