package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/script"
)

// The lab (the "small lab" of the curriculum): a producer sends
// serial-numbered records to three partitions while a seeded schedule
// injects faults. Afterwards every serial the producer was told is written
// must be in its partition exactly once, no serial may appear twice, and
// serials must be in order per partition. The count is made from the logs
// alone (what a consumer can read, below the high watermark),
// independently of the world's own checker.

// LabFaults is the set of faults a schedule draws from.
type LabFaults uint8

const (
	// LabNetwork: what a network and a busy leader do — connections that
	// break silently at a request or an answer, connections held back or
	// reset, and a leader refusing a batch with a retriable error before
	// appending it. Kafka's idempotent producer survives all of them.
	LabNetwork LabFaults = iota + 1
	// LabAll adds what brokers do: clean failovers, crash and clean
	// restarts, brokers stopped and started again. Here Kafka's
	// idempotence has real gaps (docs/architecture.md lists them).
	LabAll
)

func (f LabFaults) String() string {
	if f == LabAll {
		return "all"
	}
	return "network"
}

// ParseLabFaults reads --faults.
func ParseLabFaults(s string) (LabFaults, bool) {
	switch s {
	case "network":
		return LabNetwork, true
	case "all":
		return LabAll, true
	}
	return 0, false
}

// LabResult is what one schedule did.
type LabResult struct {
	Duplicates, Lost, Reordered int // found by counting serials in the logs
	Anomalies                   []Anomaly
	Acked, Failed               int // batches
}

// labErrors are the refusals a schedule draws from (`fail request`).
var labErrors = script.RefusalErrors

// LabSchedule is the seeded schedule of commands for one lab run;
// producerLine creates p1 (e.g. "producer p1", "producer p1 plain").
func LabSchedule(seed uint64, producerLine string, ops int, faults LabFaults) []script.Command {
	rng := rand.New(rand.NewPCG(seed, 0x1ab))
	// Warm-up: every partition's replicas learn the producer first. A
	// broker that knows nothing of a producer accepts any first sequence
	// (KIP-360), so a first batch refused while the next one is accepted
	// is not detectable; testdata/first-batch-overtaken.eos shows that
	// case on its own.
	cmds := []script.Command{mustLine(producerLine),
		mustLine("send p1 orders-0 1"), mustLine("send p1 orders-1 1"), mustLine("send p1 orders-2 1"), mustLine("run")}
	tp := func() string { return "orders-" + strconv.Itoa(rng.IntN(3)) }
	broker := func() int { return 1 + rng.IntN(3) }
	for range ops {
		var line string
		r := rng.IntN(100)
		if faults == LabAll && r >= 88 {
			switch r {
			case 88, 89, 90, 91:
				line = "failover " + tp()
			case 92, 93, 94:
				line = fmt.Sprintf("restart broker %d", broker())
			case 95, 96:
				line = fmt.Sprintf("restart broker %d clean", broker())
			default:
				b := broker()
				cmds = append(cmds, mustLine(fmt.Sprintf("kill broker %d", b)), mustLine(fmt.Sprintf("step %d", 1+rng.IntN(20))))
				line = fmt.Sprintf("restart broker %d", b)
			}
			cmds = append(cmds, mustLine(line))
			continue
		}
		switch {
		case r < 40:
			line = fmt.Sprintf("send p1 %s %d", tp(), 1+rng.IntN(3))
		case r < 48:
			line = "lose request p1"
		case r < 56:
			line = "lose response p1"
		case r < 61:
			line = "delay request p1"
		case r < 64:
			line = "delay response p1"
		case r < 68:
			line = fmt.Sprintf("reset connection p1 %d", broker())
		case r < 74:
			line = fmt.Sprintf("fail request p1 %s %s", tp(), labErrors[rng.IntN(len(labErrors))])
		default:
			line = fmt.Sprintf("step %d", 1+rng.IntN(12))
		}
		cmds = append(cmds, mustLine(line))
	}
	return append(cmds, mustLine("run"))
}

