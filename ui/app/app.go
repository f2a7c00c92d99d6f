// Package app is the lab's root model: the screens (home, chapters,
// lesson, sandbox, inspect), the terminal size, the command bar, the help
// overlay and the engine session. It routes keys to the screen in front
// and drives the session synchronously in Update — engine steps are fast
// and deterministic — then hands each screen the new snapshot. Only real
// I/O (saving, loading, progress) and autoplay's timer run as commands.
//
// main builds Options from flags and configuration and calls Run; tests
// build the model with New and drive Update directly.
package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/asciify"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/screen/chapters"
	"github.com/eoslab/eoslab/ui/screen/home"
	"github.com/eoslab/eoslab/ui/screen/inspect"
	lessonscreen "github.com/eoslab/eoslab/ui/screen/lesson"
	"github.com/eoslab/eoslab/ui/screen/sandbox"
	"github.com/eoslab/eoslab/ui/session"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
	"github.com/eoslab/eoslab/ui/widget/commandbar"
	"github.com/eoslab/eoslab/ui/widget/markdown"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// Minimum terminal size; below it the app shows only a notice.
const (
	MinWidth  = 80
	MinHeight = 24
)

// Screen names the screen in front.
type Screen uint8

// The screens.
const (
	HomeScreen Screen = iota
	ChaptersScreen
	LessonScreen
	SandboxScreen
	InspectScreen
)

// Model is the root model.
type Model struct {
	opt  Options
	st   *styles.Styles
	keys keymap.KeyMap
	md   *markdown.Renderer
	w, h int

	screen   Screen
	lessons  []*lesson.Lesson
	done     map[int]bool // by catalog index
	home     home.Model
	chapters chapters.Model
	lesson   lessonscreen.Model
	sandbox  sandbox.Model
	inspect  inspect.Model

	sess       *session.Session // the session of the screen in front (lesson or sandbox)
	lessonSess *session.Session // kept for Continue
	lessonIdx  int
	answers    map[int]int      // the learner's predictions, by lesson step
	learn      learning         // hints, scores, the progress store's state (lab.go)
	boxSess    *session.Session // the sandbox's, kept while the program runs

	focusPartition, focusProducer string // chosen by the learner; "" follows the action
	shownPartition, shownProducer string // what the panels show now

	cmdbar   commandbar.Model
	job      *runningJob // a long command running a slice at a time, or nil
	help     help.Model
	showHelp bool
	helpPage helpPage // what the overlay shows, and how far it is scrolled (help.go)
	pending  *fault   // a fault key waiting for confirmation
	status   string
	tone     statusbar.Tone

	// sliceTime is how long a slice of a job works when not jobSliceTime
	// (tests: one piece of work a slice, so that progress is exact).
	sliceTime time.Duration

	showReplication bool       // the timeline shows replication traffic unfolded
	presenter       bool       // the lesson screen shows the presenter notes (kept from chapter to chapter)
	path            *pathState // the path being played, nil if none (path.go)

	autoplay bool
	gen      int     // autoplay generation: ticks of an older one are ignored
	rate     float64 // autoplay moves per second
	err      error
}

// New builds the app. It fails only when the chapter catalog cannot be read.
func New(opt Options) (Model, error) {
	opt.defaults()
	pal := styles.DefaultPalette()
	if opt.Palette != nil {
		pal = *opt.Palette
	}
	st := styles.New(opt.Renderer, pal)
	keys := keymap.Default()
	lessons, err := opt.Catalog()
	if err != nil {
		return Model{}, fmt.Errorf("reading the chapters: %w", err)
	}
	m := Model{opt: opt, st: st, keys: keys, lessons: lessons, done: map[int]bool{}, rate: opt.AutoplayRate, presenter: opt.Presenter,
		md: markdown.New(profileOf(opt), markdown.Colours{Text: string(pal.Text), Accent: string(pal.Accent), Shade: string(pal.CRCShade), Faint: string(pal.Faint)}), help: newHelp(st)}
	m.cmdbar = commandbar.New(st, keys, barVerbs(), barWords())
	m.home = home.New(st, keys, opt.Logo)
	m.chapters = chapters.New(st, keys, lessons, m.done)
	m.start()
	return m, nil
}

