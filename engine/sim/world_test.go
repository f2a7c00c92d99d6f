package sim

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

func allScripts(t *testing.T) []string {
	scripts, _ := filepath.Glob("testdata/*.eos")
	examples, _ := filepath.Glob("../../assets/scripts/*.eos")
	return append(scripts, examples...)
}

// Same seed, same commands: the same trace, byte for byte, text and JSON.
func TestDeterminism(t *testing.T) {
	for _, path := range allScripts(t) {
		a, wa := transcript(t, path, 42)
		b, wb := transcript(t, path, 42)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: two runs differ", path)
		}
		var ja, jb []byte
		for i := range wa.Trace().Events() {
			ja = wa.Trace().Events()[i].AppendJSON(ja)
			jb = wb.Trace().Events()[i].AppendJSON(jb)
		}
		if !bytes.Equal(ja, jb) || !bytes.Equal(wa.Snapshot().StateJSON(), wb.Snapshot().StateJSON()) {
			t.Fatalf("%s: JSON differs", path)
		}
	}
}

// Going back to step k by replay gives exactly the state the live run had
// after step k (and the trace up to it).
func TestRewindEqualsLive(t *testing.T) {
	for _, path := range allScripts(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			_, w := transcript(t, path, 1)
			live := map[int][]byte{}
			// Re-run step by step to capture the live state after each step.
			src := mustRead(t, path)
			cmds, _ := script.Parse(path, src)
			l := New(1)
			for _, c := range cmds {
				if _, ok := c.(*script.Run); ok {
					for {
						if _, ok := l.Step(); !ok {
							break
						}
						live[l.Steps()] = l.Snapshot().StateJSON()
					}
					continue
				}
				l.Apply(c)
				live[l.Steps()] = l.Snapshot().StateJSON()
			}
			for k, want := range live {
				r, err := w.Rewind(k)
				if err != nil {
					t.Fatal(err)
				}
				if got := r.Snapshot().StateJSON(); !bytes.Equal(got, want) {
					t.Fatalf("rewind to step %d differs from the live state\n got %s\nwant %s", k, got, want)
				}
				if n := len(r.Trace().Events()); n > 0 && r.Trace().Events()[n-1].Step > k {
					t.Fatalf("rewound trace reaches step %d", r.Trace().Events()[n-1].Step)
				}
			}
		})
	}
}

// A fork is a new timeline: applying a different command after rewinding
// leaves the original world untouched.
func TestFork(t *testing.T) {
	_, w := transcript(t, "testdata/lose-response.eos", 1)
	before := w.Snapshot().StateJSON()
	steps := w.Steps()
	// Back to just after the producer got its id; this time nothing is lost.
	r, err := w.Rewind(3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Apply(&script.Fault{Action: script.Delay, Target: script.Response, Producer: "p1"}); err != nil {
		t.Fatal(err)
	}
	r.Run()
	if !bytes.Equal(w.Snapshot().StateJSON(), before) || w.Steps() != steps {
		t.Fatal("forking changed the original world")
	}
	if n := len(eventsOf(r, "message.lost")); n != 1 {
		// The lose fault was armed before step 3, so it still fires in the fork;
		// the delay armed in the fork applies to the retry's answer.
		t.Fatalf("fork: %d lost messages", n)
	}
	if len(eventsOf(r, "fault.armed")) != 2 || len(eventsOf(w, "fault.armed")) != 1 {
		t.Fatalf("the fork did not take its own course")
	}
}

// Switching the trace off changes nothing but the events: the state, the
// steps and the anomalies are the same.
func TestTracingDoesNotChangeBehaviour(t *testing.T) {
	for _, path := range allScripts(t) {
		_, traced := transcript(t, path, 1)
		src := mustRead(t, path)
		cmds, _ := script.Parse(path, src)
		quiet := New(1)
		quiet.SetTracing(false)
		for _, c := range cmds {
			quiet.Apply(c)
		}
		if len(quiet.Trace().Events()) != 0 {
			t.Fatalf("%s: events built with tracing off", path)
		}
		if a, b := traced.Snapshot().StateJSON(), quiet.Snapshot().StateJSON(); !bytes.Equal(a, b) {
			t.Fatalf("%s: state differs with tracing off\n%s\n%s", path, a, b)
		}
	}
}

// Idle time is free: a century of advance evaluates a handful of periodic
// boundaries, not one per ten seconds, and still expires the idle producer
// and aborts the stale transaction on time.
func TestAdvanceSkipsIdleBoundaries(t *testing.T) {
	w := playScript(t, "producer p1\nsend p1 orders-0 1\nproducer t1 transactional=tx\nrun\nbegin t1\nsend t1 orders-1 1\nrun\nadvance 876000h\n")
	if w.periodicRuns > 100 {
		t.Errorf("%d periodic boundaries evaluated for 100 years", w.periodicRuns)
	}
	if count(w, "producer.expired") == 0 || count(w, "txn.timeout") != 1 {
		t.Errorf("expired %d, timed out %d: the skipped boundaries skipped work", count(w, "producer.expired"), count(w, "txn.timeout"))
	}
}

// Skipping idle boundaries changes nothing: random sessions with long
// advances give the same trace whether every boundary is evaluated or not.
func TestSkippingIdleBoundariesChangesNothing(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		cmds := randomSession(seed, 40)
		run := func(every bool) string {
			w := New(seed)
			w.everyPeriod = every
			var b strings.Builder
			for _, c := range cmds {
				evs, _ := w.Apply(c)
				for _, e := range evs {
					b.WriteString(e.Describe() + "\n")
				}
			}
			return b.String()
		}
		if a, b := run(false), run(true); a != b {
			t.Fatalf("seed %d: skipping idle boundaries changed the trace", seed)
		}
	}
}

