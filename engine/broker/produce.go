package broker

import (
	"fmt"
	"slices"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/producerstate"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/trace"
)

// pendingProduce is an acks=all request waiting in purgatory for the high
// watermark to cover its batches (DelayedProduce).
type pendingProduce struct {
	request  int
	from     msg.Addr
	conn     int
	results  []msg.ProduceResult
	waitFor  []int64 // per result: the offset the HW must reach, or -1
	deadline int64
	// markers is set for a WriteTxnMarkers request, which waits like an
	// acks=all produce (Kafka appends markers with acks=-1) and is
	// answered as a marker response.
	markers *msg.WriteTxnMarkersResponse
}

// reply answers a settled purgatory entry.
func (b *Broker) reply(p *pendingProduce, env Env) {
	if p.markers == nil {
		b.answer(p.from, p.conn, p.request, b.produceResponse(p.results), env)
		return
	}
	resp := *p.markers
	for _, r := range p.results {
		resp.Results = append(resp.Results, msg.MarkerResult{TP: r.TP, Error: r.Error})
	}
	env.Reply(b.ID, p.from, p.conn, p.request, resp)
}

// produceResponse is the answer carrying results, sent by pointer: boxed
// into a msg.Body, a ProduceResponse would be an allocation of its own.
// Neither it nor its results change once sent.
func (b *Broker) produceResponse(results []msg.ProduceResult) *msg.ProduceResponse {
	resp := b.spareProduced.Take()
	if resp == nil {
		resp = b.produceResps.New()
	}
	resp.Results = results
	return resp
}

// spareAnswers is how many read answers of each kind (to followers'
// fetches and to produces, with their results' room) and answered
// purgatory entries a broker keeps for reuse: about as many as can be in
// flight at once.
const spareAnswers = 16

// TakeBackProduce keeps resp, an answer of this broker to a producer of
// the world, and its results' room, for the next ones: the producer has
// read it and nothing points to it any more. (Each world owns the answers
// it has in flight or waiting: a copy of the world copies them.)
func (b *Broker) TakeBackProduce(resp *msg.ProduceResponse) {
	if len(b.spareResults) < spareAnswers {
		b.spareResults = append(b.spareResults, resp.Results)
	}
	resp.Results = nil
	b.spareProduced.Give(resp, spareAnswers)
}

// resultRoom is an empty list of results with room for n, all zero: the
// room of an answer read (TakeBackProduce), or new.
func (b *Broker) resultRoom(n int) []msg.ProduceResult {
	if k := len(b.spareResults); k > 0 {
		r := b.spareResults[k-1]
		b.spareResults[k-1] = nil
		b.spareResults = b.spareResults[:k-1]
		if cap(r) >= n {
			// Nothing of the last answer stays alive through it. Most
			// answers carry one result: a store clears it for less than
			// clear's call.
			if r = r[:cap(r)]; len(r) == 1 {
				r[0] = msg.ProduceResult{}
			} else {
				clear(r)
			}
			return r[:0]
		}
	}
	return b.results.Make(n)
}

// pendingEntry is a zero purgatory entry but for the room of its waitFor:
// one answered (sparePendings), else a new one.
func (b *Broker) pendingEntry() *pendingProduce {
	p := b.sparePendings.Take()
	if p == nil {
		return b.pendings.New()
	}
	*p = pendingProduce{waitFor: p.waitFor[:0]}
	return p
}

// recyclePending keeps p, answered and out of purgatory, for the next
// entry. Its results went with the answer; a markers entry's are the
// coordinator's and it is not kept.
func (b *Broker) recyclePending(p *pendingProduce) {
	if p.markers != nil {
		return
	}
	p.results = nil
	b.sparePendings.Give(p, spareAnswers)
}

// HandleProduce runs the leader's produce path for every batch of the
// request and answers now (acks 0/1, errors) or once replicated (acks=all).
func (b *Broker) HandleProduce(m *msg.Message, req *msg.ProduceRequest, env Env) {
	var waits [4]int64
	results, waitFor := b.resultRoom(len(req.Batches)), waits[:0]
	if req.Acks != 0 {
		b.arrive(m)
	}
	wait := false
	// The results are zero, and written in place; the batches are read by
	// pointer (64 bytes each).
	results = results[:len(req.Batches)]
	for i := range req.Batches {
		w := b.produceOne(m, req.Acks, req.TransactionalID, req.TV2, &req.Batches[i], &results[i], env)
		waitFor = append(waitFor, w)
		wait = wait || w >= 0
	}
	if req.Acks == 0 {
		return // no response at all
	}
	if !wait || b.settleResults(results, waitFor) {
		b.answer(m.From, m.Conn, m.ID, b.produceResponse(results), env)
		return
	}
	p := b.pendingEntry()
	room := p.waitFor
	if cap(room) < len(waitFor) {
		room = b.waitFor.Make(len(waitFor))
	}
	*p = pendingProduce{request: m.ID, from: m.From, conn: m.Conn, deadline: env.Now() + int64(req.TimeoutMs),
		results: results, waitFor: append(room, waitFor...)}
	b.addPending(p)
	env.ProduceTimer(p.deadline, b.ID, m.ID)
}

