package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/internal/fileio"
)

// config resolves settings with one viper instance, never the global one.
// Precedence: flag > EOSLAB_* environment > config file > default.
type config struct {
	v      *viper.Viper
	path   string // --config
	file   string // the file actually read, if any
	broken string // a file that exists but could not be read
	warn   io.Writer
	loaded bool
	err    error                  // what load found wrong; commands that need the settings fail with it
	flags  map[string]*pflag.Flag // each key's flag, to tell a flag given from its default
	nodes  map[string]*yaml.Node  // each top-level key's value in the file, for its text, type and line
}

// Options are the resolved, typed settings handed to the rest of the program.
type Options struct {
	Seed       uint64
	Theme      string // a theme name, or "auto" (dark or light from the terminal)
	ASCII      bool
	Mouse      bool
	Speed      float64 // autoplay: steps per second
	LessonsDir string
}

// setting is one configuration key.
type setting struct {
	key, flag string
	def       any
	usage     string // also the comment in `config init`
}

// settings lists every key, in the order `config` prints them.
var settings = []setting{
	{"theme", "theme", "auto", "colour theme: auto, dark, light, high-contrast, okabe-ito, mono, or a file's name from the themes directory"},
	{"ascii", "ascii", false, "draw with ASCII only: no box-drawing or other non-ASCII glyphs"},
	{"mouse", "mouse", true, "let the lab use the mouse (click timeline events, scroll panels)"},
	{"speed", "speed", 2.0, "autoplay speed in steps per second"},
	{"lessons_dir", "lessons-dir", "", "a directory of extra lesson files (*.md) for the chapter list"},
	{"seed", "seed", uint64(1), "seed of the engine's random choices (same seed + same commands = same run)"},
}

// maxConfigBytes bounds the config file: six short keys fit in a few
// hundred bytes, so a larger file is a mistake, and it is not read on.
const maxConfigBytes = 1 << 20

func newConfig(warn io.Writer) *config {
	v := viper.New()
	for _, s := range settings {
		v.SetDefault(s.key, s.def)
	}
	v.SetEnvPrefix("EOSLAB")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	v.AutomaticEnv()
	return &config{v: v, warn: warn, flags: map[string]*pflag.Flag{}, nodes: map[string]*yaml.Node{}}
}

func (c *config) bindFlags(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.StringVar(&c.path, "config", "", "config file (default $XDG_CONFIG_HOME/eoslab/config.yaml)")
	for _, s := range settings {
		if f := pf.Lookup(s.flag); f != nil { // declared by the lab's own flags
			_ = c.v.BindPFlag(s.key, f)
			c.flags[s.key] = f
			continue
		}
		switch d := s.def.(type) {
		case string:
			pf.String(s.flag, d, s.usage)
		case bool:
			pf.Bool(s.flag, d, s.usage)
		case float64:
			pf.Float64(s.flag, d, s.usage)
		case uint64:
			pf.Uint64(s.flag, d, s.usage)
		}
		_ = c.v.BindPFlag(s.key, pf.Lookup(s.flag))
		c.flags[s.key] = pf.Lookup(s.flag)
	}
}

// defaultConfigPath is $XDG_CONFIG_HOME/eoslab/config.yaml, or the OS's
// user configuration directory.
func defaultConfigPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "eoslab", "config.yaml"), nil
}

// configError is a problem with the settings: reported as it is, one
// problem a line, without the usage hint of a mistyped command.
type configError struct{ problems []string }

func (e *configError) Error() string { return strings.Join(e.problems, "\n") }

// load reads the config file — --config PATH (must exist), else the
// user's config directory (may be missing) — and checks every setting,
// whatever its source: a bad EOSLAB_SEED is as wrong without a file as
// with one. What it finds is kept in c.err rather than stopping the
// program: version, inspect, config and config init work without the
// settings, and config is how a broken file is looked into. An unknown
// key is a warning and the rest still applies.
func (c *config) load(*cobra.Command) error {
	if c.loaded {
		return c.err
	}
	c.loaded = true
	if err := c.read(); err != nil {
		c.err = err
		return err
	}
	if _, err := c.checked(); err != nil {
		c.err = err
	}
	return c.err
}

