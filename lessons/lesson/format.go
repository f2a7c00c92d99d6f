package lesson

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eoslab/eoslab/engine/script"
)

// A lesson file is Markdown (docs/lessons.md):
//
//	---
//	chapter: 7
//	title: The broker's checks
//	summary: One sentence for the chapter list.
//	panels: bytes, window, network
//	---
//
//	Text before the first step is the lesson's introduction.
//
//	## A step's title
//	panels: window, partition
//	focus: window
//
//	Narration in Markdown, then fenced blocks:
//	```eos        commands performed when the step is entered
//	```expect     predicates that must hold after them
//	```predict    a question and choices, each with the predicates that make it right
//	```reveal     commands performed once the learner has answered
//	```goal       a challenge's checklist: "text => predicates"
//	```hint       one hint (several blocks give tiers)
//	```solution   commands that reach the goal
//	```presenter  notes for the instructor: misconception, ask, answers (notes.go)
//
// Everything is checked when the file is read: a lesson with an error is
// not loaded at all.

// Kind is what a step asks of the learner.
type Kind int

const (
	Narrate   Kind = iota // read, then go on
	Predict               // choose an outcome before it is revealed
	Challenge             // reach a goal by acting
)

func (k Kind) String() string { return [...]string{"step", "predict", "challenge"}[k] }

// Prediction is a predict step's question. A choice is right when all its
// predicates hold once the reveal commands have run: the engine marks the
// answer, not a key written in the lesson.
type Prediction struct {
	Line     int
	Question string
	Choices  []Choice
	Reveal   []script.Command
}

// Choice is one answer of a prediction.
type Choice struct {
	Line int
	Text string
	When []Expect
}

// Goal is one item of a challenge's checklist.
type Goal struct {
	Line int
	Text string
	When []Expect
}

// ChallengeSpec is a challenge step's goal, hints and solution.
type ChallengeSpec struct {
	Goals    []Goal
	Hints    []string
	Solution []script.Command
}

// Error is a problem in a lesson file, with its position.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Errors is every problem found in a file.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

type parser struct {
	file    string
	lines   []string
	errs    Errors
	dropped int // problems past maxErrors, counted but not kept
}

// maxErrors is how many problems a file reports. A broken 16 MiB file
// can have a million; past a hundred nobody reads them, and each one
// may cost a search for a suggestion.
const maxErrors = 100

func (p *parser) errf(line int, format string, a ...any) {
	if p.full() {
		p.dropped++
		return
	}
	p.add(line, fmt.Sprintf(format, a...))
}

func (p *parser) add(line int, msg string) {
	if p.full() {
		p.dropped++
		return
	}
	p.errs = append(p.errs, &Error{p.file, line, msg})
}

// full reports whether the file has all the problems it will report.
func (p *parser) full() bool { return len(p.errs) >= maxErrors }

// Parse reads a lesson file. The error, if any, is an Errors listing every
// problem with its line.
func Parse(file string, src []byte) (*Lesson, error) {
	p := &parser{file: file, lines: strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")}
	l := &Lesson{File: file}
	i := p.frontMatter(l)
	var intro []string
	var st *Step
	var narr []string
	flush := func() {
		if st != nil {
			st.Narration = strings.TrimSpace(strings.Join(narr, "\n"))
			l.Steps = append(l.Steps, *st)
		}
	}
	for i < len(p.lines) {
		line := p.lines[i]
		switch {
		case strings.HasPrefix(line, "## "):
			flush()
			st = &Step{Line: i + 1, Title: strings.TrimSpace(line[3:])}
			narr = nil
			i = p.stepAttrs(st, i+1)
			continue
		case strings.HasPrefix(strings.TrimSpace(line), "```"):
			end := p.fenceEnd(i)
			info := p.blockName(i+1, strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "`")))
			body := p.lines[i+1 : end]
			if st == nil {
				if info != "" {
					p.errf(i+1, "a ```%s block must be inside a step (start one with \"## Title\")", info)
				} else {
					intro = append(intro, p.lines[i:min(end+1, len(p.lines))]...)
				}
			} else if !p.block(st, info, i+1, body) {
				narr = append(narr, p.lines[i:min(end+1, len(p.lines))]...)
			}
			i = end + 1
			continue
		}
		if st == nil {
			intro = append(intro, line)
		} else {
			narr = append(narr, line)
		}
		i++
	}
	flush()
	l.Intro = strings.TrimSpace(strings.Join(intro, "\n"))
	p.finish(l)
	slices.SortStableFunc(p.errs, func(a, b *Error) int { return a.Line - b.Line })
	if p.dropped > 0 {
		last := p.errs[len(p.errs)-1].Line
		p.errs = append(p.errs, &Error{p.file, last, fmt.Sprintf("too many problems: %d more not shown", p.dropped)})
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return l, nil
}

