package script

import "strconv"

// Send enqueues Count records as one batch on the named producer; the
// producer's sender transmits it on later steps.
type Send struct {
	At       Pos
	Producer string
	TP       TopicPartition
	Count    int
	Key      string
	Value    string
	HasKey   bool // key= was given (an empty key is not a null key)
	HasValue bool
}

func (s *Send) Position() Pos { return s.At }
func (s *Send) Verb() string  { return "send" }

func parseSend(l *cmdLine) (Command, *Error) {
	name, err := l.nameArg()
	if err != nil {
		return nil, err
	}
	tp, err := l.tpArg()
	if err != nil {
		return nil, err
	}
	ct, err := l.positional("COUNT")
	if err != nil {
		return nil, err
	}
	count, err := l.count(ct, "COUNT", limSendCount)
	if err != nil {
		return nil, err
	}
	opts, err := l.options(optSpec{keys: []string{"key", "value"}})
	if err != nil {
		return nil, err
	}
	s := &Send{At: l.at, Producer: name, TP: tp, Count: count}
	for _, t := range opts {
		if t.key == "key" {
			s.Key, s.HasKey = t.val, true
		} else {
			s.Value, s.HasValue = t.val, true
		}
	}
	return s, nil
}

func (s *Send) formatArgs(w *words) {
	w.add(s.Producer, s.TP.String(), strconv.Itoa(s.Count))
	if s.HasKey {
		w.kv("key", s.Key)
	}
	if s.HasValue {
		w.kv("value", s.Value)
	}
}

// tpArg consumes and checks a positional TOPIC-PARTITION.
func (l *cmdLine) tpArg() (TopicPartition, *Error) {
	t, err := l.positional("TOPIC-PARTITION")
	if err != nil {
		return TopicPartition{}, err
	}
	return l.topicPartition(t)
}

// Inject hands a hand-built batch straight to the partition leader, with no
// client involved: the way to show what the broker does with batches a
// well-behaved client would never send.
type Inject struct {
	At    Pos
	TP    TopicPartition
	PID   int64
	Epoch int16
	Seq   int32 // base sequence
	Count int32 // records in the batch
	Txn   bool  // transactional batch
}

func (in *Inject) Position() Pos { return in.At }
func (in *Inject) Verb() string  { return "inject" }

var injectKeys = []string{"pid", "epoch", "seq", "count"}

func parseInject(l *cmdLine) (Command, *Error) {
	tp, err := l.tpArg()
	if err != nil {
		return nil, err
	}
	opts, err := l.options(optSpec{keys: injectKeys, flags: []string{"txn"}})
	if err != nil {
		return nil, err
	}
	in := &Inject{At: l.at, TP: tp}
	limits := map[string]limitID{"pid": limInjectPID, "epoch": limInjectEpoch, "seq": limSeq, "count": limInjectCount}
	got := map[string]int64{}
	for _, t := range opts {
		if t.key == "" {
			in.Txn = true
			continue
		}
		n, err := l.number(t, t.key, limits[t.key])
		if err != nil {
			return nil, err
		}
		got[t.key] = n
	}
	for _, k := range injectKeys {
		if _, ok := got[k]; !ok {
			return nil, l.missing(k + "=N")
		}
	}
	in.PID, in.Epoch = got["pid"], int16(got["epoch"])
	in.Seq, in.Count = int32(got["seq"]), int32(got["count"])
	return in, nil
}

func (in *Inject) formatArgs(w *words) {
	w.add(in.TP.String())
	w.num("pid", in.PID)
	w.num("epoch", int64(in.Epoch))
	w.num("seq", int64(in.Seq))
	w.num("count", int64(in.Count))
	if in.Txn {
		w.add("txn")
	}
}

// Step performs the next N due events.
type Step struct {
	At Pos
	N  int
}

func (s *Step) Position() Pos { return s.At }
func (s *Step) Verb() string  { return "step" }

func parseStep(l *cmdLine) (Command, *Error) {
	s := &Step{At: l.at, N: 1}
	if t, ok := l.optionalPositional(); ok {
		n, err := l.count(t, "N", limStep)
		if err != nil {
			return nil, err
		}
		s.N = n
	}
	if _, err := l.options(optSpec{}); err != nil {
		return nil, err
	}
	return s, nil
}

// formatArgs leaves out the default of 1, as a person would write it.
func (s *Step) formatArgs(w *words) {
	if s.N != 1 {
		w.add(strconv.Itoa(s.N))
	}
}

// Run performs events until nothing is due.
type Run struct{ At Pos }

func (r *Run) Position() Pos { return r.At }
func (r *Run) Verb() string  { return "run" }

func parseRun(l *cmdLine) (Command, *Error) {
	if _, err := l.options(optSpec{}); err != nil {
		return nil, err
	}
	return &Run{At: l.at}, nil
}
