package lesson

import (
	"slices"
	"strings"

	"github.com/eoslab/eoslab/engine/script"
)

// Notes are a step's presenter notes: what an instructor needs in front
// of a room and a learner never sees. They are shown only in the lesson
// screen's presenter view and are not part of a step's narration, its
// checks or its transcript.
//
//	```presenter
//	misconception: an acknowledged record was written exactly once
//	ask: how many copies does the log hold after the retry?
//	answers: two; the broker cannot tell the retry from new data
//	```
//
// A line that starts with a key and a colon starts that note; the lines
// after it, up to the next key, continue it. An indented line always
// continues, so a note may hold "word:" at the start of a line.
type Notes struct {
	Line          int
	Misconception string // the wrong idea the step sets out to correct
	Ask           string // what to ask the room before moving on
	Answers       string // the answers to expect, the right one first
}

// noteKeys are the keys of a presenter block, in the order shown.
var noteKeys = []string{"misconception", "ask", "answers"}

// maxNoteBytes bounds one presenter block: notes are read aloud from a
// screen, and a block this long is a mistake (a fence left open).
const maxNoteBytes = 4096

// notes reads a ```presenter block opened by the fence on line line.
func (p *parser) notes(st *Step, line int, body []string) {
	if st.Notes != nil {
		p.errf(line, "a step has one ```presenter block (this one's first is at line %d)", st.Notes.Line)
		return
	}
	n := &Notes{Line: line}
	st.Notes = n
	seen := map[string]int{}
	var key string
	var text []string
	size := 0
	flush := func() {
		if key == "" {
			return
		}
		v := strings.Join(text, " ")
		switch key {
		case "misconception":
			n.Misconception = v
		case "ask":
			n.Ask = v
		case "answers":
			n.Answers = v
		}
		key, text = "", nil
	}
	for j, raw := range body {
		at := line + 1 + j
		t := strings.TrimSpace(raw)
		size += len(t)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		// An indented line always continues the note above it, whatever
		// it starts with ("  true: all defaults" is not a key).
		indented := raw != "" && (raw[0] == ' ' || raw[0] == '\t')
		if k, rest, ok := noteKey(t); ok && !(indented && key != "") {
			flush()
			if !slices.Contains(noteKeys, k) {
				p.errf(at, "presenter: unknown key %s%s (keys: %s)", script.Quote(k), suggest(k, noteKeys), strings.Join(noteKeys, ", "))
				continue
			}
			if first, dup := seen[k]; dup {
				p.errf(at, "presenter: %s given twice (first at line %d)", k, first)
				continue
			}
			seen[k] = at
			key = k
			if rest != "" {
				text = append(text, rest)
			}
			continue
		}
		if key == "" {
			p.errf(at, "presenter: a note starts with a key — %s — then a colon, got %s", strings.Join(noteKeys, ", "), script.Quote(t))
			continue
		}
		text = append(text, t)
	}
	flush()
	switch {
	case size > maxNoteBytes:
		p.errf(line, "presenter: the notes are %d bytes, more than %d: keep them to what fits a screen", size, maxNoteBytes)
	case len(seen) == 0:
		p.errf(line, "presenter: no notes (keys: %s)", strings.Join(noteKeys, ", "))
	}
	for _, k := range noteKeys {
		if at, ok := seen[k]; ok && n.get(k) == "" {
			p.errf(at, "presenter: %s: is empty", k)
		}
	}
	_, ask := seen["ask"]
	_, answers := seen["answers"]
	switch {
	case ask && !answers:
		p.errf(line, "presenter: ask: without answers: a question for the room comes with the answers to expect")
	case answers && !ask:
		p.errf(line, "presenter: answers: without ask: say what the room is asked")
	}
}

func (n *Notes) get(k string) string {
	switch k {
	case "misconception":
		return n.Misconception
	case "ask":
		return n.Ask
	}
	return n.Answers
}

// noteKey splits "key: text" when the line starts with a lower-case word
// and a colon; anything else continues the note before it.
func noteKey(t string) (key, rest string, ok bool) {
	i := strings.IndexByte(t, ':')
	if i <= 0 {
		return "", "", false
	}
	for _, r := range t[:i] {
		if r < 'a' || r > 'z' {
			return "", "", false
		}
	}
	return t[:i], strings.TrimSpace(t[i+1:]), true
}
