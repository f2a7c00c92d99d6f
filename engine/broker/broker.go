// Package broker models Kafka brokers hosting partition replicas: the
// produce path (leader checks, acks, min.insync.replicas, the purgatory
// that holds acks=all answers until the high watermark covers them),
// follower fetching, the high watermark, ISR changes, InitProducerId from
// blocks of producer ids, leadership changes with follower truncation, and
// restarts that rebuild producer state from snapshot + log.
//
// Faithful to (shared/docs/kafka-facts.md §2.2, §4, §7): check order
// before the log (leader, min ISR for acks=all), per-partition errors,
// acks=1 answering after the local append, acks=all answering when the
// high watermark passes the batch (NOT_ENOUGH_REPLICAS_AFTER_APPEND if the
// ISR shrank meanwhile, REQUEST_TIMED_OUT after the request timeout),
// duplicates answered with the original offsets under the same rule,
// followers replaying fetched batches into their own producer state.
//
// Simplified: one fetch request per partition (Kafka batches partitions
// per broker pair); a new follower finds where it diverges from its leader
// by comparing batches instead of OffsetsForLeaderEpoch; no log
// directories, quotas or request queues.
package broker

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/eoslab/eoslab/engine/internal/slab"
	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/engine/txn"
)

// PIDBlockSize is how many producer ids the controller hands a broker at once.
const PIDBlockSize = 1000

// Config holds broker settings.
type Config struct {
	MinInsync           int   // min.insync.replicas
	ReplicaLagTimeMaxMs int64 // replica.lag.time.max.ms
	TxnMaxTimeoutMs     int32 // transaction.max.timeout.ms (0: Kafka's default, 900000)
	Partition           partition.Config
}

// Env is what a broker sees of the world.
type Env interface {
	Now() int64
	Timestamp() int64
	Reply(from int, to msg.Addr, conn, replyTo int, body msg.Body) int
	CloseConnection(from, to int) // broker from closes its connection to broker to
	// Refusal says whether a fault makes the leader refuse this batch, and
	// with which error (`fail request`). pb is only read, and not kept:
	// a pointer, not a copy of the batch on every produce.
	Refusal(from msg.Addr, pb *msg.ProduceBatch) (kerr.Code, bool)
	Emit(e trace.Event)
	// Event emits an event of kind k and returns it, to be filled in
	// before anything else is emitted: Emit, for an event not built first.
	Event(k trace.Kind) *trace.Event
	// SendFetch sends follower's fetch of tp from offset to leader, and
	// returns the connection it went on (Broker.Fetch, once the follower
	// has found it should fetch).
	SendFetch(follower, leader int, tp msg.TP, offset int64) (conn int)
	AllocatePIDBlock(broker int) int64                // the controller's next block start
	ProduceTimer(at int64, broker int, request int)   // wake the purgatory entry at time at
	Fetch(follower int, tp msg.TP)                    // make follower fetch tp from its leader
	FetchLater(follower int, tp msg.TP, at int64)     // the same, at time at (a fetcher backing off)
	AlterISR(tp msg.TP, leaderEpoch int32, isr []int) // the leader asks the controller to change the ISR
	Tracing() bool                                    // whether events are wanted; when not, none are built
	Slab() *trace.Slab                                // room for the hottest events' attributes and texts

	// Transactions.
	TransactionVersion() int                                      // the cluster's transaction.version (1 or 2)
	CoordinatorFor(txnID string) (broker int, epoch int32)        // who coordinates txnID, and its coordinator epoch
	LoadTxn(txnID string) (txn.Metadata, bool)                    // the newest record in __transaction_state
	PersistTxn(md txn.Metadata)                                   // write a record to __transaction_state
	LeaderOf(tp msg.TP) (int, bool)                               // a partition's leader (a group's coordinator for __consumer_offsets)
	Request(from, to int, body msg.Body) (conn int)               // a broker-to-broker request (markers); the connection it went on
	CoordinatorTimer(at int64, broker int, txnID string, gen int) // wake the coordinator for txnID at time at
	JoinTransaction(txnID string, pid int64, epoch int16, tp msg.TP, add bool) kerr.Code
	Groups() map[string]*GroupOffsets // consumer groups' offsets (the contents of __consumer_offsets)
}

