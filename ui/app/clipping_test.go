package app

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/workbench"
)

// clipFrame is one representative screen of the lab, rebuilt at any size,
// with what it is there to show: texts that must be whole in the regions
// (panels, the narration) that are on screen at that size.
type clipFrame struct {
	name     string
	build    func(t *testing.T, w, h int) Model
	decisive map[string][]string
}

// builtinAt opens a built-in chapter at a step (1-based) at w×h.
func builtinAt(t *testing.T, chapter, step, w, h int) Model {
	t.Helper()
	opt := testOptions(t, false)
	opt.Catalog, opt.Chapter, opt.Step = lessons.Builtin, chapter, step
	m := newModel(t, opt, w, h)
	if m.Screen() != LessonScreen {
		t.Fatalf("chapter %d did not open: %s", chapter, m.Status())
	}
	return m
}

// playedOut presses → until the lesson step (0-based) has played out.
func playedOut(t *testing.T, m Model, step int) Model {
	t.Helper()
	return forwardUntil(t, m, "the step played out", func(m Model) bool {
		p := m.Session().Position()
		return p.Step == step && p.StepDone
	})
}

// clipFrames are the frames the issue names: a duplicate, a zombie fenced,
// an LSO block, a challenge's checklist and a marker in the log; and an
// append's decision tree and the panels' empty states.
var clipFrames = []clipFrame{
	// Chapter 8 step 3: the retry of a batch whose answer was lost, and
	// the window's verdict that it is a duplicate of offsets 5-6.
	{"duplicate", func(t *testing.T, w, h int) Model {
		m, _ := send(t, builtinAt(t, 8, 3, w, h), keyRunes("1"))
		return forwardUntil(t, m, "the duplicate", func(m Model) bool {
			d := m.Session().Snapshot().LastDecision
			return d != nil && d.Str("outcome") == "duplicate"
		})
	}, map[string][]string{"window": {"⇒ DUPLICATE", "nothing appended, answers with the original offsets 5-6"}}},
	// Chapter 8 step 3 before the answer: the window's tree for the append
	// of sequences 5-6, its sequence check listing every answer.
	{"append", func(t *testing.T, w, h int) Model { return builtinAt(t, 8, 3, w, h) },
		map[string][]string{"window": {"├ sequence?", "▸✓ next", "⇒ APPEND", "at offsets 5-6"}}},
	// Chapter 18 step 5: the zombie p1's abort answered PRODUCER_FENCED.
	{"zombie-fenced", func(t *testing.T, w, h int) Model {
		return playedOut(t, builtinAt(t, 18, 5, w, h), 4)
	}, map[string][]string{"producer": {"✗ fatal PRODUCER_FENCED"}}},
	// Chapter 19 step 2: the open transaction holds read_committed at LSO 0.
	{"lso-block", func(t *testing.T, w, h int) Model {
		m, _ := send(t, builtinAt(t, 19, 2, w, h), keyRunes("3"))
		return playedOut(t, m, 1)
	}, map[string][]string{"consumers": {"read_committed stops at the LSO", "⏸"}, "partition": {"LSO 0: read_committed stops"}}},
	// Chapter 2 step 7: the challenge's checklist with both hints shown.
	{"challenge", func(t *testing.T, w, h int) Model {
		m, _ := send(t, builtinAt(t, 2, 7, w, h), keyRunes("H"), keyRunes("H"))
		return m
	}, map[string][]string{"narration": {`producers.once.mode == plain (got producers has no "once" (yet))`, `partitions.orders-0.values == ["once-0"] (got [])`,
		"hint 2/2: Give once the same setting p1 had, and let the leader's answer to its record go missing rather than the request."}}},
	// The sandbox after a zombie's late write and abort are refused: the
	// producers, network and partition log share a row, the log ending
	// with markers.
	{"sandbox-zombie", func(t *testing.T, w, h int) Model {
		return sandboxAt(t, w, h, "producer p1 transactional=payments", "run", "begin p1", "send p1 orders-0 2", "run",
			"pause p1", "producer p2 transactional=payments", "run", "begin p2", "send p2 orders-0 1", "commit p2", "run",
			"resume p1", "send p1 orders-0 1", "commit p1", "run", "abort p1", "run")
	}, map[string][]string{"window": {"⇒ APPEND", "at offsets 3-3"}}},
	// A fresh sandbox: every panel says what it is waiting for.
	{"empty", func(t *testing.T, w, h int) Model { return sandboxAt(t, w, h) }, nil},
	// Chapter 18 step 3: p1's aborted records, the ABORT marker, p2's
	// committed record and the COMMIT marker in the partition log.
	{"markers", func(t *testing.T, w, h int) Model {
		return playedOut(t, builtinAt(t, 18, 3, w, h), 2)
	}, map[string][]string{"partition": {"p1 id 0 e0 seq 0-1 ✗ aborted", "◆ ABORT marker p1 id 0 e2", "p2 id 0 e3 seq 0-0 ✓ committed",
		"◆ COMMIT marker p2 id 0 e4", "HW = LSO 5: readable above"}}},
}

