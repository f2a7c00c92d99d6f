package client

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/trace"
)

// RunSender is one pass of the Java sender loop: resolve sequences, bump
// the epoch if asked (idempotent producers only), get a producer id if
// needed, send the next transactional request, then drain at most one
// request per broker connection. It reports whether it did anything, and
// asks to run again when it next has something to do.
func (p *Producer) RunSender(env Env) bool {
	if p.fatal {
		return false
	}
	// The clock does not move and the scratch does not change during a
	// pass: each is asked for once, not by every function that uses it.
	sc, now := env.Scratch(), env.Now()
	did := p.runSender(env, sc, now)
	if p.settles() {
		p.settle(sc)
	}
	if p.mayWake() {
		p.scheduleWake(env, now)
	}
	return did
}

// runSender is RunSender before it settles and schedules: calls, not
// defers, on the produce path.
func (p *Producer) runSender(env Env, sc *Scratch, now int64) bool {
	did := false
	if p.cfg.Idempotent {
		// maybeResolveSequences, its loop written here: a call of its own
		// at every pass cost more than the test it makes.
		for _, ps := range p.parts {
			if ps.unresolved && len(ps.sent()) == 0 {
				p.resolveSequences(ps, env)
				did = true
			}
		}
		if p.bumpNeeded && p.txn == nil {
			// bumpIdempotentEpochAndResetIdIfNeeded: a transactional producer
			// never bumps on its own; its coordinator moves the epoch.
			p.bumpEpoch(env)
			did = true
		}
		if p.pid < 0 || p.txn != nil && p.txn.state == Initializing {
			return p.maybeInit(env) || did
		}
		if p.txn != nil && p.runTxn(env) {
			did = true
		}
	}
	if len(p.recent()) == 0 {
		return did // every batch in a queue is one not done: none waits
	}
	var brokers [8]int // a handful of leaders; grows past eight without harm
	leaders, leaderless := brokers[:0], false
	for _, ps := range p.parts {
		if len(ps.waiting()) > 0 {
			b, ok := env.Leader(ps.tp)
			switch {
			case !ok:
				leaderless = true
			case !slices.Contains(leaders, b):
				leaders = append(leaders, b)
			}
		}
	}
	if len(leaders) > 1 {
		slices.Sort(leaders)
	}
	for _, b := range leaders {
		// With one leader for all that waits (most passes), every
		// partition with a batch waiting is its: drainTo need not ask again.
		if p.drainTo(b, len(leaders) == 1 && !leaderless, env, sc, now) {
			did = true
		}
	}
	return did
}

// idempotentInit is the InitProducerId request of every producer that is
// not transactional, boxed once: boxed at each send, it would be an
// allocation of its own. A message's body is never changed once sent.
var idempotentInit msg.Body = msg.InitProducerIDRequest{TimeoutMs: math.MaxInt32, ProducerID: -1, Epoch: -1}

// maybeInit sends InitProducerId: the first one, or (a transactional
// producer after an abortable error, version 1) the one that asks the
// coordinator to bump the epoch, carrying the current id and epoch (KIP-360).
func (p *Producer) maybeInit(env Env) bool {
	if p.initWaiting || p.initAt > env.Now() {
		return false // in flight, or backing off: scheduleWake returns at initAt
	}
	b, ok := env.Bootstrap()
	if p.txn != nil {
		b, ok = env.Coordinator(p.cfg.TransactionalID)
	}
	if !ok || !env.Ready(b) {
		return false // nobody to ask: the world wakes the producer when a broker or coordinator comes
	}
	body := idempotentInit
	if p.txn != nil {
		req := msg.InitProducerIDRequest{TransactionalID: p.cfg.TransactionalID, TimeoutMs: p.cfg.TransactionTimeoutMs, ProducerID: -1, Epoch: -1}
		if p.pid >= 0 {
			req.ProducerID, req.Epoch = p.pid, p.epoch
		}
		body = req
	}
	id := p.send(b, body, env)
	p.addReq(id, b, env.Scratch()).init = true
	p.initWaiting = true
	env.Timer(env.Now()+p.cfg.RequestTimeoutMs, RequestTimeout, id)
	return true
}

