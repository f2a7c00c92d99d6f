package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/spf13/cobra"
)

// labProducers are the producers the lab can run, by --producer.
var labProducers = map[string]string{
	"idempotent": "producer p1",
	"plain":      "producer p1 plain",
	"acks1":      "producer p1 acks=1",
}

func newLabCommand(cfg *config) *cobra.Command {
	var runs, ops int
	var kind, faultSet string
	var show bool
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Run many seeded fault schedules and count duplicates, losses and reorderings",
		Long: `lab plays --runs seeded schedules. In each, producer p1 sends serial-numbered
records to orders-0..2 while the schedule injects faults. Afterwards the logs
are read (what consumers can see, below the high watermark): a serial stored
twice is a duplicate, an acknowledged serial that is missing is lost, a
serial after a larger one of the same partition is reordered.

  --faults network   (default) connections that break at a request or an
                     answer, are held back or reset, and leaders refusing a
                     batch with a retriable error before appending it
  --faults all       those, and failovers, crash and clean restarts, brokers
                     stopped and started again

  --producer idempotent   (default) must show none of the three under network
                          faults; with all faults, only duplicates by Kafka's
                          own gap (a retry older than the leader's five-batch
                          window; docs/architecture.md)
  --producer plain        enable.idempotence=false: retries duplicate and reorder
  --producer acks1        acks=1: failovers lose acknowledged records

Runs use seeds --seed, --seed+1, ...; every run is reproducible:
  eoslab lab --show --seed 17 > lab-17.eos && eoslab play lab-17.eos
Exit status 1 if an idempotent run shows what Kafka would not: anything under
network faults, a loss or a reordering under all faults.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			line, ok := labProducers[kind]
			if !ok {
				return fmt.Errorf("--producer must be idempotent, plain or acks1, not %q", kind)
			}
			if runs < 1 || ops < 1 {
				return fmt.Errorf("--runs and --ops must be at least 1")
			}
			faults, ok := sim.ParseLabFaults(faultSet)
			if !ok {
				return fmt.Errorf("--faults must be network or all, not %q", faultSet)
			}
			first := cfg.Options().Seed
			out := cmd.OutOrStdout()
			if show {
				fmt.Fprintf(out, "# eoslab lab --producer %s --faults %s --ops %d --seed %d\n", kind, faults, ops, first)
				for _, c := range sim.LabSchedule(first, line, ops, faults) {
					fmt.Fprintln(out, script.Format(c))
				}
				return nil
			}
			results, err := runLabs(first, runs, line, ops, faults)
			if err != nil {
				return err
			}
			var dupRuns, lostRuns, reorderRuns, acked, failed int
			var bad []uint64
			for i, r := range results {
				seed := first + uint64(i)
				acked += r.Acked
				failed += r.Failed
				if r.Duplicates > 0 {
					dupRuns++
				}
				if r.Lost > 0 {
					lostRuns++
				}
				if r.Reordered > 0 {
					reorderRuns++
				}
				if r.Duplicates+r.Lost+r.Reordered > 0 && len(bad) < 5 {
					bad = append(bad, seed)
				}
			}
			fmt.Fprintf(out, "%d schedules of %d commands with producer %s (seeds %d-%d)\n", runs, ops, kind, first, first+uint64(runs)-1)
			fmt.Fprintf(out, "  batches acknowledged: %d, failed or expired: %d\n", acked, failed)
			fmt.Fprintf(out, "  runs with duplicates: %d\n  runs with lost acknowledged records: %d\n  runs with reordering: %d\n", dupRuns, lostRuns, reorderRuns)
			for _, s := range bad {
				fmt.Fprintf(out, "  see one: eoslab lab --producer %s --faults %s --ops %d --show --seed %d > lab-%d.eos && eoslab play lab-%d.eos\n", kind, faults, ops, s, s, s)
			}
			if kind == "idempotent" && faults == sim.LabAll && dupRuns > 0 {
				fmt.Fprintln(out, "  (duplicates under broker faults come by Kafka's own gap: a retry older than the leader's five-batch window; docs/architecture.md)")
			}
			if kind == "idempotent" && (faults == sim.LabNetwork && len(bad) > 0 || lostRuns+reorderRuns > 0) {
				return exitError{1}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&runs, "runs", 200, "how many schedules to play")
	cmd.Flags().IntVar(&ops, "ops", 40, "commands per schedule")
	cmd.Flags().StringVar(&kind, "producer", "idempotent", "idempotent, plain or acks1")
	cmd.Flags().StringVar(&faultSet, "faults", "network", "network (lose, delay, reset, refuse) or all (also failovers, restarts, kills)")
	cmd.Flags().BoolVar(&show, "show", false, "print the schedule of --seed as a script instead of running")
	return cmd
}

// runLabs plays the runs on every core: each run is its own world, so
// they share nothing, and the results come back in seed order (the
// report, and the first failing seeds it names, do not depend on how the
// runs were spread).
func runLabs(first uint64, runs int, line string, ops int, faults sim.LabFaults) ([]sim.LabResult, error) {
	results := make([]sim.LabResult, runs)
	errs := make([]error, runs)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), runs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= runs {
					return
				}
				results[i], errs[i] = sim.RunLab(first+uint64(i), line, ops, faults)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first in seed order
		}
	}
	return results, nil
}
