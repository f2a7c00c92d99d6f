package client

import (
	"iter"
	"slices"
	"strconv"

	"github.com/eoslab/eoslab/engine/internal/slab"
	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/trace"
)

// Env is what a producer sees of the world. The world implements it; the
// producer never reads a clock or a network of its own.
type Env interface {
	Now() int64                             // logical clock, ms
	Timestamp() int64                       // the client's clock for record timestamps, ms since the epoch
	Leader(tp msg.TP) (broker int, ok bool) // metadata: the partition's current leader
	Bootstrap() (broker int, ok bool)       // a live broker to ask for a producer id
	Send(to int, body msg.Body) int         // put a request on the connection to broker to; returns its id
	// Ready reports whether a connection to the broker can be made (it is
	// up); CloseConnection closes the producer's connection to it.
	Ready(broker int) bool
	CloseConnection(broker int)
	Wake(at int64) // run the sender at time at
	Timer(at int64, kind TimerKind, ref int)
	// Coordinator is the transaction coordinator of a transactional id
	// (FindCoordinator), GroupCoordinator a consumer group's.
	Coordinator(txnID string) (broker int, ok bool)
	GroupCoordinator(group string) (broker int, ok bool)
	TransactionVersion() int
	// Delivered tells the application a batch was acknowledged (the send callback).
	Delivered(b *Batch)
	// Jitter is a random factor in [0.8, 1.2) for retry back-off (KIP-580),
	// drawn from the world's seeded generator.
	Jitter() float64
	// Tracing reports whether events are wanted; when not, none are built.
	Tracing() bool
	// Slab is room for the hottest events' attributes (which they append
	// at once), texts and partition names.
	Slab() *trace.Slab
	// Scratch is what batches are encoded with and where their bytes are
	// kept (a world has one for all its producers).
	Scratch() *Scratch
	Emit(e trace.Event)
	// Event emits an event of kind k and returns it, to be filled in
	// before anything else is emitted: Emit, for an event not built first.
	Event(k trace.Kind) *trace.Event
}

// TimerKind names a producer timer.
type TimerKind uint8

const (
	RequestTimeout   TimerKind = iota + 1 // ref: request id (request.timeout.ms)
	DeliveryDeadline                      // ref: batch id (delivery.timeout.ms)
)

// Mode is how a producer was asked for.
type Mode uint8

const (
	ModeDefault       Mode = iota // Kafka's defaults (idempotence on by default)
	ModeIdempotent                // the same, said out loud
	ModePlain                     // enable.idempotence=false
	ModeTransactional             // transactional.id set
)

// BatchState is where a batch is in its life.
type BatchState uint8

const (
	Queued   BatchState = iota + 1 // in the accumulator, never sent
	InFlight                       // in a request awaiting its response
	Retrying                       // failed retriably, waiting to be sent again
	Acked                          // written, offsets known
	Failed                         // the application got an error
	Expired                        // delivery.timeout.ms passed
)

func (s BatchState) String() string {
	return [...]string{"", "queued", "sent", "retrying", "acked", "failed", "expired"}[s]
}

// Batch is one batch as the producer tracks it. (Its fields of less than
// a word come last, which packs it into 232 bytes instead of 264: it is
// zeroed for reuse, read back whole (BatchAt) and copied by the views.)
type Batch struct {
	ID          int
	TP          msg.TP
	FirstSerial int64 // the producer's running record number of the first record
	Key         []byte
	Value       []byte // every record's value when the application chose one
	CreatedMs   int64
	Timestamp   int64
	PID         int64
	Sends       int
	Attempts    int // times it was put back for a retry (ProducerBatch.attempts)
	ReadyAt     int64
	Request     int
	BaseOffset  int64
	ErrText     string
	// Bytes are the bytes of its last send, in the copies BatchAt hands
	// out (SentBytes). The producer keeps none: each send's are encoded
	// anew and owned by its request (msg.ProduceBatch.Owned), from the
	// fields they were encoded with (sentPID, sentEpoch, sentSeq).
	Bytes     []byte
	ps        *partitionState // its partition's state (a clone's batch, the clone's) while it is not done: no search by name
	sentPID   int64
	Count     int32
	Seq       int32 // -1 until first drained
	sentSeq   int32
	Epoch     int16
	sentEpoch int16
	Err       kerr.Code
	State     BatchState
	Explicit  bool // the application chose the value (value=...); else "<producer>-<serial>"
	seqReset  bool
	sent      bool // encoded for a send at least once (prepare)
}