// The seed draws the retry back-off's jitter (KIP-580): another seed
// retries at other times, the same seed at the same ones, and every
// back-off stays within [0.8, 1.2) of retry.backoff.ms doubled.
func TestSeedJittersRetries(t *testing.T) {
	src := "producer p1\nsend p1 orders-0 1\nrun\nfail request p1 orders-0 seq=1 NOT_ENOUGH_REPLICAS\nfail request p1 orders-0 seq=1 NOT_ENOUGH_REPLICAS\nsend p1 orders-0 1\nrun\n"
	times := func(seed uint64) []int64 {
		cmds, _ := script.Parse("jitter", []byte(src))
		w := New(seed)
		for _, c := range cmds {
			w.Apply(c)
		}
		var out []int64
		for _, e := range eventsOf(w, "producer.retry") {
			out = append(out, e.TimeMs)
		}
		return out
	}
	a, b, c := times(1), times(1), times(2)
	if len(a) != 2 || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("same seed, retries at %v and %v", a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatalf("seeds 1 and 2 retried at the same times %v: the seed drives nothing", a)
	}
	for seed := uint64(1); seed <= 50; seed++ {
		w := playScriptSeed(t, src, seed)
		for i, e := range eventsOf(w, "producer.retry") {
			d, base := int64(0), int64(100)<<i
			fmt.Sscanf(e.Text()[strings.LastIndex(e.Text(), " in ")+4:], "%d ms", &d)
			if d < base*8/10 || d >= base*12/10 {
				t.Fatalf("seed %d: retry %d backs off %d ms, outside [0.8, 1.2) of %d", seed, i+1, d, base)
			}
		}
	}
}

// A long command performed a slice at a time (the lab draws between
// slices) does exactly what it does at once.
func TestJobSlicesEqualWhole(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		cmds := randomSession(seed, 40)
		whole, sliced := New(seed), New(seed)
		var a, b strings.Builder
		for i, c := range cmds {
			evs, _ := whole.Apply(c)
			for _, e := range evs {
				a.WriteString(e.Describe() + "\n")
			}
			if j, ok := sliced.StartJob(c); ok {
				evs = j.started
				for !j.Done() {
					more, _ := j.Continue(1 + (i+int(seed))%7)
					evs = append(evs, more...)
				}
			} else {
				evs, _ = sliced.Apply(c)
			}
			for _, e := range evs {
				b.WriteString(e.Describe() + "\n")
			}
		}
		if a.String() != b.String() {
			t.Fatalf("seed %d: slicing changed the run", seed)
		}
	}
}