// drainTo sends one produce request to broker b with at most one batch per
// partition it leads, if the connection has room (max.in.flight). When
// all is true, b leads every partition with a batch waiting.
func (p *Producer) drainTo(b int, all bool, env Env, sc *Scratch, now int64) bool {
	if p.inflightTo(b) >= p.cfg.MaxInFlight || !env.Ready(b) {
		return false
	}
	batches := sc.drained[:0]
	for _, ps := range p.parts {
		if len(ps.waiting()) == 0 {
			continue // nothing to drain (drainable's first test): no need to ask for its leader
		}
		if !all {
			if leader, ok := env.Leader(ps.tp); !ok || leader != b {
				continue
			}
		}
		if first := p.drainable(ps, now); first != nil {
			ps.q.queue = dropFront(ps.q.queue, 1) // keeps the capacity for the next batch
			p.prepare(ps, first, sc)
			batches = append(batches, first)
		}
	}
	sc.drained = batches[:0]
	if len(batches) == 0 {
		return false
	}
	// Sent by pointer, cut from the world's slabs: boxed into a msg.Body,
	// the request would be an allocation of its own, its batches another.
	// Neither changes once sent. Both come zero from the slabs: only their
	// fields are written, not whole structs built and copied.
	req := sc.produceRequest(len(batches))
	req.TransactionalID, req.Acks, req.TimeoutMs = p.cfg.TransactionalID, p.cfg.Acks, int32(p.cfg.RequestTimeoutMs)
	req.TV2 = p.txn != nil && p.txn.tv2
	for i, ba := range batches {
		ba.Sends++
		ba.State = InFlight
		pb := &req.Batches[i]
		pb.TP, pb.Data, pb.BatchID, pb.BaseSeq, pb.Vouched, pb.Owned = ba.TP, ba.Bytes, ba.ID, ba.Seq, true, true
		ba.Bytes = nil // the request's now (SentBytes encodes them again)
	}
	id := p.send(b, req, env)
	if p.cfg.Acks == 0 {
		// acks=0: the client considers the batch done once written to the socket.
		for _, ba := range batches {
			p.ack(ba, -1, env, sc)
		}
		clearBatches(batches)
		p.settle(sc)
		return true
	}
	r := p.addReq(id, b, sc)
	for _, ba := range batches {
		ba.Request = id
		r.batches = append(r.batches, ba) // one by one: no copy through the runtime for a batch or two
	}
	clearBatches(batches)
	env.Timer(now+p.cfg.RequestTimeoutMs, RequestTimeout, id)
	return true
}

// drainable returns the partition's first queued batch if Kafka's
// RecordAccumulator would drain it now (shouldStopDrainBatchesForPartition).
func (p *Producer) drainable(ps *partitionState, now int64) *Batch {
	q := ps.q
	if q == nil || len(q.queue) == 0 {
		return nil
	}
	first := q.queue[0]
	if first.ReadyAt > now || p.txn != nil && !p.txnDrainable(ps.tp) {
		return nil
	}
	if !p.cfg.Idempotent {
		return first
	}
	if first.Seq < 0 {
		if ps.unresolved {
			return nil // wait until the unknown outcome of an expired batch is settled
		}
		for _, o := range q.outstanding {
			if o.PID != p.pid || o.Epoch != p.epoch {
				return nil // batches of an older epoch are still in flight
			}
		}
		if ps.pid != p.pid || ps.epoch != p.epoch {
			// Nothing in flight under the old identity: restart sequences at 0.
			ps.pid, ps.epoch, ps.nextSeq, ps.lastAcked = p.pid, p.epoch, 0, -1
		}
		return first
	}
	// A retry goes only when it is the lowest sequence outstanding, so
	// retries reach the broker in order.
	if len(q.outstanding) > 0 && q.outstanding[0] != first {
		return nil
	}
	return first
}

// prepare assigns the sequence at first drain and encodes the bytes to send.
// produceRequest is a zero request with n zero batches: one its broker
// has read (TakeBack), else a new one.
func (sc *Scratch) produceRequest(n int) *msg.ProduceRequest {
	req := sc.spareReqs.Take()
	if req == nil {
		req = sc.produceReqs.New()
	}
	room := req.Batches
	if cap(room) < n {
		room = sc.produceBatches.Make(n)
	}
	// Nothing of the last request stays alive through it. Most requests
	// carry one batch: a store clears it for less than clear's call.
	if room = room[:cap(room)]; len(room) == 1 {
		room[0] = msg.ProduceBatch{}
	} else {
		clear(room)
	}
	*req = msg.ProduceRequest{Batches: room[:n]}
	return req
}