// read reads and parses the config file, if there is one.
func (c *config) read() error {
	path, required := c.path, true
	if path == "" {
		p, err := defaultConfigPath()
		if err != nil {
			return nil
		}
		path, required = p, false
	}
	data, err := fileio.ReadLimited(path, maxConfigBytes, "a config file")
	if err != nil {
		if !required && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return &configError{[]string{"config file " + fileProblem(err)}}
	}
	return c.use(path, data)
}

// use takes the settings of a config file's content.
func (c *config) use(path string, data []byte) error {
	if err := c.parse(path, data); err != nil {
		c.broken = path
		return err
	}
	c.v.SetConfigType("yaml")
	if err := c.v.ReadConfig(bytes.NewReader(data)); err != nil {
		c.broken = path
		return &configError{[]string{fmt.Sprintf("config file %s: %s", path, script.Excerpt(err.Error(), 200))}}
	}
	c.file = path
	known := map[string]bool{}
	for _, s := range settings {
		known[s.key] = true
	}
	for _, k := range c.v.AllKeys() {
		if !known[k] && c.v.InConfig(k) {
			fmt.Fprintf(c.warn, "eoslab: warning: %s: unknown key %s ignored%s\n", path, script.Quote(k), keySuggestion(k))
		}
	}
	return nil
}

// parse checks the file's YAML and keeps the node of every top-level
// key, so that a bad value is reported with its line and its text as
// written (viper would hand over 99999999999999999999 as a float).
func (c *config) parse(path string, data []byte) error {
	fail := func(line int, format string, a ...any) error {
		return &configError{[]string{fmt.Sprintf("config file %s:%d: %s", path, line, fmt.Sprintf(format, a...))}}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlErrorLine(err.Error())
		// A problem found at the end of the file (an unclosed list) is
		// the last line's, not that of the empty line after it.
		line = min(line, lastLine(data))
		if line == 0 {
			return &configError{[]string{fmt.Sprintf("config file %s: %s", path, script.Excerpt(msg, 200))}}
		}
		return fail(line, "%s", script.Excerpt(msg, 200))
	}
	if len(doc.Content) == 0 {
		return nil // an empty file, or only comments
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fail(root.Line, "want one \"key: value\" a line, got %s", kindOf(root))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		key := strings.ToLower(k.Value)
		if first, dup := seen[key]; dup {
			return fail(k.Line, "%s given twice (first on line %d)", script.Quote(k.Value), first)
		}
		seen[key] = k.Line
		var any any
		if err := v.Decode(&any); err != nil {
			return fail(v.Line, "%s: %s", key, script.Excerpt(strings.TrimPrefix(err.Error(), "yaml: "), 200))
		}
		c.nodes[key] = v
	}
	return nil
}

// parserProblems are the problems go.yaml.in/yaml/v3 reports from its
// parser (parserc.go) rather than its scanner: for them it prints the
// line counted from 0 (decode.go, parser.fail adds 1 for scanner errors
// only), so "line 1" means the second line, and no line the first.
var parserProblems = []string{
	"did not find expected ',' or ']'", "did not find expected ',' or '}'", "did not find expected '-' indicator",
	"did not find expected <document start>", "did not find expected <stream-start>", "did not find expected key",
	"did not find expected node content", "found duplicate %TAG directive", "found duplicate %YAML directive",
	"found incompatible YAML document", "found undefined tag handle",
}

var yamlLineRE = regexp.MustCompile(`^line (\d+): (.*)$`)

// yamlErrorLine takes a YAML error apart into the 1-based line it is
// about (0: not known) and the problem.
func yamlErrorLine(msg string) (int, string) {
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if slices.Contains(parserProblems, msg) {
		line++
	}
	return line, msg
}

