package script

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// cmdLine is the argument cursor handed to a verb's parse function: the
// tokens after the verb, consumed left to right. Positional arguments come
// first, in order; options (KEY=VALUE pairs and bare flag words) follow in
// any order.
type cmdLine struct {
	spec *verbSpec
	at   Pos     // position of the verb
	args []token // tokens after the verb
	next int     // index of the next unconsumed token
	end  Pos     // just past the last token: where a missing argument goes
}

// errf builds an error prefixed with the verb, so every message says which
// command it is about.
func (l *cmdLine) errf(p Pos, format string, a ...any) *Error {
	return &Error{Pos: p, Msg: l.spec.Verb + ": " + fmt.Sprintf(format, a...)}
}

// missing reports a missing argument where it should have been: at the
// option that stands in its place, or just past the end of the line.
func (l *cmdLine) missing(what string) *Error {
	p := l.end
	if l.next < len(l.args) {
		p = l.args[l.next].pos
	}
	return l.errf(p, "missing %s (usage: %s)", what, l.spec.Syntax)
}

// positional consumes the next argument, which must not be a KEY=VALUE pair.
func (l *cmdLine) positional(name string) (token, *Error) {
	if t, ok := l.optionalPositional(); ok {
		return t, nil
	}
	return token{}, l.missing(name)
}

// optionalPositional consumes the next argument if it is not a pair.
func (l *cmdLine) optionalPositional() (token, bool) {
	if l.next < len(l.args) && !l.args[l.next].isPair {
		l.next++
		return l.args[l.next-1], true
	}
	return token{}, false
}

// optSpec says which options a verb accepts after its positional arguments.
type optSpec struct {
	keys  []string // accepted KEY=VALUE keys
	flags []string // accepted bare words
	noun  string   // what a key is called in messages; "key" when empty
}

// options consumes all remaining tokens as options and checks them: every
// key and flag must be known and appear at most once. The tokens are
// returned in source order for the verb to interpret.
func (l *cmdLine) options(o optSpec) ([]token, *Error) {
	rest := l.args[l.next:]
	l.next = len(l.args)
	seen := map[string]Pos{}
	for _, t := range rest {
		name, err := l.checkOption(t, o)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[name]; dup {
			what := "word"
			if t.isPair {
				what = cmp.Or(o.noun, "key")
			}
			return nil, l.errf(t.pos, "duplicate %s %s (first given at column %d)", what, Quote(name), first.Col)
		}
		seen[name] = t.pos
	}
	return rest, nil
}

// checkOption returns the key or flag a token stands for, or explains why
// the verb does not accept it.
func (l *cmdLine) checkOption(t token, o optSpec) (string, *Error) {
	noun := cmp.Or(o.noun, "key")
	switch {
	case t.isPair && slices.Contains(o.keys, t.key):
		return t.key, nil
	case t.isPair && slices.Contains(o.flags, t.key):
		return "", l.errf(t.pos, "%s takes no value", t.key)
	case t.isPair && len(o.keys) > 0:
		hint := didYouMean(t.key, o.keys)
		if hint == "" {
			hint = fmt.Sprintf(" (known: %s)", strings.Join(o.keys, ", "))
		}
		return "", l.errf(t.pos, "unknown %s %s%s", noun, Quote(t.key), hint)
	case t.isPair:
		return "", l.errf(t.pos, "unexpected %s (usage: %s)", Quote(t.text), l.spec.Syntax)
	case !t.quoted && slices.Contains(o.flags, t.val):
		return t.val, nil
	case !t.quoted && slices.Contains(o.keys, t.val):
		return "", l.errf(t.pos, "%s needs a value (%s=...)", t.val, t.val)
	case !t.quoted && len(o.flags) > 0:
		hint := didYouMean(t.val, o.flags)
		if hint == "" {
			hint = fmt.Sprintf(" (expected %s)", orList(o.flags))
		}
		return "", l.errf(t.pos, "unknown word %s%s", Quote(t.val), hint)
	case t.quoted && slices.Contains(o.flags, t.val):
		return "", l.errf(t.pos, "%s is a keyword: write it without quotes", t.val)
	case t.quoted:
		return "", l.errf(t.pos, "unexpected value %s (usage: %s)", shown(t.text), l.spec.Syntax)
	default:
		return "", l.errf(t.pos, "unexpected word %s (usage: %s)", Quote(t.val), l.spec.Syntax)
	}
}

// number converts a decimal argument within its limit (limits.go). Only
// plain digits are accepted (no sign, no underscores) so that every
// number has one spelling and Format can reproduce it.
func (l *cmdLine) number(t token, name string, id limitID) (int64, *Error) {
	lim := limitTable[id]
	if !isDigits(t.val) {
		kind := "a positive integer"
		if lim.Min == 0 {
			kind = "a non-negative integer"
		}
		return 0, l.errf(t.pos, "%s must be %s, got %s", name, kind, Quote(t.val))
	}
	n, err := strconv.ParseInt(t.val, 10, 64)
	if err != nil {
		n = math.MaxInt64 // more digits than int64 holds: above every limit
		if lim.Max == math.MaxInt64 {
			return 0, l.errf(t.pos, "%s must be at most %d (%s), got %s", name, lim.Max, lim.Why, Quote(t.val))
		}
	}
	if msg := lim.check(name, n, t.val); msg != "" {
		return 0, l.errf(t.pos, "%s", msg)
	}
	return n, nil
}

// count is number for an argument that fits an int.
func (l *cmdLine) count(t token, name string, id limitID) (int, *Error) {
	n, err := l.number(t, name, id)
	return int(n), err
}

// topicPartition converts a TOPIC-PARTITION argument.
func (l *cmdLine) topicPartition(t token) (TopicPartition, *Error) {
	tp, err := ParseTopicPartition(t.val)
	if err != nil {
		return TopicPartition{}, l.errf(t.pos, "%v", err)
	}
	return tp, nil
}

// name converts an identifier argument such as a producer NAME.
func (l *cmdLine) name(t token, what string) (string, *Error) {
	if !isIdent(t.val) {
		return "", l.errf(t.pos, "invalid %s %s: a name starts with a letter and holds only letters, digits, '_', '.' and '-'", what, Quote(t.val))
	}
	return t.val, nil
}

// nameArg consumes and checks the positional NAME argument.
func (l *cmdLine) nameArg() (string, *Error) {
	t, err := l.positional("NAME")
	if err != nil {
		return "", err
	}
	return l.name(t, "NAME")
}

// isIdent reports whether s matches [A-Za-z][A-Za-z0-9_.-]*.
func isIdent(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !isDigit(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
