package script

import (
	"fmt"
	"strings"
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
func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
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
	for _, c := range candidates {
		if c == w {
			continue
		}
		// Words far apart in length cannot be within distance 2; skipping
		// them keeps long fuzzed input cheap.
		lenGap := utf8.RuneCountInString(c) - utf8.RuneCountInString(w)
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
		return fmt.Sprintf(", did you mean %q?", s)
	}
	return ""
}
