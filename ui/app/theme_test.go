package app

// Themes, NO_COLOR and --ascii, checked on the frames the lab draws.
//
// The per-theme goldens keep colour: they are drawn by a TrueColor
// renderer that never asks a terminal anything, so they are the same on
// every machine. Regenerate them with
//
//	go test ./ui/app -run TestThemes -update
//
// and read the diff before committing (a golden with escape codes is
// easiest to read with `cat -v` or `less -R`).

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/themes"
	"github.com/eoslab/eoslab/ui/styles"
)

// trueColorRenderer draws in 24-bit colour without looking at a terminal:
// the renderer writes nowhere, and its profile is set, not detected.
func trueColorRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	return r
}

// builtinWithPanels is the built-in curriculum, with the panels ps added
// to step `step` (0-based) of chapter `chapter` if the lesson does not show
// them there already. No lesson shows the header bytes and the window
// together, and these tests want both of them on one screen; the rest of
// the lesson is untouched.
func builtinWithPanels(chapter, step int, ps ...lesson.Panel) Catalog {
	return func() ([]*lesson.Lesson, error) {
		ls, err := lessons.Builtin()
		if err != nil {
			return nil, err
		}
		for i, l := range ls {
			if l.Number != chapter {
				continue
			}
			c := *l
			c.Steps = slices.Clone(l.Steps)
			st := &c.Steps[step]
			shown := slices.Clone(st.Panels)
			if len(shown) == 0 {
				shown = slices.Clone(l.Panels)
			}
			for _, p := range ps {
				if !slices.Contains(shown, p) {
					shown = append(shown, p)
				}
			}
			st.Panels = shown
			ls[i] = &c
		}
		return ls, nil
	}
}

// The step of chapter 4 the theme goldens show.
const (
	themeChapter   = 4
	themeStep      = 4 // 1-based, as --step
	themeStepTitle = "Predict an idempotent header"
)

// chapter4Header opens chapter 4 ("The batch header, byte by byte") at
// step 4, answers its prediction (1: 4711, 0 and 0) and moves on with →
// to the leader's verdict on p2's idempotent batch: the header-bytes
// panel shows the batch as broker 1 stored it, with the bytes the leader
// changed (baseOffset, partitionLeaderEpoch) flagged, and the window
// (added to the step, see builtinWithPanels) holds it, appended.
func chapter4Header(t testing.TB, opt Options, w, h int) Model {
	t.Helper()
	opt.Catalog = builtinWithPanels(themeChapter, themeStep-1, lesson.PanelBytes, lesson.PanelWindow)
	opt.Chapter, opt.Step = themeChapter, themeStep
	m := newModel(t, opt, w, h)
	if m.Screen() != LessonScreen {
		t.Fatalf("chapter %d did not open: %s", themeChapter, m.Status())
	}
	m, _ = send(t, m, keyRunes("1"))
	for range 200 {
		if d := m.Session().Snapshot().LastDecision; d != nil && d.Str("producer") == "p2" {
			if d.Str("outcome") != "append" {
				t.Fatalf("p2's batch should be appended: %v", d)
			}
			if pos := m.Session().Position(); pos.Step != themeStep-1 {
				t.Fatalf("p2's batch was decided in step %d, not %d", pos.Step+1, themeStep)
			}
			return m
		}
		m, _ = send(t, m, keyRight)
	}
	t.Fatal("p2's batch was never decided")
	return m
}

// chapterSteps is how many steps built-in chapter n has.
func chapterSteps(t testing.TB, n int) int {
	t.Helper()
	ls, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if l.Number == n {
			return len(l.Steps)
		}
	}
	t.Fatalf("no chapter %d", n)
	return 0
}

// themeOptions are the test options drawn with theme name in true colour.
func themeOptions(t testing.TB, name string) (Options, *themes.Theme) {
	t.Helper()
	th, err := themes.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	opt := testOptions(t, false)
	opt.Renderer, opt.Palette = trueColorRenderer(), &th.Palette
	return opt, th
}

// sgr matches Select Graphic Rendition sequences; csi any CSI sequence.
var (
	sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)
	csi = regexp.MustCompile(`\x1b\[[0-9;:?]*[ -/]*[@-~]`)
)