// SentBytes returns the bytes of b's last send, encoded again (nil if it
// was never sent): its fields' but for the producer id, epoch and
// sequence it was sent with, which a reset may have changed since.
func (p *Producer) SentBytes(b *Batch) []byte {
	if !b.sent {
		return nil
	}
	c := *b
	c.PID, c.Epoch, c.Seq = b.sentPID, b.sentEpoch, b.sentSeq
	var sc encodeScratch
	return p.encodeTo(nil, &c, &sc)
}

// RecordValue is the value of the batch's i-th record.
func (b *Batch) RecordValue(producer string, i int32) []byte {
	if b.Explicit {
		return b.Value
	}
	return strconv.AppendInt(append([]byte(producer), '-'), b.FirstSerial+int64(i), 10)
}

// LastSeq is the sequence of the batch's last record.
func (b *Batch) LastSeq() int32 {
	if b.Seq < 0 {
		return -1
	}
	return record.IncrementSequence(b.Seq, b.Count-1)
}

// done reports whether b is acked, failed or expired: the states that
// come last, so one comparison tells.
func (b *Batch) done() bool { return b.State >= Acked }

// partitionState is the producer's per-partition bookkeeping (TxnPartitionEntry).
type partitionState struct {
	tp              msg.TP
	q               *partQueues // nil while it has none (Compact)
	lastAckedOffset int64
	pid             int64
	nextSeq         int32
	lastAcked       int32
	unresolvedSeq   int32 // when unresolved: the sequence that follows the expired batch
	epoch           int16
	rewrite         bool // an epoch bump restarts this partition's outstanding batches at 0
	unresolved      bool // an expired batch's outcome is unknown
}

// partQueues is a partition's batches not done: a quiet producer's
// partitions have none, and a large world keeps no room for them (64
// bytes a partition, not 112).
type partQueues struct {
	queue       []*Batch // waiting: retries first, in sequence order, then new batches
	outstanding []*Batch // sent and not completed, by sequence (retries included)
}

// lists returns ps.q, made if it was dropped: one that a quiet producer
// gave back (Compact) if the world keeps one.
func (ps *partitionState) lists(sc *Scratch) *partQueues {
	if ps.q == nil {
		if ps.q = sc.spareLists.Take(); ps.q == nil {
			ps.q = &partQueues{}
		}
	}
	return ps.q
}

// waiting is the partition's queue (nil while it has none).
func (ps *partitionState) waiting() []*Batch {
	if ps.q == nil {
		return nil
	}
	return ps.q.queue
}

// sent is the partition's outstanding batches (nil while it has none).
func (ps *partitionState) sent() []*Batch {
	if ps.q == nil {
		return nil
	}
	return ps.q.outstanding
}

type request struct {
	id      int
	broker  int
	init    bool
	txn     bool // a transactional request (AddPartitions, AddOffsets, TxnOffsetCommit, EndTxn)
	batches []*Batch
	one     [1]*Batch // room for the first batch: a produce request mostly carries one
}

// Producer models the Java producer's sender and idempotence bookkeeping.
type Producer struct {
	name        string
	cfg         *Config // shared by the producers resolved from the same settings; never written
	pid         int64
	mode        Mode // mode, epoch, the fatal error and the flags share a word: a world may hold a million producers
	initWaiting bool // an InitProducerId request is in flight
	bumpNeeded  bool
	fatal       bool // stopped by the fatal error fatalCode
	epoch       int16
	fatalCode   kerr.Code
	initAt      int64             // earliest time to (re)send InitProducerId
	parts       []*partitionState // sorted by partition (TxnPartitionMap)
	done        doneList          // the oldest batches, all done: 1..done.Len()
	serial      int64
	s           *sending    // nil while the producer is quiet (Compact)
	txn         *txnManager // nil unless transactional
}

