package client

import (
	"fmt"
	"math"
	"slices"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/trace"
)

// OnResponse handles a response addressed to this producer. It returns
// false when the producer no longer waits for it (e.g. the request timed
// out and the connection was closed): the response is discarded.
func (p *Producer) OnResponse(m *msg.Message, env Env) bool {
	// A connection delivers in order, so this is the answer to the oldest
	// request in flight on it, as NetworkClient expects.
	i := p.reqIndex(m.ReplyTo)
	if i < 0 || p.fatal {
		return false
	}
	req := p.unlinkReq(i)
	sc := env.Scratch()
	switch body := m.Body.(type) {
	case msg.InitProducerIDResponse:
		p.onInit(body, env)
	case msg.AddPartitionsToTxnResponse, msg.AddOffsetsToTxnResponse, msg.TxnOffsetCommitResponse, msg.EndTxnResponse:
		p.onTxnResponse(body, env)
	case *msg.ProduceResponse: // sent by pointer (Broker.produceResps)
		for _, b := range req.batches {
			// The last result for the batch's partition, found in place and
			// not copied out; the partitions' numbers are compared first.
			res := &noResult
			for i := range body.Results {
				if r := &body.Results[i]; r.TP.Partition == b.TP.Partition && r.TP.Topic == b.TP.Topic {
					res = r
				}
			}
			p.complete(b, res, env, sc)
		}
	}
	p.settle(sc)
	// Asked for even when the pass it brings will find nothing to do (the
	// world then takes no step for it): the wake is seen all the same. A
	// producer paused after a step that delivered this answer holds it
	// ("resumes after 1 held event(s)"), and what a command at the same
	// instant gives the sender goes at the wake's place among the items
	// due then, not after them.
	env.Wake(env.Now())
	p.recycleReq(req, sc)
	return true
}

// noResult is the answer to a batch that a produce response leaves out:
// read, never written.
var noResult = msg.ProduceResult{Error: kerr.UnknownServerError, BaseOffset: -1}

func (p *Producer) onInit(r msg.InitProducerIDResponse, env Env) {
	p.initWaiting = false
	if p.txn != nil && (r.Error == kerr.ProducerFenced || r.Error == kerr.InvalidProducerEpoch) {
		p.fence(r.Error, env)
		return
	}
	if p.txn != nil && (r.Error == kerr.InvalidTransactionTimeout || r.Error == kerr.TransactionalIDAuthorizationFailed) {
		p.setFatal(r.Error, env)
		return
	}
	if r.Error != kerr.None {
		p.initAt = env.Now() + p.cfg.RetryBackoffMs
		if env.Tracing() {
			env.Emit(p.ev("producer.init_retry", fmt.Sprintf("InitProducerId failed with %s; retries in %d ms", r.Error.Name(), p.cfg.RetryBackoffMs)).
				With("error", trace.Str(r.Error.Name())))
		}
		return
	}
	bump := p.pid >= 0
	p.pid, p.epoch = r.ProducerID, r.Epoch
	if p.txn != nil {
		p.txn.state, p.txn.bumpRequired = Ready, false
		if bump {
			p.resetSequences() // InitProducerIdHandler: an epoch bump restarts every sequence at 0
		}
	}
	if env.Tracing() {
		text := fmt.Sprintf("gets producer id %d, epoch %d", r.ProducerID, r.Epoch)
		if bump {
			text = fmt.Sprintf("gets its epoch bumped by the coordinator: producer id %d, epoch %d; sequences restart at 0", r.ProducerID, r.Epoch)
		}
		env.Emit(p.ev("producer.pid", text).
			With("producer_id", trace.Int(r.ProducerID)).With("producer_epoch", trace.Int(int64(r.Epoch))))
	}
}

// resetSequences forgets every partition's sequences (TxnPartitionMap.reset):
// each starts again at 0 under the current producer id and epoch.
func (p *Producer) resetSequences() {
	for _, ps := range p.parts {
		ps.pid, ps.epoch, ps.nextSeq, ps.lastAcked, ps.unresolved = p.pid, p.epoch, 0, -1, false
	}
}