// spareRequests is how many read produce requests a world's producers
// keep for reuse: about as many as they have in flight at once.
const spareRequests = 16

// TakeBack keeps req, a produce request a producer of the world sent, for
// the next one: its broker has read it and nothing points to it any more.
// (Each world owns the requests it has in flight: a copy of the world
// copies them.)
func (sc *Scratch) TakeBack(req *msg.ProduceRequest) { sc.spareReqs.Give(req, spareRequests) }

func (p *Producer) prepare(ps *partitionState, b *Batch, sc *Scratch) {
	if p.cfg.Idempotent && b.Seq < 0 {
		b.PID, b.Epoch, b.Seq = p.pid, p.epoch, ps.nextSeq
		ps.nextSeq = record.IncrementSequence(ps.nextSeq, b.Count)
		q := ps.lists(sc)
		q.outstanding = insertBySeq(q.outstanding, b)
	}
	b.Bytes = p.encodeSend(b, sc) // until drainTo hands them to the request
	b.seqReset = false            // ProducerBatch.close: a drained batch is no longer "reopened"
}

// encodeSend encodes b for a send, noting what with.
func (p *Producer) encodeSend(b *Batch, sc *Scratch) []byte {
	b.sentPID, b.sentEpoch, b.sentSeq, b.sent = b.PID, b.Epoch, b.Seq, true
	return p.encode(b, sc)
}

func insertBySeq(list []*Batch, b *Batch) []*Batch {
	i := 0
	for i < len(list) && list[i].Seq < b.Seq {
		i++
	}
	if i == len(list) {
		return append(list, b) // the usual case: a first drain has the highest sequence
	}
	return slices.Insert(list, i, b)
}

func (p *Producer) encode(b *Batch, sc *Scratch) []byte {
	// Encoded where it is kept: the header, and for each record at most 32
	// bytes around its key and value (varints of 5 bytes at most).
	valLen := len(b.Value)
	if !b.Explicit {
		valLen = len(p.name) + 21
	}
	room := sc.room(record.HeaderSize + int(b.Count)*(32+len(b.Key)+valLen))
	return sc.keep(p.encodeTo(room, b, &sc.encodeScratch))
}

// encodeScratch is what a batch is encoded with.
type encodeScratch struct {
	enc  record.Encoder
	recs []record.Record
	vals []byte
}

// encodeTo appends b's bytes, as p sends them, to dst. They are its
// fields' alone, so a done batch's are encoded again from what it keeps
// (doneBatch.fill).
func (p *Producer) encodeTo(dst []byte, b *Batch, sc *encodeScratch) []byte {
	rb := record.Batch{Header: record.Header{
		PartitionLeaderEpoch: record.NoPartitionLeaderEpoch, Magic: record.Magic,
		LastOffsetDelta: b.Count - 1, BaseTimestamp: b.Timestamp, MaxTimestamp: b.Timestamp,
		ProducerID: b.PID, ProducerEpoch: b.Epoch, BaseSequence: b.Seq, RecordsCount: b.Count,
	}}
	if !p.cfg.Idempotent {
		rb.ProducerID, rb.ProducerEpoch, rb.BaseSequence = record.NoProducerID, record.NoProducerEpoch, record.NoSequence
	}
	if p.cfg.TransactionalID != "" {
		rb.Attributes = record.TransactionalFlag
	}
	// The records are written in place over the last batch's: only their
	// offset delta, key and value are ever set, so the other fields stay
	// zero, and no record is built and copied in.
	n := int(b.Count)
	if cap(sc.recs) < n {
		sc.recs = make([]record.Record, n)
	}
	rb.Records = sc.recs[:n]
	// Default values are written into one scratch buffer sized up front, so
	// the slices taken from it stay valid while the batch is encoded.
	valLen := len(b.Value)
	if !b.Explicit {
		valLen = len(p.name) + 21
	}
	vals := slices.Grow(sc.vals[:0], n*valLen)
	for i := range rb.Records {
		v := b.Value
		if !b.Explicit {
			start := len(vals)
			vals = trace.AppendInt(append(append(vals, p.name...), '-'), b.FirstSerial+int64(i)) // strconv's digits, fewer steps
			v = vals[start:len(vals):len(vals)]
		}
		r := &rb.Records[i]
		r.OffsetDelta, r.Key, r.Value = int32(i), b.Key, v
	}
	sc.vals = vals[:0]
	out, err := sc.enc.Append(dst, &rb)
	if err != nil {
		panic("encoding an uncompressed batch cannot fail: " + err.Error())
	}
	return out
}