// sending is what only a producer with batches not done or requests in
// flight needs: Compact drops it when there are none, so that a quiet
// producer of a large world does not carry it.
type sending struct {
	recent   []*Batch   // the batches after done, from the oldest not done
	reqs     []*request // requests in flight, by id; reqs[len:cap] holds spare ones (nil: none)
	inflight []int      // requests in flight per broker connection, by broker id
	slab     []Batch    // where new batches come from
}

// sending returns p.s, made if the producer was quiet: one that a quiet
// producer gave back (Compact) if the world keeps one.
func (p *Producer) sending(sc *Scratch) *sending {
	if p.s == nil {
		if p.s = sc.spare.Take(); p.s == nil {
			p.s = &sending{}
		}
	}
	return p.s
}

// recent is the batches after the done ones (nil while quiet).
func (p *Producer) recent() []*Batch {
	if p.s == nil {
		return nil
	}
	return p.s.recent
}

// New resolves the configuration and creates the producer. Warnings are
// Kafka's silent adjustments; an error is Kafka's ConfigException.
func New(name string, mode Mode, txnID string, settings []Setting, env Env) (*Producer, []string, error) {
	cfg, warnings, err := ResolveFor(mode, txnID, settings)
	if err != nil {
		return nil, nil, err
	}
	return NewResolved(name, mode, &cfg, env), warnings, nil
}

// ResolveFor resolves the configuration of a producer of the mode: a plain
// producer sets enable.idempotence=false and a transactional one its
// transactional.id before the user's settings.
func ResolveFor(mode Mode, txnID string, settings []Setting) (Config, []string, error) {
	switch mode {
	case ModePlain:
		settings = append([]Setting{{"enable.idempotence", "false"}}, settings...)
	case ModeTransactional:
		settings = append([]Setting{{"transactional.id", txnID}}, settings...)
	}
	return Resolve(settings)
}

// NewResolved creates a producer with a configuration ResolveFor made for
// its mode. cfg is kept, not copied: a world with a million producers of
// the same settings holds one.
func NewResolved(name string, mode Mode, cfg *Config, env Env) *Producer {
	p := env.Scratch().producers.New()
	p.name, p.mode, p.cfg, p.pid, p.epoch, p.initAt = name, mode, cfg, record.NoProducerID, record.NoProducerEpoch, env.Now()
	if cfg.TransactionalID != "" {
		tv := env.TransactionVersion()
		p.txn = &txnManager{state: Initializing, tv2: tv >= 2, features: tv, added: map[msg.TP]bool{}}
	}
	if cfg.Idempotent {
		env.Wake(env.Now())
	}
	return p
}

// Name, Config, ProducerID and Epoch describe the producer.
func (p *Producer) Name() string      { return p.name }
func (p *Producer) Config() Config    { return *p.cfg }
func (p *Producer) ProducerID() int64 { return p.pid }
func (p *Producer) Epoch() int16      { return p.epoch }

// Fatal is the fatal error that stopped the producer, or "".
func (p *Producer) Fatal() string {
	if !p.fatal {
		return ""
	}
	return p.fatalCode.Name()
}

// Scratch is what producers encode their batches with: a world keeps one
// for all of them, so that a producer keeps no buffers of its own.
type Scratch struct {
	encodeScratch
	drained []*Batch
	// sent is the free room of the chunk batches are encoded into and kept
	// in, a producer's sent bytes never changing (as a hist.Arena's, but
	// written in place instead of built apart and copied in). A world's
	// copy has a Scratch of its own, so no two worlds write to one chunk.
	sent     []byte
	sentLast int // the size of the last chunk
	// What produce requests are cut from (drainTo).
	produceReqs    slab.Slab[msg.ProduceRequest]
	produceBatches slab.Slices[msg.ProduceBatch]
	spareReqs      slab.Spares[msg.ProduceRequest] // read by their broker (TakeBack), with their batches' room
	// What quiet producers gave back (Compact), empty but for their room
	// (spare requests, the capacity of their lists), for the next producer
	// that sends: a large world whose producers each send a batch or two
	// makes this state for a few of them at a time, not for each one.
	spare        slab.Spares[sending]
	spareLists   slab.Spares[partQueues]
	spareBatches slab.Spares[Batch]
	// Where what every producer keeps comes from, cut from chunks: a large
	// world makes a million of each.
	producers slab.Packed[Producer]
	partSlab  slab.Packed[partitionState]
	partLists slab.Slices[*partitionState]
	dones     slab.Packed[doneBatch]
}

