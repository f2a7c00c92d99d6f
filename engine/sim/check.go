package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/trace"
)

// Anomaly is a violation of exactly-once delivery the checker found, in
// Jepsen's vocabulary.
type Anomaly struct {
	Name      string // duplicate, lost, reordered
	Partition string
	Producer  string
	Offsets   []int64
	Serials   []int64
	Step      int
	Text      string
}

// source says which producer records a sent batch holds. A record's
// identity is its producer's serial number, or, when the application
// chose the value (value=...), that value: the same business event sent
// twice — even by a restarted producer with a new id — is a duplicate.
type source struct {
	producer    string
	who         int32 // the producer's number in the checker (cheaper to hash than its name)
	firstSerial int64
	value       string
	explicit    bool
}

// identity is what makes a record the same record.
type identity struct {
	who   int32  // -1 for an application-chosen value
	value string // that value
	n     int64  // the serial, or the index within the batch for a value
}

func (s source) identity(i int64) identity {
	if s.explicit {
		return identity{who: -1, value: s.value, n: i}
	}
	return identity{who: s.who, n: s.firstSerial + i}
}

func (s source) describe(i int64) string {
	if s.explicit {
		return fmt.Sprintf("value %q #%d", s.value, i)
	}
	return fmt.Sprintf("%s serial %d", s.producer, s.firstSerial+i)
}

// batchKey identifies a batch's content: a retry of the same batch has the
// same bytes (same CRC), a re-sequenced one does not.
type batchKey struct {
	crc  uint32
	pid  int64
	seq  int32
	size int32
}

func keyOf(data []byte) (batchKey, bool) {
	h, err := record.ParseHeader(data)
	if err != nil {
		return batchKey{}, false
	}
	return batchKey{h.CRC, h.ProducerID, h.BaseSequence, h.BatchLength}, true
}

type ackRec struct {
	tp     msg.TP
	src    source
	count  int64
	offset int64
	lost   bool
}

type partCheck struct {
	log       *partition.Log
	scanned   int
	at        map[identity]int64
	maxSerial map[string]int64
}

// checker watches every leader log after every step for duplicates,
// reordering and acknowledged records that are no longer there. It only
// reads what producers sent and what logs hold: the same check a Jepsen
// test makes from the outside.
type checker struct {
	who       map[string]int32 // producer names to small numbers
	sources   map[batchKey]source
	parts     map[msg.TP]*partCheck
	acks      []ackRec
	reported  map[string]bool
	anomalies []Anomaly
	rescan    map[msg.TP]bool // the leader changed: check the whole log again
	fresh     []int           // acks not checked yet
}

func newChecker() *checker {
	return &checker{who: map[string]int32{}, sources: map[batchKey]source{}, parts: map[msg.TP]*partCheck{}, reported: map[string]bool{}, rescan: map[msg.TP]bool{}}
}

func (c *checker) noteSent(req msg.ProduceRequest, sourceOf func(batchID int) (source, bool)) {
	for _, b := range req.Batches {
		k, ok := keyOf(b.Data)
		s, known := sourceOf(b.BatchID)
		if ok && known {
			c.sources[k] = s
		}
	}
}

func (c *checker) leaderChanged(tp msg.TP) { c.rescan[tp] = true }

// noteAck records a batch the producer was told is written.
func (c *checker) noteAck(producer string, b *client.Batch) {
	c.fresh = append(c.fresh, len(c.acks))
	c.acks = append(c.acks, ackRec{tp: b.TP, src: c.sourceOf(producer, b), count: int64(b.Count), offset: b.BaseOffset})
}

// run scans what changed in this step.
func (c *checker) run(w *World) {
	for _, m := range w.parts {
		log := w.leaderLog(m)
		if log == nil {
			continue
		}
		pc := c.parts[m.tp]
		if pc == nil || pc.log != log || c.rescan[m.tp] {
			pc = &partCheck{log: log, at: map[identity]int64{}, maxSerial: map[string]int64{}}
			c.parts[m.tp] = pc
		}
		c.scan(w, m.tp, pc)
		if c.rescan[m.tp] {
			for i := range c.acks {
				if c.acks[i].tp == m.tp {
					c.checkAck(w, &c.acks[i], pc)
				}
			}
			delete(c.rescan, m.tp)
		}
	}
	for _, i := range c.fresh {
		a := &c.acks[i]
		if pc := c.parts[a.tp]; pc != nil {
			c.checkAck(w, a, pc)
		}
	}
	c.fresh = c.fresh[:0]
}