// GroupOffsets is a consumer group's committed offsets, offsets written
// inside transactions that are not decided yet, and its membership: the
// one group that simulated consumers join and that real clients' group
// APIs read and write (engine/sim), so that both are members of it.
type GroupOffsets struct {
	Committed map[msg.TP]int64
	Pending   map[int64][]msg.Offset // by producer id
	// The group's membership, as much of the classic protocol as KIP-447's
	// fencing needs: the generation of the last completed rebalance, the
	// member ids (each with its consumer's name), and, while a rebalance is
	// under way, the members it still waits for to (re)join. Every change
	// of members is a rebalance; the generation moves on when it completes.
	Generation  int32
	Members     map[string]string
	Rebalancing bool
	Awaiting    map[string]bool
	// Instances maps each static member's group.instance.id to its member
	// id (ClassicGroup.staticMembers).
	Instances map[string]string
	// ProtocolType is the protocol type of the member that joined the
	// group while it was empty; the group keeps it once it is empty again
	// (ClassicGroup.add), and DescribeGroups and ListGroups show it. ""
	// for a group only ever given offsets.
	ProtocolType string
}

// NewGroup is an empty group: no offsets, no members, generation 0.
func NewGroup() *GroupOffsets {
	return &GroupOffsets{Committed: map[msg.TP]int64{}, Pending: map[int64][]msg.Offset{}, Members: map[string]string{}, Awaiting: map[string]bool{}}
}

// ValidateMember is ClassicGroup.validateMember: a request naming a
// group.instance.id must come from the member id that instance holds
// (FENCED_INSTANCE_ID: a newer instance took its place; UNKNOWN_MEMBER_ID:
// no such static member), and its member id must be a member.
func (g *GroupOffsets) ValidateMember(member, instance string) kerr.Code {
	if instance != "" {
		switch holder, ok := g.Instances[instance]; {
		case !ok:
			return kerr.UnknownMemberID
		case holder != member:
			return kerr.FencedInstanceID
		}
	}
	if _, ok := g.Members[member]; !ok {
		return kerr.UnknownMemberID
	}
	return kerr.None
}

// ValidateTxnCommit is the group coordinator's check of a
// TxnOffsetCommit's group metadata (OffsetMetadataManager.
// validateTransactionalOffsetCommit, ClassicGroup.validateOffsetCommit);
// g is nil when the group does not exist. A group that does not exist
// accepts only a request without a generation (the groupId-only API, or
// a consumer outside group management: the group is created), else
// ILLEGAL_GENERATION. In a group with no members a request without a
// generation is accepted whatever member id it names. Otherwise a request
// naming a generation, a member or a group.instance.id must come from a
// member of the group (UNKNOWN_MEMBER_ID, or FENCED_INSTANCE_ID for an
// instance another member id holds) at its current generation
// (ILLEGAL_GENERATION); one naming none is accepted (older clients'
// TxnOffsetCommit carries no group metadata). This is what fences a stale
// instance after a rebalance when every instance has its own
// transactional.id (KIP-447). Unlike a plain OffsetCommit, the group's
// state does not matter: a rebalance under way refuses nothing.
func (g *GroupOffsets) ValidateTxnCommit(member, instance string, generation int32) kerr.Code {
	switch {
	case g == nil && generation < 0:
		return kerr.None
	case g == nil:
		return kerr.IllegalGeneration
	case generation < 0 && len(g.Members) == 0:
		return kerr.None
	case generation < 0 && member == "" && instance == "":
		return kerr.None
	}
	if code := g.ValidateMember(member, instance); code != kerr.None {
		return code
	}
	if generation != g.Generation {
		return kerr.IllegalGeneration
	}
	return kerr.None
}