// sentChunk is the size the chunks batches are encoded into grow to (as a
// hist.Arena's blocks, from 1 KB: a small world keeps little); a batch
// larger than a quarter of it gets room of its own.
const sentChunk = 16 << 10

// room returns an empty slice with room for at least n bytes, for a batch
// to be encoded into and kept (keep).
func (sc *Scratch) room(n int) []byte {
	if n > sentChunk/4 {
		return make([]byte, 0, n)
	}
	if cap(sc.sent) < n {
		sc.sentLast = min(sentChunk, max(1024, 2*sc.sentLast, 4*n))
		sc.sent = make([]byte, 0, sc.sentLast)
	}
	return sc.sent
}

// keep returns b, encoded into what room returned, with its capacity
// ending with it, and takes what it used of the chunk: none if b was given
// room of its own, or outgrew the chunk's and was moved out by append.
func (sc *Scratch) keep(b []byte) []byte {
	if len(b) > 0 && cap(b) == cap(sc.sent) && &b[0] == &sc.sent[:1][0] {
		sc.sent = b[len(b):]
	}
	return b[:len(b):len(b)]
}

// spareMax bounds what a world keeps of what quiet producers gave back:
// enough for thousands of producers sending at once, and at most a few
// megabytes when far more than that go quiet together.
const spareMax = 4096

// NumBatches is the number of batches the producer has made; their ids
// are 1 to NumBatches.
func (p *Producer) NumBatches() int { return p.done.Len() + len(p.recent()) }

// Settled is the number of the oldest batches that are done, together with
// every batch before them: what BatchAt returns for them never changes.
func (p *Producer) Settled() int { return p.done.Len() }

// BatchAt returns (a copy of) the batch with id i+1. A settled batch is
// written field by field into the result, not built and copied, and its
// bytes are encoded again.
func (p *Producer) BatchAt(i int) (b Batch) {
	if i < p.done.Len() {
		d := p.done.at(i)
		d.fill(&b, i+1, p, true)
		return b
	}
	b = *p.s.recent[i-p.done.Len()] // i < NumBatches: not quiet
	b.Bytes = p.SentBytes(&b)
	return b
}

// SettledFrom yields the settled batches from the i-th (with id i+1) on,
// in order, each with where it is kept (SettledRef) and read once:
// without their bytes (Bytes is nil) unless bytes is set, since encoding
// them again is most of reading them.
func (p *Producer) SettledFrom(i int, bytes bool) iter.Seq2[DoneRef, Batch] {
	return func(yield func(DoneRef, Batch) bool) {
		for it := p.done.from(i); ; {
			j, ref, d, ok := it.next()
			if !ok {
				return
			}
			var b Batch
			d.fill(&b, j+1, p, bytes)
			if !yield(ref, b) {
				return
			}
		}
	}
}

// SettledRef identifies settled batch i (i < Settled()) as DoneRef does:
// producers share the entries of a history they share (a clone, a world
// rewound), so equal refs mean the same batch.
func (p *Producer) SettledRef(i int) DoneRef { return p.done.ref(i) }

// Unsettled returns the batches from the oldest one not done, oldest first
// (shared: do not modify).
func (p *Producer) Unsettled() []*Batch { return p.recent() }

// Batch finds a batch the producer still tracks by id: one that is not
// done, or done after an older one that is not (nil otherwise).
func (p *Producer) Batch(id int) *Batch {
	recent := p.recent()
	if len(recent) == 0 {
		return nil
	}
	i := id - recent[0].ID // ids are handed out in order from 1
	if i < 0 || i >= len(recent) {
		return nil
	}
	return recent[i]
}