var clipSizes = [][2]int{{80, 24}, {100, 30}, {120, 40}, {200, 60}}

// region is a rectangle of the frame that lays its own text out: a
// panel's inside, the narration's text, a one-line header.
type region struct {
	name       string
	x, y, w, h int
	row        int  // the grid row of a framed panel, -1 otherwise
	narration  bool // the lesson's text above tabbed panels: it could take their blank lines
	panelBelow int  // for the narration: the index of the tabbed panel under it, or -1
}

// regions lists the frame's regions, from the screen's own layout: the
// screen's lines above the panels, then each panel on screen. The status
// bar and the help line are left out (one line each by design, the help
// cut by bubbles/help), and so is the timeline: it is a log, one event a
// line, scrolled, and its own panel's business.
func regions(m Model) []region {
	var rs []region
	var bench interface {
		Box(lesson.Panel) (int, int, int, int, bool)
	}
	y0 := 0
	switch m.Screen() {
	case LessonScreen:
		nh := m.lesson.NarrationHeight()
		rs = append(rs, region{name: "lesson title", w: m.w, h: 1, row: -1, panelBelow: -1},
			region{name: "narration", y: 1, w: m.w, h: nh - 2, row: -1, narration: true, panelBelow: -1},
			region{name: "what → does", y: nh - 1, w: m.w, h: 1, row: -1, panelBelow: -1})
		b := m.lesson.Bench()
		bench, y0 = b, nh
	case SandboxScreen:
		rs = append(rs, region{name: "sandbox hint", w: m.w, h: 1, row: -1, panelBelow: -1})
		b := m.sandbox.Bench()
		bench, y0 = b, 1
	default:
		return rs
	}
	rows := map[int]int{} // panel y → grid row
	for _, id := range workbench.Built() {
		x, y, w, h, ok := bench.Box(id)
		if !ok || id == lesson.PanelTimeline {
			continue
		}
		if y == 0 { // framed: the grid (or a zoomed panel)
			x, y, w, h = x+1, y+1, w-2, h-2
		}
		r, seen := rows[y]
		if !seen {
			r = len(rows)
			rows[y] = r
		}
		rs = append(rs, region{name: string(id), x: x, y: y0 + y, w: w, h: h, row: r, panelBelow: -1})
	}
	// In the tab layout the panel in front is unframed under the tab bar:
	// the narration above could have taken its blank lines.
	for i := range rs {
		if rs[i].narration {
			for k := range rs {
				if rs[k].row >= 0 && rs[k].y == y0+1 && rs[k].w == m.w {
					rs[i].panelBelow = k
				}
			}
		}
	}
	return rs
}

// cells is a frame as lines of runes, escape codes stripped; every glyph
// the lab draws is one cell wide.
func cells(frame string) [][]rune {
	var out [][]rune
	for _, l := range strings.Split(ansi.Strip(frame), "\n") {
		out = append(out, []rune(l))
	}
	return out
}

func (r region) line(c [][]rune, i int) string {
	if r.y+i >= len(c) {
		return ""
	}
	l := c[r.y+i]
	return string(l[min(r.x, len(l)):min(r.x+r.w, len(l))])
}

// blankBottom is how many lines at the bottom of r are empty.
func (r region) blankBottom(c [][]rune) int {
	n := 0
	for i := r.h - 1; i >= 0 && strings.TrimSpace(r.line(c, i)) == ""; i-- {
		n++
	}
	return n
}

// spare is how many columns at the right of r are empty on every line.
func (r region) spare(c [][]rune) int {
	s := r.w
	for i := 0; i < r.h; i++ {
		s = min(s, r.w-len([]rune(strings.TrimRight(r.line(c, i), " "))))
	}
	return s
}

// clip is a line cut with "…" whose full text fits elsewhere in the frame.
type clip struct {
	region, line, full, why string
}

