package lesson

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eoslab/eoslab/engine/script"
)

// A path is an ordered selection of chapters with a time for each — a
// workshop, a course day — played as one sequence (`eoslab play --path
// NAME`). A path file (docs/lessons.md#paths):
//
//	# comments start with #
//	path: workshop
//	title: Exactly-once in 90 minutes
//	summary: One sentence for the list.
//
//	1    6m   why a retry can write twice
//	07-broker-checks  10m  the leader's checks, in order
//
// The header's keys come first; then one chapter a line: the chapter (a
// number or a name, as `eoslab play` takes it), its time in minutes, and
// optionally what the stop is for.
type Path struct {
	Name    string
	Title   string
	Summary string
	File    string
	Stops   []Stop
}

// Stop is one chapter of a path.
type Stop struct {
	Line    int
	Lesson  *Lesson
	Minutes int
	Note    string
}

// Minutes is the path's whole time.
func (p *Path) Minutes() int {
	n := 0
	for _, s := range p.Stops {
		n += s.Minutes
	}
	return n
}

// Index is the stop that plays lesson l (matched by file, as the chapter
// list does), or -1.
func (p *Path) Index(l *Lesson) int {
	return slices.IndexFunc(p.Stops, func(s Stop) bool { return s.Lesson == l || l != nil && l.File != "" && s.Lesson.File == l.File })
}

// Limits of a path file: a workshop has about ten stops, a course a few
// dozen; a chapter takes at most two hours.
const (
	maxStops       = 100
	maxStopMinutes = 120
	maxChapterName = 256 // longer is no chapter's name; it is not looked up (nor echoed whole)
)

var pathKeys = []string{"path", "title", "summary"}

// ParsePath reads a path file. find resolves a chapter as `eoslab play`
// does (its error, with any suggestion, is reported at the line). The
// error, if any, is an Errors listing every problem with its line.
func ParsePath(file string, src []byte, find func(string) (*Lesson, error)) (*Path, error) {
	p := &parser{file: file, lines: strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")}
	path := &Path{File: file}
	seen := map[string]int{}
	chapters := map[*Lesson]int{}
	for i, raw := range p.lines {
		n := i + 1
		t := strings.TrimSpace(raw)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if key, val, ok := strings.Cut(t, ":"); ok && !strings.ContainsAny(key, " \t") {
			key, val = strings.TrimSpace(key), strings.TrimSpace(val)
			if len(path.Stops) > 0 {
				p.errf(n, "path: %s: belongs to the header, before the first chapter", script.Quote(key))
				continue
			}
			if !slices.Contains(pathKeys, key) {
				p.errf(n, "path: unknown key %s%s (keys: %s)", script.Quote(key), suggest(key, pathKeys), strings.Join(pathKeys, ", "))
				continue
			}
			if first, dup := seen[key]; dup {
				p.errf(n, "path: %s given twice (first at line %d)", key, first)
				continue
			}
			seen[key] = n
			switch key {
			case "path":
				if !pathName(val) {
					p.errf(n, "path: the name is letters, digits and dashes, starting with a letter (it is what `play --path` takes), got %s", script.Quote(val))
				}
				path.Name = val
			case "title":
				path.Title = unquote(val)
			case "summary":
				path.Summary = unquote(val)
			}
			continue
		}
		p.stop(path, chapters, n, t, find)
	}
	for _, k := range pathKeys {
		if _, ok := seen[k]; !ok {
			p.errf(1, "path: %s: is missing (a path starts with path:, title: and summary:)", k)
		}
	}
	if len(path.Stops) == 0 && !p.full() {
		p.errf(max(len(p.lines)-1, 1), "path: no chapters (one a line: CHAPTER MINUTES [what for], e.g. 7 10m the broker's checks)")
	}
	slices.SortStableFunc(p.errs, func(a, b *Error) int { return a.Line - b.Line })
	if p.dropped > 0 {
		p.errs = append(p.errs, &Error{p.file, p.errs[len(p.errs)-1].Line, fmt.Sprintf("too many problems: %d more not shown", p.dropped)})
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return path, nil
}

// stop reads "CHAPTER MINUTES [note]".
func (p *parser) stop(path *Path, chapters map[*Lesson]int, n int, t string, find func(string) (*Lesson, error)) {
	fields := strings.Fields(t)
	if len(fields) < 2 {
		p.errf(n, "path: a chapter's line is CHAPTER MINUTES [what for], e.g. 7 10m, got %s", script.Quote(t))
		return
	}
	if len(path.Stops) >= maxStops {
		p.errf(n, "path: more than %d chapters", maxStops)
		return
	}
	minutes, ok := stopMinutes(fields[1])
	if !ok {
		p.errf(n, "path: the time is whole minutes from 1 to %d, e.g. 10m, got %s", maxStopMinutes, script.Quote(fields[1]))
	}
	if len(fields[0]) > maxChapterName {
		p.errf(n, "path: no chapter %s (a chapter is its number or its file's name)", script.Quote(fields[0]))
		return
	}
	l, err := find(fields[0])
	if err != nil {
		p.errf(n, "path: %v", err)
		return
	}
	if first, dup := chapters[l]; dup {
		p.errf(n, "path: chapter %d is already at line %d", l.Number, first)
		return
	}
	chapters[l] = n
	note := strings.TrimSpace(t[strings.Index(t, fields[1])+len(fields[1]):])
	if ok {
		path.Stops = append(path.Stops, Stop{Line: n, Lesson: l, Minutes: minutes, Note: note})
	}
}

func stopMinutes(s string) (int, bool) {
	num, ok := strings.CutSuffix(s, "m")
	if !ok || num == "" || strings.TrimLeft(num, "0123456789") != "" || len(num) > 3 {
		return 0, false
	}
	v, err := strconv.Atoi(num)
	return v, err == nil && v >= 1 && v <= maxStopMinutes
}

func pathName(s string) bool {
	if s == "" || len(s) > 64 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == ""
}