// batchSlab is how many batches are allocated at once.
const batchSlab = 32

// newBatch hands out a zero batch: from the producer's current slab, or
// one that a settled batch gave back (settle), or from a new slab.
func (s *sending) newBatch(made int, sc *Scratch) *Batch {
	if len(s.slab) == 0 && sc.spareBatches.Len() > 0 {
		return sc.spareBatches.Take()
	}
	if len(s.slab) == 0 {
		// Small at first: most producers of a large world make one batch.
		s.slab = make([]Batch, min(batchSlab, max(1, made/2)))
	}
	b := &s.slab[0]
	s.slab = s.slab[1:]
	if len(s.slab) == 0 {
		s.slab = nil // keep nothing of a slab used up
	}
	return b
}

// settle moves the batches at the front of recent that are done to the
// compact list. Those that nothing points to any more go to sc, zero, for
// the next batches (newBatch): not a transactional producer's, which the
// world keeps until their transaction ends (Env.Delivered), nor one that
// expired in flight, which its request still holds.
func (p *Producer) settle(sc *Scratch) {
	s := p.s
	if s == nil {
		return
	}
	n := 0
	for _, b := range s.recent {
		if !b.done() {
			break
		}
		var x doneExtra
		d, extra := b.settled(&x)
		p.done.add(&d, &x, extra, sc)
		n++
		// Given back in the same pass, once kept: nothing reads it again.
		if p.txn == nil && b.Request == 0 && sc.spareBatches.Len() < spareMax {
			*b = Batch{}
			sc.spareBatches.Give(b, spareMax)
		}
	}
	if n > 0 {
		s.recent = dropFront(s.recent, n) // keeps the capacity
	}
}

// settles reports whether settle has anything to do: whether the oldest
// batch not settled is done. Inlined, it spares the call to settle at the
// passes of the sender (most) that would find nothing.
func (p *Producer) settles() bool {
	s := p.s
	return s != nil && len(s.recent) > 0 && s.recent[0].done()
}

// without is slices.DeleteFunc(list, func(x *Batch) bool { return x == b })
// with no call through a closure and none into the runtime: the lists it
// is given hold a batch or two.
func without(list []*Batch, b *Batch) []*Batch {
	j := 0
	for _, x := range list {
		if x != b {
			list[j] = x
			j++
		}
	}
	clearBatches(list[j:])
	return list[:j]
}

// dropFront is slices.Delete(list, 0, n) (the capacity kept, the room let
// go cleared) with no calls into the runtime for the few batches a
// producer's lists mostly hold.
func dropFront(list []*Batch, n int) []*Batch {
	m := len(list) - n
	for i := 0; i < m; i++ {
		list[i] = list[i+n]
	}
	clearBatches(list[m:])
	return list[:m]
}

// clearBatches is clear(list) for the short lists of a producer (a batch
// or two), where the runtime's memclrHasPointers costs more than the loop.
func clearBatches(list []*Batch) {
	for i := 0; i < len(list); i++ {
		list[i] = nil
	}
}

// ModeName is "idempotent", "plain" or "transactional".
func (p *Producer) ModeName() string {
	switch {
	case p.cfg.TransactionalID != "":
		return "transactional"
	case p.cfg.Idempotent:
		return "idempotent"
	}
	return "plain"
}

// ps returns the producer's state for tp, or nil.
func (p *Producer) ps(tp msg.TP) *partitionState {
	for _, ps := range p.parts {
		if ps.tp.Partition == tp.Partition && ps.tp.Topic == tp.Topic {
			return ps
		}
	}
	return nil
}

func (p *Producer) part(tp msg.TP, sc *Scratch) *partitionState {
	if ps := p.ps(tp); ps != nil {
		return ps
	}
	ps := sc.partSlab.New()
	ps.tp, ps.lastAcked, ps.lastAckedOffset, ps.pid, ps.epoch = tp, -1, -1, p.pid, p.epoch
	if p.parts == nil {
		p.parts = sc.partLists.Make(1) // most producers of a large world write to one partition
	}
	i, _ := p.partIndex(tp)
	p.parts = slices.Insert(p.parts, i, ps)
	return ps
}