// lastLine is the number of the last line that holds anything.
func lastLine(data []byte) int {
	lines := bytes.Split(data, []byte("\n"))
	for len(lines) > 0 && len(bytes.TrimSpace(lines[len(lines)-1])) == 0 {
		lines = lines[:len(lines)-1]
	}
	return len(lines)
}

// kindOf names what a YAML node holds, for "want ..., got ...".
func kindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a map"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return script.Quote(n.Value)
	}
	return "nothing"
}

func keySuggestion(k string) string {
	keys := make([]string, len(settings))
	for i, s := range settings {
		keys[i] = s.key
	}
	if s := script.Suggest(strings.ReplaceAll(k, "-", "_"), keys); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// raw is a setting as it was written where it came from: the text, and
// for a value of the file that is not a single value, what it is.
type raw struct {
	text   string
	nonStr string // "a list", "a map", "nothing": the file gave no text
	from   string // sourceOf's words
}

// rawValue returns key's effective value before any conversion: a flag's
// text, the environment variable's, the file's scalar as written, or the
// default. Checking the text, not viper's conversion of it, is what lets
// an error echo what the user wrote.
func (c *config) rawValue(key string) raw {
	from := c.sourceOf(key, nil)
	if f := c.flags[key]; f != nil && f.Changed {
		return raw{text: f.Value.String(), from: from}
	}
	if v, ok := os.LookupEnv(envName(key)); ok {
		return raw{text: v, from: from}
	}
	if n, ok := c.nodes[key]; ok && c.file != "" {
		from = fmt.Sprintf("file %s:%d", c.file, n.Line)
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			return raw{nonStr: kindOf(n), from: from}
		}
		return raw{text: n.Value, from: from}
	}
	for _, s := range settings {
		if s.key == key {
			return raw{text: fmt.Sprint(s.def), from: from}
		}
	}
	return raw{from: from}
}

// checked converts every value to its type. A value that does not fit is
// a problem naming the key, where the value came from (a file's with its
// line) and the text as written; the Options hold the default in its
// place, so that what does not depend on it can go on.
func (c *config) checked() (Options, error) {
	o := Options{Seed: 1, Theme: "auto", Mouse: true, Speed: 2}
	var problems []string
	bad := func(key string, r raw, want string) {
		got := script.Quote(r.text)
		if r.nonStr != "" {
			problems = append(problems, fmt.Sprintf("%s (%s): %s, got %s", key, r.from, want, r.nonStr))
			return
		}
		problems = append(problems, fmt.Sprintf("%s = %s (%s): %s", key, got, r.from, want))
	}
	if r := c.rawValue("seed"); r.nonStr != "" {
		bad("seed", r, "want a non-negative integer")
	} else if n, err := strconv.ParseUint(r.text, 10, 64); errors.Is(err, strconv.ErrRange) {
		bad("seed", r, "want a non-negative integer of at most 64 bits (18446744073709551615)")
	} else if err != nil {
		bad("seed", r, "want a non-negative integer")
	} else {
		o.Seed = n
	}
	for _, b := range []struct {
		key string
		dst *bool
	}{{"ascii", &o.ASCII}, {"mouse", &o.Mouse}} {
		r := c.rawValue(b.key)
		if v, err := strconv.ParseBool(r.text); r.nonStr != "" || err != nil {
			bad(b.key, r, "want true or false")
		} else {
			*b.dst = v
		}
	}
	if r := c.rawValue("speed"); r.nonStr != "" {
		bad("speed", r, "want steps per second, a number above 0 (at most 1000)")
	} else if f, err := strconv.ParseFloat(r.text, 64); err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 || f > 1000 {
		bad("speed", r, "want steps per second, a number above 0 (at most 1000)")
	} else {
		o.Speed = f
	}
	for _, s := range []struct {
		key string
		dst *string
	}{{"theme", &o.Theme}, {"lessons_dir", &o.LessonsDir}} {
		if r := c.rawValue(s.key); r.nonStr != "" && r.nonStr != "nothing" {
			bad(s.key, r, "want a name")
		} else {
			*s.dst = r.text
		}
	}
	if o.Theme == "" {
		o.Theme = "auto"
	}
	if len(problems) > 0 {
		return o, &configError{problems}
	}
	return o, nil
}

