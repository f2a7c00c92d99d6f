package script

import (
	"errors"
	"math"
	"strconv"
)

// RestartProducer restarts the producer application: the new instance gets
// a new PID and fresh sequences, with no link to the old one.
type RestartProducer struct {
	At   Pos
	Name string
}

func (r *RestartProducer) Position() Pos       { return r.At }
func (r *RestartProducer) Verb() string        { return "restart producer" }
func (r *RestartProducer) formatArgs(w *words) { w.add(r.Name) }

func parseRestartProducer(l *cmdLine) (Command, *Error) {
	name, err := l.onlyName()
	if err != nil {
		return nil, err
	}
	return &RestartProducer{At: l.at, Name: name}, nil
}

// RestartConsumer restarts a consumer application: the new instance
// starts at its group's committed offsets (the beginning without a group),
// and answers to the old instance's fetches are ignored.
type RestartConsumer struct {
	At   Pos
	Name string
}

func (r *RestartConsumer) Position() Pos       { return r.At }
func (r *RestartConsumer) Verb() string        { return "restart consumer" }
func (r *RestartConsumer) formatArgs(w *words) { w.add(r.Name) }

func parseRestartConsumer(l *cmdLine) (Command, *Error) {
	name, err := l.onlyName()
	if err != nil {
		return nil, err
	}
	return &RestartConsumer{At: l.at, Name: name}, nil
}

// Pause stops the producer's process; it keeps its state and can become a
// zombie if others move on meanwhile.
type Pause struct {
	At   Pos
	Name string
}

func (p *Pause) Position() Pos       { return p.At }
func (p *Pause) Verb() string        { return "pause" }
func (p *Pause) formatArgs(w *words) { w.add(p.Name) }

func parsePause(l *cmdLine) (Command, *Error) {
	name, err := l.onlyName()
	if err != nil {
		return nil, err
	}
	return &Pause{At: l.at, Name: name}, nil
}

// Resume lets a paused producer's process continue.
type Resume struct {
	At   Pos
	Name string
}

func (r *Resume) Position() Pos       { return r.At }
func (r *Resume) Verb() string        { return "resume" }
func (r *Resume) formatArgs(w *words) { w.add(r.Name) }

func parseResume(l *cmdLine) (Command, *Error) {
	name, err := l.onlyName()
	if err != nil {
		return nil, err
	}
	return &Resume{At: l.at, Name: name}, nil
}

// onlyName parses the arguments of a verb that takes just NAME.
func (l *cmdLine) onlyName() (string, *Error) {
	name, err := l.nameArg()
	if err != nil {
		return "", err
	}
	_, err = l.options(optSpec{})
	return name, err
}

// RestartBroker restarts a broker: by default a crash restart, with Clean a
// clean shutdown first.
type RestartBroker struct {
	At    Pos
	ID    int
	Clean bool
}

func (r *RestartBroker) Position() Pos { return r.At }
func (r *RestartBroker) Verb() string  { return "restart broker" }

func parseRestartBroker(l *cmdLine) (Command, *Error) {
	id, err := l.brokerID()
	if err != nil {
		return nil, err
	}
	opts, err := l.options(optSpec{flags: []string{"clean"}})
	if err != nil {
		return nil, err
	}
	return &RestartBroker{At: l.at, ID: id, Clean: len(opts) > 0}, nil
}

func (r *RestartBroker) formatArgs(w *words) {
	w.add(strconv.Itoa(r.ID))
	if r.Clean {
		w.add("clean")
	}
}

// KillBroker stops a broker until it is restarted.
type KillBroker struct {
	At Pos
	ID int
}

func (k *KillBroker) Position() Pos       { return k.At }
func (k *KillBroker) Verb() string        { return "kill broker" }
func (k *KillBroker) formatArgs(w *words) { w.add(strconv.Itoa(k.ID)) }

func parseKillBroker(l *cmdLine) (Command, *Error) {
	id, err := l.brokerID()
	if err != nil {
		return nil, err
	}
	if _, err := l.options(optSpec{}); err != nil {
		return nil, err
	}
	return &KillBroker{At: l.at, ID: id}, nil
}

// brokerID consumes a positional broker ID; brokers are numbered from 1.
func (l *cmdLine) brokerID() (int, *Error) {
	t, err := l.positional("ID")
	if err != nil {
		return 0, err
	}
	return l.count(t, "ID", limBrokerID)
}

// Failover moves leadership of a partition to an in-sync follower, or with
// Unclean to an out-of-sync replica.
type Failover struct {
	At      Pos
	TP      TopicPartition
	Unclean bool
}

func (f *Failover) Position() Pos { return f.At }
func (f *Failover) Verb() string  { return "failover" }

func parseFailover(l *cmdLine) (Command, *Error) {
	if l.next < len(l.args) && !l.args[l.next].isPair && !l.args[l.next].quoted && l.args[l.next].val == "coordinator" {
		l.next++
		t, err := l.positional("TXN_ID")
		if err != nil {
			return nil, err
		}
		if _, err := l.options(optSpec{}); err != nil {
			return nil, err
		}
		return &FailoverCoordinator{At: l.at, TxnID: t.val}, nil
	}
	tp, err := l.tpArg()
	if err != nil {
		return nil, err
	}
	opts, err := l.options(optSpec{flags: []string{"unclean"}})
	if err != nil {
		return nil, err
	}
	return &Failover{At: l.at, TP: tp, Unclean: len(opts) > 0}, nil
}

func (f *Failover) formatArgs(w *words) {
	w.add(f.TP.String())
	if f.Unclean {
		w.add("unclean")
	}
}

// Advance moves the logical clock on by Ms milliseconds.
type Advance struct {
	At Pos
	Ms int64
}

func (a *Advance) Position() Pos       { return a.At }
func (a *Advance) Verb() string        { return "advance" }
func (a *Advance) formatArgs(w *words) { w.add(formatDuration(a.Ms)) }

func parseAdvance(l *cmdLine) (Command, *Error) {
	t, err := l.positional("DURATION")
	if err != nil {
		return nil, err
	}
	ms, e := parseDuration(t.val)
	if errors.Is(e, errTooLarge) {
		ms = math.MaxInt64 // beyond int64 milliseconds: above the limit
	} else if e != nil {
		return nil, l.errf(t.pos, "invalid duration %s: %v", Quote(t.val), e)
	}
	if msg := limitTable[limAdvance].check("duration", ms, t.val); msg != "" {
		return nil, l.errf(t.pos, "%s", msg)
	}
	if _, err := l.options(optSpec{}); err != nil {
		return nil, err
	}
	return &Advance{At: l.at, Ms: ms}, nil
}
