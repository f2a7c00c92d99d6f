package main

import (
	"io"
	"testing"

	"github.com/spf13/cobra"

	"github.com/eoslab/eoslab/lessons"
)

// inspect --tui: the lab it opens runs with the configured seed (worlds
// opened from it once ran with seed 0) and has the lab's chapters and
// progress store, not only the example scripts.
func TestInspectTUIOptions(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("EOSLAB_THEME", "dark") // no question to the terminal
	for _, c := range []struct {
		name string
		args []string
		env  string
		want uint64
	}{
		{"flag", []string{"--seed", "42"}, "", 42},
		{"environment", nil, "77", 77},
		{"default", nil, "", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("EOSLAB_SEED", c.env)
			}
			root := &cobra.Command{Use: "eoslab"}
			cfg := newConfig(io.Discard)
			(&tuiFlags{}).bind(root)
			cfg.bindFlags(root)
			if err := root.ParseFlags(c.args); err != nil {
				t.Fatal(err)
			}
			if err := cfg.load(root); err != nil {
				t.Fatal(err)
			}
			opt, err := inspectOptions(cfg, []string{sample})
			if err != nil {
				t.Fatal(err)
			}
			if opt.Seed != c.want || len(opt.Inspect) != 1 || opt.Inspect[0].Name != "00000000000000000000.log" {
				t.Fatalf("seed %d (want %d), files %d", opt.Seed, c.want, len(opt.Inspect))
			}
			chapters, err := opt.Catalog()
			builtin, _ := lessons.Builtin()
			if err != nil || len(builtin) == 0 || len(chapters) < len(builtin)+11 || opt.LoadProgress == nil || opt.SaveProgress == nil {
				t.Fatalf("catalog: %d chapters (%v), progress store %v", len(chapters), err, opt.SaveProgress != nil)
			}
		})
	}
	if _, err := inspectOptions(newConfig(io.Discard), []string{"no-such.log"}); err == nil {
		t.Fatal("a missing file is an error")
	}
}
