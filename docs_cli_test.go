package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// docInvocation is one `eoslab ...` command line a page shows, with where.
type docInvocation struct {
	where string // file:line
	line  string
}

// inlineEoslab is an inline code span that is an eoslab command line.
var inlineEoslab = regexp.MustCompile("`(eoslab(?:[ \n][^`]*)?)`")

// docInvocations collects every eoslab command line of a Markdown page:
// the lines of fenced blocks that start with `eoslab` or `go run .` (a
// source build's spelling of it), and the inline code spans that start
// with `eoslab`. Only untagged and ```sh blocks are shell: ```text is
// output, ```eos and the lesson blocks are the command language.
func docInvocations(file string, src string) []docInvocation {
	var out []docInvocation
	inFence, shell := false, false
	for i, line := range strings.Split(src, "\n") {
		where := file + ":" + strconv.Itoa(i+1)
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if inFence && trimmed == "```" {
				inFence = false
				continue
			}
			if !inFence {
				inFence = true
				tag := strings.TrimPrefix(trimmed, "```")
				shell = tag == "" || tag == "sh"
				continue
			}
		}
		if inFence {
			if !shell {
				continue
			}
			if rest, ok := strings.CutPrefix(trimmed, "go run . "); ok {
				out = append(out, docInvocation{where, "eoslab " + rest})
			} else if trimmed == "go run ." {
				out = append(out, docInvocation{where, "eoslab"})
			} else if trimmed == "eoslab" || strings.HasPrefix(trimmed, "eoslab ") {
				out = append(out, docInvocation{where, trimmed})
			}
			continue
		}
		for _, m := range inlineEoslab.FindAllStringSubmatch(line, -1) {
			out = append(out, docInvocation{where, m[1]})
		}
	}
	// Inline spans broken over two lines.
	for _, m := range inlineEoslab.FindAllStringSubmatchIndex(src, -1) {
		span := src[m[2]:m[3]]
		if strings.Contains(span, "\n") {
			line := strings.Count(src[:m[0]], "\n") + 1
			out = append(out, docInvocation{file + ":" + strconv.Itoa(line), strings.ReplaceAll(span, "\n", " ")})
		}
	}
	return out
}

// shellWords splits a documented command line into the words eoslab
// receives: up to a pipe, a redirection or a comment, with the brackets
// of optional parts and the quotes dropped.
func shellWords(line string) []string {
	var words []string
	for _, w := range strings.Fields(line) {
		if w == "|" || w == "#" || w == "&&" || w == ";" || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>") {
			break
		}
		w = strings.Trim(w, "[]'\"")
		if w == "" || w == "..." || w == "…" {
			continue
		}
		words = append(words, w)
	}
	return words
}

// placeholder says a word stands for a value the reader fills in
// (N, FILE, SEGMENT.log..., LESSON).
var placeholder = regexp.MustCompile(`^[A-Z][A-Z0-9_]*(\.[a-z]+)?(\.\.\.|…)?$`)

// checkInvocation finds the command a documented line names in the
// cobra tree and parses its flags there: an unknown subcommand or flag,
// or a flag whose value does not parse, is an error.
func checkInvocation(root *cobra.Command, words []string) string {
	args := words[1:]
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err.Error()
	}
	// A word after a command that only groups others (`eoslab lessons`)
	// is a subcommand Find did not know.
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && cmd.HasSubCommands() {
		return "unknown command " + strconv.Quote(rest[0]) + " for " + strconv.Quote(cmd.CommandPath())
	}
	// Placeholders stand for values; give each flag a value of its type.
	var fixed []string
	for i, w := range rest {
		if placeholder.MatchString(w) && i > 0 && strings.HasPrefix(rest[i-1], "--") && !strings.Contains(rest[i-1], "=") {
			if f := cmd.Flags().Lookup(strings.TrimPrefix(rest[i-1], "--")); f != nil && f.Value.Type() != "string" {
				w = "1"
			}
		}
		fixed = append(fixed, w)
	}
	if err := cmd.ParseFlags(fixed); err != nil {
		return cmd.CommandPath() + ": " + err.Error()
	}
	return ""
}