// complete handles one partition's answer for batch b (Sender.completeBatch).
func (p *Producer) complete(b *Batch, r *msg.ProduceResult, env Env, sc *Scratch) {
	if b.done() {
		// It expired while in flight and the application has its error, but
		// a success still tells the producer what the partition holds
		// (TransactionManager.handleCompletedBatch).
		if r.Error == kerr.None {
			p.noteWritten(b, r.BaseOffset, env)
		}
		return
	}
	b.Request = 0
	switch {
	case r.Error == kerr.None:
		p.ack(b, r.BaseOffset, env, sc)
	case p.canRetry(b, r.Error, env.Now()):
		p.reenqueue(b, r.Error, r.Reason, env)
	default:
		// Sequences are adjusted (or the epoch bumped) only if the batch had
		// retries left: after the last one nobody knows whether it was
		// written (Sender.completeBatch: failBatch(batch, response, attempts < retries)).
		p.fail(b, Failed, r.Error, r.Reason, int64(b.Attempts) < int64(p.cfg.Retries), env)
		if p.txn != nil {
			p.txnBatchFailed(r.Error, env)
		}
	}
}

// noteWritten records a late success for a batch that had already expired.
func (p *Producer) noteWritten(b *Batch, baseOffset int64, env Env) {
	// Looked up by name: b is done, and a done batch may be settled and
	// shared with a clone whose partitions are its own.
	ps := p.ps(b.TP)
	if !p.cfg.Idempotent || b.PID != ps.pid || b.Epoch != ps.epoch {
		return
	}
	ps.lastAcked = max(ps.lastAcked, b.LastSeq())
	ps.lastAckedOffset = max(ps.lastAckedOffset, baseOffset+int64(b.Count)-1)
	if env.Tracing() {
		env.Emit(p.ev("producer.late_ack", fmt.Sprintf("learns that expired batch #%d was written after all (%s offsets %d-%d); last acknowledged sequence %d",
			b.ID, b.TP, baseOffset, baseOffset+int64(b.Count)-1, ps.lastAcked)).
			With("batch", trace.Int(int64(b.ID))).With("partition", trace.Str(b.TP.String())).With("base_offset", trace.Int(baseOffset)))
	}
}

func (p *Producer) ack(b *Batch, baseOffset int64, env Env, sc *Scratch) {
	b.State, b.BaseOffset, b.Err = Acked, baseOffset, kerr.None
	ps := b.ps
	if p.cfg.Idempotent {
		q := ps.lists(sc)
		q.outstanding = without(q.outstanding, b)
		if b.PID == ps.pid && b.Epoch == ps.epoch {
			ps.lastAcked = max(ps.lastAcked, b.LastSeq())
		}
	}
	if baseOffset >= 0 {
		ps.lastAckedOffset = max(ps.lastAckedOffset, baseOffset+int64(b.Count)-1)
	}
	env.Delivered(b)
	if env.Tracing() {
		slab := env.Slab()
		tps := slab.Partition(b.TP.Topic, b.TP.Partition)
		a := slab.Begin(66 + len(p.name) + len(tps))
		a = a.Str(trace.KeyProducer, p.name)
		a = a.Int(trace.KeyBatch, int64(b.ID))
		a = a.Str(trace.KeyPartition, tps)
		a = a.Int(trace.KeyBaseSequence, int64(b.Seq))
		a = a.Int(trace.KeyBaseOffset, baseOffset)
		a = a.Int(trace.KeyRecordCount, int64(b.Count))
		a = a.Say(trace.SentenceAck)
		env.Event("producer.ack").Attrs = slab.Done(a)
	}
}

// canRetry is Sender.canRetry with TransactionManager.canRetry for
// idempotent and transactional producers.
func (p *Producer) canRetry(b *Batch, code kerr.Code, now int64) bool {
	if now-b.CreatedMs >= p.cfg.DeliveryTimeoutMs || int64(b.Attempts) >= int64(p.cfg.Retries) {
		return false
	}
	if !p.cfg.Idempotent {
		return code.Retriable()
	}
	ps := b.ps
	if code == kerr.OutOfOrderSequenceNumber {
		if !ps.unresolved && (b.seqReset || b.Seq-ps.lastAcked != 1) {
			// Not the next batch: an earlier one is still on its way; retry.
			return true
		}
		if p.txn == nil {
			// The next batch itself is out of order: the broker lost what came
			// before it (an unclean election, say). The idempotent producer
			// (Kafka 2.5+) bumps its epoch, restarts the partition's sequences
			// at 0 and retries; what was lost stays lost, silently. With an
			// unresolved expired batch it bumps only for the batch right after
			// it, and otherwise waits to see whether the expired one landed.
			if !ps.unresolved || b.Seq == ps.unresolvedSeq {
				p.requestBump(b.TP)
			}
			return true
		}
	}
	return code.Retriable()
}

