package lesson

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/internal/mdblock"
)

// docs/lessons.md is the lesson format's reference. These tests hold it
// to the parser: its example lesson loads and plays, each of its blocks
// reads as the parser reads that block, and its tables of keys, blocks
// and panels are the parser's.

const lessonsDoc = "../../docs/lessons.md"

func readLessonsDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(lessonsDoc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The page's complete lesson (the ````markdown block) loads, and plays
// with every expectation holding.
func TestLessonsDocExamplePlays(t *testing.T) {
	n := 0
	for _, b := range mdblock.Blocks(readLessonsDoc(t)) {
		if b.Tag != "markdown" {
			continue
		}
		n++
		for _, inner := range mdblock.Blocks(b.Text()) {
			if !slices.Contains(blockNames, inner.Tag) {
				t.Errorf("the example lesson's block at its line %d is not a lesson block: ```%s", inner.Line, inner.Tag)
			}
		}
		name := "docs/lessons.md, the lesson fenced at line " + strconv.Itoa(b.Line) + ", its line"
		l, err := Parse(name, []byte(b.Text()))
		if err != nil {
			t.Fatalf("the example lesson does not load:\n%v", err)
		}
		reports, ok := NewPlayer(l, 1).PlayAll()
		if !ok {
			for _, r := range reports {
				for _, f := range r.Failures(name) {
					t.Error(f)
				}
			}
		}
	}
	if n != 1 {
		t.Fatalf("want one ````markdown lesson in docs/lessons.md, found %d", n)
	}
}

// Every block of the page tagged as a lesson's block reads without error
// as that block (commands parse, predicates and choices are well formed),
// and the path file shown is a valid path.
func TestLessonsDocBlocksParse(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range mdblock.Blocks(readLessonsDoc(t)) {
		if b.Tag == "path" {
			seen["path"] = true
			anyChapter := func(string) (*Lesson, error) { return &Lesson{Number: len(b.Lines)}, nil }
			if _, err := ParsePath(lessonsDoc, []byte(b.Text()), anyChapter); err != nil {
				t.Errorf("the path file at line %d does not read:\n%v", b.Line, err)
			}
			continue
		}
		blocks := []mdblock.Block{b}
		if b.Tag == "markdown" { // the example lesson's own blocks count too
			blocks = mdblock.Blocks(b.Text())
		}
		for _, b := range blocks {
			if !slices.Contains(blockNames, b.Tag) {
				continue
			}
			seen[b.Tag] = true
			p := &parser{file: lessonsDoc}
			p.block(&Step{}, b.Tag, b.Line, b.Lines)
			for _, e := range p.errs {
				t.Errorf("```%s block: %v", b.Tag, e)
			}
		}
	}
	for _, name := range append(slices.Clone(blockNames), "path") {
		if !seen[name] {
			t.Errorf("docs/lessons.md shows no ```%s block", name)
		}
	}
}

// firstColumn returns the backticked words of the first column of the table
// that follows heading (a line of the page) up to the next heading.
func firstColumn(doc, after string) []string {
	_, rest, ok := strings.Cut(doc, after)
	if !ok {
		return nil
	}
	var out []string
	started := false
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		first := strings.Split(line, "|")[1]
		for _, m := range regexp.MustCompile("`+ *([a-z_.-]+) *`+").FindAllStringSubmatch(first, -1) {
			out = append(out, strings.TrimPrefix(m[1], "```"))
		}
	}
	return out
}

// The page's tables are the parser's lists: the front matter's keys, the
// blocks, the presenter notes' keys, the path header's keys; and its list
// of panel names is Panels().
func TestLessonsDocTables(t *testing.T) {
	doc := readLessonsDoc(t)
	var panels []string
	for _, p := range Panels() {
		panels = append(panels, string(p))
	}
	_, prose, _ := strings.Cut(doc, "Panel names: ")
	prose, _, _ = strings.Cut(prose, "\n\n")
	var docPanels []string
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(prose, -1) {
		docPanels = append(docPanels, m[1])
	}
	cases := []struct {
		what string
		doc  []string
		code []string
	}{
		{"front matter keys", firstColumn(doc, "### Front matter\n"), frontKeys},
		{"blocks", firstColumn(doc, "\n| block | what it holds |\n"), blockNames},
		{"presenter note keys", firstColumn(doc, "\n| key | what it holds |\n"), noteKeys},
		{"path keys", firstColumn(doc, "\nsummary: The coordinator, zombies"), pathKeys},
		{"panel names", docPanels, panels},
	}
	for _, c := range cases {
		if !slices.Equal(c.doc, c.code) {
			t.Errorf("docs/lessons.md's %s are %q, the parser's %q", c.what, c.doc, c.code)
		}
	}
}

// The page's example errors are the parser's (the block list, which the
// page cuts short, is compared up to its start).
func TestLessonsDocErrorExamples(t *testing.T) {
	var shown []string
	for _, b := range mdblock.Blocks(readLessonsDoc(t)) {
		for _, line := range b.Lines {
			if b.Tag == "text" && strings.HasPrefix(line, "l.md:") {
				shown = append(shown, line)
			}
		}
	}
	if len(shown) != 2 {
		t.Fatalf("want docs/lessons.md's two example errors, found %d", len(shown))
	}
	head := "---\nchapter: 1\ntitle: T\nsummary: S\n---\n\n## S\n\n"
	cases := []struct{ src, want string }{
		{head + "\n\n```presenter\nanswer: two\n```\n", shown[0]},
		{head + "```presentr\nx\n```\n", shown[1][:strings.Index(shown[1], "(blocks: ")+len("(blocks: ")]},
	}
	for _, c := range cases {
		_, err := Parse("l.md", []byte(c.src))
		found := false
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				found = found || strings.HasPrefix(line, c.want)
			}
		}
		if !found {
			t.Errorf("docs/lessons.md shows\n%s\nthe parser says\n%v", c.want, err)
		}
	}
}
