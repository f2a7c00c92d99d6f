package app

import (
	"io"
	"os"
	"testing"
	"testing/fstest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/ui/screen/inspect"
)

// Scripts for the chapter list, kept here so that its golden files do not
// move when the repository's scripts do.
var testChapters = fstest.MapFS{
	"1-lost-ack.eos": {Data: []byte(`# A lost acknowledgement, and the duplicate it causes.
# The broker writes the batch; the answer never reaches the producer.

producer p1

# Send two records; the answer will be lost.
send p1 orders-0 2
lose response p1
run
`)},
	"2-plain.eos": {Data: []byte(`# Without idempotence, a retry is written twice.

producer p1 plain
send p1 orders-0 1
lose response p1
run
`)},
	"3-restart.eos": {Data: []byte(`# A restarted producer is a stranger to the broker.

producer p1
send p1 orders-0 1
run
restart producer p1
send p1 orders-0 1
run
`)},
}

// asciiRenderer draws without colour, so that goldens are the same on
// every terminal and in CI.
func asciiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return r
}

// testOptions: seed 1, the test chapters or the worked example, no disk.
func testOptions(t testing.TB, worked bool) Options {
	t.Helper()
	cat := ScriptCatalog(testChapters, "*.eos", 1)
	if worked {
		cat = ScriptCatalog(os.DirFS("../../assets"), "scripts/worked-example.eos", 1)
	}
	sample, err := os.ReadFile("../../assets/sample/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	logo, _ := os.ReadFile("../../assets/logo.txt")
	files := map[string][]byte{}
	return Options{
		Seed: 1, Catalog: cat, Logo: string(logo), Renderer: asciiRenderer(),
		Sample:    &inspect.File{Name: "sample.log", Data: sample},
		ReadFile:  func(name string) ([]byte, error) { b, ok := files[name]; return b, okErr(ok) },
		WriteFile: func(name string, data []byte) error { files[name] = data; return nil },
	}
}

func okErr(ok bool) error {
	if ok {
		return nil
	}
	return os.ErrNotExist
}

// newModel builds the app at a size.
func newModel(t testing.TB, opt Options, w, h int) Model {
	t.Helper()
	m, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return next.(Model)
}

// send delivers messages one by one and runs the commands they return
// (synchronously, feeding their messages back), as Bubble Tea would. It
// reports whether the program asked to quit. Autoplay ticks are never
// returned here: tests drive autoplay with explicit messages.
func send(t testing.TB, m Model, msgs ...tea.Msg) (Model, bool) {
	t.Helper()
	quit := false
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case nil:
		case tea.QuitMsg:
			quit = true
		case tea.BatchMsg:
			for _, c := range msg {
				run(c)
			}
		default:
			next, cmd := m.Update(msg)
			m = next.(Model)
			run(cmd)
		}
	}
	for _, msg := range msgs {
		next, cmd := m.Update(msg)
		m = next.(Model)
		run(cmd)
	}
	return m, quit
}

// Key messages.
func keyRunes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var (
	keyEnter = tea.KeyMsg{Type: tea.KeyEnter}
	keyEsc   = tea.KeyMsg{Type: tea.KeyEsc}
	keyRight = tea.KeyMsg{Type: tea.KeyRight}
	keyLeft  = tea.KeyMsg{Type: tea.KeyLeft}
	keyTab   = tea.KeyMsg{Type: tea.KeyTab}
	keyDown  = tea.KeyMsg{Type: tea.KeyDown}
	keyCtrlC = tea.KeyMsg{Type: tea.KeyCtrlC}
)

// typeLine opens the command bar, types line and submits it.
func typeLine(t testing.TB, m Model, line string) Model {
	t.Helper()
	m, _ = send(t, m, keyRunes(":"), keyRunes(line), keyEnter)
	return m
}

// sandboxAt opens the sandbox (Home → Sandbox) and applies lines.
func sandboxAt(t testing.TB, w, h int, lines ...string) Model {
	t.Helper()
	m := newModel(t, testOptions(t, false), w, h)
	m, _ = send(t, m, keyDown, keyEnter) // Chapters → Sandbox
	if m.Screen() != SandboxScreen {
		t.Fatalf("expected the sandbox, got screen %d", m.Screen())
	}
	for _, l := range lines {
		m = typeLine(t, m, l)
	}
	return m
}
