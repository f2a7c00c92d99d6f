package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/lessons"
	"github.com/eoslab/eoslab/ui/transcript"
	"github.com/spf13/cobra"
)

func newPlayCommand(cfg *config) *cobra.Command {
	var headless bool
	var traceFormat, stateFormat string
	cmd := &cobra.Command{
		Use:   "play SCRIPT",
		Short: "Play a script of commands on the engine and show what happens",
		Long: `play runs a script written in eoslab's command language (docs/commands.md)
on a fresh world and prints a transcript: every command, then every event it
caused, step by step, and a summary of the final state.

  --headless --trace json   one JSON object per event (JSON Lines; docs/trace.md)
  --state json              end with the final state as {"kind":"state", ...}

A malformed script is reported as file:line:col: message and nothing runs
(exit status 2). The same seed and script always give the same output.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if traceFormat != "" && traceFormat != "json" && traceFormat != "text" {
				return fmt.Errorf("--trace must be json or text, not %q", traceFormat)
			}
			if stateFormat != "" && stateFormat != "json" && stateFormat != "text" {
				return fmt.Errorf("--state must be json or text, not %q", stateFormat)
			}
			if lessons.IsLesson(args[0]) {
				return playLesson(cmd, cfg, args[0])
			}
			return play(cmd, args[0], cfg.Options().Seed, traceFormat == "json" || (stateFormat == "json" && traceFormat == ""), stateFormat != "")
		},
	}
	cmd.Flags().BoolVar(&headless, "headless", false, "play to the end without the interactive screens (scripts are always headless for now)")
	cmd.Flags().StringVar(&traceFormat, "trace", "", "event output: text (default) or json")
	cmd.Flags().StringVar(&stateFormat, "state", "", "print the final state: text or json")
	return cmd
}

func play(cmd *cobra.Command, path string, seed uint64, asJSON, withState bool) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	cmds, err := script.Parse(path, src)
	if err == nil {
		err = transcript.Check(path, seed, cmds)
	}
	if err != nil {
		var list script.ErrorList
		var one *script.Error
		switch {
		case errors.As(err, &list):
			for _, e := range list {
				fmt.Fprintln(cmd.ErrOrStderr(), e)
			}
		case errors.As(err, &one):
			fmt.Fprintln(cmd.ErrOrStderr(), one)
		default:
			return err
		}
		return exitError{2}
	}
	opt := transcript.Options{State: withState || !asJSON}
	if asJSON {
		opt.Format = transcript.JSON
	}
	return transcript.Run(cmd.OutOrStdout(), sim.New(seed), cmds, opt)
}
