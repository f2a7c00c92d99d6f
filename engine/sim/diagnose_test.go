package sim

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

// applyAll plays script lines on w, failing the test on a refusal.
func applyAll(t *testing.T, w *World, lines ...string) {
	t.Helper()
	for _, l := range lines {
		c, err := script.ParseLine(l)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if _, err := w.Apply(c); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
}

// history is a plain acks=1 producer's run with one of each anomaly it
// can cause: a retry after a lost answer written twice (duplicate at
// offsets 1 and 2), a batch refused before appending and retried after
// the next one (reordered at 4), a record acknowledged by the leader
// alone before a failover took it back (lost at 5).
var history = []string{
	"producer app acks=1",
	"send app orders-0 1", "advance 1s",
	"send app orders-0 1", "lose response app", "advance 40s",
	"fail request app orders-0 NOT_LEADER_OR_FOLLOWER", "send app orders-0 1", "send app orders-0 1", "advance 5s",
	"send app orders-0 1", "step 3", "failover orders-0", "advance 5s",
	"send app orders-0 1", "advance 5s",
}

func TestAnomalyCovers(t *testing.T) {
	cases := []struct {
		a     Anomaly
		in    []int64
		notIn []int64
	}{
		{Anomaly{Name: "duplicate", Offsets: []int64{1, 2, 7, 9}}, []int64{1, 2, 7, 9}, []int64{0, 3, 8}},
		{Anomaly{Name: "lost", Offsets: []int64{5, 7}}, []int64{5, 6, 7}, []int64{4, 8}},
		{Anomaly{Name: "reordered", Offsets: []int64{4}, Count: 2}, []int64{4, 5}, []int64{3, 6}},
		{Anomaly{Name: "zombie write", Offsets: []int64{2, 9}, Count: 3}, []int64{2, 3, 4, 9}, []int64{1, 5, 8}},
		{Anomaly{Name: "read past LSO", Offsets: []int64{6, 4}}, []int64{6}, []int64{4, 5}},
		{Anomaly{Name: "aborted read", Offsets: []int64{3}}, []int64{3}, []int64{2, 4}},
		{Anomaly{Name: "lost"}, nil, []int64{0}},
	}
	for _, c := range cases {
		for _, off := range c.in {
			if !c.a.Covers(off) {
				t.Errorf("%s %v does not cover %d", c.a.Name, c.a.Offsets, off)
			}
		}
		for _, off := range c.notIn {
			if c.a.Covers(off) {
				t.Errorf("%s %v covers %d", c.a.Name, c.a.Offsets, off)
			}
		}
	}
}

// A diagnosis is judged against what the checker has found by then: the
// right name at an offset the anomaly is about, on its partition. Naming
// it before the checker found it is wrong, as is any other name, offset
// or partition.
func TestDiagnosisIsJudgedByTheChecker(t *testing.T) {
	w := New(1)
	applyAll(t, w, history[:3]...)
	applyAll(t, w, "diagnose duplicate orders-0 2") // nothing happened yet
	applyAll(t, w, history[3:]...)
	names := map[string]bool{}
	for _, a := range w.Anomalies() {
		names[a.Name] = true
	}
	if len(w.Anomalies()) != 3 || !names["duplicate"] || !names["reordered"] || !names["lost"] {
		t.Fatalf("the history's anomalies: %+v", w.Anomalies())
	}
	lines := []string{
		"diagnose duplicate orders-0 2", "diagnose duplicate orders-0 1", // either copy
		"diagnose reordered orders-0 4", "diagnose lost orders-0 5",
		"diagnose duplicate orders-0 3", "diagnose duplicate orders-1 2", "diagnose lost orders-0 2", "diagnose zombie_write orders-0 2",
	}
	applyAll(t, w, lines...)
	var got []bool
	for _, d := range w.Diagnoses() {
		got = append(got, d.Right)
	}
	want := []bool{false, true, true, true, true, false, false, false, false}
	if !slices.Equal(got, want) {
		t.Fatalf("verdicts %v, want %v: %+v", got, want, w.Diagnoses())
	}
	if d := w.Diagnoses()[1]; d.Anomaly < 0 || w.Anomalies()[d.Anomaly].Name != "duplicate" || d.Partition != "orders-0" || d.Offset != 2 {
		t.Fatalf("a right diagnosis names its anomaly: %+v", d)
	}
	tr := w.Trace().Events()
	last := tr[len(tr)-1]
	if last.Kind != "diagnosis" || last.Bool("right") || !strings.Contains(last.Text(), "wrong — the checker has found no zombie write there") {
		t.Fatalf("the last event: %s", last.Describe())
	}
	if _, err := w.Apply(mustLine("diagnose lost orders-9 0")); err == nil {
		t.Fatal("a partition the cluster does not have is refused")
	}
}

// A replay with the producer as it was reproduces the history exactly:
// the same steps and the same anomalies; the world itself is unchanged.
// Over the lab's seeded fault schedules, as a property.
func TestReplayWithTheSameProducerReproducesTheHistory(t *testing.T) {
	for seed := uint64(1); seed <= uint64(labRuns(t, 30)); seed++ {
		for _, line := range []string{"producer p1 plain", "producer p1 acks=1", "producer p1"} {
			w := New(seed)
			for _, c := range LabSchedule(seed, line, 30, LabAll) {
				w.Apply(c)
			}
			before := w.Snapshot()
			if _, err := w.Apply(mustLine("replay " + strings.TrimPrefix(line, "producer "))); err != nil {
				t.Fatal(err)
			}
			r := w.LastReplay()
			if r.Steps != w.Steps() || r.Errors != 0 || !sameAnomalies(r.Anomalies, w.Anomalies()) {
				t.Fatalf("seed %d, %s: replay %d steps, %d errors (%s), %v; history %d steps, %v",
					seed, line, r.Steps, r.Errors, r.FirstError, r.Anomalies, w.Steps(), w.Anomalies())
			}
			after := w.Snapshot()
			after.Replay = nil
			if !reflect.DeepEqual(before.Partitions, after.Partitions) || before.Step != after.Step || !reflect.DeepEqual(before.Producers, after.Producers) {
				t.Fatalf("seed %d: the replay changed the world", seed)
			}
		}
	}
}

func sameAnomalies(a, b []Anomaly) bool {
	return slices.EqualFunc(a, b, func(x, y Anomaly) bool {
		return x.Name == y.Name && x.Partition == y.Partition && slices.Equal(x.Offsets, y.Offsets) && x.Text == y.Text
	})
}

// The fix proved: the same inputs with Kafka's defaults (idempotence,
// acks=all) give no anomaly at all; a plain producer with acks=all still
// duplicates and reorders, but loses nothing.
func TestReplayProvesAFix(t *testing.T) {
	w := New(1)
	applyAll(t, w, history...)
	applyAll(t, w, "replay app")
	r := w.LastReplay()
	if len(r.Anomalies) != 0 || r.Errors != 0 || r.Command != "producer app" {
		t.Fatalf("idempotent replay: %+v", r)
	}
	var values []string
	for _, rec := range r.Snap.Partitions[0].Log {
		values = append(values, string(rec.Value))
	}
	if !slices.Equal(values, []string{"app-0", "app-1", "app-2", "app-3", "app-4", "app-5"}) {
		t.Fatalf("the replayed log: %v", values)
	}
	applyAll(t, w, "replay app plain")
	names := map[string]bool{}
	for _, a := range w.LastReplay().Anomalies {
		names[a.Name] = true
	}
	if !names["duplicate"] || !names["reordered"] || names["lost"] {
		t.Fatalf("plain, acks=all: %v", w.LastReplay().Anomalies)
	}
	if _, err := w.Apply(mustLine("replay nobody")); err == nil || !strings.Contains(err.Error(), `creates no producer "nobody"`) {
		t.Fatalf("replay of a producer the history does not have: %v", err)
	}
}

// Time travel replays diagnoses and replays like any command: the world
// rewound to after them holds the same verdicts and the same replay.
func TestDiagnosesAndReplaysSurviveRewind(t *testing.T) {
	w := New(1)
	applyAll(t, w, history...)
	applyAll(t, w, "diagnose duplicate orders-0 1", "replay app", "diagnose lost orders-0 0")
	m := w.Moment()
	applyAll(t, w, "run")
	r, err := w.RewindTo(m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Diagnoses(), w.Diagnoses()) || r.LastReplay().Steps != w.LastReplay().Steps || !sameAnomalies(r.LastReplay().Anomalies, w.LastReplay().Anomalies) {
		t.Fatalf("rewound: %+v %+v; original: %+v %+v", r.Diagnoses(), r.LastReplay(), w.Diagnoses(), w.LastReplay())
	}
	if string(r.Snapshot().StateJSON()) != string(w.Snapshot().StateJSON()) {
		t.Fatal("the rewound state differs")
	}
}