// Stopping an advance leaves the clock at its last step and says so; an
// advance through a storm of retries stops by itself after RunLimit steps.
func TestJobStop(t *testing.T) {
	w := playScript(t, "producer p1\nsend p1 orders-0 1\n")
	c, _ := script.ParseLine("advance 1h")
	j, _ := w.StartJob(c)
	j.Continue(3)
	evs := j.Stop()
	if !j.Done() || len(evs) != 1 || evs[0].Kind != "command.stopped" || w.Now() >= 3_600_000 {
		t.Fatalf("after stop: done %v, events %v, clock %d", j.Done(), evs, w.Now())
	}
	storm := playScript(t, "producer t1 transactional=tx\nrun\nbegin t1\nsend t1 orders-0 1\nkill broker 1\nkill broker 2\nadvance 100000h\n")
	if count(storm, "run.limit") != 1 || storm.Now() >= 100_000*3_600_000 {
		t.Fatalf("the storm's advance did not stop at the limit (clock %d)", storm.Now())
	}
}

// RewindTo reaches every moment of a history, also those that share a
// step count, and gives exactly the world that was there.
func TestRewindToEveryMoment(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		w := New(seed)
		type seen struct {
			m     Moment
			state []byte
		}
		var moments []seen
		for _, c := range randomSession(seed, 40) {
			if j, ok := w.StartJob(c); ok {
				for !j.Done() {
					j.Continue(1)
					moments = append(moments, seen{w.Moment(), w.Snapshot().StateJSON()})
				}
				continue
			}
			w.Apply(c)
			moments = append(moments, seen{w.Moment(), w.Snapshot().StateJSON()})
		}
		for i, s := range moments {
			r, err := w.RewindTo(s.m)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Snapshot().StateJSON(); !bytes.Equal(got, s.state) {
				t.Fatalf("seed %d, moment %d (step %d): the rewound world differs\n got %s\nwant %s", seed, i, s.m.Steps, got, s.state)
			}
		}
	}
}

// A world that does not keep its trace returns the same events and ends
// in the same state as one that does.
func TestKeepTraceOff(t *testing.T) {
	for _, path := range allScripts(t) {
		src := mustRead(t, path)
		cmds, _ := script.Parse(path, src)
		kept, dropped := New(1), New(1)
		dropped.KeepTrace(false)
		var a, b strings.Builder
		for _, c := range cmds {
			ea, _ := kept.Apply(c)
			eb, _ := dropped.Apply(c)
			for _, e := range ea {
				a.WriteString(e.Describe() + "\n")
			}
			for _, e := range eb {
				b.WriteString(e.Describe() + "\n")
			}
		}
		sa, sb := kept.Snapshot(), dropped.Snapshot()
		if a.String() != b.String() || !bytes.Equal(sa.StateJSON(), sb.StateJSON()) || len(dropped.Trace().Events()) != 0 {
			t.Fatalf("%s: not keeping the trace changed the run", path)
		}
		if (sa.LastDecision == nil) != (sb.LastDecision == nil) || sa.LastDecision != nil && sa.LastDecision.Describe() != sb.LastDecision.Describe() {
			t.Fatalf("%s: the last decision differs", path)
		}
	}
}

// broker.latency.ms is the wire time between two brokers only: with 0 (as
// eoslab serve sets it) an acks=all produce is acknowledged as soon as the
// producer's own hops allow, the followers' fetches crossing at once;
// with the default the replication's hops take a millisecond each.
func TestBrokerLatency(t *testing.T) {
	for _, c := range []struct {
		cluster string
		ackMs   int64
	}{
		// The producer's InitProducerId, its Produce and the answers take
		// 4 ms on its 1 ms hops; the replication that moves the high
		// watermark, three hops between brokers.
		{"cluster", 4 + 3},
		{"cluster broker.latency.ms=1", 4 + 3},
		{"cluster broker.latency.ms=0", 4},
		{"cluster broker.latency.ms=5", 4 + 3*5},
	} {
		w := playScript(t, c.cluster+"\nproducer p1 acks=all\nsend p1 orders-0 1\nrun")
		sent, acked := eventsOf(w, "producer.enqueue"), eventsOf(w, "producer.ack")
		if len(sent) != 1 || len(acked) != 1 || acked[0].TimeMs-sent[0].TimeMs != c.ackMs {
			t.Fatalf("%s: %d sent, %d acked, after %d ms; want %d ms", c.cluster, len(sent), len(acked), acked[0].TimeMs-sent[0].TimeMs, c.ackMs)
		}
		if hw := w.Snapshot().Partitions[0].HighWatermark; hw != 1 {
			t.Fatalf("%s: high watermark %d", c.cluster, hw)
		}
	}
}
