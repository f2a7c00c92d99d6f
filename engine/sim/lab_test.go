package sim

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

// The lab (seed 000's "small lab"): a producer sends serial-numbered
// records to three partitions while a seeded schedule loses requests and
// responses, delays messages so that others overtake them, fails
// partitions over cleanly and restarts brokers. Afterwards every serial
// the producer was told is written must be in its partition exactly once,
// no serial may appear twice, and serials must be in order per partition.
// The same check must catch duplicates from a plain producer and loss or
// duplicates from acks=1 with failovers, or it proves nothing.

type labResult struct {
	dups, lost, reordered int // found by the independent check
	anomalies             []Anomaly
	acked, failed         int
}

func labSchedule(rng *rand.Rand, producerLine string, ops int) []script.Command {
	// Warm-up: every partition's replicas learn the producer first. A
	// broker that knows nothing of a producer accepts any first sequence
	// (KIP-360), so a lost or overtaken first batch is not detectable;
	// testdata/first-batch-overtaken.eos shows that case on its own.
	cmds := []script.Command{mustLine(producerLine),
		mustLine("send p1 orders-0 1"), mustLine("send p1 orders-1 1"), mustLine("send p1 orders-2 1"), mustLine("run")}
	tp := func() string { return "orders-" + strconv.Itoa(rng.IntN(3)) }
	for range ops {
		var line string
		switch r := rng.IntN(100); {
		case r < 40:
			line = fmt.Sprintf("send p1 %s %d", tp(), 1+rng.IntN(3))
		case r < 50:
			line = "lose request p1"
		case r < 60:
			line = "lose response p1"
		case r < 66:
			line = "delay request p1"
		case r < 70:
			line = "delay response p1"
		case r < 76:
			line = "failover " + tp()
		case r < 80:
			// Crash restarts: state is rebuilt from the log. (A clean
			// restart keeps one batch per producer in its snapshot, which
			// Kafka cannot always survive: testdata/clean-restart-window.eos.)
			line = fmt.Sprintf("restart broker %d", 1+rng.IntN(3))
		default:
			line = fmt.Sprintf("step %d", 1+rng.IntN(12))
		}
		cmds = append(cmds, mustLine(line))
	}
	return append(cmds, mustLine("run"))
}

func mustLine(s string) script.Command {
	c, err := script.ParseLine(s)
	if err != nil {
		panic(err)
	}
	return c
}

func runLab(t *testing.T, seed uint64, producerLine string, ops int) labResult {
	rng := rand.New(rand.NewPCG(seed, 0x1ab))
	w := New(seed)
	w.SetTracing(false) // the checker does not need the events
	for _, c := range labSchedule(rng, producerLine, ops) {
		if _, err := w.Apply(c); err != nil {
			t.Fatalf("seed %d: %s: %v", seed, script.Format(c), err)
		}
	}
	s := w.Snapshot()
	res := labResult{anomalies: s.Anomalies}
	for _, p := range s.Partitions {
		seen := map[int64]bool{}
		last := int64(-1)
		for _, r := range p.Log {
			serial, ok := labSerial(r.Value)
			if !ok {
				continue
			}
			if seen[serial] {
				res.dups++
				continue
			}
			seen[serial] = true
			if serial < last {
				res.reordered++
			}
			last = max(last, serial)
		}
		for _, pr := range s.Producers {
			for _, b := range pr.Batches {
				if b.Partition != p.Name {
					continue
				}
				switch b.State {
				case "acked":
					res.acked++
					for i := int64(0); i < int64(b.Count); i++ {
						if !seen[b.FirstSerial+i] {
							res.lost++
						}
					}
				case "failed", "expired":
					res.failed++
				}
			}
		}
	}
	return res
}

func labSerial(v []byte) (int64, bool) {
	s, ok := strings.CutPrefix(string(v), "p1-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func labRuns(t *testing.T, full int) int {
	if testing.Short() {
		return full / 10
	}
	return full
}

func TestLabIdempotentHoldsUnderFaults(t *testing.T) {
	runs := labRuns(t, 2000)
	acked, failed := 0, 0
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		r := runLab(t, seed, "producer p1", 40)
		if r.dups+r.lost+r.reordered > 0 || len(r.anomalies) > 0 {
			t.Fatalf("seed %d: %d duplicate(s), %d lost, %d reordered; checker: %v", seed, r.dups, r.lost, r.reordered, r.anomalies)
		}
		acked += r.acked
		failed += r.failed
	}
	t.Logf("idempotent, acks=all: %d fault schedules, %d batches acknowledged, %d failed or expired, 0 duplicates, 0 lost, 0 reordered", runs, acked, failed)
	if acked == 0 {
		t.Fatal("nothing was acknowledged: the lab did not run")
	}
}

// The control: the same schedules with enable.idempotence=false. Lost
// answers make retries write second copies; with five requests in flight
// retries also overtake later batches. The check must see it.
func TestLabPlainProducerDuplicates(t *testing.T) {
	runs := labRuns(t, 500)
	withDups, withReorder, flagged := 0, 0, 0
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		r := runLab(t, seed, "producer p1 plain", 40)
		if r.dups > 0 {
			withDups++
		}
		if r.reordered > 0 {
			withReorder++
		}
		if len(r.anomalies) > 0 {
			flagged++
		}
		if (r.dups > 0) != hasAnomaly(r.anomalies, "duplicate") {
			t.Fatalf("seed %d: independent check found %d duplicates, the world's checker %v", seed, r.dups, r.anomalies)
		}
	}
	t.Logf("plain producer: %d schedules, %d with duplicates, %d with reordering, %d flagged by the checker", runs, withDups, withReorder, flagged)
	if withDups == 0 || withReorder == 0 {
		t.Fatal("the control never failed: the lab cannot detect duplicates or reordering")
	}
}

// acks=1 (idempotence silently off) with failovers loses acknowledged data.
func TestLabAcksOneLosesData(t *testing.T) {
	runs := labRuns(t, 500)
	withLoss := 0
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		r := runLab(t, seed, "producer p1 acks=1", 40)
		if r.lost > 0 {
			withLoss++
		}
		if (r.lost > 0) != hasAnomaly(r.anomalies, "lost") {
			t.Fatalf("seed %d: independent check found %d lost, the world's checker %v", seed, r.lost, r.anomalies)
		}
	}
	t.Logf("acks=1 with failovers: %d schedules, %d of them lost acknowledged records", runs, withLoss)
	if withLoss == 0 {
		t.Fatal("the control never failed: the lab cannot detect loss")
	}
}

func hasAnomaly(as []Anomaly, name string) bool {
	for _, a := range as {
		if a.Name == name {
			return true
		}
	}
	return false
}