// backoff is Kafka's ExponentialBackoff for a batch on its attempts-th
// retry (KIP-580): retry.backoff.ms doubled per earlier retry, times a
// random factor in [0.8, 1.2) (jitter, from the world's seeded generator),
// capped at retry.backoff.max.ms.
func (p *Producer) backoff(attempts int, jitter float64) int64 {
	initial, maxMs := float64(p.cfg.RetryBackoffMs), max(p.cfg.RetryBackoffMaxMs, p.cfg.RetryBackoffMs)
	if float64(maxMs) <= initial || initial <= 0 {
		return p.cfg.RetryBackoffMs
	}
	// The exponent stops where the term reaches the maximum, so that the
	// jitter still spreads retries below it.
	expMax := math.Log(float64(maxMs)/initial) / math.Log(2)
	term := initial * math.Pow(2, min(float64(attempts-1), expMax))
	return min(int64(term*jitter), maxMs)
}

// reenqueue puts b back for another attempt with the same sequence, ahead
// of new batches and in sequence order among retries.
func (p *Producer) reenqueue(b *Batch, code kerr.Code, reason string, env Env) {
	b.State, b.Err, b.ErrText = Retrying, code, reason
	b.Attempts++
	b.ReadyAt = env.Now() + p.backoff(b.Attempts, env.Jitter())
	q := b.ps.lists(env.Scratch())
	i := 0
	if p.cfg.Idempotent {
		for i < len(q.queue) && q.queue[i].Seq >= 0 && q.queue[i].Seq < b.Seq {
			i++
		}
	}
	q.queue = slices.Insert(q.queue, i, b)
	env.Wake(b.ReadyAt)
	if env.Tracing() {
		env.Emit(p.ev("producer.retry", fmt.Sprintf("will retry batch #%d (%s) after %s, same sequence %d, in %d ms",
			b.ID, b.TP, code.Name(), b.Seq, b.ReadyAt-env.Now())).
			With("batch", trace.Int(int64(b.ID))).With("partition", trace.Str(b.TP.String())).
			With("base_sequence", trace.Int(int64(b.Seq))).With("error", trace.Str(code.Name())))
	}
}

// fail ends b with an error the application sees (TransactionManager.handleFailedBatch).
// adjust says whether the failure is known to be final for the broker too,
// so that the sequences after it may be moved: it is false for an expired
// batch and for one whose retries ran out.
func (p *Producer) fail(b *Batch, state BatchState, code kerr.Code, reason string, adjust bool, env Env) {
	b.State, b.Err, b.ErrText = state, code, reason
	ps := b.ps
	q := ps.lists(env.Scratch())
	q.queue = without(q.queue, b)
	wasOutstanding := slices.Contains(q.outstanding, b)
	q.outstanding = without(q.outstanding, b)
	if p.cfg.Idempotent && wasOutstanding {
		switch {
		case state == Expired:
			if b.Attempts > 0 {
				// It was retried: it may or may not have been written
				// (Sender: markSequenceUnresolved for a batch inRetry).
				next := record.IncrementSequence(b.LastSeq(), 1)
				if !ps.unresolved || next > ps.unresolvedSeq {
					ps.unresolvedSeq = next
				}
				ps.unresolved = true
			}
		case code == kerr.ProducerFenced, code == kerr.TransactionalIDAuthorizationFailed:
			p.fatal, p.fatalCode = true, code
		case code == kerr.OutOfOrderSequenceNumber && p.txn == nil:
			p.requestBump(b.TP)
		case adjust && p.txn == nil:
			p.requestBump(b.TP)
		case adjust:
			p.adjustSequences(ps, b, env)
		}
	}
	what := "fails with " + code.Name()
	if state == Expired {
		what = fmt.Sprintf("expires: delivery.timeout.ms (%d ms) passed since it was created", p.cfg.DeliveryTimeoutMs)
	}
	if env.Tracing() {
		env.Emit(trace.New("producer.fail", fmt.Sprintf("%s batch #%d (%s, sequence %d) %s; the application gets the error", p.name, b.ID, b.TP, b.Seq, what),
			trace.Attr{Key: "producer", Val: trace.Str(p.name)}, trace.Attr{Key: "batch", Val: trace.Int(int64(b.ID))},
			trace.Attr{Key: "partition", Val: trace.Str(b.TP.String())}, trace.Attr{Key: "base_sequence", Val: trace.Int(int64(b.Seq))},
			trace.Attr{Key: "error", Val: trace.Str(errorName(state, code))}))
	}
}

