package lesson

import (
	"errors"
	"strings"
	"testing"
)

// diagnoseLesson stages a duplicate (a plain producer's retry after a
// lost answer), then diagnoses it, once wrong and once right, and
// replays the history with idempotence on.
const diagnoseLesson = head + "## A history\n\n```eos\nproducer app plain\nsend app orders-0 1\nlose response app\nadvance 40s\n```\n\n" +
	"```expect\nanomalies.duplicate == 1\nundiagnosed == 1\ndiagnosed == 0\nmisdiagnosed == 0\ndiagnoses.count == 0\n```\n\n" +
	"## Name it\n\n```eos\ndiagnose lost orders-0 0\ndiagnose duplicate orders-0 1\ndiagnose duplicate orders-0 0\n```\n\n" +
	"```expect\ndiagnosed == 1\ndiagnosed.duplicate == 1\ndiagnosed.lost == 0\nundiagnosed == 0\nundiagnosed.duplicate == 0\nmisdiagnosed == 1\n" +
	"diagnoses.count == 3\ndiagnoses.*.right == [false, true, true]\nevents.diagnosis == 3\n```\n\n" +
	"## Replay it\n\n```eos\nreplay app\n```\n\n" +
	"```expect\nreplay.anomalies == 0\nreplay.anomalies.duplicate == 0\nreplay.producers.app.mode == idempotent\nreplay.partitions.orders-0.values == [\"app-0\"]\n" +
	"replay.command == \"producer app\"\nreplay.errors == 0\nreplay.steps > 0\nanomalies.duplicate == 1\npartitions.orders-0.records == 2\n```\n"

// The expectations on diagnoses and replays hold as the engine judged
// them: what was named right, wrong, or not yet; what the replay found.
func TestDiagnosisExpectations(t *testing.T) {
	l, err := Parse("d.md", []byte(diagnoseLesson))
	if err != nil {
		t.Fatal(err)
	}
	reports, ok := NewPlayer(l, 1).PlayAll()
	if !ok {
		for _, r := range reports {
			for _, f := range r.Failures("d.md") {
				t.Error(f)
			}
		}
	}
}

// Paths about diagnoses and replays are checked when the lesson is read.
func TestDiagnosisPathErrors(t *testing.T) {
	cases := []struct{ expect, want string }{
		{"diagnosed.duplicat == 1", `diagnosed: no anomaly "duplicat", did you mean "duplicate"?`},
		{"undiagnosed.lost.x == 1", "undiagnosed.NAME is a count"},
		{"misdiagnosed.x == 0", "misdiagnosed is a count"},
		{"diagnoses.0.rigth == true", `diagnoses have no field "rigth", did you mean "right"?`},
		{"replay == 0", "replay needs a field"},
		{"replay.anomalis == 0", `replay has no "anomalis", did you mean "anomalies"?`},
		{"replay.steps.x == 0", "replay.steps is a value"},
		{"replay.partitions.orders-0.lsso == 0", `partitions have no field "lsso"`},
		{"replay.producers.p9.mode == plain", `no producer "p9" is created in this lesson`},
	}
	for _, c := range cases {
		src := head + "## S\n```eos\nproducer p1\n```\n```expect\n" + c.expect + "\n```\n"
		_, err := Parse("d.md", []byte(src))
		var errs Errors
		if !errors.As(err, &errs) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.expect, err, c.want)
		}
	}
}
