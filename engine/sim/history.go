package sim

import (
	"math"

	"github.com/eoslab/eoslab/engine/script"
)

// The history keeps the commands it is given. The two a large world is
// built of — a producer with Kafka's defaults, a send of records with the
// producer's own values — are kept in a compact form (24 bytes: the name
// and one word of small numbers), made again, equal, when the history is
// read: a world of a million producers keeps two million of them. A
// command whose numbers do not fit is kept as it was given.

// sentRecords is a *script.Send without a key or a value to the cluster's
// topic (fixed once a producer exists, which a send needs).
type sentRecords struct {
	producer  string
	line      int32
	count     uint16
	col       uint8
	partition uint8
}

// madeProducer is a *script.Producer with no transactional id or setting.
type madeProducer struct {
	name string
	line int32
	col  uint16
	mode uint8 // a script.ProducerMode
}

func (s *sentRecords) Position() script.Pos {
	return script.Pos{Line: int(s.line), Col: int(s.col)}
}
func (s *sentRecords) Verb() string { return "send" }
func (p *madeProducer) Position() script.Pos {
	return script.Pos{Line: int(p.line), Col: int(p.col)}
}
func (p *madeProducer) Verb() string { return "producer" }

// fits reports whether 0 <= v <= most.
func fits(v, most int) bool { return v >= 0 && v <= most }

// compactCommand is the form the history keeps c in. A command given
// again (the same pointer: commands are never changed once given) gets
// the form it got last time, so that a caller sending one command over
// and over makes nothing new.
func (w *World) compactCommand(c script.Command) script.Command {
	if c == w.lastCmd {
		return w.lastCompact
	}
	w.lastCmd, w.lastCompact = c, w.compactForm(c)
	return w.lastCompact
}

func (w *World) compactForm(c script.Command) script.Command {
	switch c := c.(type) {
	case *script.Send:
		if !c.HasKey && !c.HasValue && c.Key == "" && c.Value == "" && c.TP.Topic == w.cluster.Topic && fits(c.TP.Partition, math.MaxUint8) &&
			fits(c.Count, math.MaxUint16) && fits(c.At.Line, math.MaxInt32) && fits(c.At.Col, math.MaxUint8) {
			s := w.sentRecs.New() // the history keeps one a send: cut from chunks, not an allocation each
			s.producer, s.partition, s.count, s.line, s.col = c.Producer, uint8(c.TP.Partition), uint16(c.Count), int32(c.At.Line), uint8(c.At.Col)
			return s
		}
	case *script.Producer:
		if c.TxnID == "" && c.Config == nil && fits(int(c.Mode), math.MaxUint8) && fits(c.At.Line, math.MaxInt32) && fits(c.At.Col, math.MaxUint16) {
			p := w.madeProds.New()
			p.name, p.mode, p.line, p.col = c.Name, uint8(c.Mode), int32(c.At.Line), uint16(c.At.Col)
			return p
		}
	}
	return c
}

func (s *sentRecords) send(topic string) script.Send {
	return script.Send{At: s.Position(), Producer: s.producer, TP: script.TopicPartition{Topic: topic, Partition: int(s.partition)}, Count: int(s.count)}
}

func (p *madeProducer) producer() script.Producer {
	return script.Producer{At: p.Position(), Name: p.name, Mode: script.ProducerMode(p.mode)}
}

// command is the command an entry of w's history keeps, as it was given.
func (w *World) command(a *action) script.Command {
	switch c := a.cmd.(type) {
	case *sentRecords:
		s := c.send(w.cluster.Topic)
		return &s
	case *madeProducer:
		p := c.producer()
		return &p
	}
	return a.cmd
}

// applyKept is applyNow for a command the history kept, compact or not:
// a replay makes no command again to apply it.
func (w *World) applyKept(c script.Command) error {
	switch c := c.(type) {
	case *sentRecords:
		s := c.send(w.cluster.Topic)
		return w.applySend(&s)
	case *madeProducer:
		p := c.producer()
		return w.createProducer(&p)
	}
	return w.applyNow(c)
}