// Every eoslab command line the README and the docs show names a
// subcommand that exists and only flags it has, with values of the
// flag's type: the pages are the CLI's reference.
func TestDocumentedInvocationsExist(t *testing.T) {
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md")
	seen := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range docInvocations(file, string(src)) {
			words := shellWords(inv.line)
			if len(words) == 0 {
				continue
			}
			seen++
			root := newRootCommand(io.Discard, io.Discard)
			if msg := checkInvocation(root, words); msg != "" {
				t.Errorf("%s: `%s`: %s", inv.where, inv.line, msg)
			}
		}
	}
	if seen < 40 {
		t.Fatalf("found only %d eoslab command lines in the docs: the scan is broken", seen)
	}
}

// The scan itself catches what it must: an unknown subcommand, an unknown
// flag, a flag of the wrong subcommand and a value of the wrong type.
func TestDocumentedInvocationCheck(t *testing.T) {
	cases := []struct {
		line string
		bad  bool
	}{
		{"eoslab play 7 --headless", false},
		{"eoslab play --seed N FILE", false},
		{"eoslab inspect [--json] SEGMENT.log...", false},
		{"eoslab lessons check my-lesson.md    # a comment --nope", false},
		{"eoslab play --headless --trace json --state json x.eos | jq -c 'select(.kind)'", false},
		{"eoslab play 7 --headles", true},
		{"eoslab inspect --tui --presenter FILE", true},
		{"eoslab play 7 --speed fast", true},
		{"eoslab lessons chek", true},
	}
	for _, c := range cases {
		root := newRootCommand(io.Discard, io.Discard)
		msg := checkInvocation(root, shellWords(c.line))
		if (msg != "") != c.bad {
			t.Errorf("%q: got %q, want an error: %v", c.line, msg, c.bad)
		}
	}
}

// readmeTable returns the rows of the README table under the header line
// header, each split into its cells.
func readmeTable(t *testing.T, header string) [][]string {
	t.Helper()
	src, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), "\n"+header+"\n")
	if !ok {
		t.Fatalf("README.md has no table %q", header)
	}
	var rows [][]string
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

