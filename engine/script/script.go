package script

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Pos is a 1-based position in a source. Col counts runes, not bytes, so it
// matches what an editor shows for non-ASCII text.
type Pos struct{ Line, Col int }

// String renders the position as "line:col".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Command is one parsed command. Every command type of this package
// implements it through a pointer receiver.
type Command interface {
	Position() Pos
	// Verb is the full verb spelling, e.g. "send" or "restart broker".
	Verb() string
}

// bom is stripped from the start of a source because some editors write one
// and it would otherwise glue itself to the first verb.
const bom = "\uFEFF"

// Parse parses a whole script. On any error it returns nil commands and an
// ErrorList with every error found: parsing goes on line by line so that a
// lesson author sees all mistakes at once. Each line yields at most one error.
func Parse(file string, src []byte) ([]Command, error) { return ParseAt(file, 1, src) }

// ParseAt parses a script whose first line is line first of file: a
// block of commands inside a larger file, such as a lesson's ```eos
// block. Positions, in commands and errors, are the file's. (Padding the
// block with first-1 newlines would give the same positions at a cost
// that grows with the block's place in the file: quadratic for a file of
// many blocks.) A BOM is stripped only at the start of a file.
func ParseAt(file string, first int, src []byte) ([]Command, error) {
	first = max(first, 1)
	var cmds []Command
	var errs ErrorList
	for i, text := range strings.Split(string(src), "\n") {
		if i == 0 && first == 1 {
			text = strings.TrimPrefix(text, bom)
		}
		c, err := parseLine(strings.TrimSuffix(text, "\r"), first+i)
		if err != nil {
			err.File = file
			errs = append(errs, err)
			continue
		}
		if c != nil {
			cmds = append(cmds, c)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return cmds, nil
}

// ParseLine parses a single command typed in the command bar; positions are
// on line 1. Empty and comment-only input returns (nil, nil). A failure is
// returned as a *Error (no file name). One trailing newline is tolerated,
// but a line break inside the input is an error: the language has one
// command per line.
func ParseLine(line string) (Command, error) {
	line = strings.TrimSuffix(line, "\n")
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		col := utf8.RuneCountInString(line[:i]) + 1
		return nil, &Error{Pos: Pos{1, col}, Msg: "a command must fit on one line"}
	}
	c, err := parseLine(strings.TrimSuffix(line, "\r"), 1)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// parseLine turns one source line into a command, or nil for a blank or
// comment-only line.
func parseLine(text string, line int) (Command, *Error) {
	toks, err := tokenize(text, line)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, nil
	}
	spec, n, err := lookupVerb(toks)
	if err != nil {
		return nil, err
	}
	l := &cmdLine{
		spec: spec,
		at:   toks[0].pos,
		args: toks[n:],
		end:  Pos{line, toks[len(toks)-1].end},
	}
	return spec.parse(l)
}

// Format renders a command in canonical form: single spaces, options in a
// fixed order, values quoted only when they must be. Parsing the result
// gives back an equal command (positions aside).
func Format(c Command) string {
	if c == nil {
		return ""
	}
	w := words{c.Verb()}
	if f, ok := c.(argFormatter); ok {
		f.formatArgs(&w)
	}
	return strings.Join(w, " ")
}

// argFormatter is implemented by every command type that has arguments.
// It is kept out of Command so the exported interface stays minimal.
type argFormatter interface {
	formatArgs(w *words)
}

// words collects the words of a formatted command.
type words []string

func (w *words) add(s ...string) { *w = append(*w, s...) }

// value appends a positional value, quoted when needed.
func (w *words) value(v string) { *w = append(*w, quoteIfNeeded(v)) }

// kv appends KEY=VALUE, quoting the value when needed.
func (w *words) kv(key, v string) { *w = append(*w, key+"="+quoteIfNeeded(v)) }

// num appends KEY=N.
func (w *words) num(key string, n int64) { *w = append(*w, fmt.Sprintf("%s=%d", key, n)) }