// partIndex is where the state of tp is, or would go, in p.parts.
func (p *Producer) partIndex(tp msg.TP) (int, bool) {
	return slices.BinarySearchFunc(p.parts, tp, func(x *partitionState, tp msg.TP) int { return compareTP(x.tp, tp) })
}

func compareTP(a, b msg.TP) int {
	if a.Topic != b.Topic {
		if a.Topic < b.Topic {
			return -1
		}
		return 1
	}
	return a.Partition - b.Partition
}

// req returns the request in flight with this id, or nil.
func (p *Producer) req(id int) *request {
	if i := p.reqIndex(id); i >= 0 {
		return p.s.reqs[i]
	}
	return nil
}

// reqIndex is where the request in flight with this id is in p.s.reqs,
// or -1.
func (p *Producer) reqIndex(id int) int {
	if p.s == nil {
		return -1
	}
	for i, r := range p.s.reqs {
		if r.id == id {
			return i
		}
	}
	return -1
}

// addReq records a request in flight to broker b.
func (p *Producer) addReq(id, b int, sc *Scratch) *request {
	s := p.sending(sc)
	var r *request
	if n := len(s.reqs); n < cap(s.reqs) && s.reqs[:n+1][n] != nil {
		r = s.reqs[:n+1][n] // a spare one
		*r = request{batches: r.batches[:0]}
	} else {
		r = &request{}
		r.batches = r.one[:0]
	}
	r.id, r.broker = id, b
	s.reqs = append(s.reqs, r) // ids only grow: the list stays sorted
	for len(s.inflight) <= b {
		s.inflight = append(s.inflight, 0)
	}
	s.inflight[b]++
	return r
}

// unlinkReq forgets the request at index i of p.s.reqs (reqIndex), which
// was answered, and returns it: found once, not again by its address.
func (p *Producer) unlinkReq(i int) *request {
	s := p.s // r was in flight: not quiet
	r := s.reqs[i]
	n := len(s.reqs)
	for ; i < n-1; i++ { // a handful in flight: no copy through the runtime
		s.reqs[i] = s.reqs[i+1]
	}
	s.reqs[n-1] = nil // the spare ones follow it
	s.reqs = s.reqs[:n-1]
	s.inflight[r.broker]--
	return r
}

// recycleReq keeps an unlinked request for reuse.
func (p *Producer) recycleReq(r *request, sc *Scratch) {
	clearBatches(r.batches)
	s := p.sending(sc)
	spare := s.reqs[len(s.reqs):cap(s.reqs)]
	if i := slices.Index(spare, nil); i >= 0 {
		spare[i] = r
	} else {
		s.reqs = append(s.reqs, r)[:len(s.reqs)] // room for it past the requests in flight
	}
}

// Compact drops what only a sending producer needs — its sending state
// (recent batches, requests, per-connection counts, spare requests and
// batches) and its partitions' queues — when nothing is in flight and no
// batch is waiting: a world of a million quiet producers keeps none of it.
// All of it is empty then, or room to go faster; it is made again when
// used, from what sc keeps: what Compact drops goes there (up to
// spareMax of each), for the next producer that sends.
func (p *Producer) Compact(sc *Scratch) {
	if s := p.s; s != nil {
		if len(s.reqs) != 0 || len(s.recent) != 0 || slices.ContainsFunc(s.inflight, func(n int) bool { return n != 0 }) {
			return
		}
		p.s = nil
		sc.spare.Give(s, spareMax)
	}
	for _, ps := range p.parts {
		if q := ps.q; q != nil && len(q.queue) == 0 && len(q.outstanding) == 0 {
			ps.q = nil // none is left when no batch is: every one in a queue is not done
			sc.spareLists.Give(q, spareMax)
		}
	}
}

// inflightTo is the number of requests in flight to broker b.
func (p *Producer) inflightTo(b int) int {
	if p.s == nil || b < 0 || b >= len(p.s.inflight) {
		return 0
	}
	return p.s.inflight[b]
}

