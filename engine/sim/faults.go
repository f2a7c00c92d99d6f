package sim

import (
	"fmt"
	"slices"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
)

// armedFault waits for the message it will lose or delay, or (a refusal)
// for the batch its leader will refuse.
type armedFault struct {
	id       int
	markers  bool      // a marker fault: the next WriteTxnMarkers carrying tp
	refusal  kerr.Code // a refusal: the error the leader answers for the batch
	action   script.FaultAction
	target   script.FaultTarget
	producer string
	selector bool
	tp       msg.TP
	seq      int32
}

// faultKey is what a fault waits for: a request of a producer, an answer
// to one, a batch to refuse, or markers. A message can be the target of
// faults of one key only, so looking there finds the first fault in arming
// order that it fires.
type faultKey struct {
	kind     uint8 // 1 request, 2 response, 3 refusal, 4 markers
	producer string
}

func (f *armedFault) key() faultKey {
	switch {
	case f.refusal != 0:
		return faultKey{3, f.producer}
	case f.markers:
		return faultKey{4, ""}
	case f.target == script.Request:
		return faultKey{1, f.producer}
	}
	return faultKey{2, f.producer}
}

// fewFaults is how many armed faults are looked through one by one
// before they are indexed by key: a lab schedule keeps a few armed while
// every message is checked against them, and hashing a key (and keeping
// the index up to date) costs more than comparing a few faults' keys.
const fewFaults = 8

// armFault adds an armed fault.
func (w *World) armFault(f *armedFault) {
	w.faults = append(w.faults, f)
	switch {
	case w.faultsBy != nil:
		k := f.key()
		w.faultsBy[k] = append(w.faultsBy[k], f)
	case len(w.faults) > fewFaults:
		w.indexFaults()
	}
}

// fired removes a fault that fired.
func (w *World) fired(f *armedFault) {
	w.faults = slices.DeleteFunc(w.faults, func(x *armedFault) bool { return x == f })
	if w.faultsBy == nil {
		return
	}
	if len(w.faults) <= fewFaults {
		w.faultsBy = nil
		return
	}
	k := f.key()
	w.faultsBy[k] = slices.DeleteFunc(w.faultsBy[k], func(x *armedFault) bool { return x == f })
	if len(w.faultsBy[k]) == 0 {
		delete(w.faultsBy, k)
	}
}

// indexFaults indexes the armed faults by key when there are more than a
// few (and drops the index of a copy of the world that has few).
func (w *World) indexFaults() {
	w.faultsBy = nil
	if len(w.faults) <= fewFaults {
		return
	}
	w.faultsBy = make(map[faultKey][]*armedFault, len(w.faults))
	for _, f := range w.faults {
		k := f.key()
		w.faultsBy[k] = append(w.faultsBy[k], f)
	}
}

// armedFor returns the faults that may wait for k, in arming order: those
// of the index's entry, or all of them when there are few (the caller
// passes by those of another key).
func (w *World) armedFor(k faultKey) []*armedFault {
	if w.faultsBy != nil {
		return w.faultsBy[k]
	}
	return w.faults
}

func (f *armedFault) describe() string {
	if f.refusal != 0 {
		s := fmt.Sprintf("refuse %s's next batch for %s", f.producer, f.tp)
		if f.selector {
			s = fmt.Sprintf("refuse %s's batch %s seq=%d", f.producer, f.tp, f.seq)
		}
		return s + " with " + f.refusal.Name() + ", before appending it"
	}
	if f.markers {
		return fmt.Sprintf("%s the next transaction markers for %s", f.action, f.tp)
	}
	s := fmt.Sprintf("%s the next %s", f.action, f.target)
	if f.target == script.Request {
		s += " of " + f.producer
	} else {
		s += " to " + f.producer
	}
	if f.selector {
		s += fmt.Sprintf(" carrying %s seq=%d", f.tp, f.seq)
	}
	return s
}

func (w *World) arm(c *script.Fault) error {
	if w.producers.get(c.Producer) == nil && !w.isExternal(c.Producer) {
		return w.unknownProducer(c.Producer)
	}
	w.nextFault++
	f := w.armed.New() // never changed once armed: copies of the world share it
	f.id, f.action, f.target, f.producer = w.nextFault, c.Action, c.Target, c.Producer
	if c.HasSelector {
		tp := msg.TP{Topic: c.TP.Topic, Partition: c.TP.Partition}
		if w.meta(tp) == nil {
			return w.unknownPartition(tp)
		}
		f.selector, f.tp, f.seq = true, tp, c.Seq
	}
	w.armFault(f)
	if w.tracing() {
		w.emit(trace.New("fault.armed", "armed: "+f.describe()).
			With("fault", trace.Int(int64(f.id))).With("action", trace.Str(c.Action.String())).
			With("target", trace.Str(c.Target.String())).With("producer", trace.Str(c.Producer)))
	}
	return nil
}