// scheduleWake asks to run again at the next time the sender has something
// to do: a backed-off retry or InitProducerId, a transactional back-off, or
// a batch that can be drained now. Nothing else: a wake that would find
// nothing to do must never be asked for, or time could not pass.
func (p *Producer) scheduleWake(env Env, now int64) {
	if p.fatal {
		return
	}
	next := int64(math.MaxInt64)
	if p.cfg.Idempotent && (p.pid < 0 || p.txn != nil && p.txn.state == Initializing) {
		if !p.initWaiting && p.initAt > now {
			next = p.initAt
		}
		if !p.initWaiting && p.initAt <= now && p.initTarget(env) {
			next = now
		}
	}
	if t := p.txn; t != nil && t.inFlight == txnNone && t.readyAt > now && t.state != FatalError {
		next = min(next, t.readyAt)
	}
	// Every batch in a queue is one not done: with none, no partition has
	// a batch to wait for or to drain.
	if len(p.recent()) > 0 {
		for _, ps := range p.parts {
			q := ps.waiting()
			if len(q) == 0 {
				continue // nothing to drain (drainable's first test)
			}
			if q[0].ReadyAt > now {
				next = min(next, q[0].ReadyAt)
			}
			if p.pid < 0 && p.cfg.Idempotent {
				continue
			}
			if first := p.drainable(ps, now); first != nil {
				if b, ok := env.Leader(ps.tp); ok && p.inflightTo(b) < p.cfg.MaxInFlight && env.Ready(b) {
					next = now
				}
			}
		}
	}
	if next != math.MaxInt64 {
		env.Wake(next)
	}
}

// mayWake reports whether scheduleWake could find a time to run again:
// not for a producer that has its id, no transaction and every batch
// done (the pass after every answer), whose call it spares, inlined.
func (p *Producer) mayWake() bool {
	return p.txn != nil || p.pid < 0 && p.cfg.Idempotent || len(p.recent()) > 0
}

// initTarget reports whether there is a broker to send InitProducerId to.
func (p *Producer) initTarget(env Env) bool {
	b, ok := env.Bootstrap()
	if p.txn != nil {
		b, ok = env.Coordinator(p.cfg.TransactionalID)
	}
	return ok && env.Ready(b)
}

// bumpEpoch is the idempotent producer's local epoch bump (KIP-360):
// epoch+1 (a new producer id at 32767), and the partitions that asked for
// it restart their outstanding batches at sequence 0.
func (p *Producer) bumpEpoch(env Env) {
	p.bumpNeeded = false
	old := p.epoch
	if p.epoch == math.MaxInt16 {
		p.pid, p.epoch = record.NoProducerID, record.NoProducerEpoch
		if env.Tracing() {
			env.Emit(p.ev("producer.reset", fmt.Sprintf("epoch %d is exhausted: asks for a new producer id", old)))
		}
		return
	}
	p.epoch++
	var reset []string
	for _, ps := range p.parts {
		if !ps.rewrite {
			continue
		}
		ps.rewrite = false
		tp := ps.tp
		seq := int32(0)
		for _, b := range ps.sent() {
			b.PID, b.Epoch, b.Seq, b.seqReset = p.pid, p.epoch, seq, true
			seq = record.IncrementSequence(seq, b.Count)
		}
		ps.pid, ps.epoch, ps.nextSeq, ps.lastAcked, ps.unresolved = p.pid, p.epoch, seq, -1, false
		reset = append(reset, tp.String())
	}
	if env.Tracing() {
		env.Emit(p.ev("producer.epoch_bump", fmt.Sprintf("bumps its epoch %d -> %d; sequences restart at 0 for %s",
			old, p.epoch, strings.Join(reset, ", "))).
			With("producer_id", trace.Int(p.pid)).With("old_epoch", trace.Int(int64(old))).With("producer_epoch", trace.Int(int64(p.epoch))))
	}
}

