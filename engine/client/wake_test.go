package client_test

import (
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
)

// playTexts plays a script in a new world and returns the text of every
// event of its trace of the kind given.
func playTexts(t *testing.T, src, kind string) []string {
	t.Helper()
	cmds, err := script.Parse("wake", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := sim.New(1)
	for _, c := range cmds {
		if _, err := w.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for _, ev := range w.Trace().All() {
		if string(ev.Kind) == kind {
			out = append(out, ev.Text())
		}
	}
	return out
}

// The wake an answer asks for is seen even when the pass it brings finds
// nothing to send (and so is no step): a producer paused before it comes
// due holds it. Asking for it only when the pass could act would change
// the count the resume reports. The answer's step finds nothing else to
// send: its batch is acknowledged and nothing else waits.
func TestAnswerWakeHeldWhilePaused(t *testing.T) {
	for _, c := range []struct{ name, cluster, step string }{
		// Followers fetch at the same instant: the wake joins the lane.
		{"lane", "", "step 13"},
		// Nothing else is queued: the wake waits in the queue's register.
		{"register", "cluster brokers=1 rf=1 min.insync=1\n", "step 6"},
	} {
		got := playTexts(t, c.cluster+"producer p1\nsend p1 orders-0 1\n"+c.step+"\npause p1\nrun\nresume p1\n", "producer.resume")
		if len(got) != 1 || got[0] != "p1 resumes after 1 held event(s)" {
			t.Fatalf("%s: resume: %q, want one that held the answer's wake", c.name, got)
		}
	}
}

// The wake an answer asks for keeps its place among the items due at the
// same instant: a batch sent by a command before it comes due goes at that
// place, ahead of what was queued after the answer (p2's own wake here),
// not behind it.
func TestAnswerWakeKeepsItsPlace(t *testing.T) {
	// Step 18 delivers p1's answer, step 19 p2's, both at 0.007 s; p2 has a
	// second batch that its one request in flight held back.
	got := playTexts(t, `producer p1
producer p2 max.in.flight.requests.per.connection=1
send p1 orders-0 1
send p2 orders-0 1
send p2 orders-0 1
step 19
send p1 orders-0 1
run
`, "message.send")
	var order []string
	for _, text := range got {
		if strings.Contains(text, "batch #2") {
			order = append(order, strings.Fields(text)[0])
		}
	}
	if strings.Join(order, " ") != "p1 p2" {
		t.Fatalf("second batches sent by %v, want p1 first (its answer's wake came first)", order)
	}
}
