// Package script parses eoslab's command language, the one language shared
// by lesson files, the TUI's command bar and `eoslab play` scripts.
//
// A source holds one command per line; `#` starts a comment that runs to the
// end of the line (outside double quotes) and blank lines are ignored. Every
// command is a verb (one word, or two for verbs such as "restart broker")
// followed by positional arguments in a fixed order and then KEY=VALUE
// options and bare flag words in any order. Any value may be written in
// double quotes; inside quotes \" and \\ are the only escapes.
//
// Parse returns pointers to the command types of this package (*Send,
// *Fault, ...). Format renders a command back into canonical text, and
// parsing that text gives an equal command again.
//
// Adding a verb takes one entry in verbTable (verbs.go), one command type and
// one parse function; a type that also implements formatArgs is rendered by
// Format. The package is pure: it does no I/O and keeps no mutable state.
package script