// colourCodes lists the colour settings in s's SGR sequences: "38;5;42",
// "48;2;0;114;178", "31", … Bold, underline, reverse and resets are not
// colours and are not listed.
func colourCodes(s string) []string {
	var out []string
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		ps := strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' })
		for i := 0; i < len(ps); i++ {
			switch p := ps[i]; {
			case p == "38" || p == "48" || p == "58":
				n := 0
				if i+1 < len(ps) {
					switch ps[i+1] {
					case "5":
						n = 2
					case "2":
						n = 4
					}
				}
				n = min(n, len(ps)-1-i)
				out = append(out, strings.Join(ps[i:i+n+1], ";"))
				i += n
			case len(p) == 2 && (p[0] == '3' || p[0] == '4' || p[0] == '9') && p[1] >= '0' && p[1] <= '7',
				len(p) == 3 && p[:2] == "10" && p[2] >= '0' && p[2] <= '7':
				out = append(out, p)
			}
		}
	}
	return out
}

func TestColourCodes(t *testing.T) {
	s := "\x1b[1;38;5;42;48;2;0;114;178m a \x1b[0m\x1b[4;31;39;49m b \x1b[7;93;104m c \x1b[38;5;30m\x1b[9;1;2;22m\x1b[m"
	want := []string{"38;5;42", "48;2;0;114;178", "31", "93", "104", "38;5;30"}
	if got := colourCodes(s); !slices.Equal(got, want) {
		t.Errorf("colourCodes: %q, want %q", got, want)
	}
	if got := colourCodes("\x1b[1m\x1b[4;7m\x1b[0m plain \x1b[22;24;27m"); len(got) > 0 {
		t.Errorf("no colour in bold, underline and reverse: %q", got)
	}
}

// paletteCodes are the colour settings a palette can produce through r:
// each colour as a foreground and as a background, plus the black text
// styles.Changed draws on its highlight.
func paletteCodes(r *lipgloss.Renderer, p styles.Palette) map[string]bool {
	cs := []lipgloss.Color{p.Text, p.Muted, p.Faint, p.Accent, p.Border, p.BorderFocus, p.Good, p.Warn, p.Bad,
		p.HighWatermark, p.LastStable, p.Lost, p.Fenced, p.CRCShade, p.Changed, p.Cursor, p.Records, p.StatusBg, p.StatusFg, "0"}
	cs = append(append(cs, p.Fields[:]...), p.Producers...)
	out := map[string]bool{}
	for _, c := range cs {
		if col := r.ColorProfile().Color(string(c)); col != nil {
			out[col.Sequence(false)] = true
			out[col.Sequence(true)] = true
		}
	}
	return out
}

// outcomeCode is the colour a verdict is drawn in with these styles.
func outcomeCode(st *styles.Styles, outcome string) string {
	return strings.Join(colourCodes(st.Outcome(outcome).Render(outcome)), " ")
}

// narrationRows are the rows of a lesson frame between the title line and
// the "→" line: the step's question, checks and narration.
func narrationRows(t testing.TB, lines []string) (from, to int) {
	t.Helper()
	for i, l := range lines {
		if strings.HasPrefix(ansi.Strip(l), "→ ") {
			return 1, i
		}
	}
	t.Fatalf("no \"→\" line under the narration:\n%s", ansi.Strip(strings.Join(lines, "\n")))
	return 0, 0
}

// A theme can break the lab without failing to load: a colour that is
// not set, a style that ignores the palette, a wide glyph that pushes a
// border out. Each built-in theme draws the lesson screen of chapter 4 at
// both design sizes, compared with a golden kept in colour, and the frame
// must stay legible: it fills the terminal and no more, the texts that
// carry the lesson are there, mono has no colour at all, and the others
// have colour, only their own (but for knownGaps), with three verdicts
// told apart.
func TestThemes(t *testing.T) {
	for _, name := range themes.BuiltinNames() {
		for _, size := range designSizes {
			w, h := size[0], size[1]
			t.Run(fmt.Sprintf("%s/%dx%d", name, w, h), func(t *testing.T) {
				opt, th := themeOptions(t, name)
				frame := chapter4Header(t, opt, w, h).View()

				lines := strings.Split(frame, "\n")
				if len(lines) != h {
					t.Errorf("%d lines, want %d", len(lines), h)
				}
				for i, l := range lines {
					if n := ansi.StringWidth(l); n > w {
						t.Errorf("line %d is %d cells wide (> %d): %q", i+1, n, w, ansi.Strip(l))
					}
				}
				if rest := csi.ReplaceAllString(sgr.ReplaceAllString(frame, ""), ""); strings.Contains(rest, "\x1b") {
					t.Errorf("escape sequences other than SGR in the frame: %q", rest)
				}
				plain := ansi.Strip(frame)
				for _, want := range []string{"baseOffset", "producerId", "4711"} {
					if !strings.Contains(plain, want) {
						t.Errorf("the frame lacks %q:\n%s", want, plain)
					}
				}
				if !containsCut(plain, fmt.Sprintf("step %d/%d: %s", themeStep, chapterSteps(t, themeChapter), themeStepTitle)) {
					t.Errorf("the frame lacks the step's title %q (or its start, cut with …):\n%s", themeStepTitle, plain)
				}
				if w >= 100 { // the grid: the window is on screen beside the bytes
					for _, want := range []string{"window", "APPEND", "incoming: id 4711"} {
						if !strings.Contains(plain, want) {
							t.Errorf("the window panel should show p2's batch (%q):\n%s", want, plain)
						}
					}
				}

				checkThemeColours(t, name, w, lines, opt.Renderer, th.Palette)
				// The golden last: the checks say what is wrong, the diff where.
				golden.RequireEqual(t, []byte(frame))
			})
		}
	}
}