// carries reports whether a request is the fault's: without a selector
// any produce or transaction request (InitProducerId, the producer's
// start-up, is not a target), with one a produce request holding the
// selected batch.
func (f *armedFault) carries(body msg.Body) bool {
	if _, init := body.(msg.InitProducerIDRequest); init {
		return false
	}
	if !f.selector {
		return true
	}
	req, ok := body.(*msg.ProduceRequest)
	if !ok {
		return false
	}
	for _, b := range req.Batches {
		if b.TP == f.tp && b.BaseSeq == f.seq {
			return true
		}
	}
	return false
}

// applyFaults checks a message as it is sent against the armed faults;
// each fault fires once.
func (w *World) applyFaults(fl *flight) {
	m := &fl.m
	if fl.cn.ext != nil && !faultable(m.Body) {
		return
	}
	if len(w.faults) == 0 {
		return
	}
	var k faultKey
	switch _, markers := m.Body.(msg.WriteTxnMarkersRequest); {
	case markers:
		k = faultKey{4, ""}
	case m.Body.IsResponse():
		k = faultKey{2, m.To.Client}
	default:
		k = faultKey{1, m.From.Client}
	}
	for _, f := range w.armedFor(k) {
		if f.key() != k {
			continue
		}
		var hit bool
		if f.markers {
			req, ok := m.Body.(msg.WriteTxnMarkersRequest)
			hit = ok && slices.Contains(req.Partitions, f.tp)
		} else if f.target == script.Request {
			hit = m.From.Client == f.producer && f.carries(m.Body)
		} else {
			_, init := m.Body.(msg.InitProducerIDResponse)
			hit = m.To.Client == f.producer && m.Body.IsResponse() && !init && (!f.selector || f.answers(m.Body))
		}
		if !hit {
			continue
		}
		if f.action == script.Lose {
			// TCP loses nothing alone: the connection breaks here, and this
			// message and everything after it, both ways, are gone.
			fl.lost, fl.lostHow = true, lostBreaksHere
			fl.cn.brokeAt = m.ID
		} else {
			fl.delayed = true
			fl.due += DelayMs
		}
		w.fired(f)
		return
	}
}

// answers reports whether a response answers the fault's batch.
func (f *armedFault) answers(body msg.Body) bool {
	resp, ok := body.(*msg.ProduceResponse)
	if !ok {
		return false
	}
	for _, r := range resp.Results {
		if r.TP == f.tp && r.BaseSeq == f.seq {
			return true
		}
	}
	return false
}

// armRefusal is `fail request`.
func (w *World) armRefusal(c *script.FailRequest) error {
	if w.producers.get(c.Producer) == nil && !w.isExternal(c.Producer) {
		return w.unknownProducer(c.Producer)
	}
	tp := msg.TP{Topic: c.TP.Topic, Partition: c.TP.Partition}
	if w.meta(tp) == nil {
		return w.unknownPartition(tp)
	}
	code, ok := kerr.Parse(c.Error)
	if !ok {
		return fmt.Errorf("unknown error %s", c.Error)
	}
	w.nextFault++
	f := w.armed.New()
	f.id, f.refusal, f.producer, f.tp, f.selector, f.seq = w.nextFault, code, c.Producer, tp, c.HasSeq, c.Seq
	w.armFault(f)
	if w.tracing() {
		w.emit(trace.New("fault.armed", "armed: "+f.describe()).
			With("fault", trace.Int(int64(f.id))).With("action", trace.Str("fail")).
			With("target", trace.Str("request")).With("producer", trace.Str(c.Producer)).
			With("partition", trace.Str(tp.String())).With("error", trace.Str(code.Name())))
	}
	return nil
}

// Refusal is the leader asking whether a refusal is armed for this batch;
// it fires once.
func (e brokerEnv) Refusal(from msg.Addr, pb *msg.ProduceBatch) (kerr.Code, bool) {
	w := e.w
	if len(w.faults) == 0 {
		return kerr.None, false
	}
	k := faultKey{3, from.Client}
	for _, f := range w.armedFor(k) {
		if f.key() != k || f.tp != pb.TP || f.selector && f.seq != pb.BaseSeq {
			continue
		}
		w.fired(f)
		return f.refusal, true
	}
	return kerr.None, false
}
