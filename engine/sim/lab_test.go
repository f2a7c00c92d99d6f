package sim

import "testing"

// The lab (lab.go) must hold for the idempotent producer, and the same
// check must catch duplicates from a plain producer and loss from acks=1
// with failovers, or it proves nothing.

func labRuns(t *testing.T, full int) int {
	if testing.Short() {
		return full / 10
	}
	return full
}

func runLab(t *testing.T, seed uint64, producerLine string, ops int) LabResult {
	t.Helper()
	r, err := RunLab(seed, producerLine, ops)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLabIdempotentHoldsUnderFaults(t *testing.T) {
	runs := labRuns(t, 2000)
	acked, failed := 0, 0
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		r := runLab(t, seed, "producer p1", 40)
		if r.Duplicates+r.Lost+r.Reordered > 0 || len(r.Anomalies) > 0 {
			t.Fatalf("seed %d: %d duplicate(s), %d lost, %d reordered; checker: %v", seed, r.Duplicates, r.Lost, r.Reordered, r.Anomalies)
		}
		acked += r.Acked
		failed += r.Failed
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
		r := runLab(t, seed, "producer p1 acks=1", 40)
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