// checkThemeColours: mono draws no colour; the other themes draw their own
// colours and no other, and tell the three verdicts apart.
func checkThemeColours(t *testing.T, name string, w int, lines []string, r *lipgloss.Renderer, pal styles.Palette) {
	t.Helper()
	from, to := narrationRows(t, lines)
	parts := map[string]string{
		"narration": strings.Join(lines[from:to], "\n"),
		"panels":    strings.Join(slices.Concat(lines[:from], lines[to:]), "\n"),
	}
	allowed := paletteCodes(r, pal)
	if name == "mono" {
		allowed = map[string]bool{}
	}
	for part, text := range parts {
		var foreign []string
		for _, c := range unique(colourCodes(text)) {
			if !allowed[c] {
				foreign = append(foreign, c)
			}
		}
		for _, g := range knownGaps {
			if g.part != part || !slices.Contains(g.themes, name) {
				continue
			}
			n := len(foreign)
			foreign = slices.DeleteFunc(foreign, func(c string) bool { return slices.Contains(g.codes, c) })
			switch {
			case n > len(foreign):
				t.Logf("known gap, tolerated until fixed: %s", g.cause)
			case w >= 100: // both gaps are on screen at 120×40
				t.Errorf("known gap fixed? %v no longer in the %s: delete its entry in knownGaps so that the check is strict (%s)", g.codes, part, g.cause)
			}
		}
		if len(foreign) > 0 {
			t.Errorf("colours in the %s that are not the %s theme's: %v", part, name, foreign)
		}
	}
	st := styles.New(r, pal)
	good, warn, bad := outcomeCode(st, "append"), outcomeCode(st, "duplicate"), outcomeCode(st, "reject")
	if name == "mono" {
		if good+warn+bad != "" {
			t.Errorf("mono draws the verdicts in colour: %q %q %q", good, warn, bad)
		}
		return
	}
	cs := colourCodes(parts["panels"])
	if len(cs) == 0 {
		t.Error("no colour at all in a colour theme")
	}
	if good == "" || warn == "" || bad == "" || good == warn || warn == bad || good == bad {
		t.Errorf("append %q, duplicate %q and reject %q must be three colours", good, warn, bad)
	}
	if w >= 100 && !slices.Contains(cs, good) {
		t.Errorf("the appended batch is not drawn in the append colour %s", good)
	}
}

// knownGaps are colours a theme does not choose, drawn by code outside
// this test's reach. Each is tolerated (and logged) where it shows, and
// checked at 120×40: once it no longer shows, the test fails until its
// entry is deleted, so that the check is strict again.
var knownGaps = []struct {
	themes []string
	part   string // "narration" or "panels"
	codes  []string
	cause  string
}{}

// containsCut reports whether s holds title, or a start of it of at least
// twenty characters cut with an ellipsis (a header at 80 columns).
func containsCut(s, title string) bool {
	if strings.Contains(s, title) {
		return true
	}
	rs := []rune(title)
	for n := len(rs) - 1; n >= 20; n-- {
		if strings.Contains(s, string(rs[:n])+"…") {
			return true
		}
	}
	return false
}

func unique(cs []string) []string {
	out := slices.Clone(cs)
	slices.Sort(out)
	return slices.Compact(out)
}