// adjustSequences moves the later batches of a partition down by the
// records of a transactional batch that failed for good, so that they
// follow the last one written (TxnPartitionEntry.adjustSequencesDueToFailedBatch).
func (p *Producer) adjustSequences(ps *partitionState, failed *Batch, env Env) {
	ps.nextSeq = record.DecrementSequence(ps.nextSeq, failed.Count)
	moved := 0
	for _, o := range ps.sent() {
		if o.Seq < failed.Seq {
			continue
		}
		o.Seq, o.seqReset = o.Seq-failed.Count, true
		moved++
	}
	if env.Tracing() && moved > 0 {
		env.Emit(p.ev("producer.adjust", fmt.Sprintf("%s: batch #%d failed for good, so the %d batch(es) after it move down %d sequence number(s); next sequence %d",
			ps.tp, failed.ID, moved, failed.Count, ps.nextSeq)).
			With("partition", trace.Str(ps.tp.String())).With("batch", trace.Int(int64(failed.ID))))
	}
}

func errorName(state BatchState, code kerr.Code) string {
	if state == Expired {
		return "TIMEOUT"
	}
	return code.Name()
}

// OnTimer handles a timer set by the producer. It returns false when the
// timer has nothing left to do (the request was answered, the batch is done).
func (p *Producer) OnTimer(kind TimerKind, ref int, env Env) bool {
	if p.fatal {
		return false
	}
	switch kind {
	case RequestTimeout:
		req := p.req(ref)
		if req == nil {
			return false
		}
		if env.Tracing() {
			env.Emit(p.ev("producer.timeout", fmt.Sprintf("request #%d to broker %d got no answer within request.timeout.ms (%d ms): closes the connection",
				ref, req.broker, p.cfg.RequestTimeoutMs)).With("request", trace.Int(int64(ref))).With("broker", trace.Int(int64(req.broker))))
		}
		// NetworkClient.handleTimedOutRequests closes the connection and
		// completes everything in flight on it as timed out, which Sender
		// turns into REQUEST_TIMED_OUT (a plain disconnect is
		// NETWORK_EXCEPTION).
		env.CloseConnection(req.broker)
		p.disconnect(req.broker, kerr.RequestTimedOut, "disconnected due to timeout", env)
		return true
	case DeliveryDeadline:
		b := p.Batch(ref)
		if b == nil || b.done() {
			return false
		}
		p.fail(b, Expired, kerr.RequestTimedOut, "delivery timeout", false, env)
		if p.txn != nil {
			p.txnBatchFailed(kerr.RequestTimedOut, env)
		}
		p.settle(env.Scratch())
		env.Wake(env.Now())
		return true
	}
	return false
}

// Disconnect fails every request in flight to broker as a network error
// (NETWORK_EXCEPTION, retriable): what the client sees when its connection
// closes — it was reset, or the broker's process ended.
func (p *Producer) Disconnect(broker int, env Env) bool {
	return p.disconnect(broker, kerr.NetworkException, "connection closed", env)
}

// disconnect fails every request in flight to broker with code (both
// codes it is given are retriable).
func (p *Producer) disconnect(broker int, code kerr.Code, reason string, env Env) bool {
	var gone []*request
	if p.s != nil {
		for _, r := range p.s.reqs { // in id order
			if r.broker == broker {
				gone = append(gone, r)
			}
		}
	}
	for _, r := range gone {
		p.s.reqs = slices.DeleteFunc(p.s.reqs, func(x *request) bool { return x == r })
		if r.init {
			p.initWaiting = false
			p.initAt = env.Now() + p.cfg.RetryBackoffMs
		}
		for _, b := range r.batches {
			p.complete(b, &msg.ProduceResult{TP: b.TP, Error: code, BaseOffset: -1, Reason: reason}, env, env.Scratch())
		}
		if r.txn && p.txn != nil {
			p.txn.inFlight = txnNone // sent again after the back-off: the same request, the same decision
			p.txn.readyAt = env.Now() + p.cfg.RetryBackoffMs
		}
	}
	if s := p.s; s != nil && broker >= 0 && broker < len(s.inflight) {
		s.inflight[broker] = 0
	}
	p.settle(env.Scratch())
	env.Wake(env.Now()) // the next request opens a new connection
	return len(gone) > 0
}

// TimerLive reports, without changing anything, whether a timer would
// still act: its request is unanswered, or its batch is not done.
func (p *Producer) TimerLive(kind TimerKind, ref int) bool {
	if p.fatal {
		return false
	}
	switch kind {
	case RequestTimeout:
		return p.req(ref) != nil
	case DeliveryDeadline:
		b := p.Batch(ref)
		return b != nil && !b.done()
	}
	return false
}
