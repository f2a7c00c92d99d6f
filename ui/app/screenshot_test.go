package app

// The README's screenshots, drawn by the lab itself and converted to SVG
// by ui/screenshot: no terminal, browser or recorder needed. Regenerate
// them with
//
//	go test ./ui/app -run TestScreenshots -screenshots
//
// which writes assets/screenshots/*.svg (see docs/screenshots.md).
// Without -screenshots the test draws them and checks that each is
// well-formed XML showing what it should, and writes nothing.

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/lessons/lesson"
	"github.com/eoslab/eoslab/ui/screenshot"
)

var writeScreenshots = flag.Bool("screenshots", false, "write the README's screenshots to assets/screenshots")

// screenshotDir is where the README finds them, from this package.
const screenshotDir = "../../assets/screenshots"

// The screenshots: the lab at 120×40 in the dark theme, true colour.
var screenshots = []struct {
	file, title string
	want        []string // texts the picture must show
	build       func(t *testing.T, opt Options) Model
}{
	{
		file: "lesson-bytes-window.svg",
		title: "eoslab lesson screen, chapter 8 (Three failures made harmless): the header bytes of p1's retried batch " +
			"beside the broker's five-batch window, which recognises it as a duplicate and answers with the original offsets 5-6",
		want: []string{"header bytes", "baseOffset", "window", "DUPLICATE", "◀ = incoming: duplicate"},
		// Chapter 8, step 3: the answer to p1's batch 5-6 was lost and the
		// retry arrives. The step shows the window; the header bytes are
		// added beside it for the picture.
		build: func(t *testing.T, opt Options) Model {
			opt.Catalog = builtinWithPanels(8, 2, lesson.PanelBytes)
			opt.Chapter, opt.Step = 8, 3
			m := newModel(t, opt, 120, 40)
			m, _ = send(t, m, keyRunes("1")) // the prediction: the original offsets, nothing written
			for range 200 {
				if d := m.Session().Snapshot().LastDecision; d != nil && d.Str("outcome") == "duplicate" {
					return m
				}
				m, _ = send(t, m, keyRight)
			}
			t.Fatal("chapter 8 step 3 never reached the duplicate")
			return m
		},
	},
	{
		file: "lso-block.svg",
		title: "eoslab lesson screen, chapter 19 (read_committed and the last stable offset): an open transaction " +
			"at offset 0 holds the LSO at 0, so the read_committed consumer gets nothing while read_uncommitted reads offsets 0 to 2",
		want: []string{"LSO 0", "read_committed", "HW 3"},
		// Chapter 19, step 2 played out: rc (read_committed) polled and is
		// held at the LSO behind tx's open transaction; ru read 0-2.
		build: func(t *testing.T, opt Options) Model {
			opt.Catalog = lessons.Builtin
			opt.Chapter, opt.Step = 19, 2
			m := newModel(t, opt, 120, 40)
			m, _ = send(t, m, keyRunes("3")) // the prediction: nothing at all
			for range 200 {
				if p := m.Session().Position(); p.Step == 1 && p.StepDone {
					return m
				}
				m, _ = send(t, m, keyRight)
			}
			t.Fatalf("chapter 19 step 2 never played out: %+v", m.Session().Position())
			return m
		},
	},
}

func TestScreenshots(t *testing.T) {
	for _, sc := range screenshots {
		t.Run(sc.file, func(t *testing.T) {
			opt, _ := themeOptions(t, "dark")
			frame := sc.build(t, opt).View()
			plain := ansi.Strip(frame)
			for _, w := range sc.want {
				if !strings.Contains(plain, w) {
					t.Errorf("the screenshot should show %q:\n%s", w, plain)
				}
			}
			svg := screenshot.SVG(frame, screenshot.Options{Title: sc.title})
			checkSVG(t, svg, 120, 40)

			path := filepath.Join(screenshotDir, sc.file)
			if *writeScreenshots {
				if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(svg), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s", path)
				return
			}
			if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, []byte(svg)) {
				// Not a failure: the screens move as panels are built.
				t.Logf("%s differs from what the lab draws now; regenerate with: go test ./ui/app -run TestScreenshots -screenshots", path)
			}
		})
	}
}

// checkSVG parses the image as XML to the end and checks its frame: an
// <svg> root with a title, a background, and a line of text per
// non-blank row of a cols×rows frame.
func checkSVG(t *testing.T, svg string, cols, rows int) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	var root string
	texts, title := 0, false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Space + " " + se.Name.Local
			}
			switch se.Name.Local {
			case "text":
				texts++
			case "title":
				title = true
			}
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("root element %q, want an SVG <svg>", root)
	}
	if !title {
		t.Error("the image has no <title> (its accessible name)")
	}
	if texts < rows/2 || texts > rows {
		t.Errorf("%d <text> lines for a %d-row frame", texts, rows)
	}
	if w := screenshot.SVG(strings.Repeat("x", cols), screenshot.Options{}); !strings.Contains(svg, `width="`+attrValue(w, "width")+`"`) {
		t.Errorf("the image is not %d columns wide", cols)
	}
}

// attrValue is the first value of attribute name in s.
func attrValue(s, name string) string {
	_, rest, _ := strings.Cut(s, " "+name+`="`)
	v, _, _ := strings.Cut(rest, `"`)
	return v
}