// Broker is one Kafka broker.
type Broker struct {
	ID           int
	cfg          Config
	alive        bool
	replicas     replicaSet
	order        []msg.TP
	pendingOrder []*pendingProduce       // the purgatory, in arrival order
	pending      map[int]*pendingProduce // its entries by request id while there are pendingIndexFrom or more (findPending)
	conns        map[int]*clientConn     // by connection id (unique in the world, whoever opened it)
	solos        [soloSlots]soloConn     // more connections, not in conns: the first nsolo
	nsolo        int
	spareConns   []*clientConn        // answered connections' records, for reuse
	txns         map[string]*txnState // transactions this broker coordinates
	pidNext      int64
	pidEnd       int64
	timerSeq     int // the last marker timer handed out
	// What the produce and fetch paths hand out by the thousand, cut from
	// chunks instead of allocated one by one (never handed out twice, so
	// a copy of the world may share what it points at).
	fetchResps   slab.Slab[msg.FetchResponse]   // the answers to followers' fetches, sent by pointer
	spareResps   slab.Spares[msg.FetchResponse] // those a follower has read (TakeBack), for the next answers; a copy starts without them
	fetchBatches slab.Slices[[]byte]            // their batches
	produceResps slab.Slab[msg.ProduceResponse] // the answers to produces, sent by pointer
	results      slab.Slices[msg.ProduceResult] // theirs
	waitFor      slab.Slices[int64]
	pendings     slab.Slab[pendingProduce]
	// What was handed out and is read, for the next ones (a copy of the
	// broker starts without them): answers a producer has read
	// (TakeBackProduce) and their results' room, and purgatory entries
	// answered.
	spareProduced slab.Spares[msg.ProduceResponse]
	spareResults  [][]msg.ProduceResult
	sparePendings slab.Spares[pendingProduce]
}

// New creates a live broker with no replicas.
func New(id int, cfg Config) *Broker {
	return &Broker{ID: id, cfg: cfg, alive: true, conns: map[int]*clientConn{}}
}

// keepTxn remembers the coordinator's view of transaction id. The map is
// made on the first: most brokers of a run coordinate no transaction.
func (b *Broker) keepTxn(id string, t *txnState) {
	if b.txns == nil {
		b.txns = map[string]*txnState{}
	}
	b.txns[id] = t
}

// Alive reports whether the broker process runs.
func (b *Broker) Alive() bool { return b.alive }

// Replica returns the broker's replica of tp, or nil.
func (b *Broker) Replica(tp msg.TP) *Replica { return b.replicas.get(tp) }

// Replicas lists the broker's replicas in partition order.
func (b *Broker) Replicas() []*Replica {
	out := make([]*Replica, 0, len(b.order))
	for _, tp := range b.order {
		out = append(out, b.replicas.get(tp))
	}
	return out
}

// AddReplica hosts a new, empty replica of tp.
func (b *Broker) AddReplica(tp msg.TP, cfg partition.Config) *Replica {
	r := &Replica{TP: tp, Log: partition.New(tp.String(), cfg)}
	b.replicas.put(tp, r)
	if b.order == nil {
		b.order = make([]msg.TP, 0, 4) // as replicaSet.put: room for a few at once
	}
	b.order = append(b.order, tp)
	return r
}

func (b *Broker) ev(kind trace.Kind, text string) trace.Event {
	return trace.New(kind, "broker "+strconv.Itoa(b.ID)+" "+text).With("broker", trace.Int(int64(b.ID)))
}

