package commandbar

import (
	"strings"
)

// Verb is a command the bar knows: its spelling (one word or two), its
// syntax as the language's reference writes it ("send NAME
// TOPIC-PARTITION COUNT [key=K] [value=V]") and a one-line summary.
// Completion reads what may come at each argument from the syntax, so a
// verb added to the language completes without the bar knowing it.
type Verb struct{ Verb, Syntax, Summary string }

// slotKind says how an argument is written.
type slotKind uint8

const (
	positional slotKind = iota // a placeholder or a choice of words, in order
	option                     // KEY=VALUE, in any order after the positionals
	flag                       // a bare word, in any order after the positionals
)

// slot is one argument of a syntax.
type slot struct {
	kind slotKind
	// name is the placeholder (NAME, TOPIC-PARTITION), the option's key
	// or the flag word. A placeholder that stands for words of a
	// vocabulary (ERROR, KEY) is looked up by it.
	name string
	// words are a positional's literal choices (read_committed,
	// read_uncommitted) or an option's values (transaction.version=1|2).
	words    []string
	optional bool
	repeat   bool // TOPIC-PARTITION...: one or more
	// group: slots of the same non-zero group exclude one another
	// ([idempotent | plain | transactional=TXN_ID]).
	group int
	// after: an option or flag written inside a bracket with a positional
	// ([TOPIC-PARTITION seq=N]) comes only once that positional is given;
	// -1 when it does not wait for one.
	after int
	// vocab: the slot is any word of the vocabulary named name (a flag
	// such as ERROR, or an option such as KEY=VALUE ...).
	vocab bool
}

// form is one way of writing a verb: its arguments in order. Most verbs
// have one; `failover TOPIC-PARTITION [unclean] | failover coordinator
// TXN_ID` has two.
type form struct{ slots []slot }

// positionals are the form's positional slots, in order.
func (f form) positionals() []slot {
	var out []slot
	for _, s := range f.slots {
		if s.kind == positional {
			out = append(out, s)
		}
	}
	return out
}

// parseSyntax reads a verb's syntax string into its forms. It follows the
// language's rules (docs/commands.md): positional arguments come first in
// the order shown, then options and flag words in any order; so a
// placeholder written after an option (`[seq=N] ERROR`) is a flag word
// chosen from its vocabulary.
func parseSyntax(verb, syntax string) []form {
	var forms []form
	for _, alt := range splitTop(syntax, " | ") {
		alt = strings.TrimSpace(alt)
		rest, ok := strings.CutPrefix(alt, verb)
		if !ok {
			continue // not a form of this verb (a typo in a syntax string)
		}
		forms = append(forms, parseForm(strings.Fields(rest)))
	}
	if len(forms) == 0 {
		forms = append(forms, form{})
	}
	return forms
}

// splitTop splits s at sep where sep is outside brackets.
func splitTop(s, sep string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		default:
			if depth == 0 && strings.HasPrefix(s[i:], sep) {
				out = append(out, s[start:i])
				start = i + len(sep)
				i += len(sep) - 1
			}
		}
	}
	return append(out, s[start:])
}

func parseForm(words []string) form {
	var f form
	group := 0
	seenOption := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "[") {
			s := wordSlot(strings.TrimSuffix(w, "..."), false, seenOption)
			s.repeat = strings.HasSuffix(w, "...")
			s.after = -1
			seenOption = seenOption || s.kind != positional
			f.slots = append(f.slots, s)
			continue
		}
		// A bracket: collect its words up to the closing one.
		var inner []string
		for ; i < len(words); i++ {
			inner = append(inner, words[i])
			if strings.HasSuffix(words[i], "]") {
				break
			}
		}
		body := strings.TrimSuffix(strings.TrimPrefix(strings.Join(inner, " "), "["), "]")
		alts := splitTop(body, " | ")
		g := 0
		if len(alts) > 1 {
			group++
			g = group
		}
		after := -1
		for _, alt := range alts {
			parts := strings.Fields(alt)
			for j, p := range parts {
				if p == "..." {
					if n := len(f.slots); n > 0 {
						f.slots[n-1].repeat = true
					}
					continue
				}
				s := wordSlot(p, true, seenOption)
				s.optional, s.group, s.after = true, g, -1
				if s.kind == positional {
					after = len(f.positionals())
				} else {
					seenOption = true
					if j > 0 {
						s.after = after
					}
				}
				f.slots = append(f.slots, s)
			}
		}
	}
	return f
}

// wordSlot classifies one word of a syntax.
func wordSlot(w string, bracketed, afterOption bool) slot {
	if key, val, ok := strings.Cut(w, "="); ok {
		s := slot{kind: option, name: key}
		if key == "KEY" {
			s.vocab = true // KEY=VALUE ...: any of the verb's config keys
		}
		if strings.Contains(val, "|") {
			s.words = strings.Split(val, "|")
		}
		return s
	}
	if isPlaceholder(w) {
		if afterOption {
			return slot{kind: flag, name: w, vocab: true}
		}
		return slot{kind: positional, name: w}
	}
	if strings.Contains(w, "|") {
		return slot{kind: positional, name: w, words: strings.Split(w, "|")}
	}
	if bracketed {
		return slot{kind: flag, name: w}
	}
	return slot{kind: positional, name: w, words: []string{w}} // a literal word: `failover coordinator`
}

// isPlaceholder reports whether w is written in capitals (NAME,
// TOPIC-PARTITION, TXN_ID): something to fill in, not a word to type.
func isPlaceholder(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if !('A' <= r && r <= 'Z' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
