package sim

import (
	"math"

	"github.com/eoslab/eoslab/engine/script"
)

// The history keeps the commands it is given. The two a large world is
// built of — a producer with Kafka's defaults, a send of records with the
// producer's own values — are kept in a compact form (a third to a half
// of the parsed command), made again, equal, when the history is read:
// a world of a million producers keeps two million of them.

// sentRecords is a *script.Send without a key or a value.
type sentRecords struct {
	producer, topic  string
	partition, count int32
	line, col        int32
}

// madeProducer is a *script.Producer with no transactional id or setting.
type madeProducer struct {
	name      string
	mode      script.ProducerMode
	line, col int32
}

func (s *sentRecords) Position() script.Pos {
	return script.Pos{Line: int(s.line), Col: int(s.col)}
}
func (s *sentRecords) Verb() string { return "send" }
func (p *madeProducer) Position() script.Pos {
	return script.Pos{Line: int(p.line), Col: int(p.col)}
}
func (p *madeProducer) Verb() string { return "producer" }

func fits32(vs ...int) bool {
	for _, v := range vs {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return false
		}
	}
	return true
}

// compactCommand is the form the history keeps c in.
func compactCommand(c script.Command) script.Command {
	switch c := c.(type) {
	case *script.Send:
		if !c.HasKey && !c.HasValue && c.Key == "" && c.Value == "" && fits32(c.TP.Partition, c.Count, c.At.Line, c.At.Col) {
			return &sentRecords{producer: c.Producer, topic: c.TP.Topic, partition: int32(c.TP.Partition), count: int32(c.Count),
				line: int32(c.At.Line), col: int32(c.At.Col)}
		}
	case *script.Producer:
		if c.TxnID == "" && c.Config == nil && fits32(c.At.Line, c.At.Col) {
			return &madeProducer{name: c.Name, mode: c.Mode, line: int32(c.At.Line), col: int32(c.At.Col)}
		}
	}
	return c
}

// command is the command an entry of the history keeps, as it was given.
func (a *action) command() script.Command {
	switch c := a.cmd.(type) {
	case *sentRecords:
		return &script.Send{At: c.Position(), Producer: c.producer, TP: script.TopicPartition{Topic: c.topic, Partition: int(c.partition)}, Count: int(c.count)}
	case *madeProducer:
		return &script.Producer{At: c.Position(), Name: c.name, Mode: c.mode}
	}
	return a.cmd
}
