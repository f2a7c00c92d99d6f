package script

import (
	"strconv"
	"strings"
)

// AnomalyNames are the names of what the engine's checker finds, as the
// command language and lessons' expectations spell them (the trace
// spells the multi-word ones with spaces: "zombie write").
var AnomalyNames = []string{"duplicate", "lost", "reordered", "zombie_write", "aborted_read", "read_past_LSO"}

// Diagnose names an anomaly at an offset of a partition: the learner's
// diagnosis of a history, which the engine judges against what its
// checker has found so far (`diagnose duplicate orders-0 4`).
type Diagnose struct {
	At     Pos
	Name   string // one of AnomalyNames
	TP     TopicPartition
	Offset int64
}

func (d *Diagnose) Position() Pos { return d.At }
func (d *Diagnose) Verb() string  { return "diagnose" }
func (d *Diagnose) formatArgs(w *words) {
	w.add(d.Name, d.TP.String(), strconv.FormatInt(d.Offset, 10))
}

func parseDiagnose(l *cmdLine) (Command, *Error) {
	t, err := l.positional("ANOMALY")
	if err != nil {
		return nil, err
	}
	name, ok := anomalyName(t.val)
	if !ok {
		return nil, l.errf(t.pos, "unknown anomaly %s%s (the checker's names: %s)", Quote(t.val), didYouMean(t.val, AnomalyNames), strings.Join(AnomalyNames, ", "))
	}
	tp, err := l.tpArg()
	if err != nil {
		return nil, err
	}
	ot, err := l.positional("OFFSET")
	if err != nil {
		return nil, err
	}
	off, err := l.number(ot, "OFFSET", limOffset)
	if err != nil {
		return nil, err
	}
	if _, err := l.options(optSpec{}); err != nil {
		return nil, err
	}
	return &Diagnose{At: l.at, Name: name, TP: tp, Offset: off}, nil
}

// anomalyName reads a name as written — the canonical spelling, any case,
// spaces for underscores (`"read past LSO"`) — and gives the canonical one.
func anomalyName(s string) (string, bool) {
	s = strings.ReplaceAll(s, " ", "_")
	for _, n := range AnomalyNames {
		if strings.EqualFold(n, s) {
			return n, true
		}
	}
	return "", false
}

// Replay plays the world's history again from its start, on a fresh world
// with the same seed, with producer Producer.Name created as Producer
// says instead of as it was: what the same inputs would have given with
// another configuration (`replay app acks=all`).
type Replay struct {
	At       Pos
	Producer Producer // the replacement producer command (its At is the replay's)
}

func (r *Replay) Position() Pos       { return r.At }
func (r *Replay) Verb() string        { return "replay" }
func (r *Replay) formatArgs(w *words) { r.Producer.formatArgs(w) }

func parseReplay(l *cmdLine) (Command, *Error) {
	c, err := parseProducer(l)
	if err != nil {
		return nil, err
	}
	return &Replay{At: l.at, Producer: *c.(*Producer)}, nil
}
