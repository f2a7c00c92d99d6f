// Package asciify replaces every non-ASCII glyph of a rendered frame with
// an ASCII one of the same width, for limited fonts and serial consoles
// (--ascii). It works on the finished frame, so no widget has to know.
package asciify

import (
	"strings"
	"unicode/utf8"
)

// glyphs maps the lab's glyphs; anything else outside ASCII becomes '?'.
// Marks that mean different things get different bytes, so that --ascii
// reads as the Unicode frame does: '*' is only ever a byte the leader
// changed (the grid's own mark), ★ the leader is '^', ◆ a control marker
// '%', the separators • and · are '.', and a filled circle (●, a client in
// a transaction) is 'O' beside the hollow 'o' (○, queued or open). The
// table is documented in docs/tui.md.
var glyphs = map[rune]byte{
	// box drawing
	'─': '-', '━': '-', '═': '=', '│': '|', '┃': '|', '║': '|',
	'╭': '+', '╮': '+', '╰': '+', '╯': '+', '┌': '+', '┐': '+', '└': '+', '┘': '+',
	'├': '+', '┤': '+', '┬': '+', '┴': '+', '┼': '+', '╔': '+', '╗': '+', '╚': '+', '╝': '+',
	'╞': '+', '╡': '+', '╪': '+', '╟': '+', '╢': '+', '╠': '+', '╣': '+', '╦': '+', '╩': '+', '╬': '+',
	'┄': '-', '┈': '-', '╌': '-', '┆': '|', '┊': '|',
	// marks and arrows
	'✓': 'v', '✔': 'v', '✗': 'x', '✘': 'x', '★': '^', '☆': '^', '•': '.', '·': '.', '…': '~',
	'▸': '>', '▶': '>', '►': '>', '◀': '<', '◂': '<', '◄': '<', '▲': '^', '▼': 'v', '▴': '^', '▾': 'v',
	'→': '>', '←': '<', '↑': '^', '↓': 'v', '⇒': '>', '⇐': '<', '↳': '>', '↺': '@', '⟲': '@',
	'⚑': '!', '⚠': '!', '⧗': '~', '⌛': '~', '⏳': '~', '↻': '@', '◉': 'O', '◎': 'o', '⏸': '|', '⏵': '>', '●': 'O', '○': 'o', '◆': '%', '◇': 'o', '■': '#', '□': '.',
	'█': '#', '▓': '#', '▒': '%', '░': '.', '▌': '|', '▐': '|', '▀': '-', '▄': '_',
	'×': 'x', '−': '-', '–': '-', '—': '-', '≥': '>', '≤': '<', '≠': '#', '±': '+',
	'‘': '\'', '’': '\'', '“': '"', '”': '"', '«': '<', '»': '>', '¶': 'P', '§': 'S', '°': 'o',
}

// Frame rewrites a frame. Escape sequences are ASCII already and pass
// through; each glyph becomes one ASCII byte, so columns stay aligned.
func Frame(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		if c, ok := glyphs[r]; ok {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('?')
	}
	return b.String()
}
