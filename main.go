// Command eoslab is a terminal lab for Kafka's exactly-once machinery.
//
// main stays thin: it builds the cobra commands, resolves configuration
// with one viper instance (flags > EOSLAB_* environment > config file >
// defaults) into typed options, and dispatches.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); a
// source build reports the module version or "devel".
var version = ""

// exitError carries a process exit status out of a command.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run executes the CLI and returns the process exit status: 0 success,
// 1 a command failed (e.g. a corrupt segment), 2 bad usage or bad input.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCommand(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	var ee exitError
	var ce *configError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ce):
		// A setting is wrong, not the command line: no usage hint.
		for _, p := range ce.problems {
			fmt.Fprintf(stderr, "eoslab: %s\n", p)
		}
		return 2
	}
	fmt.Fprintf(stderr, "eoslab: %v\n", err)
	fmt.Fprintln(stderr, "Run 'eoslab --help' for usage.")
	return 2
}

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	cfg := newConfig(stderr)
	tui := &tuiFlags{}
	root := &cobra.Command{
		Use:   "eoslab",
		Short: "A terminal lab for Kafka's exactly-once machinery",
		Long: `eoslab drives a deterministic, embedded Kafka-like engine one event at a time
and shows what the broker really does with idempotent and transactional
producers: Record Batch v2 bytes, the five-batch window, epoch fencing,
markers and the last stable offset.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := cfg.load(cmd); err != nil && needsConfig(cmd) {
				return err
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTUI(cmd, cfg, tui)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	tui.bind(root) // before the settings, which reuse its --mouse flag
	cfg.bindFlags(root)
	version, inspect, config := newVersionCommand(), newInspectCommand(cfg), newConfigCommand(cfg)
	for _, c := range []*cobra.Command{version, inspect, config} {
		c.Annotations = map[string]string{withoutConfig: "true"}
	}
	root.AddCommand(version, inspect, config, newPlayCommand(cfg), newLessonsCommand(cfg), newLabCommand(cfg), newThemesCommand(cfg), newServeCommand(cfg))
	return root
}

// withoutConfig marks a command that works whatever the settings are
// (Annotations): a broken config file must not stop `version`, `inspect`,
// `config` (which shows what is wrong with it) or `config init`. Those
// that use a setting fail with what is wrong.
const withoutConfig = "eoslab.without-config"

// needsConfig reports whether cmd uses the settings: not when it or a
// parent says withoutConfig, nor for help and shell completion.
func needsConfig(cmd *cobra.Command) bool {
	switch cmd.Name() {
	case "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
		return false
	}
	for c := cmd; c != nil; c = c.Parent() {
		if c.Annotations[withoutConfig] == "true" {
			return false
		}
	}
	return true
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "eoslab %s\n", buildVersion())
			return nil
		},
	}
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