// frontKeys are the keys of the front matter (docs/lessons.md lists them).
var frontKeys = []string{"chapter", "title", "summary", "panels"}

// blockNames are the lesson's own blocks.
var blockNames = []string{"eos", "expect", "predict", "reveal", "goal", "hint", "solution", "presenter"}

// narrationLanguages are languages a code block of the narration may be
// tagged with that are as near a block's name as a typo is (go and
// goal, ts and eos, ex and expect): they stay narration. The common
// languages far from every block name need no entry.
var narrationLanguages = []string{
	"go", "toml", "ini", "css", "js", "ts", "rs", "h", "r", "log", "dot", "cs", "ex", "erl", "hs", "env",
	"text", "txt", "sh", "bash", "shell", "console", "json", "yaml", "yml", "markdown", "md", "diff", "java", "python", "sql",
}

// blockName reads the info string of a fence on line line: the lesson
// block it opens, or "" for a code block of the narration. A word near
// a block's name is a typo, not a language — ```expectt would make the
// checks narration and the lesson would pass without them — so it is an
// error naming the block meant; so is anything after a block's name.
func (p *parser) blockName(line int, info string) string {
	word, rest, _ := strings.Cut(info, " ")
	rest = strings.TrimSpace(rest)
	lower := strings.ToLower(word)
	switch {
	case slices.Contains(blockNames, word):
		if rest != "" {
			p.errf(line, "```%s takes nothing after its name, got %s", word, script.Quote(rest))
		}
		return word
	case word == "" || slices.Contains(narrationLanguages, lower):
		return ""
	case slices.Contains(blockNames, lower):
		p.errf(line, "unknown block %s, did you mean ```%s? (block names are lower case)", script.Quote(word), lower)
	default:
		if s := script.Suggest(lower, blockNames); s != "" {
			p.errf(line, "unknown block %s, did you mean ```%s? (blocks: %s; a code block of the narration takes a language, e.g. ```text)",
				script.Quote(word), s, strings.Join(blockNames, ", "))
		}
	}
	return ""
}