// produceOne runs the leader's produce path for one batch, writing its
// answer into *res, a zero result, and returns the offset the high
// watermark must reach before acks=all answers it, or -1.
func (b *Broker) produceOne(m *msg.Message, acks int16, txnID string, tv2 bool, pb *msg.ProduceBatch, res *msg.ProduceResult, env Env) int64 {
	res.TP, res.BaseSeq, res.BaseOffset, res.LogStartOffset = pb.TP, pb.BaseSeq, -1, -1
	r := b.replicas.get(pb.TP)
	var ar partition.AppendResult
	switch {
	case acks != -1 && acks != 0 && acks != 1:
		ar = partition.AppendResult{Error: kerr.InvalidRequiredAcks, BaseOffset: -1, Reason: fmt.Sprintf("acks=%d", acks)}
	case r == nil || !r.IsLeader:
		ar = partition.AppendResult{Error: kerr.NotLeaderOrFollower, BaseOffset: -1, Reason: fmt.Sprintf("broker %d does not lead %s", b.ID, pb.TP)}
	case b.refused(m, pb, &ar, env):
	default:
		b.appendChecked(r, acks, txnID, tv2, pb, &ar, env)
	}
	if env.Tracing() {
		logEnd := int64(-1)
		if r != nil {
			logEnd = r.Log.LogEndOffset()
		}
		b.emitDecision(m, pb, &ar, logEnd, env)
	}
	res.Error, res.BaseOffset, res.Reason = ar.Error, ar.BaseOffset, ar.Reason
	if r != nil {
		res.LogStartOffset = r.Log.LogStartOffset()
	}
	if ar.Error != kerr.None {
		return -1
	}
	if ar.Appended() {
		b.replicate(r, env)
	}
	if acks == -1 {
		return ar.LastOffset + 1
	}
	return -1
}

// replicate wakes the followers of r that are not already fetching.
func (b *Broker) replicate(r *Replica, env Env) {
	for _, f := range r.followers {
		env.Fetch(f.id, r.TP)
	}
	b.maybeAdvanceHW(r, env)
}

// emitDecision emits the produce.decision trace event (keys: docs/trace.md).
func (b *Broker) emitDecision(m *msg.Message, pb *msg.ProduceBatch, ar *partition.AppendResult, logEnd int64, env Env) {
	h := decisionHeader(pb.Data)
	outcome := "reject"
	switch {
	case ar.Error == kerr.None && ar.Checked && ar.Decision.Outcome == producerstate.Duplicate:
		outcome = "duplicate"
	case ar.Error == kerr.None:
		outcome = "append"
	}
	slab := env.Slab()
	tp := slab.Partition(pb.TP.Topic, pb.TP.Partition)
	var t []byte // the text, unless the attributes say it (trace.SentenceAppend)
	switch outcome {
	case "duplicate":
		var buf [256]byte // declared here, where it is needed: zeroing it cost every append 30 instructions
		t = fmt.Appendf(buf[:0], "broker %d recognises %s on %s as a duplicate: nothing appended, answers with the original offsets %d-%d", b.ID, seqText(&h), tp, ar.BaseOffset, ar.LastOffset)
	case "reject":
		var buf [256]byte
		t = fmt.Appendf(buf[:0], "broker %d rejects %s on %s: %s", b.ID, seqText(&h), tp, ar.Explain(tp, logEnd))
	}
	// Written straight into the slab: With would copy the event for each
	// of its fifteen attributes.
	producer, errName := m.From.String(), ar.Error.Name()
	a := slab.Begin(128 + producerstate.MaxPackedDecision + len(t) + len(tp) + len(producer) + len(errName) + 8)
	if ar.Checked {
		a = a.Decision(&ar.Decision)
	}
	if len(t) > 0 {
		a = a.Text(t)
	}
	a = a.Int(trace.KeyBroker, int64(b.ID))
	a = a.Str(trace.KeyPartition, tp)
	a = a.Int(trace.KeyProducerID, h.ProducerID)
	a = a.Int(trace.KeyProducerEpoch, int64(h.ProducerEpoch))
	a = a.Int(trace.KeyBaseSequence, int64(h.BaseSequence))
	a = a.Int(trace.KeyLastSequence, int64(h.LastSequence()))
	a = a.Int(trace.KeyRecordCount, int64(h.RecordsCount))
	a = a.Bool(trace.KeyTransactional, h.Attributes.Transactional())
	a = a.Str(trace.KeyOutcome, outcome)
	a = a.Str(trace.KeyError, errName)
	a = a.Int(trace.KeyBaseOffset, ar.BaseOffset)
	a = a.Str(trace.KeyProducer, producer)
	a = a.Int(trace.KeyBatch, int64(pb.BatchID))
	a = a.Int(trace.KeyRequest, int64(m.ID))
	if ar.Checked {
		a = a.Path(trace.KeyPath, ar.Decision.Path)
	}
	if len(t) == 0 {
		a = a.Say(trace.SentenceAppend).Arg(ar.LastOffset - ar.BaseOffset)
	}
	env.Event("produce.decision").Attrs = slab.Done(a)
}

