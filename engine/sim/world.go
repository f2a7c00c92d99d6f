package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/eoslab/eoslab/engine/broker"
	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/internal/slab"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/engine/txn"
)

// Timing of the world, in logical milliseconds.
const (
	// EpochMs is what the world's clock 0 means for record timestamps:
	// 2026-01-01T00:00:00Z.
	EpochMs = 1_767_225_600_000
	// LatencyMs is the time a message spends on the wire.
	LatencyMs = 1
	// DelayMs is how long `delay` holds a message back, on top of the latency.
	DelayMs = 10
	// SessionTimeoutMs is broker.session.timeout.ms: how long the controller
	// waits before fencing a broker that stopped heart-beating.
	SessionTimeoutMs = 9_000
	// ExpirationCheckMs is producer.id.expiration.check.interval.ms.
	ExpirationCheckMs = 600_000
	// ISRCheckMs is how often leaders look for lagging followers
	// (half of replica.lag.time.max.ms).
	ISRCheckMs = 15_000
	// RunLimit bounds `run`, which otherwise could retry forever.
	RunLimit = 100_000
)

// ClusterConfig is the shape of the cluster (the `cluster` command).
type ClusterConfig struct {
	Brokers            int
	Topic              string
	Partitions         int
	RF                 int
	MinInsync          int
	TransactionVersion int
	SegmentBytes       int
	ProducerIDStart    int64
	TxnMaxTimeoutMs    int32 // transaction.max.timeout.ms (0: Kafka's 900000)
	// BrokerLatencyMs is the time a message between two brokers spends on
	// the wire (LatencyMs unless the cluster command says otherwise).
	BrokerLatencyMs int
}

// DefaultCluster: 3 brokers, topic orders with 3 partitions, RF 3, min ISR 2.
func DefaultCluster() ClusterConfig {
	return ClusterConfig{Brokers: 3, Topic: "orders", Partitions: 3, RF: 3, MinInsync: 2, TransactionVersion: 2, BrokerLatencyMs: LatencyMs}
}

// partMeta is the controller's record of a partition.
type partMeta struct {
	tp       msg.TP
	replicas []int
	leader   int // 0: offline
	epoch    int32
	isr      []int
}

// producerSlot is a producer's place in the world, and the world as the
// producer sees it: the slot is the client.Env it is handed (env.go). A
// world may hold a million of them: what only a few producers need lives
// behind a pointer (extra).
type producerSlot struct {
	w     *World
	p     *client.Producer // nil only while the name's first creation has failed (removed)
	extra *slotExtra
	pairs []pairState // [b-1]: its connections to broker b
	// wakeDue and wakeGen are the one pending wake of the sender (see Wake).
	wakeDue int64
	wakeGen int
	life    int // incarnation: a restart makes a new one
	// The flags and the mode share a word.
	paused      bool
	removed     bool // creation failed (ConfigException)
	wakePending bool
	mode        client.Mode
	who         int32 // the checker's number for the name + 1 (0: none yet; see checker.slotWho)
}

// name is the producer's name. Only a slot with a producer is asked it:
// the name's first creation failing leaves a slot that does nothing.
func (s *producerSlot) name() string { return s.p.Name() }

// producerTable is the world's producers by name and by number, the
// order their names were first created in. A world may hold a million of
// them and looks one up for every command that names it: the index is
// pointer-free (the collector never scans it) and keeps each name's hash,
// so that growing it reads no name, and a probe reads a name only when
// its hash matches. Names are never removed: a failed creation keeps its
// slot (removed), a restart replaces it.
type producerTable struct {
	all   chunks[namedSlot] // by number
	index []uint64          // by hash, probed linearly: hash<<32 | number+1 (0: free); a power of 2, at most half full
}

type namedSlot struct {
	name string
	slot *producerSlot
}

// find returns the index position holding name, or the free one where
// it belongs.
func (t *producerTable) find(name string, h uint32) int {
	mask := len(t.index) - 1
	for i := home(h, mask); ; i = (i + 1) & mask {
		e := t.index[i]
		if e == 0 || uint32(e>>32) == h && t.all.at(int(uint32(e))-1).name == name {
			return i
		}
	}
}

// home is where a probe for hash h starts in an index of mask+1 entries
// (the hash spread over the index by a multiplication, Fibonacci hashing).
func home(h uint32, mask int) int { return int(uint64(h)*0x9e3779b97f4a7c15>>32) & mask }

