package main

import (
	"fmt"
	"os"

	"github.com/eoslab/eoslab/ui/inspect"
	"github.com/spf13/cobra"
)

func newInspectCommand(cfg *config) *cobra.Command {
	var asJSON, interactive bool
	cmd := &cobra.Command{
		Use:   "inspect SEGMENT.log...",
		Short: "Decode Kafka log segment files batch by batch",
		Long: `inspect decodes Kafka segment files (NNNNNNNNNNNNNNNNNNNN.log): every field of
each Record Batch v2 header, the stored and computed CRC, the flags, the
producer id, epoch and sequences, and every record (markers included).

A truncated file or a corrupt batch is reported with its file position;
everything readable is still printed and the exit status is 1.

Try it on the sample that ships with eoslab:
  eoslab inspect assets/sample/00000000000000000000.log`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			if interactive {
				return runInspectTUI(cmd, cfg, files)
			}
			failed := false
			for i, f := range files {
				if !inspectFile(cmd, f, asJSON, len(files) > 1, i > 0) {
					failed = true
				}
			}
			if failed {
				return exitError{1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per batch (JSON Lines; keys in docs/inspect.md)")
	cmd.Flags().BoolVar(&interactive, "tui", false, "browse the file(s) batch by batch, byte by byte, in the interactive inspector")
	return cmd
}

// inspectFile prints one file and reports whether it was read without problems.
func inspectFile(cmd *cobra.Command, path string, asJSON, titled, spaced bool) bool {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(errOut, "eoslab inspect: %v\n", err)
		return false
	}
	batches, scanErr := inspect.Read(data)
	if !asJSON {
		if spaced {
			fmt.Fprintln(out)
		}
		if titled {
			fmt.Fprintf(out, "== %s\n", path)
		}
	}
	write := inspect.WriteText
	if asJSON {
		write = inspect.WriteJSON
	}
	if err := write(out, batches); err != nil {
		fmt.Fprintf(errOut, "eoslab inspect: %v\n", err)
		return false
	}
	problems := inspect.Problems(batches)
	if scanErr != nil {
		problems = append(problems, scanErr)
	}
	for _, p := range problems {
		fmt.Fprintf(errOut, "eoslab inspect: %s: %v\n", path, p)
	}
	return len(problems) == 0
}