// frontMatter reads the "---" block and returns the next line index.
func (p *parser) frontMatter(l *Lesson) int {
	i := 0
	for i < len(p.lines) && strings.TrimSpace(p.lines[i]) == "" {
		i++
	}
	if i >= len(p.lines) || strings.TrimSpace(p.lines[i]) != "---" {
		p.errf(i+1, `a lesson starts with front matter: a "---" line, then chapter:, title: and summary:, then "---"`)
		return i
	}
	start := i + 1
	seen := map[string]bool{}
	for i = start; i < len(p.lines); i++ {
		line := strings.TrimSpace(p.lines[i])
		if line == "---" {
			break
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok {
			p.errf(i+1, "front matter: expected key: value, got %s", script.Quote(line))
			continue
		}
		if seen[key] {
			p.errf(i+1, "front matter: %s given twice", script.Quote(key))
		}
		seen[key] = true
		switch key {
		case "chapter":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				p.errf(i+1, "chapter must be a positive number, got %s", script.Quote(val))
			}
			l.Number = n
		case "title":
			l.Title = unquote(val)
		case "summary":
			l.Summary = unquote(val)
		case "panels":
			l.Panels = p.panels(i+1, val)
		default:
			p.errf(i+1, "front matter: unknown key %s%s", script.Quote(key), suggest(key, frontKeys))
		}
	}
	if i >= len(p.lines) {
		p.errf(start, `front matter is not closed by a "---" line`)
		return i
	}
	for _, k := range []string{"chapter", "title", "summary"} {
		if !seen[k] {
			p.errf(start, "front matter: %s: is missing", k)
		}
	}
	return i + 1
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// stepAttrs reads "panels:" and "focus:" lines right under a step heading.
func (p *parser) stepAttrs(st *Step, i int) int {
	for ; i < len(p.lines); i++ {
		line := strings.TrimSpace(p.lines[i])
		key, val, ok := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		if !ok || (key != "panels" && key != "focus") {
			return i
		}
		val = strings.TrimSpace(val)
		if key == "panels" {
			st.Panels = p.panels(i+1, val)
			continue
		}
		ps := p.panels(i+1, val)
		if len(ps) == 1 {
			st.Focus = ps[0]
		} else if len(ps) > 1 {
			p.errf(i+1, "focus names one panel")
		}
	}
	return i
}

func (p *parser) panels(line int, val string) []Panel {
	var out []Panel
	names := make([]string, 0, len(Panels()))
	for _, pn := range Panels() {
		names = append(names, string(pn))
	}
	for _, f := range strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == ' ' || r == '[' || r == ']' }) {
		if !slices.Contains(names, f) {
			p.errf(line, "unknown panel %s%s (panels: %s)", script.Quote(f), suggest(f, names), strings.Join(names, ", "))
			continue
		}
		out = append(out, Panel(f))
	}
	return out
}

// fenceEnd returns the index of the closing fence of the block opened at i.
func (p *parser) fenceEnd(i int) int {
	for j := i + 1; j < len(p.lines); j++ {
		if strings.TrimSpace(p.lines[j]) == "```" {
			return j
		}
	}
	p.errf(i+1, "code block is not closed by a ``` line")
	return len(p.lines)
}

// block takes a fenced block of a step; false means it is not one of the
// lesson's own blocks and belongs to the narration.
func (p *parser) block(st *Step, info string, line int, body []string) bool {
	switch info {
	case "eos":
		st.Commands = append(st.Commands, p.commands(line, body)...)
	case "expect":
		st.Expect = append(st.Expect, p.expects(line, body)...)
	case "predict":
		if st.Prediction != nil {
			p.errf(line, "a step has one ```predict block")
		}
		st.Prediction = p.prediction(line, body, st.Prediction)
	case "reveal":
		if st.Prediction == nil {
			st.Prediction = &Prediction{Line: line}
		}
		st.Prediction.Reveal = append(st.Prediction.Reveal, p.commands(line, body)...)
	case "goal":
		ch := p.challenge(st)
		for j, text := range body {
			if g, ok := p.goal(line+1+j, text); ok {
				ch.Goals = append(ch.Goals, g)
			}
		}
	case "hint":
		ch := p.challenge(st)
		ch.Hints = append(ch.Hints, strings.TrimSpace(strings.Join(body, "\n")))
	case "solution":
		ch := p.challenge(st)
		ch.Solution = append(ch.Solution, p.commands(line, body)...)
	case "presenter":
		p.notes(st, line, body)
	default:
		return false
	}
	return true
}

func (p *parser) challenge(st *Step) *ChallengeSpec {
	if st.Challenge == nil {
		st.Challenge = &ChallengeSpec{}
	}
	return st.Challenge
}

// commands parses a block of commands opened by the fence on line line:
// its first command is on the next line. ParseAt numbers the lines as
// the file does, so the cost is the block's, wherever it is in the file.
func (p *parser) commands(line int, body []string) []script.Command {
	cmds, err := script.ParseAt(p.file, line+1, []byte(strings.Join(body, "\n")))
	if err != nil {
		var list script.ErrorList
		if !errors.As(err, &list) {
			p.errf(line, "%v", err)
			return nil
		}
		for _, e := range list {
			p.add(e.Pos.Line, e.Msg)
		}
		return nil
	}
	return cmds
}