// names lists the producers' names by number.
func (t *producerTable) names() []string {
	out := make([]string, t.all.len())
	for i, e := range t.all.all() {
		out[i] = e.name
	}
	return out
}

// get returns the slot of the producer named name, or nil. A few names
// are compared without hashing (as a Go map does with up to 8 keys): the
// lab's worlds have a few producers, and look one up for every send.
func (t *producerTable) get(name string) *producerSlot {
	if n := t.all.len(); n <= 8 {
		if n == 0 {
			return nil
		}
		for i := range t.all.c[0][:n] { // all in the first chunk: a plain loop, not the iterator's closure
			if e := &t.all.c[0][i]; e.name == name {
				return e.slot
			}
		}
		return nil
	}
	if e := t.index[t.find(name, nameHash(name))]; e != 0 {
		return t.all.at(int(uint32(e)) - 1).slot
	}
	return nil
}

// place is where a name is in the index, or belongs (locate).
type place struct {
	i int
	h uint32
}

// locate returns the slot of the producer named name, or nil, and the
// name's place for putAt, growing the index first if a new name would
// need it: creating a producer looks its name up once, to check it and to
// put it.
func (t *producerTable) locate(name string) (*producerSlot, place) {
	h := nameHash(name)
	if 2*(t.all.len()+1) > len(t.index) {
		t.grow()
	}
	i := t.find(name, h)
	if e := t.index[i]; e != 0 {
		return t.all.at(int(uint32(e)) - 1).slot, place{i, h}
	}
	return nil, place{i, h}
}

// putAt makes s the slot of the producer named name, numbering a new
// name; at is what locate gave for name, with nothing put since.
func (t *producerTable) putAt(at place, name string, s *producerSlot) {
	if e := t.index[at.i]; e != 0 {
		t.all.at(int(uint32(e)) - 1).slot = s
		return
	}
	t.all.append(namedSlot{name, s})
	t.index[at.i] = uint64(at.h)<<32 | uint64(t.all.len())
}

// nameHash is the FNV-1a hash of a producer's name.
func nameHash(name string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return h
}

// grow doubles the index, placing every entry again by its hash.
func (t *producerTable) grow() {
	old := t.index
	t.index = make([]uint64, max(16, 2*len(old)))
	mask := len(t.index) - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := home(uint32(e>>32), mask)
		for t.index[i] != 0 {
			i = (i + 1) & mask
		}
		t.index[i] = e
	}
}

// slotExtra is what a slot keeps of its settings, its transactions and
// the items that fell due while it was paused: nil for a producer with
// Kafka's defaults that never ended a transaction nor held anything (most
// of a large world).
type slotExtra struct {
	id     string
	config []client.Setting // as the producer command gave them; never changed
	acked  []*client.Batch  // acknowledged in the open transaction
	ends   int              // transactions whose end the checker has seen
	held   []item           // items that fell due while paused
}

// hold keeps an item that fell due while the producer is paused.
func (s *producerSlot) hold(it item) {
	if s.extra == nil {
		s.extra = &slotExtra{}
	}
	s.extra.held = append(s.extra.held, it)
}

// held is the items that fell due while the producer was paused.
func (s *producerSlot) held() []item {
	if s.extra == nil {
		return nil
	}
	return s.extra.held
}

// txnID is the transactional id the producer was created with, or "".
func (s *producerSlot) txnID() string {
	if s.extra == nil {
		return ""
	}
	return s.extra.id
}

// config is the settings the producer was created with.
func (s *producerSlot) config() []client.Setting {
	if s.extra == nil {
		return nil
	}
	return s.extra.config
}

// flight is a message in transit.
type flight struct {
	m       msg.Message
	due     int64
	lost    bool    // it will not arrive: its connection broke at or before it
	lostHow lostHow // why, for the trace (lostWhy)
	delayed bool
	lostAt  int           // lostBroken: the message the connection broke at; lostRefused: the broker that is down
	to      *producerSlot // the receiving producer, if a producer receives it
	cn      *connection   // the connection it travels on
	dir     uint8         // toBroker or toOpener
	// head is the message.send's attributes as far as the message's ends
	// (its number, API, whether it answers, from, to), when the world
	// traced it: the message.deliver's begin with the same bytes, copied
	// (emitDelivered) rather than written again.
	head trace.Attrs
}

