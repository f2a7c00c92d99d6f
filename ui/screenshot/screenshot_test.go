package screenshot

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// wellFormed fails the test unless doc parses as XML to the end.
func wellFormed(t *testing.T, doc string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, doc)
		}
	}
}

func TestSVGElements(t *testing.T) {
	frame := "\x1b[1;38;5;196mA<&\x1b[0m \x1b[48;2;1;2;3mB>\x1b[0m\n" + // 256-colour bold text, a true-colour background
		"\x1b[32mok\x1b[39m \x1b[7mrev\x1b[27m \x1b[4;94mu\x1b[0m\x1b]8;;http://x\x07link\x1b]8;;\x07"
	svg := SVG(frame, Options{Title: `a "frame" <1>`})
	wellFormed(t, svg)
	for _, want := range []string{
		`<svg xmlns="http://www.w3.org/2000/svg" width="124.8" height="58" viewBox="0 0 124.8 58" role="img" font-family="'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', ui-monospace, SFMono-Regular, monospace" font-size="14" xml:space="preserve">`,
		`<title>a "frame" &lt;1&gt;</title>`,
		`<rect width="124.8" height="58" rx="6" fill="#1e1e2e"/>`,
		// line 1: "A<&" bold in colour 196 at column 0; "B>" on #010203 at column 4
		`<text y="25.26"><tspan x="12 20.4 28.8" fill="#ff0000" font-weight="bold">A&lt;&amp;</tspan><tspan x="45.6 54">B&gt;</tspan></text>`,
		`<rect x="45.6" y="12" width="16.8" height="17" fill="#010203"/>`,
		// line 2: basic green, reverse video (default colours swapped), underlined bright blue, the link's text without its OSC
		`<tspan x="12 20.4" fill="#00cd00">ok</tspan>`,
		`<tspan x="37.2 45.6 54" fill="#1e1e2e">rev</tspan>`,
		`<rect x="37.2" y="29" width="25.2" height="17" fill="#d0d0d0"/>`,
		`<tspan x="70.8" fill="#5c5cff" text-decoration="underline">u</tspan>`,
		`<tspan x="79.2 87.6 96 104.4">link</tspan>`,
		`<g fill="#d0d0d0">`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("missing %s\nin\n%s", want, svg)
		}
	}
	if strings.Contains(svg, "http://x") || strings.Contains(svg, "\x1b") {
		t.Errorf("escape sequences leaked into the image:\n%s", svg)
	}
}

// Every character sits at its column: box drawing one cell, wide glyphs
// two. Blank lines add height but no <text>; colours carry over a line
// end, as in a terminal.
func TestSVGColumnsAndState(t *testing.T) {
	svg := SVG("╭─╮ 日本\n\n\x1b[38;2;10;20;30mx\ny\x1b[m", Options{Padding: -1, CharWidth: 10, LineHeight: 20})
	wellFormed(t, svg)
	for _, want := range []string{
		`width="80" height="80"`, // 8 cells (日本 are two each) × 4 lines, no padding
		`<tspan x="0 10 20 30 40 60">╭─╮ 日本</tspan>`,
		`<text y="55.6"><tspan x="0" fill="#0a141e">x</tspan></text>`,
		`<text y="75.6"><tspan x="0" fill="#0a141e">y</tspan></text>`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("missing %s\nin\n%s", want, svg)
		}
	}
	if n := strings.Count(svg, "<text "); n != 3 {
		t.Errorf("%d <text> elements, want 3 (the blank line has none)", n)
	}
}

func TestPalette256(t *testing.T) {
	for n, want := range map[int]string{0: "#000000", 9: "#ff0000", 16: "#000000", 39: "#00afff", 196: "#ff0000", 231: "#ffffff", 232: "#080808", 255: "#eeeeee"} {
		if got := palette256(n); got != want {
			t.Errorf("colour %d: %s, want %s", n, got, want)
		}
	}
}

// Box drawing is never bold (fonts lack bold corners), the text beside it
// keeps its weight.
func TestSVGBoxDrawingIsNotBold(t *testing.T) {
	svg := SVG("\x1b[1;34m╭─ title ─╮\x1b[0m", Options{Padding: -1, CharWidth: 10})
	for _, want := range []string{
		`<tspan x="0 10" fill="#0000ee">╭─</tspan><tspan x="20 30 40 50 60 70 80" fill="#0000ee" font-weight="bold"> title </tspan><tspan x="90 100" fill="#0000ee">─╮</tspan>`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("missing %s\nin\n%s", want, svg)
		}
	}
}