// NO_COLOR: the renderer lipgloss makes for a terminal honours it, and a
// frame drawn by such a renderer has no colour at all, while every
// verdict still reads as a word or a glyph.
func TestNoColor(t *testing.T) {
	t.Run("the terminal's renderer", func(t *testing.T) {
		// A non-terminal writer with colour forced on, so that NO_COLOR is
		// what takes the colour away (not the missing terminal).
		t.Setenv("CLICOLOR_FORCE", "1")
		t.Setenv("NO_COLOR", "")
		if p := lipgloss.NewRenderer(&bytes.Buffer{}).ColorProfile(); p == termenv.Ascii {
			t.Fatalf("with CLICOLOR_FORCE and no NO_COLOR the profile should have colour, got %v", p)
		}
		t.Setenv("NO_COLOR", "1")
		r := lipgloss.NewRenderer(&bytes.Buffer{})
		if p := r.ColorProfile(); p != termenv.Ascii {
			t.Fatalf("NO_COLOR=1: profile %v, want Ascii (%v)", p, termenv.Ascii)
		}
		for _, name := range themes.BuiltinNames() {
			opt, _ := themeOptions(t, name)
			opt.Renderer = r
			if cs := colourCodes(chapter4Header(t, opt, 120, 40).View()); len(cs) > 0 {
				t.Errorf("%s under NO_COLOR draws colour %v", name, unique(cs))
			}
		}
	})

	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii) // what termenv picks when NO_COLOR is set
	frames := map[string]string{}
	opt, _ := themeOptions(t, "dark")
	opt.Renderer = r
	frames["lesson: chapter 4, an append"] = chapter4Header(t, opt, 120, 40).View()
	// Chapter 8 at the retry of a lost answer: the window's duplicate.
	opt.Catalog, opt.Chapter, opt.Step = lessons.Builtin, 8, 3
	m := newModel(t, opt, 120, 40)
	for i := 0; i < 200; i++ {
		if d := m.Session().Snapshot().LastDecision; d != nil && d.Str("outcome") == "duplicate" {
			break
		}
		m, _ = send(t, m, keyRight)
	}
	if d := m.Session().Snapshot().LastDecision; d == nil || d.Str("outcome") != "duplicate" {
		t.Fatalf("chapter 8 step 3 should reach the duplicate: %v", d)
	}
	frames["lesson: chapter 8, a duplicate"] = m.View()
	// A rejected batch: a sequence gap, injected in the sandbox (whose
	// test options draw with the Ascii profile already).
	m = sandboxAt(t, 120, 40, "producer p1", "send p1 orders-0 1", "run")
	pid := fmt.Sprint(m.Session().Snapshot().LastDecision.Int("producer_id"))
	m = typeLine(t, m, "inject orders-0 pid="+pid+" epoch=0 seq=5 count=1")
	m = typeLine(t, m, "run")
	if d := m.Session().Snapshot().LastDecision; d == nil || d.Str("outcome") != "reject" {
		t.Fatalf("the injected gap should be rejected: %v\n%s", d, ansi.Strip(m.View()))
	}
	frames["sandbox: a reject"] = m.View()
	for name, frame := range frames {
		if cs := colourCodes(frame); len(cs) > 0 {
			t.Errorf("%s: colour %v under the Ascii profile", name, unique(cs))
		}
	}
	for name, want := range map[string][]string{
		"lesson: chapter 4, an append":   {"⇒ APPEND", "◀ incoming: appended", "▸✓", "stored crc matches ✓", "* changed since the last step"},
		"lesson: chapter 8, a duplicate": {"⇒ DUPLICATE", "= duplicate", "◀ = incoming: duplicate"},
		"sandbox: a reject":              {"⇒ REJECT", "✗"},
	} {
		plain := ansi.Strip(frames[name])
		for _, w := range want {
			if !strings.Contains(plain, w) {
				t.Errorf("%s: the verdict should read %q without colour:\n%s", name, w, plain)
			}
		}
	}
}