// lostHow is why a message sent is lost, kept as a kind (and the number
// in flight.lostAt) and put into words only for an event that tells of
// it: most worlds that lose messages trace nothing.
type lostHow uint8

const (
	lostNot         lostHow = iota
	lostWrittenShut         // written to a connection already closed
	lostBroken              // the connection broke at an earlier message
	lostRefused             // the broker is down
	lostBreaksHere          // a fault breaks the connection at this message
)

// lostWhy is why f is lost, in the trace's words.
func (f *flight) lostWhy() string {
	switch f.lostHow {
	case lostWrittenShut:
		return "it was written to a connection that is already closed"
	case lostBroken:
		return "the connection broke at #" + strconv.Itoa(f.lostAt)
	case lostRefused:
		return "broker " + strconv.Itoa(f.lostAt) + " is down: the connection is refused"
	case lostBreaksHere:
		return "the connection breaks here"
	}
	return ""
}

// World is the whole simulated system. It is deterministic: the same seed
// and the same commands give the same trace. Not safe for concurrent use.
type World struct {
	seed        uint64
	pcg         rand.PCG // the generator's state
	rng         *rand.Rand
	now         int64
	steps       int
	cluster     ClusterConfig
	started     bool
	brokers     []*broker.Broker
	parts       []*partMeta
	pidNext     int64
	producers   producerTable
	configs     map[string]resolvedConfig // a cache: a copy of the world starts without it
	plainCfgs   [4]*resolvedConfig        // the same, by mode, for producers without settings or transactional id
	queue       queue
	fetchReqs   slab.Slab[msg.FetchRequest]   // followers' fetches, boxed without an allocation each
	spareFetchs slab.Spares[msg.FetchRequest] // those their leader has read, for the next ones; a copy of the world starts without them
	armed       slab.Slab[armedFault]         // the faults armed
	slots       slab.Packed[producerSlot]     // what the world keeps of each producer, cut from chunks (a large world makes a million)
	pairSlab    slab.Slices[pairState]
	madeProds   slab.Packed[madeProducer]
	sentRecs    slab.Packed[sentRecords] // the history's sends (compactForm)
	seq         uint64
	nextMsgID   int
	faults      []*armedFault
	faultsBy    map[faultKey][]*armedFault // the armed faults by what they wait for; nil while there are few (armedFor)
	nextFault   int
	fenceAt     map[int]int64
	pending     []trace.Event // emitted and not flushed yet, when the trace is not kept
	slab        trace.Slab    // room for events' attributes and texts; never shared with a clone
	trace       trace.Log     // the events kept, and those emitted and not flushed yet
	actions     actionLog     // the history, but for the open run of steps
	run         action        // the open run of steps (run.at > 0), the history's last entry
	ckpts       []checkpoint  // shared with rewound worlds: appended to, never changed in place
	nextCkpt    int           // the step after which the next checkpoint is taken
	ckptEvery   int           // the least number of steps between checkpoints
	ckptFixed   bool          // tests: exactly ckptEvery steps apart, whatever they cost
	replaying   bool          // no checkpoints are taken meanwhile
	// unrecorded: a rewind is replaying another world's history into
	// this one, which records nothing meanwhile: the history it would
	// record is that world's, whose prefix it takes at the end
	// (World.shareHistory).
	unrecorded bool
	check      *checker
	nextExpiry int64
	nextISR    int64
	nextTxn    int64 // the coordinators' next scan for timed-out transactions
	// nextPeriodic is the earliest of the three (setPeriodic keeps it):
	// every step asks for it.
	nextPeriodic int64
	tx           txnWorld
	quiet        bool                    // replaying: build no events (the trace is copied)
	benv         brokerEnv               // the brokers' view of the world (by value: its methods are the interface's, without a wrapper)
	conns        connTable               // by id: the connections not forgotten yet
	connCache    [8]*connection          // some of conns, by id modulo 8 (connByID); a copy of the world starts without it
	spareConns   slab.Spares[connection] // idle ones no longer used, for new ones (newConn); a copy of the world starts without them
	nextConn     int
	connsKept    int                     // connections kept whole before quiet ones are made idle (idleAbove)
	brokerPairs  []pairState             // a broker's connections to another, by (from, to, channel)
	otherPairs   map[connPair]*pairState // the connections of senders without a slot (inject)
	// periodicRuns counts the periodic boundaries evaluated; everyPeriod
	// evaluates every one (tests compare the two ways).
	periodicRuns int
	everyPeriod  bool
	compactAt    int            // queue length at which stale timers are dropped
	sweepAt      int            // heap length at which a stale timer coming due has the others dropped with it
	scratch      client.Scratch // where producers encode and keep the bytes of their batches
	// What snapshots decoded, kept for the next ones (views.go).
	vshare *viewShare
	views  map[replicaKey]*logViews // where this world went another way
	pviews map[string]*producerViews
	// The last produce.decision in the trace: its index + 1 (0: none), up
	// to trace length decScanned (0: not looked for yet).
	decAt, decScanned int
	dropTrace         bool         // events are returned, not kept (KeepTrace)
	lastDecEvt        *trace.Event // the last decision, when events are not kept
	// Real clients (eoslab serve); nil without any.
	ext *extWorld

	// The last command the history kept, and the form it kept it in (history.go).
	lastCmd, lastCompact script.Command

	diagnoses  []Diagnosis   // every `diagnose`, judged (diagnose.go)
	lastReplay *ReplayResult // what the last `replay` found, nil if none
}

