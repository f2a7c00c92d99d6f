package script

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is one parse error.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

// Error renders "file:line:col: msg", or "line:col: msg" without a file, the
// form editors and terminals recognise as a jump target.
//
// The message goes through escapeControls as a last line of defence: the
// messages quote what was written with Quote, but a message that ever
// forgets must still not hand raw control bytes to a terminal.
func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, escapeControls(e.Msg))
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, escapeControls(e.Msg))
}

// MaxQuoted is how many characters of a user's text a message quotes. A
// message is read on one terminal line; a 10 MB word echoed whole helps
// nobody and can take the terminal down with it.
const MaxQuoted = 60

// Quote renders text a user wrote for an error message: in double quotes
// like %q, but at most MaxQuoted characters of it (an ellipsis after the
// closing quote says there is more), with control characters, other
// unprintable runes and invalid UTF-8 escaped so that nothing raw reaches
// the terminal. Every package that echoes a source in its errors uses it.
func Quote(s string) string {
	short, cut := clip(s)
	q := strconv.Quote(short)
	if cut {
		q += "…"
	}
	return q
}

// shown is Quote without the quotes, for text that is shown as written
// (a token with its own quotes, a KEY=VALUE pair): escaped and clipped,
// but quotes and backslashes left alone.
func shown(s string) string {
	short, cut := clip(s)
	out := escapeControls(short)
	if cut {
		out += "…"
	}
	return out
}

// Excerpt makes a message from elsewhere (a YAML library's, say, which
// may quote the input) safe to print: at most n characters, then an
// ellipsis, with control characters and invalid UTF-8 escaped.
func Excerpt(s string, n int) string {
	short, cut := clipAt(s, n)
	out := escapeControls(short)
	if cut {
		out += "…"
	}
	return out
}

// clip cuts s to MaxQuoted runes (an invalid byte counts as one).
func clip(s string) (string, bool) { return clipAt(s, MaxQuoted) }

func clipAt(s string, max int) (string, bool) {
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// escapeControls escapes what a terminal must not receive raw: invalid
// UTF-8 as \xNN, control and other unprintable runes as Go escapes
// (\t, \x1b, \u200b). Everything else, quotes included, is kept.
func escapeControls(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == utf8.RuneError || !unicode.IsPrint(r):
			q := strconv.QuoteRune(r) // 'x' with the escape inside
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// ErrorList holds every error of a source, in source order.
type ErrorList []*Error

// Error joins the errors with newlines, one per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find a *Error inside the list.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Suggest returns the nearest known word to w among candidates, or "" when
// none is near enough. A candidate is near when its Levenshtein distance to
// w is at most 2 or when w is a prefix of it. Prefix matches rank first,
// because a prefix is usually an abbreviation or a word typed halfway; then
// the smallest distance wins, and ties go to the earlier candidate so the
// answer is deterministic.
func Suggest(w string, candidates []string) string {
	if w == "" {
		return ""
	}
	best, bestRank := "", -1
	wn := utf8.RuneCountInString(w) // once: w may be a 10 MB word
	for _, c := range candidates {
		if c == w {
			continue
		}
		// Words far apart in length cannot be within distance 2; skipping
		// them keeps long fuzzed input cheap.
		lenGap := utf8.RuneCountInString(c) - wn
		prefix := strings.HasPrefix(c, w)
		if !prefix && (lenGap > 2 || lenGap < -2) {
			continue
		}
		d := levenshtein(w, c)
		if d > 2 && !prefix {
			continue
		}
		rank := d
		if !prefix {
			rank += 1 << 30 // after every prefix match
		}
		if bestRank < 0 || rank < bestRank {
			best, bestRank = c, rank
		}
	}
	return best
}

// levenshtein is the edit distance between a and b in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// didYouMean returns `, did you mean "x"?` for the nearest candidate, or "".
func didYouMean(w string, candidates []string) string {
	if s := Suggest(w, candidates); s != "" {
		return fmt.Sprintf(", did you mean %s?", Quote(s))
	}
	return ""
}