// --ascii: every frame of every screen (Home, chapters, lessons with their
// panels, the sandbox, the inspector, the help overlay) is 7-bit, as wide,
// line by line, as the same frame drawn with Unicode, and has an ASCII
// stand-in for every glyph rather than "?".
func TestASCIIFrames(t *testing.T) {
	screens := []struct {
		name  string
		build func(t *testing.T, opt Options, w, h int) Model
	}{
		{"home", func(t *testing.T, opt Options, w, h int) Model { return newModel(t, opt, w, h) }},
		{"chapters", func(t *testing.T, opt Options, w, h int) Model {
			m, _ := send(t, newModel(t, opt, w, h), keyEnter)
			return m
		}},
		{"lesson", func(t *testing.T, opt Options, w, h int) Model { return chapter4Header(t, opt, w, h) }},
		{"lesson, next panel", func(t *testing.T, opt Options, w, h int) Model {
			m, _ := send(t, chapter4Header(t, opt, w, h), keyTab)
			return m
		}},
		{"sandbox", func(t *testing.T, opt Options, w, h int) Model {
			m, _ := send(t, newModel(t, opt, w, h), keyDown, keyEnter)
			for _, l := range []string{"producer p1", "send p1 orders-0 2", "lose response p1", "run"} {
				m = typeLine(t, m, l)
			}
			return m
		}},
		{"help", func(t *testing.T, opt Options, w, h int) Model {
			m, _ := send(t, newModel(t, opt, w, h), keyDown, keyEnter, keyRunes("?"))
			return m
		}},
		{"help, lesson", func(t *testing.T, opt Options, w, h int) Model {
			m, _ := send(t, chapter4Header(t, opt, w, h), keyRunes("?"))
			return m
		}},
		{"inspect", func(t *testing.T, opt Options, w, h int) Model {
			m, _ := send(t, newModel(t, opt, w, h), keyDown, keyDown, keyEnter)
			return m
		}},
	}
	for _, sc := range screenshots { // chapter 8's duplicate, chapter 19's LSO
		screens = append(screens, struct {
			name  string
			build func(t *testing.T, opt Options, w, h int) Model
		}{"screenshot " + sc.file, func(t *testing.T, opt Options, w, h int) Model {
			m, _ := send(t, sc.build(t, opt), tea.WindowSizeMsg{Width: w, Height: h})
			return m
		}})
	}
	for _, sc := range screens {
		for _, size := range designSizes {
			w, h := size[0], size[1]
			t.Run(fmt.Sprintf("%s/%dx%d", sc.name, w, h), func(t *testing.T) {
				opt, _ := themeOptions(t, "dark")
				uni := sc.build(t, opt, w, h).View()
				opt.ASCII = true
				frame := sc.build(t, opt, w, h).View()
				if strings.HasPrefix(sc.name, "help") && !strings.Contains(frame, "or esc closes") {
					t.Fatalf("the help overlay is not open:\n%s", ansi.Strip(frame))
				}
				for i := 0; i < len(frame); i++ {
					if frame[i] >= utf8.RuneSelf {
						line := strings.Count(frame[:i], "\n")
						t.Fatalf("byte %#x at %d (line %d) is not ASCII: %q", frame[i], i, line+1, ansi.Strip(strings.Split(frame, "\n")[line]))
					}
				}
				ul, al := strings.Split(uni, "\n"), strings.Split(frame, "\n")
				if len(ul) != len(al) || len(al) != h {
					t.Fatalf("%d lines in ASCII, %d in Unicode, want %d", len(al), len(ul), h)
				}
				for i := range al {
					if a, u := ansi.StringWidth(al[i]), ansi.StringWidth(ul[i]); a != u {
						t.Errorf("line %d: %d cells in ASCII, %d in Unicode:\n%q\n%q", i+1, a, u, ansi.Strip(al[i]), ansi.Strip(ul[i]))
					}
				}
				if ansi.Strip(frame) == ansi.Strip(uni) && strings.ContainsFunc(uni, func(r rune) bool { return r >= utf8.RuneSelf }) {
					t.Error("the ASCII frame is the Unicode one")
				}
				// A glyph without an ASCII stand-in becomes "?": legible
				// as nothing. Every glyph the lab draws should have one.
				unmapped := map[rune]bool{}
				for i := range al {
					u, a := []rune(ansi.Strip(ul[i])), ansi.Strip(al[i])
					for j := 0; j < len(u) && j < len(a); j++ {
						if a[j] == '?' && u[j] != '?' {
							unmapped[u[j]] = true
						}
					}
				}
				for r := range unmapped {
					t.Errorf("%q (U+%04X) has no ASCII stand-in in ui/asciify: --ascii draws it as ?", r, r)
				}
			})
		}
	}
}
