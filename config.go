package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// config resolves settings with one viper instance, never the global one.
// Precedence: flag > EOSLAB_* environment > config file > default.
type config struct {
	v      *viper.Viper
	path   string // --config
	file   string // the file actually read, if any
	warn   io.Writer
	loaded bool
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

func newConfig(warn io.Writer) *config {
	v := viper.New()
	for _, s := range settings {
		v.SetDefault(s.key, s.def)
	}
	v.SetEnvPrefix("EOSLAB")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	v.AutomaticEnv()
	return &config{v: v, warn: warn}
}

func (c *config) bindFlags(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.StringVar(&c.path, "config", "", "config file (default $XDG_CONFIG_HOME/eoslab/config.yaml)")
	for _, s := range settings {
		if f := pf.Lookup(s.flag); f != nil { // declared by the lab's own flags
			_ = c.v.BindPFlag(s.key, f)
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

// load reads the config file: --config PATH (must exist), else the user's
// config directory (may be missing). A malformed file is an error naming
// it; an unknown key is a warning and the rest still applies.
func (c *config) load(*cobra.Command) error {
	if c.loaded {
		return nil
	}
	c.loaded = true
	path, required := c.path, true
	if path == "" {
		p, err := defaultConfigPath()
		if err != nil {
			return nil
		}
		path, required = p, false
	}
	c.v.SetConfigFile(path)
	if strings.HasSuffix(path, ".yml") || filepath.Ext(path) == "" {
		c.v.SetConfigType("yaml")
	}
	if err := c.v.ReadInConfig(); err != nil {
		var nf viper.ConfigFileNotFoundError
		if !required && (errors.As(err, &nf) || errors.Is(err, os.ErrNotExist)) {
			return nil
		}
		return fmt.Errorf("config file %s: %w", path, err)
	}
	c.file = path
	known := map[string]bool{}
	for _, s := range settings {
		known[s.key] = true
	}
	for _, k := range c.v.AllKeys() {
		if !known[k] && c.v.InConfig(k) {
			fmt.Fprintf(c.warn, "eoslab: warning: %s: unknown key %q ignored%s\n", path, k, keySuggestion(k))
		}
	}
	if _, err := c.checked(); err != nil {
		return err
	}
	return nil
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

// checked converts every value to its type; a value that does not fit is
// an error naming the key and where the value came from.
func (c *config) checked() (Options, error) {
	var o Options
	var err error
	bad := func(key, want string) error {
		return fmt.Errorf("%s = %q (%s): %s", key, c.v.GetString(key), c.sourceOf(key, nil), want)
	}
	if o.Seed, err = strconv.ParseUint(c.v.GetString("seed"), 10, 64); err != nil {
		return o, bad("seed", "want a non-negative integer")
	}
	if o.ASCII, err = strconv.ParseBool(c.v.GetString("ascii")); err != nil {
		return o, bad("ascii", "want true or false")
	}
	if o.Mouse, err = strconv.ParseBool(c.v.GetString("mouse")); err != nil {
		return o, bad("mouse", "want true or false")
	}
	if o.Speed, err = strconv.ParseFloat(c.v.GetString("speed"), 64); err != nil || o.Speed <= 0 || o.Speed > 1000 {
		return o, bad("speed", "want steps per second, a number above 0 (at most 1000)")
	}
	o.Theme = c.v.GetString("theme")
	o.LessonsDir = c.v.GetString("lessons_dir")
	return o, nil
}

// Options returns the resolved settings (load has checked them).
func (c *config) Options() Options {
	o, _ := c.checked()
	return o
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
	if cmd != nil {
		if f := cmd.Flags().Lookup(flag); f != nil && f.Changed {
			return "flag --" + flag
		}
	}
	env := "EOSLAB_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(key))
	if _, ok := os.LookupEnv(env); ok {
		return "environment " + env
	}
	if c.file != "" && c.v.InConfig(key) {
		return "file " + c.file
	}
	if cmd == nil {
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if c.file != "" {
				fmt.Fprintf(out, "# config file: %s\n", c.file)
			} else if p, err := defaultConfigPath(); err == nil {
				fmt.Fprintf(out, "# config file: none (looked for %s)\n", p)
			}
			for _, s := range settings {
				fmt.Fprintf(out, "%s = %v\t(%s)\n", s.key, c.v.Get(s.key), c.source(cmd, s.key))
			}
			return nil
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