// decisionHeader is the part of ParseHeader(b)'s header a decision event
// says, read field by field: the batch was parsed already on its way in,
// and parsing all of it again cost more than the rest of the event's
// attributes. Like ParseHeader, a batch too short for a header gives the
// zero header.
func decisionHeader(b []byte) record.Header {
	if len(b) < record.HeaderSize {
		return record.Header{}
	}
	return record.Header{
		Attributes:      record.AttributesOf(b),
		LastOffsetDelta: int32(record.LastOffsetOf(b) - record.BaseOffsetOf(b)),
		ProducerID:      record.ProducerIDOf(b),
		ProducerEpoch:   record.ProducerEpochOf(b),
		BaseSequence:    record.BaseSequenceOf(b),
		RecordsCount:    record.RecordsCountOf(b),
	}
}

func seqText(h *record.Header) string {
	var buf [64]byte
	return string(appendSeq(buf[:0], h))
}

func appendSeq(b []byte, h *record.Header) []byte {
	if !h.HasProducerID() {
		return append(trace.AppendInt(append(b, "a plain batch of "...), int64(h.RecordsCount)), " record(s)"...)
	}
	b = trace.AppendInt(append(b, "pid "...), h.ProducerID)
	b = trace.AppendInt(append(b, " epoch "...), int64(h.ProducerEpoch))
	b = trace.AppendInt(append(b, " seq "...), int64(h.BaseSequence))
	return trace.AppendInt(append(b, '-'), int64(h.LastSequence()))
}

// completeSatisfied answers every purgatory entry whose partitions are all
// covered by their high watermark.
func (b *Broker) completeSatisfied(env Env) {
	if len(b.pendingOrder) == 0 {
		return
	}
	// Answers are sent in request order; answering may add nothing here.
	indexed := len(b.pendingOrder) >= pendingIndexFrom
	waiting := b.pendingOrder[:0]
	for _, p := range b.pendingOrder {
		if !b.settle(p) {
			waiting = append(waiting, p)
			continue
		}
		if indexed {
			delete(b.pending, p.request)
		}
		b.reply(p, env)
		b.recyclePending(p)
	}
	b.pendingOrder = waiting
	if indexed && len(waiting) < pendingIndexFrom {
		clear(b.pending)
	}
}

// pendingIndexFrom is how many entries the purgatory holds before it
// indexes them by request id: a search of a few costs less than a map's
// insert and delete for every request that waits (some 300 instructions).
const pendingIndexFrom = 8

// addPending puts p, the latest request to arrive, in purgatory.
func (b *Broker) addPending(p *pendingProduce) {
	b.pendingOrder = append(b.pendingOrder, p)
	switch n := len(b.pendingOrder); {
	case n < pendingIndexFrom:
		return
	case n == pendingIndexFrom:
		if b.pending == nil {
			b.pending = make(map[int]*pendingProduce)
		}
		for _, q := range b.pendingOrder[:n-1] {
			b.pending[q.request] = q
		}
	}
	b.pending[p.request] = p
}

// removePending takes p out of purgatory.
func (b *Broker) removePending(p *pendingProduce) {
	indexed := len(b.pendingOrder) >= pendingIndexFrom
	b.pendingOrder = slices.DeleteFunc(b.pendingOrder, func(q *pendingProduce) bool { return q == p })
	if indexed {
		delete(b.pending, p.request)
		if len(b.pendingOrder) < pendingIndexFrom {
			clear(b.pending)
		}
	}
}

// findPending is request's purgatory entry, or nil.
func (b *Broker) findPending(request int) *pendingProduce {
	if len(b.pendingOrder) < pendingIndexFrom {
		for _, p := range b.pendingOrder {
			if p.request == request {
				return p
			}
		}
		return nil
	}
	return b.pending[request]
}

