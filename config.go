package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// config resolves settings with one viper instance, never the global one.
type config struct {
	v    *viper.Viper
	path string // --config
	file string // the file actually read, if any
}

// Options are the resolved, typed settings handed to the rest of the program.
type Options struct {
	Seed       uint64
	ASCII      bool
	LessonsDir string
}

// defaults lists every key with its default value.
var defaults = map[string]any{
	"seed": uint64(1),
}

func newConfig() *config {
	v := viper.New()
	for k, d := range defaults {
		v.SetDefault(k, d)
	}
	v.SetEnvPrefix("EOSLAB")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	v.AutomaticEnv()
	return &config{v: v}
}

func (c *config) bindFlags(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.StringVar(&c.path, "config", "", "config file (default $XDG_CONFIG_HOME/eoslab/config.yaml)")
	pf.Uint64("seed", 1, "seed of the engine's random choices (same seed + same commands = same run)")
	_ = c.v.BindPFlag("seed", pf.Lookup("seed"))
}

// load reads the config file: --config PATH (must exist), else the user's
// config directory (may be missing). A malformed file is an error naming it.
func (c *config) load(*cobra.Command) error {
	path, required := c.path, true
	if path == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return nil
		}
		path, required = filepath.Join(dir, "eoslab", "config.yaml"), false
	}
	c.v.SetConfigFile(path)
	if err := c.v.ReadInConfig(); err != nil {
		var nf viper.ConfigFileNotFoundError
		if !required && (errors.As(err, &nf) || errors.Is(err, os.ErrNotExist)) {
			return nil
		}
		return fmt.Errorf("config file %s: %w", path, err)
	}
	c.file = path
	return nil
}

// Options returns the resolved settings.
func (c *config) Options() Options {
	return Options{Seed: c.v.GetUint64("seed"), ASCII: c.v.GetBool("ascii"), LessonsDir: c.v.GetString("lessons_dir")}
}

// source says where the effective value of key came from.
func (c *config) source(cmd *cobra.Command, key string) string {
	if f := cmd.Flags().Lookup(key); f != nil && f.Changed {
		return "flag --" + key
	}
	env := "EOSLAB_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(key))
	if _, ok := os.LookupEnv(env); ok {
		return "environment " + env
	}
	if c.file != "" && c.v.InConfig(key) {
		return "file " + c.file
	}
	return "default"
}

func newConfigCommand(c *config) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration and where each value comes from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keys := make([]string, 0, len(defaults))
			for k := range defaults {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				fmt.Fprintf(cmd.OutOrStdout(), "%s = %v\t(%s)\n", k, c.v.Get(k), c.source(cmd, k))
			}
			return nil
		},
	}
}
