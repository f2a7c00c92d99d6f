package commandbar

import (
	"slices"
	"strings"
)

// World is what the bar completes arguments from: the names in the world
// on screen. The app sets it from each new snapshot.
type World struct {
	Producers, Consumers, Partitions, Brokers, TxnIDs, Groups []string
	// Steps are the steps worth offering to goto: the start and the end
	// of the timeline.
	Steps []string
}

// Words are fixed vocabularies, by the placeholder they fill ("ERROR":
// the errors `fail request` takes; "KEY": a producer's config keys;
// "COUNT", "N", "DURATION": a few typical values) or by an option's key
// with its "=" ("acks=": all, 1, 0).
type Words map[string][]string

// completion is what may be written at the cursor: the candidates that
// extend the word being typed, and what they are.
type completion struct {
	label string   // what comes here: "command", "TOPIC-PARTITION", "options"
	from  int      // byte offset in the line where the word being completed starts
	cands []string // what replaces line[from:cursor], each ending as it should be typed on
	usage string   // the verb's syntax ("" while the verb itself is typed)
	done  bool     // nothing more comes in this command
}

// word is one word of the line typed so far.
type word struct {
	text       string
	start, end int
	quoted     bool
}

// splitWords cuts the line into words as the language does (blanks
// separate words, double quotes hold blanks). open reports a quote still
// open at the end.
func splitWords(s string) (words []word, open bool) {
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			break
		}
		w := word{start: i}
		inQuote := false
		for i < len(s) && (inQuote || (s[i] != ' ' && s[i] != '\t')) {
			switch {
			case s[i] == '\\' && inQuote && i+1 < len(s):
				i++
			case s[i] == '"':
				inQuote = !inQuote
				w.quoted = true
			}
			i++
		}
		w.end, w.text = i, s[w.start:i]
		words = append(words, w)
		open = inQuote
	}
	return words, open
}

// complete works out the candidates for the word that ends at cursor
// (a byte offset in line).
func (m *Model) complete(line string, cursor int) completion {
	head := line[:cursor]
	words, open := splitWords(head)
	partial := word{start: cursor, end: cursor}
	if n := len(words); n > 0 && words[n-1].end == cursor {
		partial, words = words[n-1], words[:n-1]
	}
	if open {
		return completion{label: "a quoted value", from: cursor}
	}
	v, n := m.verbOf(words)
	if v == nil {
		return m.completeVerb(head)
	}
	if m.takesVerb(v) {
		// help VERB: the rest of the line is a verb, one word or two.
		base := words[n-1].end
		c := m.completeVerb(head[base:])
		c.from += base
		c.label, c.usage = "VERB", v.Syntax
		if len(c.cands) == 0 && m.isVerb(strings.TrimSpace(head[base:])) {
			c.label, c.done = "nothing more: enter runs it", true
		}
		return c
	}
	c := m.completeArgs(v, words[n:], partial)
	c.usage = v.Syntax
	return c
}

// takesVerb reports whether v's only argument is a verb (help [VERB]).
func (m *Model) takesVerb(v *Verb) bool {
	fs := m.forms[v.Verb]
	return len(fs) == 1 && len(fs[0].slots) == 1 && fs[0].slots[0].name == "VERB"
}

func (m *Model) isVerb(s string) bool {
	return slices.ContainsFunc(m.verbs, func(v Verb) bool { return v.Verb == s })
}

// verbOf finds the verb the complete words start with (the longest
// spelling wins: `restart broker` over a verb `restart`), and how many
// words it takes.
func (m *Model) verbOf(words []word) (*Verb, int) {
	var best *Verb
	bestN := 0
	for i := range m.verbs {
		v := &m.verbs[i]
		parts := strings.Fields(v.Verb)
		if len(parts) > len(words) || len(parts) <= bestN {
			continue
		}
		ok := true
		for j, p := range parts {
			if words[j].text != p {
				ok = false
				break
			}
		}
		if ok {
			best, bestN = v, len(parts)
		}
	}
	return best, bestN
}

// completeVerb offers the verbs that extend what is typed (which may be
// one word and part of a second: "lose re").
func (m *Model) completeVerb(head string) completion {
	from := len(head) - len(strings.TrimLeft(head, " \t"))
	typed := strings.Join(strings.Fields(head[from:]), " ")
	if (strings.HasSuffix(head, " ") || strings.HasSuffix(head, "\t")) && typed != "" {
		typed += " "
	}
	c := completion{label: "command", from: from}
	for _, v := range m.verbs {
		if hasPrefixFold(v.Verb, typed) {
			c.cands = append(c.cands, v.Verb+" ")
		}
	}
	return c
}

// argState is how far the typed arguments have got through one form.
type argState struct {
	f        form
	filled   int             // positionals given
	used     map[string]bool // options and flags given, by name or word
	groups   map[int]bool    // exclusive groups taken
	repeated []string        // the values given to a repeatable positional
	literals int             // literal words matched: the form that matches more is meant
}

// walk follows the typed arguments through form f; ok is false when a
// literal word of the form does not match.
func (m *Model) walk(f form, args []word) (argState, bool) {
	st := argState{f: f, used: map[string]bool{}, groups: map[int]bool{}}
	pos := f.positionals()
	for _, a := range args {
		if key, _, ok := strings.Cut(a.text, "="); ok && !strings.HasPrefix(a.text, `"`) {
			if s := m.findOption(f, key); s != nil {
				st.take(*s, key)
			}
			continue
		}
		if s := m.findFlag(f, a.text); s != nil && !a.quoted {
			st.take(*s, a.text)
			continue
		}
		if st.filled >= len(pos) {
			if n := len(pos); n > 0 && pos[n-1].repeat {
				st.repeated = append(st.repeated, a.text)
			}
			continue // one too many: the parser will say so
		}
		s := pos[st.filled]
		if len(s.words) > 0 {
			if !slices.Contains(s.words, a.text) {
				return st, false
			}
			st.literals++
		}
		if s.repeat {
			st.repeated = append(st.repeated, a.text)
		}
		st.filled++
	}
	return st, true
}