// New creates a world with the default cluster.
func New(seed uint64) *World {
	w := &World{seed: seed, pcg: *rand.NewPCG(seed, seed^0x9e3779b97f4a7c15), nextCkpt: checkpointEvery, ckptEvery: checkpointEvery, connsKept: idleAbove}
	w.rng = rand.New(&w.pcg)
	w.benv = brokerEnv{w}
	w.reset(DefaultCluster())
	return w
}

func (w *World) reset(c ClusterConfig) {
	w.cluster = c
	w.pidNext = c.ProducerIDStart
	w.brokers = make([]*broker.Broker, 0, c.Brokers)
	w.parts = make([]*partMeta, 0, c.Partitions)
	w.producers = producerTable{}
	w.fenceAt = map[int]int64{}
	w.conns, w.otherPairs = connTable{}, map[connPair]*pairState{}
	w.connCache = [8]*connection{}
	w.brokerPairs = make([]pairState, c.Brokers*c.Brokers*3)
	w.compactAt, w.sweepAt = compactSlack, sweepSlack
	w.check = newChecker()
	w.diagnoses, w.lastReplay = nil, nil // they judged the checker just dropped
	w.setPeriodic(ExpirationCheckMs, ISRCheckMs, txn.AbortScanIntervalMs)
	w.tx = newTxnWorld()
	pcfg := partition.Config{SegmentBytes: c.SegmentBytes}
	for id := 1; id <= c.Brokers; id++ {
		w.brokers = append(w.brokers, broker.New(id, broker.Config{MinInsync: c.MinInsync, ReplicaLagTimeMaxMs: 30_000, TxnMaxTimeoutMs: c.TxnMaxTimeoutMs, Partition: pcfg}))
	}
	for p := 0; p < c.Partitions; p++ {
		tp := msg.TP{Topic: c.Topic, Partition: p}
		m := &partMeta{tp: tp, replicas: make([]int, 0, c.RF)}
		for i := 0; i < c.RF; i++ {
			m.replicas = append(m.replicas, (p+i)%c.Brokers+1)
		}
		m.leader, m.isr = m.replicas[0], slices.Clone(m.replicas)
		slices.Sort(m.isr)
		w.parts = append(w.parts, m)
		for _, id := range m.replicas {
			w.brokers[id-1].AddReplica(tp, pcfg)
		}
	}
	env := w.benv
	for _, m := range w.parts {
		w.brokers[m.leader-1].BecomeLeader(m.tp, m.epoch, m.replicas, m.isr, env)
		for _, id := range m.replicas[1:] {
			w.brokers[id-1].BecomeFollower(m.tp, m.leader, m.epoch, m.replicas, w.leaderLog(m), env)
		}
	}
}

// Seed is the seed the world was created with.
func (w *World) Seed() uint64 { return w.seed }

// Now is the logical clock in milliseconds since the world started.
func (w *World) Now() int64 { return w.now }

// Steps is the number of steps performed so far.
func (w *World) Steps() int { return w.steps }

// Trace returns every event so far, as a view that never changes (the
// events are shared: do not modify them).
func (w *World) Trace() trace.Log { return w.trace.View() }

// Cluster returns the cluster's shape.
func (w *World) Cluster() ClusterConfig { return w.cluster }

// tracing reports whether events are wanted.
func (w *World) tracing() bool { return !w.quiet }