// clipped finds the lines of m's frame that end in "…" although the full
// text would fit elsewhere in the frame. Precisely:
//
//   - A clipped line is a line of a region (see regions) whose last cell
//     is "…": what box.Line leaves when it cuts a line at the region's
//     edge.
//   - Its full text is found in the same screen drawn three times as wide
//     at the same height (wide): the line there that starts with the
//     clipped line's text, up to the next frame border. When it is not
//     found, or is cut there too, the full text is taken to be one cell
//     longer than the region: the least it can be.
//   - With n the cells the full text needs (its indent included) and w
//     the region's width, it fits elsewhere in the frame when either
//     (rows) the region has ceil(n/w) - 1 blank lines at its bottom, where
//     the text could have gone on (for the narration above tabbed panels,
//     the panel's blank lines count too: the narration could have taken
//     them); or (columns) the region is a panel of the grid and the other
//     panels of its row have, together, n - w columns blank on every one
//     of their lines, which another split of the row would have given it.
//     The columns rule is only applied when the full text was found.
func clipped(t *testing.T, m Model) []clip {
	t.Helper()
	c := cells(m.View())
	rs := regions(m)
	wideM, _ := send(t, m, tea.WindowSizeMsg{Width: 3 * m.w, Height: m.h})
	wide := cells(wideM.View())
	var out []clip
	for ri, r := range rs {
		for i := 0; i < r.h; i++ {
			l := r.line(c, i)
			rl := []rune(l)
			if len(rl) < r.w || rl[len(rl)-1] != '…' {
				continue
			}
			text := strings.TrimLeft(string(rl[:len(rl)-1]), " ")
			indent := len(rl) - 1 - len([]rune(text))
			full, found := fullText(wide, text)
			n := indent + len([]rune(full))
			if !found {
				n = r.w + 1
			}
			blank := r.blankBottom(c)
			if r.narration && r.panelBelow >= 0 {
				blank += rs[r.panelBelow].blankBottom(c)
			}
			if need := (n+r.w-1)/r.w - 1; blank >= need {
				out = append(out, clip{r.name, l, full, fmt.Sprintf("%d blank line(s) below it, %d needed to wrap it", blank, need)})
				continue
			}
			if r.row < 0 || !found {
				continue
			}
			spare := 0
			for qi, q := range rs {
				if qi != ri && q.row == r.row {
					spare += q.spare(c)
				}
			}
			if spare >= n-r.w {
				out = append(out, clip{r.name, l, full, fmt.Sprintf("its row's other panels have %d blank column(s), %d needed", spare, n-r.w)})
			}
		}
	}
	return out
}

// fullText finds text in a frame and returns it with what follows it up
// to a frame border or the line's end; found is false when text is not in
// the frame, or is cut there too.
func fullText(frame [][]rune, text string) (string, bool) {
	for _, l := range frame {
		s := string(l)
		i := strings.Index(s, text)
		if i < 0 {
			continue
		}
		rest := s[i+len(text):]
		if j := strings.Index(rest, "│"); j >= 0 {
			rest = rest[:j]
		}
		full := strings.TrimRight(text+rest, " ")
		return full, !strings.HasSuffix(full, "…")
	}
	return text + "…", false
}

// Nothing decisive is clipped: in the frames the issue names, at 80×24,
// 100×30, 120×40 and 200×60, no line is cut with "…" where its full text
// fits elsewhere in the frame (clipped says precisely what that means).
// The frames are kept as goldens, read when they change. Before, chapter
// 8's window cut "before-wi…" beside a bytes panel with columns to spare,
// the partition log cut "◆ control marker (i…", goals and the producers'
// lines were cut over blank lines.
func TestNothingDecisiveIsClipped(t *testing.T) {
	for _, f := range clipFrames {
		for _, size := range clipSizes {
			t.Run(fmt.Sprintf("%s/%dx%d", f.name, size[0], size[1]), func(t *testing.T) {
				m := f.build(t, size[0], size[1])
				golden.RequireEqual(t, []byte(m.View()))
				for _, c := range clipped(t, m) {
					t.Errorf("%s cuts %q (full text %q): %s", c.region, strings.TrimSpace(c.line), c.full, c.why)
				}
				// What the frame is for is whole, however it wraps: lost
				// rows cut without an ellipsis.
				c := cells(m.View())
				for _, r := range regions(m) {
					var text []string
					for i := 0; i < r.h; i++ {
						text = append(text, strings.Fields(r.line(c, i))...)
					}
					joined := strings.Join(text, " ")
					for _, want := range f.decisive[r.name] {
						if !strings.Contains(joined, strings.Join(strings.Fields(want), " ")) {
							t.Errorf("%s does not show %q:\n%s", r.name, want, ansi.Strip(m.View()))
						}
					}
				}
			})
		}
	}
}
