package sim

import (
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/trace"
)

// The lab (lab.go) must hold for the idempotent producer, and the same
// check must catch duplicates from a plain producer and loss from acks=1
// with failovers, or it proves nothing.

func labRuns(t *testing.T, full int) int {
	if testing.Short() {
		return full / 10
	}
	return full
}

func runLab(t *testing.T, seed uint64, producerLine string, ops int, faults LabFaults) LabResult {
	t.Helper()
	r, err := RunLab(seed, producerLine, ops, faults)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Over a network that behaves like TCP — connections that break
// silently, are held back or reset, leaders refusing a batch before
// appending it — Kafka's idempotent producer writes every record exactly
// once and in order. Seeds 1-2000 here; `eoslab lab --runs 10000` plays
// seeds 2001-12000 through the CLI (main_test.go).
func TestLabIdempotentHoldsUnderNetworkFaults(t *testing.T) {
	runs := labRuns(t, 2000)
	acked, failed := 0, 0
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		r := runLab(t, seed, "producer p1", 40, LabNetwork)
		if r.Duplicates+r.Lost+r.Reordered > 0 || len(r.Anomalies) > 0 {
			t.Fatalf("seed %d: %d duplicate(s), %d lost, %d reordered; checker: %v", seed, r.Duplicates, r.Lost, r.Reordered, r.Anomalies)
		}
		acked += r.Acked
		failed += r.Failed
	}
	t.Logf("idempotent, acks=all: %d network fault schedules, %d batches acknowledged, %d failed or expired, 0 duplicates, 0 lost, 0 reordered", runs, acked, failed)
	if acked == 0 {
		t.Fatal("nothing was acknowledged: the lab did not run")
	}
}

// With broker faults too (failovers, crash and clean restarts, brokers
// stopped), Kafka's idempotence has one real gap, and every anomaly must
// come by exactly that path (docs/architecture.md): a retry of a batch the
// partition already holds arrives at a leader whose five-batch window no
// longer covers it — the window was rebuilt from a snapshot that keeps one
// batch per producer, or a leader change let more than five batches of the
// partition be unanswered at once — so the leader answers
// OUT_OF_ORDER_SEQUENCE_NUMBER (seq-before-window). The producer takes that
// for a gap in what the broker holds, bumps its epoch
// (TransactionManager.canRetry) and writes the batch again. No record may
// be lost, and nothing reordered.
func TestLabBrokerFaultsShowOnlyKafkasGap(t *testing.T) {
	runs := labRuns(t, 1500)
	withDups := 0
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		r := runLab(t, seed, "producer p1", 40, LabAll)
		if len(r.Anomalies) == 0 {
			continue
		}
		// Play it again with the trace on, to read the path it took.
		w := New(seed)
		r, err := playLab(w, LabSchedule(seed, "producer p1", 40, LabAll), seed)
		if err != nil {
			t.Fatal(err)
		}
		if r.Lost+r.Reordered > 0 || hasAnomaly(r.Anomalies, "lost") || hasAnomaly(r.Anomalies, "reordered") {
			t.Fatalf("seed %d: %d lost, %d reordered; checker: %v", seed, r.Lost, r.Reordered, r.Anomalies)
		}
		if r.Duplicates > 0 {
			withDups++
		}
		for _, a := range r.Anomalies {
			if why := outOfWindowPath(w.Trace().Events(), a); why != "" {
				t.Fatalf("seed %d: %s (%s) did not come by the out-of-window retry: %s", seed, a.Name, a.Text, why)
			}
		}
	}
	t.Logf("idempotent with broker faults: %d schedules, %d with duplicates, each by an out-of-window retry and an epoch bump", runs, withDups)
	if withDups == 0 {
		t.Fatal("no run reached Kafka's gap: the schedules do not exercise broker faults")
	}
}

// outOfWindowPath explains what is missing from the trace for a duplicate
// to have come by the out-of-window retry, or returns "".
func outOfWindowPath(evs []trace.Event, a Anomaly) string {
	if a.Name != "duplicate" {
		return "not a duplicate"
	}
	rejected, bumped := -1, -1
	for i := range evs {
		e := &evs[i]
		if e.Step > a.Step {
			break
		}
		switch {
		case e.Kind == "produce.decision" && e.Str("partition") == a.Partition && e.Str("error") == "OUT_OF_ORDER_SEQUENCE_NUMBER" &&
			strings.Contains(e.Str("path"), "seq-before-window"):
			rejected = e.Step
		case e.Kind == "producer.epoch_bump" && rejected >= 0:
			bumped = e.Step
		}
	}
	switch {
	case rejected < 0:
		return "no retry was refused as older than the window"
	case bumped < 0:
		return "the producer did not bump its epoch after it"
	}
	return ""
}

// The control: the same schedules with enable.idempotence=false. Lost
// answers make retries write second copies; with five requests in flight
// retries also overtake later batches. The check must see it.
func TestLabPlainProducerDuplicates(t *testing.T) {
	runs := labRuns(t, 500)
	withDups, withReorder, flagged := 0, 0, 0
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		r := runLab(t, seed, "producer p1 plain", 40, LabNetwork)
		if r.Duplicates > 0 {
			withDups++
		}
		if r.Reordered > 0 {
			withReorder++
		}
		if len(r.Anomalies) > 0 {
			flagged++
		}
		if (r.Duplicates > 0) != hasAnomaly(r.Anomalies, "duplicate") {
			t.Fatalf("seed %d: independent check found %d duplicates, the world's checker %v", seed, r.Duplicates, r.Anomalies)
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
		r := runLab(t, seed, "producer p1 acks=1", 40, LabAll)
		if r.Lost > 0 {
			withLoss++
		}
		if (r.Lost > 0) != hasAnomaly(r.Anomalies, "lost") {
			t.Fatalf("seed %d: independent check found %d lost, the world's checker %v", seed, r.Lost, r.Anomalies)
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