// HandleInitProducerID answers an idempotent producer with the next id of
// this broker's block, fetching a new block from the controller when the
// current one is used up. The epoch is 0.
func (b *Broker) HandleInitProducerID(m *msg.Message, req msg.InitProducerIDRequest, env Env) {
	if req.TransactionalID != "" {
		b.initTransactional(m, req, env)
		return
	}
	b.arrive(m)
	b.answer(m.From, m.Conn, m.ID, msg.InitProducerIDResponse{ProducerID: b.nextPID(env), Epoch: 0}, env)
}

// nextPID hands out the next id of this broker's block, fetching a new
// block from the controller when the current one is used up.
func (b *Broker) nextPID(env Env) int64 {
	if b.pidNext == b.pidEnd {
		start := env.AllocatePIDBlock(b.ID)
		b.pidNext, b.pidEnd = start, start+PIDBlockSize
		if env.Tracing() {
			env.Emit(b.ev("broker.pid_block", fmt.Sprintf("gets producer ids %d-%d from the controller", start, start+PIDBlockSize-1)).
				With("first", trace.Int(start)).With("last", trace.Int(start+PIDBlockSize-1)))
		}
	}
	pid := b.pidNext
	b.pidNext++
	return pid
}

// Kill stops the broker: it answers nothing and forgets its purgatory.
func (b *Broker) Kill() {
	b.alive = false
	clear(b.txns) // the coordinator's memory; __transaction_state keeps the truth
	clear(b.pending)
	b.pendingOrder = nil
	clear(b.conns)
	b.solos, b.nsolo = [soloSlots]soloConn{}, 0
	for _, tp := range b.order {
		b.replicas.get(tp).fetching = false
	}
}

// Start brings a stopped (or crashing) broker back: every replica rebuilds
// producer state from its newest snapshot and the log after it. A clean
// shutdown first writes a snapshot at the log end, as Kafka does.
func (b *Broker) Start(clean bool, env Env) error {
	// The block of producer ids lived in memory: the restarted broker asks
	// the controller for a new one, and the rest of the old is never used.
	b.pidNext, b.pidEnd = 0, 0
	clear(b.txns)
	clear(b.pending)
	b.pendingOrder = nil
	clear(b.conns)
	b.solos, b.nsolo = [soloSlots]soloConn{}, 0
	for _, tp := range b.order {
		r := b.replicas.get(tp)
		if clean {
			r.Log.TakeSnapshot()
		}
		rec, err := r.Log.Rebuild(env.Timestamp())
		if err != nil {
			return err
		}
		r.fetching = false
		from := "the whole log"
		if rec.SnapshotOffset >= 0 {
			from = fmt.Sprintf("snapshot %020d.snapshot + %d batch(es) after it", rec.SnapshotOffset, rec.Replayed)
		}
		if env.Tracing() {
			env.Emit(b.ev("replica.recover", fmt.Sprintf("rebuilds producer state of %s from %s: %d producer(s)", tp, from, r.Log.State().Len())).
				With("partition", trace.Str(tp.String())).With("snapshot_offset", trace.Int(rec.SnapshotOffset)).
				With("replayed", trace.Int(int64(rec.Replayed))))
		}
	}
	b.alive = true
	return nil
}

// RemoveExpiredProducers runs the periodic producer-id expiration on every
// replica and reports whether it forgot anyone.
func (b *Broker) RemoveExpiredProducers(env Env) bool {
	did := false
	for _, tp := range b.order {
		gone := b.replicas.get(tp).Log.RemoveExpiredProducers(env.Timestamp())
		did = did || len(gone) > 0
		if len(gone) > 0 && env.Tracing() {
			env.Emit(b.ev("producer.expired", fmt.Sprintf("forgets producer id(s) %v on %s: idle for producer.id.expiration.ms", gone, tp)).
				With("partition", trace.Str(tp.String())).With("producer_ids", trace.List(gone)))
		}
	}
	return did
}

// NextExpiry is the earliest record-timestamp time at which
// RemoveExpiredProducers would forget a producer, or math.MaxInt64.
func (b *Broker) NextExpiry() int64 {
	next := int64(math.MaxInt64)
	for _, tp := range b.order {
		next = min(next, b.replicas.get(tp).Log.NextExpiry())
	}
	return next
}

