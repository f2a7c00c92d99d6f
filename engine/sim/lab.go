package sim

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/eoslab/eoslab/engine/script"
)

// The lab (the "small lab" of the curriculum): a producer sends
// serial-numbered records to three partitions while a seeded schedule
// loses requests and responses, delays messages so that others overtake
// them, fails partitions over cleanly and restarts brokers. Afterwards
// every serial the producer was told is written must be in its partition
// exactly once, no serial may appear twice, and serials must be in order
// per partition. The count is made from the logs alone, independently of
// the world's own checker.

// LabResult is what one schedule did.
type LabResult struct {
	Duplicates, Lost, Reordered int // found by counting serials in the logs
	Anomalies                   []Anomaly
	Acked, Failed               int // batches
}

// LabSchedule is the seeded schedule of commands for one lab run;
// producerLine creates p1 (e.g. "producer p1", "producer p1 plain").
func LabSchedule(seed uint64, producerLine string, ops int) []script.Command {
	rng := rand.New(rand.NewPCG(seed, 0x1ab))
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
		panic(err) // the lab's own lines are well-formed
	}
	return c
}

// RunLab plays one schedule and counts what went wrong.
func RunLab(seed uint64, producerLine string, ops int) (LabResult, error) {
	w := New(seed)
	w.SetTracing(false) // the checker does not need the events
	for _, c := range LabSchedule(seed, producerLine, ops) {
		if _, err := w.Apply(c); err != nil {
			return LabResult{}, fmt.Errorf("seed %d: %s: %v", seed, script.Format(c), err)
		}
	}
	s := w.Snapshot()
	res := LabResult{Anomalies: s.Anomalies}
	for _, p := range s.Partitions {
		seen := map[int64]bool{}
		last := int64(-1)
		for _, r := range p.Log {
			serial, ok := labSerial(r.Value)
			if !ok {
				continue
			}
			if seen[serial] {
				res.Duplicates++
				continue
			}
			seen[serial] = true
			if serial < last {
				res.Reordered++
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
					res.Acked++
					for i := int64(0); i < int64(b.Count); i++ {
						if !seen[b.FirstSerial+i] {
							res.Lost++
						}
					}
				case "failed", "expired":
					res.Failed++
				}
			}
		}
	}
	return res, nil
}

func labSerial(v []byte) (int64, bool) {
	s, ok := strings.CutPrefix(string(v), "p1-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