func (st *argState) take(s slot, name string) {
	st.used[name] = true
	if s.group > 0 {
		st.groups[s.group] = true
	}
}

// findOption is the option slot for key: its own, or the config keys'.
func (m *Model) findOption(f form, key string) *slot {
	for i, s := range f.slots {
		if s.kind == option && (s.name == key || s.vocab && slices.Contains(m.words[s.name], key)) {
			return &f.slots[i]
		}
	}
	return nil
}

// findFlag is the flag slot a bare word stands for.
func (m *Model) findFlag(f form, w string) *slot {
	for i, s := range f.slots {
		if s.kind == flag && (s.name == w || s.vocab && slices.Contains(m.words[s.name], w)) {
			return &f.slots[i]
		}
	}
	return nil
}

// completeArgs offers what may come at the next argument of verb v.
func (m *Model) completeArgs(v *Verb, args []word, partial word) completion {
	var states []argState
	for _, f := range m.forms[v.Verb] {
		if st, ok := m.walk(f, args); ok {
			states = append(states, st)
		}
	}
	// A form whose literal words were typed is the one meant
	// (`failover coordinator` rather than a partition named so).
	most := 0
	for _, st := range states {
		most = max(most, st.literals)
	}
	c := completion{from: partial.start}
	if len(states) == 0 {
		c.label, c.done = "nothing more", true
		return c
	}
	// The label names what the candidates are ("TOPIC-PARTITION or
	// options"): the slots with a candidate left after the typed prefix,
	// else every slot that could come here.
	var labels, offered []string
	cur := "" // the label of the candidates being added
	addLabel := func(l string) {
		cur = l
		if l != "" && !slices.Contains(labels, l) {
			labels = append(labels, l)
		}
	}
	seen := map[string]bool{}
	add := func(cand string) {
		if !seen[cand] && hasPrefixFold(cand, partial.text) {
			seen[cand] = true
			c.cands = append(c.cands, cand)
			if !slices.Contains(offered, cur) {
				offered = append(offered, cur)
			}
		}
	}
	done := true
	for _, st := range states {
		if st.literals < most {
			continue
		}
		if key, val, ok := strings.Cut(partial.text, "="); ok {
			// A value after its key.
			if s := m.findOption(st.f, key); s != nil {
				done = false
				addLabel(key + "=")
				vals := s.words
				if len(vals) == 0 {
					vals = m.words[key+"="]
				}
				for _, x := range vals {
					if hasPrefixFold(x, val) {
						add(key + "=" + x + " ")
					}
				}
			}
			continue
		}
		pos := st.f.positionals()
		optionsOpen := true
		if st.filled < len(pos) {
			s := pos[st.filled]
			done = false
			addLabel(s.name)
			for _, x := range m.values(v.Verb, s) {
				add(x + " ")
			}
			optionsOpen = s.optional
		} else if n := len(pos); n > 0 && pos[n-1].repeat {
			// Another of a repeatable positional, not one given already.
			done = false
			addLabel("another " + pos[n-1].name)
			for _, x := range m.values(v.Verb, pos[n-1]) {
				if !slices.Contains(st.repeated, x) {
					add(x + " ")
				}
			}
		}
		if !optionsOpen {
			continue
		}
		for _, s := range st.f.slots {
			if s.kind == positional || s.group > 0 && st.groups[s.group] || s.after >= st.filled {
				continue
			}
			names := []string{s.name}
			if s.vocab {
				names = m.words[s.name]
			}
			for _, name := range names {
				if st.used[name] || s.vocab && s.kind == flag && anyUsed(st.used, names) {
					continue // a flag of a vocabulary (ERROR) is given once
				}
				done = false
				if s.kind == option {
					addLabel("options")
					add(name + "=")
				} else {
					addLabel(flagLabel(s))
					add(name + " ")
				}
			}
		}
	}
	if len(offered) > 0 {
		labels = offered
	}
	c.label = strings.Join(labels, " or ")
	c.done = done
	if done {
		c.label = "nothing more: enter runs it"
	}
	return c
}

func anyUsed(used map[string]bool, names []string) bool {
	for _, n := range names {
		if used[n] {
			return true
		}
	}
	return false
}

// flagLabel names a flag word's slot in the candidate line.
func flagLabel(s slot) string {
	if s.vocab {
		return s.name
	}
	return "options"
}

// values are the words that may fill a positional of verb: its literal
// words, the names in the world, or a vocabulary.
func (m *Model) values(verb string, s slot) []string {
	if len(s.words) > 0 {
		return s.words
	}
	w := m.world
	switch s.name {
	case "NAME":
		switch verb {
		case "producer", "consumer":
			return nil // a new name: nothing to offer
		case "poll", "restart consumer", "seek":
			return w.Consumers
		case "effect":
			return append(slices.Clone(w.Producers), w.Consumers...)
		}
		return w.Producers
	case "TOPIC-PARTITION":
		return w.Partitions
	case "ID", "BROKER":
		return w.Brokers
	case "TXN_ID":
		return w.TxnIDs
	case "GROUP":
		return w.Groups
	case "STEP":
		return w.Steps
	case "VERB":
		out := make([]string, len(m.verbs))
		for i, v := range m.verbs {
			out[i] = v.Verb
		}
		return out
	}
	return m.words[s.name]
}

// hasPrefixFold is strings.HasPrefix ignoring case: "not" completes to
// NOT_ENOUGH_REPLICAS.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