// Send enqueues count records for tp as one batch (KafkaProducer.send of
// count records that the accumulator closes into one batch). Values
// default to "<producer>-<serial>".
func (p *Producer) Send(tp msg.TP, count int32, key, value []byte, hasValue bool, env Env) *Batch {
	if p.txn != nil {
		if !p.canSendInTxn(env) {
			return nil
		}
		p.noteTxnPartition(tp)
	}
	sc := env.Scratch()
	sn := p.sending(sc)
	id := p.done.Len() + len(sn.recent) + 1 // NumBatches()+1
	// ps is inlined: the partition is mostly one written to before.
	ps := p.ps(tp)
	if ps == nil {
		ps = p.part(tp, sc)
	}
	// The batch is zero (newBatch): only the fields that are not are
	// written, not the whole struct through a copy built on the stack.
	b := sn.newBatch(id, sc)
	b.ID, b.TP, b.Count, b.FirstSerial, b.Key = id, tp, count, p.serial, key
	now := env.Now()
	b.CreatedMs, b.Timestamp, b.PID, b.Epoch, b.Seq = now, env.Timestamp(), -1, -1, -1
	b.State, b.BaseOffset, b.ReadyAt, b.Explicit, b.ps = Queued, -1, now, hasValue, ps
	if hasValue {
		b.Value = value
	}
	p.serial += int64(count)
	sn.recent = append(sn.recent, b)
	q := ps.lists(sc)
	q.queue = append(q.queue, b)
	env.Timer(b.CreatedMs+p.cfg.DeliveryTimeoutMs, DeliveryDeadline, b.ID)
	env.Wake(now)
	if env.Tracing() {
		slab := env.Slab()
		tps := slab.Partition(tp.Topic, tp.Partition)
		a := slab.Begin(44 + len(p.name) + len(tps))
		a = a.Str(trace.KeyProducer, p.name)
		a = a.Int(trace.KeyBatch, int64(b.ID))
		a = a.Str(trace.KeyPartition, tps)
		a = a.Int(trace.KeyRecordCount, int64(count))
		a = a.Say(trace.SentenceEnqueue).Arg(b.FirstSerial)
		env.Event("producer.enqueue").Attrs = slab.Done(a)
	}
	return b
}

func plural(n int32) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Pending reports whether the producer still has batches that are not done.
func (p *Producer) Pending() bool {
	for _, b := range p.recent() {
		if !b.done() {
			return true
		}
	}
	return false
}

// ev starts an event about this producer; text follows its name.
func (p *Producer) ev(kind trace.Kind, text string) trace.Event {
	return trace.New(kind, p.name+" "+text).With("producer", trace.Str(p.name))
}

// PartitionView is the producer's bookkeeping for one partition.
type PartitionView struct {
	TP              msg.TP
	NextSeq         int32
	LastAckedSeq    int32
	LastAckedOffset int64
	Unresolved      bool
	Queued          int
	Outstanding     int
}

// Partitions lists the producer's per-partition state.
func (p *Producer) Partitions() []PartitionView {
	out := make([]PartitionView, 0, len(p.parts))
	for _, ps := range p.parts {
		out = append(out, PartitionView{TP: ps.tp, NextSeq: ps.nextSeq, LastAckedSeq: ps.lastAcked, LastAckedOffset: ps.lastAckedOffset,
			Unresolved: ps.unresolved, Queued: len(ps.waiting()), Outstanding: len(ps.sent())})
	}
	return out
}

// InFlightRequests is the number of produce requests awaiting an answer, per broker.
func (p *Producer) InFlightRequests() map[int]int {
	out := map[int]int{}
	if p.s == nil {
		return out
	}
	for b, n := range p.s.inflight {
		if n > 0 {
			out[b] = n
		}
	}
	return out
}

// NextSerial is the running record number the next record will get.
func (p *Producer) NextSerial() int64 { return p.serial }

// ContinueSerials makes a restarted producer number its records after its
// predecessor's, so that records keep one identity per application.
func (p *Producer) ContinueSerials(next int64) { p.serial = next }

// send puts a request on the connection to broker b.
func (p *Producer) send(b int, body msg.Body, env Env) int { return env.Send(b, body) }