// The README's Commands table has a row for every command of the CLI.
func TestReadmeListsEveryCommand(t *testing.T) {
	rows := readmeTable(t, "| command | what it does |")
	var firsts []string
	for _, r := range rows {
		firsts = append(firsts, r[0])
	}
	first := strings.Join(firsts, "\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			path := strings.TrimPrefix(sub.CommandPath(), "eoslab ")
			if !regexp.MustCompile("`(eoslab )?" + regexp.QuoteMeta(path) + "[ `]").MatchString(first) {
				t.Errorf("README.md's Commands table has no row for `%s`", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(newRootCommand(io.Discard, io.Discard))
}

// The README's Configuration table is the settings: every key with its
// flag and default, in the order `eoslab config` prints them.
func TestReadmeListsEverySetting(t *testing.T) {
	rows := readmeTable(t, "| key | flag | default | |")
	if len(rows) != len(settings) {
		t.Errorf("README.md's Configuration table has %d rows, eoslab %d settings", len(rows), len(settings))
	}
	for i, s := range settings {
		if i >= len(rows) {
			break
		}
		def := ""
		if d := fmt.Sprint(s.def); d != "" {
			def = "`" + d + "`"
		}
		want := []string{"`" + s.key + "`", "`--" + s.flag + "`", def}
		if got := rows[i][:3]; !slices.Equal(got, want) {
			t.Errorf("README.md's Configuration row %d: %q, want %q", i+1, got, want)
		}
	}
}

// Every flag of every command is named (`--NAME`) in the README or a page
// of docs/: a flag added without a word for its users fails here.
func TestEveryFlagIsDocumented(t *testing.T) {
	files, _ := filepath.Glob("docs/*.md")
	var all strings.Builder
	for _, f := range append(files, "README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	docs := all.String()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && f.Name != "help" && !regexp.MustCompile(`--`+regexp.QuoteMeta(f.Name)+`\b`).MatchString(docs) {
				t.Errorf("%s --%s is documented nowhere in README.md or docs/", c.CommandPath(), f.Name)
			}
		})
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && f.Name != "help" && !regexp.MustCompile(`--`+regexp.QuoteMeta(f.Name)+`\b`).MatchString(docs) {
				t.Errorf("%s --%s is documented nowhere in README.md or docs/", c.CommandPath(), f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand(io.Discard, io.Discard))
}

// docs/architecture.md's package tables name every package of the module
// (a row may cover several: `ui/panel/*`), and only packages that exist.
func TestArchitectureListsEveryPackage(t *testing.T) {
	src, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, line := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.Split(line, " | ")[0]
		for _, m := range regexp.MustCompile("`([a-z][a-z0-9/*]*)`").FindAllStringSubmatch(cell, -1) {
			named = append(named, m[1])
		}
	}
	covers := func(dir string) bool {
		for _, n := range named {
			if n == dir || n == "main" && dir == "." {
				return true
			}
			if base, ok := strings.CutSuffix(n, "/*"); ok && filepath.Dir(dir) == base {
				return true
			}
		}
		return false
	}
	var dirs []string
	filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			if dir := filepath.Dir(path); !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	for _, dir := range dirs {
		if !covers(dir) {
			t.Errorf("docs/architecture.md's package tables have no row for %s", dir)
		}
	}
	for _, n := range named {
		if n == "main" {
			continue
		}
		if fi, err := os.Stat(strings.TrimSuffix(n, "/*")); err != nil || !fi.IsDir() {
			t.Errorf("docs/architecture.md has a row for %s, which is no directory", n)
		}
	}
}

// docs/serve.md's table of flags gives every flag of `eoslab serve` with
// its default, and only its flags.
func TestServeFlagsAreDocumented(t *testing.T) {
	src, err := os.ReadFile("docs/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(src), "\n| flag | default | |\n")
	if !ok {
		t.Fatal("docs/serve.md has no table of flags")
	}
	root := newRootCommand(io.Discard, io.Discard)
	serve, _, err := root.Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, line := range strings.Split(table, "\n")[1:] {
		if !strings.HasPrefix(line, "| `") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		names := regexp.MustCompile(`--([a-z-]+)`).FindAllStringSubmatch(cells[0], -1)
		defs := strings.Split(strings.TrimSpace(cells[1]), ", ")
		for i, m := range names {
			documented[m[1]] = true
			f := serve.Flags().Lookup(m[1])
			if f == nil {
				f = serve.InheritedFlags().Lookup(m[1])
			}
			if f == nil {
				t.Errorf("docs/serve.md lists --%s, which eoslab serve does not have", m[1])
				continue
			}
			def := ""
			if i < len(defs) {
				def = strings.Trim(defs[i], "`")
			}
			if def == "off" {
				def = "false"
			}
			if want := f.DefValue; def != want && !(want == "" && def == "") {
				t.Errorf("docs/serve.md: --%s defaults to %q, the flag to %q", m[1], def, want)
			}
		}
	}
	serve.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" && !documented[f.Name] {
			t.Errorf("docs/serve.md's flag table has no row for --%s", f.Name)
		}
	})
}

// docs/inspect.md's example errors are what inspect says of the sample
// with a byte flipped in its second batch (the computed CRC depends on
// which) and of the sample cut at byte 700.
func TestInspectErrorExamples(t *testing.T) {
	src, err := os.ReadFile("docs/inspect.md")
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "eoslab inspect: ") {
			shown = append(shown, line)
		}
	}
	if len(shown) != 2 {
		t.Fatalf("want docs/inspect.md's two example errors, found %d", len(shown))
	}
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "00000000000000000000.log")
	flipped := slices.Clone(data)
	flipped[261+61] ^= 0xff // a record byte of the batch at 261, inside the CRC's range
	for i, c := range []struct {
		data []byte
		want string
	}{
		{flipped, shown[0][:strings.Index(shown[0], "computed 0x")]},
		{data[:700], shown[1]},
	} {
		os.WriteFile(file, c.data, 0o644)
		_, _, errOut := runCLI(t, "inspect", file)
		got := strings.ReplaceAll(strings.SplitN(errOut, "\n", 2)[0], dir+string(filepath.Separator), "")
		if !strings.HasPrefix(got, c.want) || i == 1 && got != c.want {
			t.Errorf("docs/inspect.md shows\n%s\ninspect says\n%s", shown[i], got)
		}
	}
}
