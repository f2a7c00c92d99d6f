package script

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/internal/mdblock"
)

// docs/commands.md is the language's reference. These tests hold it to
// the verb table: every verb has its row and its section, every section's
// syntax line is the parser's, every example parses.

const commandsDoc = "../../docs/commands.md"

func readCommandsDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(commandsDoc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	rowLink    = regexp.MustCompile(`\]\(#([a-z0-9-]+)\)`)
)

// docVerbRows returns the verbs of the "All commands" table, with the
// anchors their rows link to.
func docVerbRows(doc string) (verbs []string, anchors []string) {
	_, table, _ := strings.Cut(doc, "\n## All commands\n")
	table, _, _ = strings.Cut(table, "\n## ")
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| [") {
			continue
		}
		first := strings.Split(line, " | ")[0]
		for _, m := range backticked.FindAllStringSubmatch(first, -1) {
			verbs = append(verbs, m[1])
		}
		for _, m := range rowLink.FindAllStringSubmatch(first, -1) {
			anchors = append(anchors, m[1])
		}
	}
	return verbs, anchors
}

// slug is GitHub's anchor for a heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// knownForm says name is a verb, or the fixed words that start one of a
// verb's forms ("failover coordinator" of "failover ... | failover
// coordinator TXN_ID").
func knownForm(name string) bool {
	if _, ok := findVerb(name); ok {
		return true
	}
	for _, v := range verbTable {
		for _, alt := range alternatives(v.Syntax) {
			if strings.HasPrefix(alt, name+" ") {
				return true
			}
		}
	}
	return false
}

// headingVerbs reads the verbs a section heading names: "lose request
// and lose response" names two, "Errors" none.
func headingVerbs(heading string) []string {
	var out []string
	for _, part := range strings.Split(heading, " and ") {
		if knownForm(part) {
			out = append(out, part)
		}
	}
	return out
}