// settle decides the partitions whose high watermark now covers their
// batch (or whose leadership moved) and reports whether all are decided.
func (b *Broker) settle(p *pendingProduce) bool { return b.settleResults(p.results, p.waitFor) }

func (b *Broker) settleResults(results []msg.ProduceResult, waitFor []int64) bool {
	for i := range results { // by index: a result is 80 bytes
		if waitFor[i] < 0 {
			continue
		}
		r := b.replicas.get(results[i].TP)
		if r == nil || !r.IsLeader {
			results[i].Error, results[i].BaseOffset = kerr.NotLeaderOrFollower, -1
			waitFor[i] = -1
			continue
		}
		if r.Log.HighWatermark() < waitFor[i] {
			return false
		}
		if b.underMinIsr(r) {
			// Appended and covered by the high watermark before the ISR
			// shrank (Partition.checkEnoughReplicasReachOffset).
			results[i].Error = kerr.NotEnoughReplicasAfterAppend
		}
		waitFor[i] = -1
	}
	return true
}

// OnProduceTimeout answers a purgatory entry whose request timeout passed
// with REQUEST_TIMED_OUT for the partitions not yet covered.
func (b *Broker) OnProduceTimeout(request int, env Env) bool {
	p := b.findPending(request)
	if p == nil || !b.alive {
		return false
	}
	b.removePending(p)
	for i := range p.results {
		if p.waitFor[i] >= 0 {
			p.results[i].Error = kerr.RequestTimedOut
		}
	}
	if env.Tracing() {
		env.Emit(b.ev("produce.timeout", fmt.Sprintf("answers request #%d with REQUEST_TIMED_OUT: the ISR did not replicate it in time", request)).
			With("request", trace.Int(int64(request))))
	}
	b.reply(p, env)
	b.recyclePending(p)
	return true
}

// failPending answers waiting requests for tp with NOT_LEADER_OR_FOLLOWER
// (leadership moved away).
func (b *Broker) failPending(tp msg.TP, env Env) {
	for _, p := range b.pendingOrder {
		for i, res := range p.results {
			if res.TP == tp && p.waitFor[i] >= 0 {
				p.results[i].Error, p.results[i].BaseOffset = kerr.NotLeaderOrFollower, -1
				p.waitFor[i] = -1
			}
		}
	}
	b.completeSatisfied(env)
}

// HasPending reports whether request waits in this broker's purgatory.
func (b *Broker) HasPending(request int) bool {
	return b.findPending(request) != nil
}

// refused applies a `fail request` fault: the leader answers the batch with
// a retriable error before any append, and the connection stays up.
func (b *Broker) refused(m *msg.Message, pb *msg.ProduceBatch, ar *partition.AppendResult, env Env) bool {
	code, ok := env.Refusal(m.From, pb)
	if !ok {
		return false
	}
	*ar = partition.AppendResult{Error: code, BaseOffset: -1, Reason: "the leader refuses it with " + code.Name() + " before appending anything (fail request)"}
	return true
}

// minInsync is min.insync.replicas as Kafka applies it: never more than
// the partition has replicas (Partition.effectiveMinIsr).
func (b *Broker) minInsync(r *Replica) int { return min(b.cfg.MinInsync, max(len(r.Replicas), 1)) }

// underMinIsr reports whether the ISR is smaller than min.insync.replicas.
func (b *Broker) underMinIsr(r *Replica) bool { return len(r.ISR) < b.minInsync(r) }

// appendChecked runs the leader's checks that come before the log, in
// Kafka's order — the transaction's first write verified with the
// coordinator, then min.insync.replicas for acks=all — and appends,
// writing the result into *ar, a zero one.
func (b *Broker) appendChecked(r *Replica, acks int16, txnID string, tv2 bool, pb *msg.ProduceBatch, ar *partition.AppendResult, env Env) {
	if code := b.joinCheck(txnID, tv2, pb.TP, pb.Data, env); code != kerr.None {
		*ar = partition.AppendResult{Error: code, BaseOffset: -1,
			Reason: fmt.Sprintf("the transaction coordinator answers %s for this partition", code.Name())}
		return
	}
	if acks == -1 && b.underMinIsr(r) {
		*ar = partition.AppendResult{Error: kerr.NotEnoughReplicas, BaseOffset: -1,
			Reason: fmt.Sprintf("ISR %v has %d member(s), min.insync.replicas is %d: nothing appended", r.ISR, len(r.ISR), b.minInsync(r))}
		return
	}
	r.Log.AppendAsLeaderTo(pb.Data, pb.Vouched, pb.Owned, ar)
}