// SetTracing switches the trace on (the default) or off. With it off the
// world builds no events at all — the state, the snapshots and the anomaly
// checker work the same — which is how long headless runs (the lab, the
// benchmarks, time-travel replays) go fast.
func (w *World) SetTracing(on bool) { w.quiet = !on }

// KeepTrace says whether the world keeps the events it builds in its
// trace (the default). A headless run that writes the events as they come
// (play's transcript) need not keep them: Apply and Step return them as
// usual, Trace stays empty, and a world rewound from this one starts
// without them.
func (w *World) KeepTrace(on bool) {
	// The events emitted and not flushed yet move with the switch.
	switch {
	case on && w.dropTrace:
		for _, e := range w.pending {
			w.trace.Add(e)
		}
		w.pending = nil
	case !on && !w.dropTrace:
		w.pending = append(w.pending, w.trace.TakePending()...) // copies: the trace's room is written again
	}
	w.dropTrace = !on
}

func (w *World) emit(e trace.Event) { w.emitRef(&e) }

// emitRef is emit for an event the caller has built in place: it is
// copied once, into the trace.
func (w *World) emitRef(e *trace.Event) {
	if w.dropTrace {
		w.emitPending(e)
		return
	}
	// Written where the trace will hold it, pending until flush.
	w.trace.AddAt(e, w.steps, w.now)
}

// event emits an event of kind k and returns it, for the caller to fill in
// (Text, Attrs, Decision) before anything else is emitted: the produce
// path's events are written once, where the trace keeps them.
func (w *World) event(k trace.Kind) *trace.Event {
	if w.dropTrace {
		w.emitPending(&trace.Event{Kind: k})
		return &w.pending[len(w.pending)-1]
	}
	return w.trace.Next(w.steps, w.now, k)
}

func (w *World) emitPending(e *trace.Event) {
	w.pending = append(w.pending, *e)
	p := &w.pending[len(w.pending)-1]
	p.Step, p.TimeMs = w.steps, w.now
}

// discardLast discards the last event emitted and not flushed yet.
func (w *World) discardLast() {
	if n := len(w.pending); n > 0 {
		w.pending = w.pending[:n-1]
		return
	}
	w.trace.Drop(1)
}

// discardPending discards the events emitted and not flushed yet.
func (w *World) discardPending() {
	w.pending = nil
	w.trace.Drop(w.trace.Pending())
}

// lastDecisionEvent is the last produce.decision, or nil.
func (w *World) lastDecisionEvent() *trace.Event {
	if w.dropTrace {
		return w.lastDecEvt
	}
	if i := w.lastDecision(); i >= 0 {
		return w.trace.At(i)
	}
	return nil
}

// lastDecision is the index of the last produce.decision in the trace, or -1.
func (w *World) lastDecision() int {
	n := w.trace.Len()
	if w.decScanned == 0 && n > 0 {
		for i, e := range w.trace.Backward() {
			if e.Kind == "produce.decision" {
				w.decAt = i + 1
				break
			}
		}
	} else {
		for i := w.decScanned; i < n; i++ {
			if w.trace.At(i).Kind == "produce.decision" {
				w.decAt = i + 1
			}
		}
	}
	w.decScanned = n
	return w.decAt - 1
}

// flush moves the pending events to the trace and returns them.
func (w *World) flush() []trace.Event {
	if !w.dropTrace {
		return w.trace.Commit() // shared with the trace, which never changes what it holds
	}
	evs := w.pending
	w.pending = nil // handed out
	for i := range evs {
		if evs[i].Kind == "produce.decision" {
			w.lastDecEvt = &evs[i]
		}
	}
	return evs
}

func (w *World) meta(tp msg.TP) *partMeta {
	if tp.Topic != w.cluster.Topic {
		return w.createdMeta(tp) // a topic a real client created (external_topics.go)
	}
	if tp.Partition < 0 {
		return nil
	}
	if tp.Partition >= w.cluster.Partitions {
		return w.createdMeta(tp) // one a real client added (CreatePartitions)
	}
	return w.parts[tp.Partition]
}

func (w *World) leaderLog(m *partMeta) *partition.Log {
	if m.leader == 0 {
		return nil
	}
	return w.brokers[m.leader-1].Replica(m.tp).Log
}

func (w *World) broker(id int) *broker.Broker {
	if id < 1 || id > len(w.brokers) {
		return nil
	}
	return w.brokers[id-1]
}

func (w *World) errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }
