package script

import (
	"fmt"
	"strconv"
)

// FaultAction is what a fault does to the message it arms on.
type FaultAction int

const (
	Lose  FaultAction = iota // the message never arrives
	Delay                    // the message is held back and overtaken
)

func (a FaultAction) String() string {
	switch a {
	case Lose:
		return "lose"
	case Delay:
		return "delay"
	}
	return fmt.Sprintf("FaultAction(%d)", int(a))
}

// FaultTarget is which half of a round trip a fault hits.
type FaultTarget int

const (
	Request  FaultTarget = iota // the produce request on its way to the broker
	Response                    // the broker's answer on its way back
)

func (t FaultTarget) String() string {
	switch t {
	case Request:
		return "request"
	case Response:
		return "response"
	}
	return fmt.Sprintf("FaultTarget(%d)", int(t))
}

// Fault arms a network fault on one of a producer's messages. Without a
// selector it arms on the next matching message; with one it arms on the
// message carrying the batch with base sequence Seq for TP.
type Fault struct {
	At          Pos
	Action      FaultAction
	Target      FaultTarget
	Producer    string
	HasSelector bool
	TP          TopicPartition
	Seq         int32
}

func (f *Fault) Position() Pos { return f.At }
func (f *Fault) Verb() string  { return f.Action.String() + " " + f.Target.String() }

// faultParser returns the parse function of one of the four fault verbs;
// they share a grammar and differ only in what they record.
func faultParser(a FaultAction, target FaultTarget) func(*cmdLine) (Command, *Error) {
	return func(l *cmdLine) (Command, *Error) {
		f, err := parseFault(l)
		if err != nil {
			return nil, err
		}
		f.Action, f.Target = a, target
		return f, nil
	}
}

func parseFault(l *cmdLine) (*Fault, *Error) {
	name, err := l.nameArg()
	if err != nil {
		return nil, err
	}
	f := &Fault{At: l.at, Producer: name}
	tpTok, hasTP := l.optionalPositional()
	if hasTP {
		if f.TP, err = l.topicPartition(tpTok); err != nil {
			return nil, err
		}
	}
	opts, err := l.options(optSpec{keys: []string{"seq"}})
	if err != nil {
		return nil, err
	}
	// A selector names one batch, which takes both its partition and its
	// base sequence: either alone would be ambiguous.
	if len(opts) == 0 {
		if hasTP {
			return nil, l.missing("seq=N after " + tpTok.text)
		}
		return f, nil
	}
	t := opts[0]
	if !hasTP {
		return nil, l.errf(t.pos, "seq=N needs a TOPIC-PARTITION before it (usage: %s)", l.spec.Syntax)
	}
	n, err := l.number(t, "seq", limSeq)
	if err != nil {
		return nil, err
	}
	f.HasSelector, f.Seq = true, int32(n)
	return f, nil
}

func (f *Fault) formatArgs(w *words) {
	w.add(f.Producer)
	if f.HasSelector {
		w.add(f.TP.String(), "seq="+strconv.Itoa(int(f.Seq)))
	}
}

// RefusalErrors are the errors `fail request` can make a leader answer:
// the retriable ones Kafka's produce path returns before it appends
// anything (Partition.appendRecordsToLeader, ReplicaManager, LogValidator).
var RefusalErrors = []string{"NOT_ENOUGH_REPLICAS", "NOT_LEADER_OR_FOLLOWER", "REQUEST_TIMED_OUT", "KAFKA_STORAGE_ERROR", "CORRUPT_MESSAGE"}

// FailRequest arms a refusal: the leader answers the produce request that
// carries NAME's batch for TP (with base sequence Seq, or the next one)
// with Error for that partition, before appending anything. The
// connection stays up.
type FailRequest struct {
	At       Pos
	Producer string
	TP       TopicPartition
	HasSeq   bool
	Seq      int32
	Error    string
}

func (f *FailRequest) Position() Pos { return f.At }
func (f *FailRequest) Verb() string  { return "fail request" }

func parseFailRequest(l *cmdLine) (Command, *Error) {
	name, err := l.nameArg()
	if err != nil {
		return nil, err
	}
	tp, err := l.tpArg()
	if err != nil {
		return nil, err
	}
	f := &FailRequest{At: l.at, Producer: name, TP: tp}
	opts, err := l.options(optSpec{keys: []string{"seq"}, flags: RefusalErrors, noun: "key"})
	if err != nil {
		return nil, err
	}
	for _, t := range opts {
		if t.isPair {
			n, err := l.number(t, "seq", limSeq)
			if err != nil {
				return nil, err
			}
			f.HasSeq, f.Seq = true, int32(n)
			continue
		}
		if f.Error != "" {
			return nil, l.errf(t.pos, "one error only, got %s and %s", f.Error, t.val)
		}
		f.Error = t.val
	}
	if f.Error == "" {
		return nil, l.missing("ERROR (one of " + orList(RefusalErrors) + ")")
	}
	return f, nil
}

func (f *FailRequest) formatArgs(w *words) {
	w.add(f.Producer, f.TP.String())
	if f.HasSeq {
		w.add("seq=" + strconv.Itoa(int(f.Seq)))
	}
	w.add(f.Error)
}

// ResetConnection resets a client's connection to a broker: both ends
// learn at once, and what was on the wire is gone.
type ResetConnection struct {
	At     Pos
	Name   string
	Broker int
}

func (r *ResetConnection) Position() Pos { return r.At }
func (r *ResetConnection) Verb() string  { return "reset connection" }

func parseResetConnection(l *cmdLine) (Command, *Error) {
	name, err := l.nameArg()
	if err != nil {
		return nil, err
	}
	t, err := l.positional("BROKER")
	if err != nil {
		return nil, err
	}
	id, err := l.count(t, "BROKER", limBrokerID)
	if err != nil {
		return nil, err
	}
	if _, err := l.options(optSpec{}); err != nil {
		return nil, err
	}
	return &ResetConnection{At: l.at, Name: name, Broker: id}, nil
}

func (r *ResetConnection) formatArgs(w *words) { w.add(r.Name, strconv.Itoa(r.Broker)) }