// alternatives splits a usage at its top-level " | ": "failover
// TOPIC-PARTITION [unclean] | failover coordinator TXN_ID" is two syntax
// lines, "producer NAME [idempotent | plain | ...]" one.
func alternatives(syntax string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(syntax); i++ {
		switch syntax[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '|':
			if depth == 0 && i > 0 && syntax[i-1] == ' ' && i+1 < len(syntax) && syntax[i+1] == ' ' {
				out = append(out, strings.TrimSpace(syntax[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(syntax[start:]))
}

// The "All commands" table lists every verb the parser knows, and only
// those; each row links to a section that exists.
func TestEveryVerbHasItsRow(t *testing.T) {
	doc := readCommandsDoc(t)
	verbs, anchors := docVerbRows(doc)
	if len(verbs) == 0 {
		t.Fatal("no All commands table in docs/commands.md")
	}
	for _, v := range verbTable {
		if !slices.Contains(verbs, v.Verb) {
			t.Errorf("docs/commands.md: the All commands table has no row for %q", v.Verb)
		}
	}
	for _, v := range verbs {
		if !knownForm(v) {
			t.Errorf("docs/commands.md lists %q, which the parser does not know", v)
		}
	}
	headings := map[string]bool{}
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "#") {
			headings[slug(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
		}
	}
	for _, a := range anchors {
		if !headings[a] {
			t.Errorf("docs/commands.md: the All commands table links to #%s, which no heading makes", a)
		}
	}
}

// Every verb has a section whose first block is its syntax, exactly as
// the parser's usage (which help and error messages show) spells it, and
// every syntax line of a section is a verb's.
func TestEveryVerbHasItsSyntax(t *testing.T) {
	shown := map[string]string{} // syntax line -> heading
	sections := map[string]bool{}
	for _, b := range mdblock.Blocks(readCommandsDoc(t)) {
		vs := headingVerbs(b.Heading)
		if !b.First || len(vs) == 0 {
			continue
		}
		for _, v := range vs {
			sections[v] = true
		}
		for _, line := range b.Lines {
			shown[line] = b.Heading
			known := false
			for _, v := range verbTable {
				known = known || slices.Contains(alternatives(v.Syntax), line)
			}
			if !known {
				t.Errorf("docs/commands.md, section %q: syntax %q is no verb's usage", b.Heading, line)
			}
		}
	}
	for _, v := range verbTable {
		if !sections[v.Verb] {
			t.Errorf("docs/commands.md has no section for %q", v.Verb)
		}
		for _, alt := range alternatives(v.Syntax) {
			if _, ok := shown[alt]; !ok {
				t.Errorf("docs/commands.md does not show the syntax of %q:\n\t%s", v.Verb, alt)
			}
		}
	}
}

// Every example of the page parses: the untagged blocks that are not a
// section's syntax are scripts (output is fenced as ```text).
func TestCommandExamplesParse(t *testing.T) {
	n := 0
	for _, b := range mdblock.Blocks(readCommandsDoc(t)) {
		if b.Tag != "" || b.First && len(headingVerbs(b.Heading)) > 0 {
			continue
		}
		n++
		if _, err := ParseAt(commandsDoc, b.Line+1, []byte(b.Text())); err != nil {
			t.Errorf("example under %q does not parse:\n%v", b.Heading, err)
		}
	}
	if n < 30 {
		t.Fatalf("only %d examples found in docs/commands.md", n)
	}
}

// A misspelt verb of the table is suggested back, two-word verbs by their
// second word: the suggestion knows every verb.
func TestEveryVerbIsSuggested(t *testing.T) {
	for _, v := range verbTable {
		head, sub, two := strings.Cut(v.Verb, " ")
		typo := head[:len(head)-1] + "x"
		if two {
			typo = head + " " + sub[:len(sub)-1] + "x"
		}
		if len(head) < 4 && !two {
			typo = head + "x"
		}
		_, err := Parse("t.eos", []byte(typo))
		want := head
		if two {
			want = v.Verb
		}
		if err == nil || !strings.Contains(err.Error(), `did you mean "`+want+`"`) {
			t.Errorf("%q: got %v, want a suggestion of %q", typo, err, want)
		}
	}
}

// The page's table of example scripts lists every transactional script of
// assets/scripts, and only scripts that exist.
func TestExampleScriptsAreListed(t *testing.T) {
	doc := readCommandsDoc(t)
	_, table, _ := strings.Cut(doc, "\n## Example scripts\n")
	table, _, _ = strings.Cut(table, "\n## ")
	var listed []string
	for _, line := range strings.Split(table, "\n") {
		if m := regexp.MustCompile("^\\| `([^`]+\\.eos)` \\|").FindStringSubmatch(line); m != nil {
			listed = append(listed, m[1])
			if _, err := os.Stat("../../assets/scripts/" + m[1]); err != nil {
				t.Errorf("docs/commands.md lists %s, which assets/scripts does not hold", m[1])
			}
		}
	}
	files, _ := filepath.Glob("../../assets/scripts/txn-*.eos")
	if len(files) == 0 {
		t.Fatal("no assets/scripts/txn-*.eos")
	}
	for _, f := range files {
		if !slices.Contains(listed, filepath.Base(f)) {
			t.Errorf("docs/commands.md's Example scripts table does not list %s", filepath.Base(f))
		}
	}
}

// The producer section lists the Kafka settings the parser accepts as
// KEY=VALUE, in the parser's order (the mode key transactional= has its
// own paragraph).
func TestProducerKeysAreDocumented(t *testing.T) {
	doc := readCommandsDoc(t)
	_, para, ok := strings.Cut(doc, "The remaining `KEY=VALUE` pairs are Kafka producer settings")
	if !ok {
		t.Fatal("docs/commands.md's producer section lists no settings")
	}
	para, _, _ = strings.Cut(para, "\n\n")
	para, _, _ = strings.Cut(para, ". Any other key")
	var listed []string
	for _, m := range backticked.FindAllStringSubmatch(para, -1) {
		listed = append(listed, m[1])
	}
	want := slices.DeleteFunc(slices.Clone(producerKeys), func(k string) bool { return k == "transactional" })
	if !slices.Equal(listed, want) {
		t.Errorf("docs/commands.md's producer settings are\n%q\nthe parser's\n%q", listed, want)
	}
}

// The fail request section lists the errors it takes, as the parser does.
func TestRefusalErrorsAreDocumented(t *testing.T) {
	doc := readCommandsDoc(t)
	_, list, ok := strings.Cut(doc, "can\ngive before it writes anything:\n\n")
	if !ok {
		t.Fatal("docs/commands.md's fail request section lists no errors")
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^- `([A-Z_]+)`$").FindAllStringSubmatch(list, -1) {
		listed = append(listed, m[1])
	}
	if !slices.Equal(listed, RefusalErrors) {
		t.Errorf("docs/commands.md's fail request errors are %q, the parser's %q", listed, RefusalErrors)
	}
}

// The Errors section's messages are the parser's, word for word: the
// lines below, at the lines and columns the page shows, give them.
func TestErrorExamplesAreTheParsers(t *testing.T) {
	src := strings.Repeat("\n", 3) + "sned p1 orders-0 1\n" + // line 4
		"\n\nproducer p1 ack=all\n" + // line 7
		"\nsend p1 orders-0\n" + // line 9
		"\nsend p1 orders-0 50000000\n" // line 11
	_, err := Parse("lesson.eos", []byte(src))
	if err == nil {
		t.Fatal("the lines parse")
	}
	var shown []string
	for _, b := range mdblock.Blocks(readCommandsDoc(t)) {
		if b.Heading == "Errors" && b.Tag == "text" {
			for _, line := range b.Lines {
				if strings.HasPrefix(line, "lesson.eos:") {
					shown = append(shown, line)
				}
			}
		}
	}
	if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, shown) {
		t.Errorf("docs/commands.md's Errors section shows\n%s\nthe parser says\n%s", strings.Join(shown, "\n"), err)
	}
}
