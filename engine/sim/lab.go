package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/msg"
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
	l := &labLines
	// Warm-up: every partition's replicas learn the producer first. A
	// broker that knows nothing of a producer accepts any first sequence
	// (KIP-360), so a first batch refused while the next one is accepted
	// is not detectable; testdata/first-batch-overtaken.eos shows that
	// case on its own.
	cmds := make([]script.Command, 0, ops+8)
	made, ok := l.producers[producerLine]
	if !ok {
		made = mustLine(producerLine)
	}
	cmds = append(cmds, made, l.send[0][0], l.send[1][0], l.send[2][0], l.run)
	tp := func() int { return rng.IntN(3) }
	broker := func() int { return rng.IntN(3) } // broker id - 1
	for range ops {
		r := rng.IntN(100)
		if faults == LabAll && r >= 88 {
			switch r {
			case 88, 89, 90, 91:
				cmds = append(cmds, l.failover[tp()])
			case 92, 93, 94:
				cmds = append(cmds, l.restart[broker()])
			case 95, 96:
				cmds = append(cmds, l.restartClean[broker()])
			default:
				b := broker()
				cmds = append(cmds, l.kill[b], l.step[rng.IntN(20)], l.restart[b])
			}
			continue
		}
		var c script.Command
		switch {
		case r < 40:
			p := tp()
			c = l.send[p][rng.IntN(3)]
		case r < 48:
			c = l.loseRequest
		case r < 56:
			c = l.loseResponse
		case r < 61:
			c = l.delayRequest
		case r < 64:
			c = l.delayResponse
		case r < 68:
			c = l.reset[broker()]
		case r < 74:
			p := tp()
			c = l.fail[p][rng.IntN(len(labErrors))]
		default:
			c = l.step[rng.IntN(12)]
		}
		cmds = append(cmds, c)
	}
	return append(cmds, l.run)
}

func mustLine(s string) script.Command {
	c, err := script.ParseLine(s)
	if err != nil {
		panic(err) // the lab's own lines are well-formed
	}
	return c
}

// labLines are the commands schedules are made of, parsed once and
// picked by index as the schedule draws them: commands are never changed
// by the worlds they are applied to, so every schedule shares them. (Read
// only: schedules are built on several goroutines.)
var labLines = func() (l struct {
	send                               [3][3]script.Command // by partition, count - 1
	fail                               [3][]script.Command  // by partition, as labErrors
	failover                           [3]script.Command    // by partition
	reset, restart, restartClean, kill [3]script.Command    // by broker id - 1
	step                               [20]script.Command   // by steps - 1
	loseRequest, loseResponse          script.Command
	delayRequest, delayResponse, run   script.Command
	producers                          map[string]script.Command // the producer lines `eoslab lab` passes, by line
}) {
	for p := range 3 {
		tp := "orders-" + strconv.Itoa(p)
		for n := range 3 {
			l.send[p][n] = mustLine(fmt.Sprintf("send p1 %s %d", tp, n+1))
		}
		for _, e := range labErrors {
			l.fail[p] = append(l.fail[p], mustLine(fmt.Sprintf("fail request p1 %s %s", tp, e)))
		}
		l.failover[p] = mustLine("failover " + tp)
	}
	for b := range 3 {
		l.reset[b] = mustLine(fmt.Sprintf("reset connection p1 %d", b+1))
		l.restart[b] = mustLine(fmt.Sprintf("restart broker %d", b+1))
		l.restartClean[b] = mustLine(fmt.Sprintf("restart broker %d clean", b+1))
		l.kill[b] = mustLine(fmt.Sprintf("kill broker %d", b+1))
	}
	for n := range 20 {
		l.step[n] = mustLine(fmt.Sprintf("step %d", n+1))
	}
	l.loseRequest, l.loseResponse = mustLine("lose request p1"), mustLine("lose response p1")
	l.delayRequest, l.delayResponse = mustLine("delay request p1"), mustLine("delay response p1")
	l.run = mustLine("run")
	l.producers = map[string]script.Command{}
	for _, line := range []string{"producer p1", "producer p1 plain", "producer p1 acks=1"} {
		l.producers[line] = mustLine(line)
	}
	return l
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
	var seen serialSet // the serials visible in the partition counted; cleared for the next, keeping its room
	// Every producer's batches, read once (settled ones without their
	// bytes, which the counts do not need) for all the partitions.
	var batches []labBatch
	for _, e := range w.producers.all.all() {
		s := e.slot
		if s.p == nil || s.removed {
			continue
		}
		for _, b := range s.p.SettledFrom(0, false) {
			batches = append(batches, labBatch{b.TP, b.FirstSerial, b.Count, b.State})
		}
		for _, b := range s.p.Unsettled() {
			batches = append(batches, labBatch{b.TP, b.FirstSerial, b.Count, b.State})
		}
	}
	for _, m := range w.parts {
		lead := m.leader
		if lead == 0 {
			lead = m.replicas[0]
		}
		log := w.brokers[lead-1].Replica(m.tp).Log
		hw := log.HighWatermark()
		seen.clear()
		last := int64(-1)
		log.EachBatch(0, func(_ int, st *partition.Stored) bool {
			if dec.Decode(st.Bytes(), &batch) != nil {
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
				if seen.has(serial) {
					res.Duplicates++
					continue
				}
				seen.add(serial)
				if serial < last {
					res.Reordered++
				}
				last = max(last, serial)
			}
			return true
		})
		for i := range batches {
			if b := &batches[i]; b.tp == m.tp {
				res.tally(b, &seen)
			}
		}
	}
	return res, nil
}

