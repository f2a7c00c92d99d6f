package script

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a command line: a bare word, a quoted string, or a
// KEY=VALUE pair whose value may be quoted.
type token struct {
	pos    Pos    // where the token starts
	end    int    // column just past the token
	text   string // the token exactly as written, for messages
	isPair bool   // written as KEY=VALUE
	key    string // the key of a pair
	val    string // the value of a pair, or the word itself (unquoted, unescaped)
	quoted bool   // the value was written in double quotes
}

// isSpace separates tokens. Format quotes any value containing such a rune,
// so the tokenizer and the formatter must agree on this one predicate.
func isSpace(r rune) bool { return unicode.IsSpace(r) }

// scanner walks one line rune by rune, tracking the rune column.
type scanner struct {
	src  string
	i    int // byte offset of the next rune
	line int
	col  int // column of the next rune
}

func (s *scanner) eof() bool { return s.i >= len(s.src) }

func (s *scanner) peek() rune {
	r, _ := utf8.DecodeRuneInString(s.src[s.i:])
	return r
}

func (s *scanner) next() rune {
	r, n := utf8.DecodeRuneInString(s.src[s.i:])
	s.i += n
	s.col++
	return r
}

func (s *scanner) pos() Pos { return Pos{s.line, s.col} }

// atBoundary reports whether a token ends here: end of line, space, or the
// start of a comment.
func (s *scanner) atBoundary() bool {
	return s.eof() || isSpace(s.peek()) || s.peek() == '#'
}

// tokenize splits one line (without its newline) into tokens, dropping the
// comment. line is the 1-based line number used in positions.
func tokenize(src string, line int) ([]token, *Error) {
	s := &scanner{src: src, line: line, col: 1}
	var toks []token
	for {
		for !s.eof() && isSpace(s.peek()) {
			s.next()
		}
		if s.eof() || s.peek() == '#' {
			return toks, nil
		}
		t, err := s.token()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
	}
}

// token reads one token starting at a non-space rune.
func (s *scanner) token() (token, *Error) {
	start := s.i
	t := token{pos: s.pos()}
	for !s.atBoundary() && s.peek() != '"' {
		s.next()
	}
	word := s.src[start:s.i]
	// The first '=' splits a pair, so a value may itself contain '='.
	eq := strings.IndexByte(word, '=')
	switch {
	case eq == 0:
		return token{}, &Error{Pos: t.pos, Msg: `missing key before "="`}
	case eq > 0:
		t.isPair, t.key, t.val = true, word[:eq], word[eq+1:]
	default:
		t.val = word
	}
	if !s.eof() && s.peek() == '"' {
		// A quote may open a whole word or the value of KEY=, nothing else:
		// a quote in the middle of a word is almost always a typo.
		if word != "" && eq != len(word)-1 {
			return token{}, &Error{Pos: s.pos(), Msg: "unexpected quote in the middle of a word"}
		}
		v, err := s.quoted()
		if err != nil {
			return token{}, err
		}
		t.val, t.quoted = v, true
		if !s.atBoundary() {
			return token{}, &Error{Pos: s.pos(), Msg: "unexpected character after closing quote"}
		}
	}
	t.text = s.src[start:s.i]
	t.end = s.col
	return t, nil
}

// quoted reads a double-quoted string starting at its opening quote. Only
// \" and \\ are escapes; any other backslash is rejected rather than kept,
// so that a later extension can give it a meaning without breaking scripts.
func (s *scanner) quoted() (string, *Error) {
	open := s.pos()
	s.next()
	var b strings.Builder
	for !s.eof() {
		at, from := s.pos(), s.i
		switch r := s.next(); r {
		case '"':
			return b.String(), nil
		case '\\':
			if s.eof() {
				return "", &Error{Pos: open, Msg: "unterminated quoted string"}
			}
			e := s.next()
			if e != '"' && e != '\\' {
				// The escape is shown as written, escaped itself if it is a
				// control character or not UTF-8.
				msg := fmt.Sprintf(`unknown escape %s in quoted string (only \" and \\ are allowed)`, shown(s.src[from:s.i]))
				return "", &Error{Pos: at, Msg: msg}
			}
			b.WriteRune(e)
		default:
			// Copy the raw bytes so that invalid UTF-8 survives a round trip.
			b.WriteString(s.src[from:s.i])
		}
	}
	return "", &Error{Pos: open, Msg: "unterminated quoted string"}
}

// quoteIfNeeded returns v as it must be written to read back as one value:
// bare when possible, else in double quotes with \ and " escaped.
func quoteIfNeeded(v string) string {
	if v != "" && !strings.ContainsFunc(v, needsQuote) {
		return v
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(v) + `"`
}

// needsQuote lists the runes that would end or split a bare value.
func needsQuote(r rune) bool {
	return isSpace(r) || r == '"' || r == '#' || r == '='
}
