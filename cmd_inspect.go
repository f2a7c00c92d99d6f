package main

import (
	"bufio"
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

Files are read as streams, one batch at a time, so memory stays at the
largest batch (at most 64 MiB, compressed records decompress to at most
64 MiB) whatever the size of the file; pipes work too.

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

// inputBuffer is the read-ahead of each file: large enough that most
// batches take one read from the system, small next to the largest batch.
const inputBuffer = 256 << 10

// inspectFile prints one file as it is read and reports whether it was
// read without problems.
func inspectFile(cmd *cobra.Command, path string, asJSON, titled, spaced bool) bool {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(errOut, "eoslab inspect: %v\n", err)
		return false
	}
	defer f.Close()
	in := bufio.NewReaderSize(f, inputBuffer)
	var w inspect.BatchWriter
	if asJSON {
		w = inspect.NewJSONWriter(out, path)
	} else {
		if spaced {
			fmt.Fprintln(out)
		}
		if titled {
			fmt.Fprintf(out, "== %s\n", path)
		}
		w = inspect.NewTextWriter(out)
	}
	clean := true
	drained := func() bool { return in.Buffered() == 0 }
	err = inspect.Copy(w, in, drained, func(p error) {
		clean = false
		fmt.Fprintf(errOut, "eoslab inspect: %s: %v\n", path, p)
	})
	if err != nil {
		fmt.Fprintf(errOut, "eoslab inspect: %v\n", err)
		return false
	}
	return clean
}
