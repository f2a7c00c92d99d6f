package app

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The capstone in the lab: diagnoses typed in the command bar are judged
// by the engine at once (the status bar says right or wrong), the goals
// count them, C gives a clean sheet, and a replay proves the fix.
func TestDiagnoseAndReplayInTheLab(t *testing.T) {
	m := chapterAt(t, 26, 4, 120, 40) // Name every anomaly
	if m.Session().Position().Step != 3 {
		t.Fatalf("at %+v", m.Session().Position())
	}
	m = typeLine(t, m, "diagnose duplicate orders-1 2")
	if s := m.Status(); !strings.Contains(s, "wrong — the checker has found no duplicate there") {
		t.Fatalf("a wrong diagnosis: %q", s)
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "✗ Nothing is named that is not there") {
		t.Fatalf("the checklist counts the wrong one:\n%s", view)
	}
	m, _ = send(t, m, keyRunes("C")) // a clean sheet
	for _, line := range []string{"diagnose duplicate orders-0 1", "diagnose reordered orders-0 4", "diagnose lost orders-0 5"} {
		m = typeLine(t, m, line)
		if s := m.Status(); !strings.Contains(s, "right — ") && !strings.Contains(s, "challenge complete") {
			t.Fatalf("%s: %q", line, s)
		}
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "✓ challenge complete") {
		t.Fatalf("every anomaly named, none wrong:\n%s", view)
	}
	m, _ = send(t, m, keyRight) // Fix it, and prove it
	m = typeLine(t, m, "replay app acks=1")
	if view := ansi.Strip(m.View()); !strings.Contains(view, "✗ The replay finds no anomaly") {
		t.Fatalf("the same settings replayed keep the anomalies:\n%s", view)
	}
	m = typeLine(t, m, "replay app")
	if view := ansi.Strip(m.View()); !strings.Contains(view, "✓ challenge complete") {
		t.Fatalf("Kafka's defaults replayed: %q\n%s", m.Status(), view)
	}
}