// Options returns the resolved settings; a setting that is wrong (load
// has said so) is at its default.
func (c *config) Options() Options {
	o, _ := c.checked()
	return o
}

// envName is the environment variable of a key.
func envName(key string) string {
	return "EOSLAB_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(key))
}

// source says where the effective value of key came from.
func (c *config) source(cmd *cobra.Command, key string) string { return c.sourceOf(key, cmd) }

func (c *config) sourceOf(key string, cmd *cobra.Command) string {
	flag := key
	for _, s := range settings {
		if s.key == key {
			flag = s.flag
		}
	}
	if f := c.flags[key]; f != nil && f.Changed {
		return "flag --" + flag
	}
	if cmd != nil {
		if f := cmd.Flags().Lookup(flag); f != nil && f.Changed {
			return "flag --" + flag
		}
	}
	if _, ok := os.LookupEnv(envName(key)); ok {
		return "environment " + envName(key)
	}
	if c.file != "" && c.v.InConfig(key) {
		return "file " + c.file
	}
	if cmd == nil && c.flags[key] == nil {
		return "a flag or the default"
	}
	return "default"
}

func newConfigCommand(c *config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration and where each value comes from",
		Long: `config prints every setting with its value and where that value came from.
Precedence: flag > EOSLAB_* environment variable > config file > default.
The config file is --config PATH, else $XDG_CONFIG_HOME/eoslab/config.yaml
(the user configuration directory of the OS when XDG_CONFIG_HOME is unset).`,
		Args: cobra.NoArgs,
		// config works whatever load found: it is how a broken file is
		// looked into. It shows what it can, then the problems (exit 2).
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			switch {
			case c.file != "":
				fmt.Fprintf(out, "# config file: %s\n", c.file)
			case c.broken != "":
				fmt.Fprintf(out, "# config file: %s (not read: see below; its values are left out)\n", c.broken)
			case c.path != "":
				fmt.Fprintf(out, "# config file: %s (not read: see below)\n", c.path)
			default:
				if p, err := defaultConfigPath(); err == nil {
					fmt.Fprintf(out, "# config file: none (looked for %s)\n", p)
				}
			}
			for _, s := range settings {
				r := c.rawValue(s.key)
				v := r.text
				if r.nonStr != "" {
					v = "(" + r.nonStr + ")"
				}
				fmt.Fprintf(out, "%s = %s\t(%s)\n", s.key, script.Excerpt(v, 200), c.source(cmd, s.key))
			}
			return c.err
		},
	}
	initCmd := &cobra.Command{
		Use:   "init [PATH]",
		Short: "Write a commented default config file (never overwrites one)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := c.path
			if len(args) == 1 {
				path = args[0]
			}
			if path == "" {
				p, err := defaultConfigPath()
				if err != nil {
					return fmt.Errorf("no user configuration directory: give a path (%v)", err)
				}
				path = p
			}
			if _, err := os.Stat(path); err == nil {
				return fmt.Errorf("%s exists already: not overwritten", path)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := f.WriteString(defaultConfigText()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", path)
			return nil
		},
	}
	cmd.AddCommand(initCmd)
	return cmd
}

// defaultConfigText is the file `config init` writes: every key at its
// default, commented out, with what it does.
func defaultConfigText() string {
	var b strings.Builder
	b.WriteString("# eoslab configuration. Every key is optional; shown with its default.\n")
	b.WriteString("# Precedence: command-line flag > EOSLAB_<KEY> environment variable > this file > default.\n\n")
	for _, s := range settings {
		fmt.Fprintf(&b, "# %s\n", s.usage)
		v := fmt.Sprint(s.def)
		if str, ok := s.def.(string); ok {
			v = strconv.Quote(str)
		}
		fmt.Fprintf(&b, "# %s: %s\n\n", s.key, v)
	}
	return b.String()
}