func profileOf(opt Options) termenv.Profile { return opt.Renderer.ColorProfile() }

// start opens the first screen: a deep link, the inspector, or Home.
func (m *Model) start() {
	m.learn = newLearning()
	if opt := m.opt; opt.LoadProgress != nil {
		if p, err := opt.LoadProgress(); err == nil {
			m.restoreProgress(p)
		}
	}
	switch {
	case m.opt.Serve != nil:
		m.openServed()
		return
	case len(m.opt.Inspect) > 0:
		m.inspect = inspect.New(m.st, m.keys, m.opt.Inspect)
		m.inspect.SetStandalone() // opened from the shell: q quits
		m.screen = InspectScreen
	case m.opt.Path != nil && len(m.opt.Path.Stops) > 0:
		m.openPath(m.opt.Path)
		return
	case m.opt.Open != nil:
		m.openGiven(m.opt.Open)
		return
	case m.opt.Chapter > 0:
		if i := m.chapterIndex(m.opt.Chapter); i >= 0 {
			m.openLesson(i, max(m.opt.Step, 1)-1)
			m.startAutoplay()
			return
		}
		m.setStatus(fmt.Sprintf("no chapter %d (there are %d)", m.opt.Chapter, len(m.lessons)), statusbar.Bad)
	}
	m.updateHome()
}

func (m *Model) chapterIndex(number int) int {
	for i, l := range m.lessons {
		if l.Number == number {
			return i
		}
	}
	return -1
}

// Screen is the screen in front.
func (m Model) Screen() Screen { return m.screen }

// Session is the engine session in front (nil outside lessons and the sandbox).
func (m Model) Session() *session.Session { return m.sess }

// Status is the status bar's message.
func (m Model) Status() string { return m.status }

// Init starts autoplay's first tick when the lab opens in autoplay;
// otherwise nothing: the first frame needs only the window size.
func (m Model) Init() tea.Cmd { return m.initCmd() }

// Update routes one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case servedMsg:
		return m.pump()
	}
	return m.handleEvent(msg)
}

// layout gives every screen its size: the body is the terminal minus the
// status bar and the help (or command) line.
func (m *Model) layout() {
	if m.w < MinWidth || m.h < MinHeight {
		return
	}
	body := m.bodyHeight()
	m.home.SetSize(m.w, body)
	m.chapters.SetSize(m.w, body)
	switch m.screen { // the others are built when opened, then sized here
	case LessonScreen:
		m.lesson.SetSize(m.w, body)
	case SandboxScreen:
		m.sandbox.SetSize(m.w, body)
	case InspectScreen:
		m.inspect.SetSize(m.w, body)
	}
	m.cmdbar.SetWidth(m.w)
	m.help.Width = m.w
}

func (m Model) bodyHeight() int { return m.h - 1 - max(m.cmdbar.Height(), 1) }

// View draws the screen in front, the status bar and the help line.
func (m Model) View() string {
	if m.opt.ASCII {
		return asciify.Frame(m.view())
	}
	return m.view()
}

func (m Model) view() string {
	if m.w < MinWidth || m.h < MinHeight {
		return fmt.Sprintf("terminal too small (need %d×%d, have %d×%d)", MinWidth, MinHeight, m.w, m.h)
	}
	body := m.body()
	if m.showHelp {
		body = m.helpOverlay()
	}
	foot := m.cmdbar.View()
	switch {
	case m.pending != nil:
		// What the fault will act on, in words; the status bar above
		// names the command and the keys that decide.
		foot = box.Line(m.st.Warn.Render("⚑ "+m.pending.preview), m.w)
	case !m.cmdbar.Active():
		// Cut here as well: the help view keeps adding items when even
		// its ellipsis does not fit.
		foot = box.Line(m.help.ShortHelpView(m.shortHelp()), m.w)
	}
	return strings.Join([]string{body, m.statusLine(), foot}, "\n")
}

func (m Model) body() string {
	switch m.screen {
	case ChaptersScreen:
		return m.chapters.View()
	case LessonScreen:
		return m.lesson.View()
	case SandboxScreen:
		return m.sandbox.View()
	case InspectScreen:
		return m.inspect.View()
	}
	return m.home.View()
}