// PendingRequests is the number of requests waiting in purgatory.
func (b *Broker) PendingRequests() int { return len(b.pendingOrder) }

// PIDBlock reports the broker's current producer-id block [next, end).
func (b *Broker) PIDBlock() (next, end int64) { return b.pidNext, b.pidEnd }

func sortedInts(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// clientConn keeps a connection's answers in the order its requests
// arrived: Kafka's broker handles a connection's requests one after the
// other, so an answer never overtakes an earlier one.
type clientConn struct {
	order []int
	ready []answered // answers waiting for earlier ones, few at a time
}

type answered struct {
	id   int
	body msg.Body
}

// soloConn is a connection with exactly one request outstanding and no
// answer waiting, kept out of conns: the usual case (one request in flight
// on the connection) then costs no map insert and delete, which took
// some 400 instructions a request. A connection is in conns or in solos,
// never both.
type soloConn struct {
	conn, id int
}

// soloSlots is how many connections a broker keeps as solos: a leader
// answers a few producers at once (one connection each), and a search of
// a few costs less than the map.
const soloSlots = 4

// solo is the index of conn among the solos, or -1.
func (b *Broker) solo(conn int) int {
	for i := range b.solos[:b.nsolo] {
		if b.solos[i].conn == conn {
			return i
		}
	}
	return -1
}

// dropSolo forgets the solo at i; the last one takes its place (the
// solos' order means nothing).
func (b *Broker) dropSolo(i int) {
	b.nsolo--
	b.solos[i], b.solos[b.nsolo] = b.solos[b.nsolo], soloConn{}
}

// arrive records a client request that will be answered.
func (b *Broker) arrive(m *msg.Message) {
	if i := b.solo(m.Conn); i >= 0 {
		b.unsolo(i) // a second request on the connection
	}
	var c *clientConn
	if len(b.conns) > 0 {
		c = b.conns[m.Conn]
	}
	if c == nil {
		if b.nsolo < soloSlots {
			b.solos[b.nsolo] = soloConn{conn: m.Conn, id: m.ID}
			b.nsolo++
			return
		}
		c = b.newConn()
		b.conns[m.Conn] = c
	}
	c.order = append(c.order, m.ID)
}

// newConn is an empty connection record, a spare one if there is one.
func (b *Broker) newConn() *clientConn {
	n := len(b.spareConns)
	if n == 0 {
		return &clientConn{}
	}
	c := b.spareConns[n-1]
	b.spareConns = b.spareConns[:n-1]
	clear(c.ready)
	c.order, c.ready = c.order[:0], c.ready[:0]
	return c
}

// unsolo moves the solo at i into conns.
func (b *Broker) unsolo(i int) {
	s := b.solos[i]
	b.dropSolo(i)
	c := b.newConn()
	c.order = append(c.order, s.id)
	b.conns[s.conn] = c
}

// answer sends the answer to request id once every earlier request on the
// connection has been answered.
func (b *Broker) answer(to msg.Addr, conn, id int, body msg.Body, env Env) {
	if i := b.solo(conn); i >= 0 {
		if b.solos[i].id == id {
			b.dropSolo(i)
			env.Reply(b.ID, to, conn, id, body)
			return
		}
		b.unsolo(i) // an answer that must wait for the earlier one
	}
	if len(b.conns) == 0 {
		return
	}
	c := b.conns[conn]
	if c == nil {
		return
	}
	if len(c.order) == 1 && c.order[0] == id && len(c.ready) == 0 {
		// The usual case: the only request waiting is this one.
		c.order = c.order[:0]
		env.Reply(b.ID, to, conn, id, body)
		delete(b.conns, conn)
		b.spareConns = append(b.spareConns, c)
		return
	}
	c.ready = append(c.ready, answered{id, body})
	for len(c.order) > 0 {
		i := slices.IndexFunc(c.ready, func(a answered) bool { return a.id == c.order[0] })
		if i < 0 {
			return
		}
		env.Reply(b.ID, to, conn, c.order[0], c.ready[i].body)
		c.ready = slices.Delete(c.ready, i, i+1)
		c.order = slices.Delete(c.order, 0, 1)
	}
	delete(b.conns, conn) // nothing outstanding: a closed connection leaves nothing behind
	b.spareConns = append(b.spareConns, c)
}

// ReplicaFetchBackoffMs is replica.fetch.backoff.ms: how long a fetcher
// waits before it tries a leader again after an error.
const ReplicaFetchBackoffMs = 1000

// OnFetcherDisconnected is this broker learning that its replica fetcher's
// connection conn to peer is gone (peer's process ended, or refused it): a
// fetch in flight on it will not be answered. The fetcher backs off and
// tries again; an election in the meantime restarts it at once (a new
// leader epoch), and a partition left without a leader stops it.
func (b *Broker) OnFetcherDisconnected(peer, conn int, env Env) {
	for _, tp := range b.order {
		if r := b.replicas.get(tp); !r.IsLeader && r.Leader == peer && r.fetching && r.fetchConn == conn {
			r.fetching, r.refetch = false, false
			env.FetchLater(b.ID, tp, env.Now()+ReplicaFetchBackoffMs)
		}
	}
}

// FetchDue reports whether a delayed fetch for tp would be sent now: the
// replica still follows someone and has no fetch in flight.
func (b *Broker) FetchDue(tp msg.TP) bool {
	r := b.replicas.get(tp)
	return b.alive && r != nil && !r.IsLeader && r.Leader != 0 && !r.fetching
}

// StopFollowing is the controller taking the partition's leader away
// (offline): the replica has nobody to fetch from.
func (b *Broker) StopFollowing(tp msg.TP) {
	if r := b.replicas.get(tp); r != nil && !r.IsLeader {
		r.Leader, r.fetching, r.refetch = 0, false, false
	}
}

// OnMarkersDisconnected is this broker's transaction marker channel
// learning that its connection conn to leader is gone: the markers in
// flight on it are sent again after a back-off.
func (b *Broker) OnMarkersDisconnected(leader, conn int, env Env) {
	b.markersDisconnected(leader, conn, env)
}

// replicaSet finds a broker's replicas by topic and partition number
// without hashing: this lookup is on every message's path.
type replicaSet struct {
	topics []string
	parts  [][]*Replica
}

func (s *replicaSet) get(tp msg.TP) *Replica {
	for i, t := range s.topics {
		if sameString(t, tp.Topic) {
			if tp.Partition >= 0 && tp.Partition < len(s.parts[i]) {
				return s.parts[i][tp.Partition]
			}
			return nil
		}
	}
	return nil
}

// sameString is t == u without a call to the runtime's memequal when both
// share their bytes, as a topic's name mostly does: the call, with the
// registers saved around it, is most of a lookup's cost.
func sameString(t, u string) bool {
	return len(t) == len(u) && (unsafe.StringData(t) == unsafe.StringData(u) || t == u)
}

func (s *replicaSet) put(tp msg.TP, r *Replica) {
	i := 0
	for i < len(s.topics) && s.topics[i] != tp.Topic {
		i++
	}
	if i == len(s.topics) {
		s.topics = append(s.topics, tp.Topic)
		s.parts = append(s.parts, nil)
	}
	if s.parts[i] == nil {
		// A topic's replicas come partition by partition: room for a
		// few at once, not one more at each.
		s.parts[i] = make([]*Replica, 0, max(tp.Partition+1, 4))
	}
	for len(s.parts[i]) <= tp.Partition {
		s.parts[i] = append(s.parts[i], nil)
	}
	s.parts[i][tp.Partition] = r
}
