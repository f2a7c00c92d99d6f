// Package story sorts the engine's events by what they mean to a learner:
// the decisions a lesson is about, the faults that provoke them, and the
// replication traffic that carries them along. Stepping by story, the
// timeline's folding and the scrub bar's landmarks all use it, so that
// they agree on what counts.
package story

import (
	"strings"

	"github.com/eoslab/eoslab/engine/trace"
)

// Decision reports whether e is a decision: a broker's verdict on a batch,
// a transaction changing state or its markers written (or refused), a
// read by an application, or an anomaly. These are what "next decision"
// stops at.
func Decision(e *trace.Event) bool {
	switch e.Kind {
	case "produce.decision", "txn.state", "txn.marker", "txn.marker_refused", "fetch", "anomaly":
		return true
	}
	return false
}

// Fault reports whether e is a fault the learner (or a script) caused: a
// fault armed, a message lost to it, a connection reset, a process
// stopped, restarted or paused, a leadership moved by hand.
func Fault(e *trace.Event) bool {
	switch e.Kind {
	case "fault.armed", "message.lost", "connection.reset", "broker.kill", "broker.restart",
		"producer.restart", "producer.pause", "leader.change", "coordinator.change":
		return true
	}
	return false
}

// Replication reports whether e is followers' replication traffic: a
// follower's Fetch to the leader and its answer, and the follower copying
// what it fetched. It is most of what happens and rarely the point; the
// timeline folds it unless asked.
func Replication(e *trace.Event) bool {
	switch e.Kind {
	case "replica.append":
		return true
	case "message.send", "message.deliver":
		return e.Str("api") == "Fetch" && isBroker(e.Str("from")) && isBroker(e.Str("to"))
	}
	return false
}

func isBroker(name string) bool { return strings.HasPrefix(name, "broker ") }

// LastDecision is the index of the last decision in evs, or -1.
func LastDecision(evs []trace.Event) int {
	for i := len(evs) - 1; i >= 0; i-- {
		if Decision(&evs[i]) {
			return i
		}
	}
	return -1
}

// LastDecisionIn is the index of the last decision of the first n events
// of tr, or -1.
func LastDecisionIn(tr trace.Log, n int) int {
	for i := n - 1; i >= 0; i-- {
		if Decision(tr.At(i)) {
			return i
		}
	}
	return -1
}

// LandmarkKind is what a landmark of the scrub bar marks, in rising
// importance: where two share a column of the bar, the greater is drawn.
type LandmarkKind uint8

const (
	MarkDecision LandmarkKind = iota + 1 // a decision (Index: the event)
	MarkFault                            // a fault (Index: the event)
	MarkStep                             // a lesson step began (Index: the step, 0-based)
	MarkFork                             // the timeline branched here from the one left behind
	MarkAnomaly                          // an anomaly (Index: the event)
)

// Landmark is a named point of the timeline.
type Landmark struct {
	Step  int
	Kind  LandmarkKind
	Index int
}

// KindOf is the landmark an event makes, if any.
func KindOf(e *trace.Event) (LandmarkKind, bool) {
	switch {
	case e.Kind == "anomaly":
		return MarkAnomaly, true
	case Decision(e):
		return MarkDecision, true
	case Fault(e):
		return MarkFault, true
	}
	return 0, false
}