func mustLine(s string) script.Command {
	if c, ok := labLines[s]; ok {
		return c
	}
	c, err := script.ParseLine(s)
	if err != nil {
		panic(err) // the lab's own lines are well-formed
	}
	return c
}

// labLines are the lines schedules are made of, parsed once: commands are
// never changed by the worlds they are applied to, so every schedule
// shares them. (Read only: schedules are built on several goroutines.)
var labLines = func() map[string]script.Command {
	var lines []string
	for p := range 3 {
		tp := "orders-" + strconv.Itoa(p)
		for n := 1; n <= 3; n++ {
			lines = append(lines, fmt.Sprintf("send p1 %s %d", tp, n))
		}
		for _, e := range labErrors {
			lines = append(lines, fmt.Sprintf("fail request p1 %s %s", tp, e))
		}
		lines = append(lines, "failover "+tp, "send p1 "+tp+" 1")
	}
	for b := 1; b <= 3; b++ {
		lines = append(lines, fmt.Sprintf("reset connection p1 %d", b), fmt.Sprintf("restart broker %d", b),
			fmt.Sprintf("restart broker %d clean", b), fmt.Sprintf("kill broker %d", b))
	}
	for n := 1; n <= 20; n++ {
		lines = append(lines, fmt.Sprintf("step %d", n))
	}
	lines = append(lines, "lose request p1", "lose response p1", "delay request p1", "delay response p1", "run")
	out := make(map[string]script.Command, len(lines))
	for _, l := range lines {
		c, err := script.ParseLine(l)
		if err != nil {
			panic(err)
		}
		out[l] = c
	}
	return out
}()

// RunLab plays one schedule and counts what went wrong.
func RunLab(seed uint64, producerLine string, ops int, faults LabFaults) (LabResult, error) {
	w := New(seed)
	w.SetTracing(false) // the checker does not need the events
	return playLab(w, LabSchedule(seed, producerLine, ops, faults), seed)
}

func playLab(w *World, cmds []script.Command, seed uint64) (LabResult, error) {
	for _, c := range cmds {
		if _, err := w.Apply(c); err != nil {
			return LabResult{}, fmt.Errorf("seed %d: %s: %v", seed, script.Format(c), err)
		}
	}
	// What a snapshot shows, read straight from the world: each partition's
	// log as its leader (else its first replica) holds it, and the batches
	// every producer made.
	res := LabResult{Anomalies: w.Anomalies()}
	var dec record.Decoder
	var batch record.Batch
	for _, m := range w.parts {
		lead := m.leader
		if lead == 0 {
			lead = m.replicas[0]
		}
		log := w.brokers[lead-1].Replica(m.tp).Log
		hw := log.HighWatermark()
		seen := map[int64]bool{}
		last := int64(-1)
		log.EachBatch(0, func(_ int, st *partition.Stored) bool {
			if dec.Decode(st.Bytes, &batch) != nil {
				return true
			}
			for _, r := range batch.Records {
				if batch.Header.BaseOffset+int64(r.OffsetDelta) >= hw {
					return false // not visible to consumers (yet): a failover may still take it back
				}
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
			return true
		})
		for _, name := range w.prodOrder {
			s := w.producers[name]
			if s.p == nil || s.removed {
				continue
			}
			for i := range s.p.NumBatches() {
				b := s.p.BatchAt(i)
				if b.TP != m.tp {
					continue
				}
				switch b.State {
				case client.Acked:
					res.Acked++
					for i := int64(0); i < int64(b.Count); i++ {
						if !seen[b.FirstSerial+i] {
							res.Lost++
						}
					}
				case client.Failed, client.Expired:
					res.Failed++
				}
			}
		}
	}
	return res, nil
}

func labSerial(v []byte) (int64, bool) {
	s, ok := bytes.CutPrefix(v, []byte("p1-"))
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(string(s), 10, 64)
	return n, err == nil
}