// labBatch is what the lab's counts read of a producer's batch.
type labBatch struct {
	tp          msg.TP
	firstSerial int64
	count       int32
	state       client.BatchState
}

// tally counts batch b of a partition whose visible serials are seen.
func (res *LabResult) tally(b *labBatch, seen *serialSet) {
	switch b.state {
	case client.Acked:
		res.Acked++
		for i := int64(0); i < int64(b.count); i++ {
			if !seen.has(b.firstSerial + i) {
				res.Lost++
			}
		}
	case client.Failed, client.Expired:
		res.Failed++
	}
}

func labSerial(v []byte) (int64, bool) {
	s, ok := bytes.CutPrefix(v, []byte("p1-"))
	if !ok {
		return 0, false
	}
	// The producer writes its serials in plain decimal digits: those are
	// read here without making a string of them; anything else is left to
	// ParseInt, which decides as before.
	if len(s) > 0 && len(s) <= 18 {
		n := int64(0)
		for _, c := range s {
			if c < '0' || c > '9' {
				n = -1
				break
			}
			n = 10*n + int64(c-'0')
		}
		if n >= 0 {
			return n, true
		}
	}
	n, err := strconv.ParseInt(string(s), 10, 64)
	return n, err == nil
}

// serialSet is a set of serials. A lab producer numbers its records from
// 0, so the set is a slice by serial (a map costs a hash a record, and the
// count looks every record up); serials out of its range go to a map.
type serialSet struct {
	in  []bool
	out map[int64]bool
}

// serialsIn bounds the serials kept in the slice.
const serialsIn = 1 << 16

func (s *serialSet) has(n int64) bool {
	if n >= 0 && n < int64(len(s.in)) {
		return s.in[n]
	}
	return s.out[n]
}

func (s *serialSet) add(n int64) {
	if n < 0 || n >= serialsIn {
		if s.out == nil {
			s.out = map[int64]bool{}
		}
		s.out[n] = true
		return
	}
	if n >= int64(len(s.in)) {
		s.in = append(s.in, make([]bool, int(n)+1-len(s.in))...)
	}
	s.in[n] = true
}

// clear empties the set, keeping its room.
func (s *serialSet) clear() {
	clear(s.in)
	clear(s.out)
}