func (c *checker) scan(w *World, tp msg.TP, pc *partCheck) {
	batches := pc.log.Batches()
	if pc.scanned > len(batches) {
		pc.scanned = 0 // truncated under us: start over
		clear(pc.at)
		clear(pc.maxSerial)
	}
	for _, b := range batches[pc.scanned:] {
		if b.Header.Attributes.Control() {
			continue
		}
		k, _ := keyOf(b.Bytes)
		src, ok := c.sources[k]
		if !ok {
			continue
		}
		var dups, dupSerials []int64
		var what []string
		reordered := false
		for i := int64(0); i < int64(b.Header.RecordsCount); i++ {
			id := src.identity(i)
			off := b.Header.BaseOffset + i
			if prev, seen := pc.at[id]; seen {
				dups = append(dups, prev, off)
				dupSerials = append(dupSerials, src.firstSerial+i)
				what = append(what, fmt.Sprintf("%s at %d and %d", src.describe(i), prev, off))
				continue
			}
			pc.at[id] = off
			if src.explicit {
				continue
			}
			serial := src.firstSerial + i
			if max, ok := pc.maxSerial[src.producer]; ok && serial < max {
				reordered = true
			}
			pc.maxSerial[src.producer] = max(pc.maxSerial[src.producer], serial)
		}
		if len(dups) > 0 {
			c.report(w, Anomaly{Name: "duplicate", Partition: tp.String(), Producer: src.producer, Offsets: dups, Serials: dupSerials,
				Text: fmt.Sprintf("%s holds a record twice: %s", tp, strings.Join(what, "; "))})
		}
		if reordered {
			c.report(w, Anomaly{Name: "reordered", Partition: tp.String(), Producer: src.producer,
				Offsets: []int64{b.Header.BaseOffset}, Serials: []int64{src.firstSerial},
				Text: fmt.Sprintf("%s: %s's serial %d at offset %d comes after a later serial of the same producer", tp, src.producer, src.firstSerial, b.Header.BaseOffset)})
		}
	}
	pc.scanned = len(batches)
}

func (c *checker) sourceOf(producer string, b *client.Batch) source {
	who, ok := c.who[producer]
	if !ok {
		who = int32(len(c.who))
		c.who[producer] = who
	}
	s := source{producer: producer, who: who, firstSerial: b.FirstSerial, explicit: b.Explicit}
	if b.Explicit && len(b.Values) > 0 {
		s.value = string(b.Values[0])
	}
	return s
}

// checkAck reports an acknowledged batch whose records the leader's log
// no longer holds anywhere (Jepsen's "lost": acknowledged, then not read).
func (c *checker) checkAck(w *World, a *ackRec, pc *partCheck) {
	if a.lost {
		return
	}
	present := true
	for i := int64(0); i < a.count; i++ {
		if _, ok := pc.at[a.src.identity(i)]; !ok {
			present = false
			break
		}
	}
	if present {
		return
	}
	a.lost = true
	serials := []int64{a.src.firstSerial, a.src.firstSerial + a.count - 1}
	c.report(w, Anomaly{Name: "lost", Partition: a.tp.String(), Producer: a.src.producer,
		Offsets: []int64{a.offset, a.offset + a.count - 1}, Serials: serials,
		Text: fmt.Sprintf("%s: %s's serials %d-%d were acknowledged at offsets %d-%d but the leader's log no longer has them",
			a.tp, a.src.producer, serials[0], serials[1], a.offset, a.offset+a.count-1)})
}

func (c *checker) report(w *World, a Anomaly) {
	key := fmt.Sprint(a.Name, a.Partition, a.Offsets)
	if c.reported[key] {
		return
	}
	c.reported[key] = true
	a.Step = w.steps
	c.anomalies = append(c.anomalies, a)
	if w.tracing() {
		w.emit(trace.New("anomaly", a.Text).
			With("name", trace.Str(a.Name)).With("partition", trace.Str(a.Partition)).
			With("producer", trace.Str(a.Producer)).With("offsets", trace.List(slices.Clone(a.Offsets))).
			With("serials", trace.List(slices.Clone(a.Serials))))
	}
}

// Anomalies returns what the checker has found so far.
func (w *World) Anomalies() []Anomaly { return slices.Clone(w.check.anomalies) }