// resolveSequences settles a partition left unresolved by an expired
// batch once nothing is in flight for it (TransactionManager.
// maybeResolveSequences, whose loop is runSender's): if the last
// acknowledged sequence is the one before the next, the expired batch was
// written after all. Otherwise an idempotent producer bumps its epoch; a
// transactional one cannot, so its transaction becomes abortable and the
// epoch is bumped after the abort.
func (p *Producer) resolveSequences(ps *partitionState, env Env) {
	tp := ps.tp
	ps.unresolved = false
	if ps.nextSeq-ps.lastAcked == 1 {
		if env.Tracing() {
			env.Emit(p.ev("producer.resolved", fmt.Sprintf("%s: the expired batch turned out written (last acked %d = next %d - 1); carries on", tp, ps.lastAcked, ps.nextSeq)).
				With("partition", trace.Str(tp.String())))
		}
		return
	}
	if p.txn != nil {
		if env.Tracing() {
			env.Emit(p.ev("producer.unresolved", fmt.Sprintf("%s: last acked sequence %d, next %d: the outcome of the expired batch is unknown; it is safe only to abort the transaction, and the epoch is bumped after it", tp, ps.lastAcked, ps.nextSeq)).
				With("partition", trace.Str(tp.String())))
		}
		p.txn.bumpRequired = true
		p.abortable(kerr.RequestTimedOut, env)
		return
	}
	p.requestBump(tp)
	if env.Tracing() {
		env.Emit(p.ev("producer.unresolved", fmt.Sprintf("%s: last acked sequence %d, next %d: the outcome of the expired batch is unknown, so it bumps the epoch", tp, ps.lastAcked, ps.nextSeq)).
			With("partition", trace.Str(tp.String())))
	}
}

func (p *Producer) requestBump(tp msg.TP) {
	p.bumpNeeded = true
	p.ps(tp).rewrite = true
}

// Describe summarises the batches of a produce request, e.g.
// "orders-0 pid 0 epoch 0 seq 4-5 (2 records)".
func Describe(req *msg.ProduceRequest) string {
	if len(req.Batches) == 1 {
		return describeBatch(req.Batches[0])
	}
	parts := make([]string, 0, len(req.Batches))
	for _, b := range req.Batches {
		parts = append(parts, describeBatch(b))
	}
	return strings.Join(parts, "; ")
}

// AppendDescribe appends Describe(req) to b.
func AppendDescribe(b []byte, req *msg.ProduceRequest) []byte {
	for i, pb := range req.Batches {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = appendBatch(b, pb)
	}
	return b
}

func describeBatch(b msg.ProduceBatch) string {
	var buf [96]byte // on the stack: the string is the one allocation
	return string(appendBatch(buf[:0], b))
}

func appendBatch(s []byte, b msg.ProduceBatch) []byte {
	s = trace.AppendInt(append(append(s, b.TP.Topic...), '-'), int64(b.TP.Partition))
	if !record.HeaderParses(b.Data) {
		return append(s, " (undecodable)"...)
	}
	// The fields said, read one by one: parsing the whole header again
	// cost more than writing them.
	h := record.Header{
		Attributes:      record.AttributesOf(b.Data),
		LastOffsetDelta: int32(record.LastOffsetOf(b.Data) - record.BaseOffsetOf(b.Data)),
		ProducerID:      record.ProducerIDOf(b.Data),
		ProducerEpoch:   record.ProducerEpochOf(b.Data),
		BaseSequence:    record.BaseSequenceOf(b.Data),
		RecordsCount:    record.RecordsCountOf(b.Data),
	}
	s = trace.AppendInt(append(s, " batch #"...), int64(b.BatchID))
	if h.HasProducerID() {
		s = trace.AppendInt(append(s, " pid "...), h.ProducerID)
		s = trace.AppendInt(append(s, " epoch "...), int64(h.ProducerEpoch))
		s = trace.AppendInt(append(s, " seq "...), int64(h.BaseSequence))
		s = trace.AppendInt(append(s, '-'), int64(h.LastSequence()))
	}
	s = trace.AppendInt(append(s, " ("...), int64(h.RecordsCount))
	return append(append(append(s, " record"...), plural(h.RecordsCount)...), ')')
}