func (p *parser) expects(line int, body []string) []Expect {
	var out []Expect
	for j, text := range body {
		t := strings.TrimSpace(text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		e, err := ParseExpect(t)
		if err != nil {
			p.errf(line+1+j, "expect: %v", err)
			continue
		}
		e.Line = line + 1 + j
		out = append(out, e)
	}
	return out
}

// conditions parses "a && b && c".
func (p *parser) conditions(line int, text string) ([]Expect, bool) {
	var out []Expect
	for _, part := range strings.Split(text, "&&") {
		e, err := ParseExpect(strings.TrimSpace(part))
		if err != nil {
			p.errf(line, "%v", err)
			return nil, false
		}
		e.Line = line
		out = append(out, e)
	}
	return out, true
}

// prediction reads "? question" lines and "- choice => predicates" lines.
func (p *parser) prediction(line int, body []string, prev *Prediction) *Prediction {
	pr := &Prediction{Line: line}
	if prev != nil {
		pr.Reveal = prev.Reveal
	}
	var q []string
	for j, text := range body {
		n := line + 1 + j
		t := strings.TrimSpace(text)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case strings.HasPrefix(t, "?"):
			q = append(q, strings.TrimSpace(t[1:]))
		case strings.HasPrefix(t, "- "):
			choice, cond, ok := strings.Cut(t[2:], "=>")
			if !ok {
				p.errf(n, `predict: a choice is "- text => predicate", got %s`, script.Quote(t))
				continue
			}
			if when, ok := p.conditions(n, cond); ok {
				pr.Choices = append(pr.Choices, Choice{Line: n, Text: strings.TrimSpace(choice), When: when})
			}
		default:
			p.errf(n, `predict: expected "? question" or "- choice => predicate", got %s`, script.Quote(t))
		}
	}
	pr.Question = strings.Join(q, " ")
	if pr.Question == "" {
		p.errf(line, "predict: no question (a line starting with ?)")
	}
	if len(pr.Choices) < 2 {
		p.errf(line, "predict: a prediction needs at least two choices")
	}
	return pr
}

func (p *parser) goal(n int, text string) (Goal, bool) {
	t := strings.TrimSpace(text)
	if t == "" || strings.HasPrefix(t, "#") {
		return Goal{}, false
	}
	t = strings.TrimPrefix(t, "- ")
	label, cond, ok := strings.Cut(t, "=>")
	if !ok {
		p.errf(n, `goal: an item is "text => predicate", got %s`, script.Quote(t))
		return Goal{}, false
	}
	when, ok := p.conditions(n, cond)
	return Goal{Line: n, Text: strings.TrimSpace(label), When: when}, ok
}

// finish checks the lesson as a whole.
func (p *parser) finish(l *Lesson) {
	if len(l.Steps) == 0 && len(p.errs) == 0 {
		p.errf(len(p.lines), `the lesson has no steps (a step starts with "## Title")`)
	}
	for i := range l.Steps {
		st := &l.Steps[i]
		switch {
		case st.Prediction != nil && st.Challenge != nil:
			p.errf(st.Line, "a step is a prediction or a challenge, not both")
		case st.Prediction != nil:
			st.Kind = Predict
			if len(st.Prediction.Reveal) == 0 {
				p.errf(st.Prediction.Line, "predict: the step needs a ```reveal block: the commands whose outcome the learner predicts")
			}
		case st.Challenge != nil:
			st.Kind = Challenge
			if len(st.Challenge.Goals) == 0 {
				p.errf(st.Line, "challenge: no ```goal block")
			}
			if len(st.Challenge.Solution) == 0 {
				p.errf(st.Line, "challenge: no ```solution block")
			}
		}
		if st.Focus != "" && len(st.Panels) > 0 && !slices.Contains(st.Panels, st.Focus) {
			p.errf(st.Line, "focus %q is not among the step's panels", st.Focus)
		}
	}
	p.checkActors(l)
}
