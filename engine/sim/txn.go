package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/eoslab/eoslab/engine/broker"
	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/engine/txn"
)

// internalMeta is the leadership of a partition of an internal topic
// (__transaction_state, __consumer_offsets): its leader is the
// transaction (or group) coordinator, its leader epoch the coordinator epoch.
type internalMeta struct {
	leader int
	epoch  int32
}

// txnWorld is the transactional part of the world.
type txnWorld struct {
	internal map[msg.TP]*internalMeta
	txnLog   map[int]*txnPartition // __transaction_state, per partition
	groups   map[string]*broker.GroupOffsets
	cons     map[string]*consumerSlot
	consOrd  []string
	effects  []Effect
}

// txnPartition is what a partition of __transaction_state holds: the
// newest record of each transactional id (all a coordinator reads), and
// how many records were written.
type txnPartition struct {
	latest  map[string]txn.Metadata
	ids     []string // sorted
	records int
}

func (p *txnPartition) clone() *txnPartition {
	return &txnPartition{latest: maps.Clone(p.latest), ids: slices.Clone(p.ids), records: p.records}
}

// Effect is an external side effect an application performed.
type Effect struct {
	Step  int
	App   string
	Label string
}

type consumerSlot struct {
	c     *client.Consumer
	env   *consumerEnv
	pairs []pairState // [b-1]: its connections to broker b
}

func newTxnWorld() txnWorld {
	return txnWorld{internal: map[msg.TP]*internalMeta{}, txnLog: map[int]*txnPartition{}, groups: map[string]*broker.GroupOffsets{},
		cons: map[string]*consumerSlot{}}
}

// internalLeader returns (creating) the leadership of an internal partition:
// first led, like any partition, by broker (p mod brokers) + 1.
func (w *World) internalLeader(tp msg.TP) *internalMeta {
	m := w.tx.internal[tp]
	if m == nil {
		m = &internalMeta{leader: tp.Partition%len(w.brokers) + 1}
		w.tx.internal[tp] = m
	}
	return m
}

// internalLeaderNow is the leader of an internal partition without creating
// its record: a snapshot must not change the world (the record decides
// which partitions a broker's failure moves).
func (w *World) internalLeaderNow(tp msg.TP) (int, int32) {
	if m := w.tx.internal[tp]; m != nil {
		return m.leader, m.epoch
	}
	return tp.Partition%len(w.brokers) + 1, 0
}

func stateTP(txnID string) msg.TP {
	return msg.TP{Topic: txn.StateTopic, Partition: txn.PartitionFor(txnID, txn.NumPartitions)}
}

func (e brokerEnv) TransactionVersion() int { return e.w.cluster.TransactionVersion }

func (e brokerEnv) CoordinatorFor(id string) (int, int32) {
	m := e.w.internalLeader(stateTP(id))
	return m.leader, m.epoch
}

func (e brokerEnv) LoadTxn(id string) (txn.Metadata, bool) {
	if p := e.w.tx.txnLog[stateTP(id).Partition]; p != nil {
		if md, ok := p.latest[id]; ok {
			return md.Clone(), true
		}
	}
	return txn.Metadata{}, false
}

func (e brokerEnv) PersistTxn(md txn.Metadata) {
	n := stateTP(md.TransactionalID).Partition
	p := e.w.tx.txnLog[n]
	if p == nil {
		p = &txnPartition{latest: map[string]txn.Metadata{}}
		e.w.tx.txnLog[n] = p
	}
	if _, ok := p.latest[md.TransactionalID]; !ok {
		i, _ := slices.BinarySearch(p.ids, md.TransactionalID)
		p.ids = slices.Insert(p.ids, i, md.TransactionalID)
	}
	p.latest[md.TransactionalID] = md
	p.records++
}

func (e brokerEnv) LeaderOf(tp msg.TP) (int, bool) {
	if tp.Topic == txn.OffsetsTopic || tp.Topic == txn.StateTopic {
		m := e.w.internalLeader(tp)
		return m.leader, e.w.brokers[m.leader-1].Alive()
	}
	m := e.w.meta(tp)
	if m == nil || m.leader == 0 {
		return 0, false
	}
	return m.leader, true
}

func (e brokerEnv) Request(from, to int, body msg.Body) int {
	_, c := e.w.sendOn(msg.BrokerAddr(from), msg.BrokerAddr(to), 0, 0, body, false, e.w.brokerPair(from, to, markerChannel), nil)
	return c.id
}

func (e brokerEnv) CoordinatorTimer(at int64, b int, id string, gen int) {
	e.w.schedule(item{due: at, kind: itemCoordTimer, broker: b, txnID: id, ref: gen})
}

// JoinTransaction routes a leader's (or group coordinator's) question to
// the transaction's coordinator. Kafka sends it as a request between
// brokers; here it is answered at once (see docs/architecture.md).
func (e brokerEnv) JoinTransaction(id string, pid int64, epoch int16, tp msg.TP, add bool) kerr.Code {
	c, _ := e.CoordinatorFor(id)
	b := e.w.brokers[c-1]
	if !b.Alive() {
		return kerr.CoordinatorNotAvailable
	}
	return b.JoinTransaction(id, pid, epoch, tp, add, e)
}

func (e brokerEnv) Groups() map[string]*broker.GroupOffsets { return e.w.tx.groups }

func (s *producerSlot) Coordinator(id string) (int, bool) {
	m := s.w.internalLeader(stateTP(id))
	return m.leader, s.w.brokers[m.leader-1].Alive()
}

func (s *producerSlot) GroupCoordinator(group string) (int, bool) {
	m := s.w.internalLeader(txn.OffsetsPartition(group))
	return m.leader, s.w.brokers[m.leader-1].Alive()
}

func (s *producerSlot) TransactionVersion() int { return s.w.cluster.TransactionVersion }

// consumerEnv is the world as a consumer sees it.
type consumerEnv struct {
	w    *World
	name string
}

func (e *consumerEnv) Now() int64          { return e.w.now }
func (e *consumerEnv) Tracing() bool       { return e.w.tracing() }
func (e *consumerEnv) Emit(ev trace.Event) { e.w.emit(ev) }
func (e *consumerEnv) Leader(tp msg.TP) (int, bool) {
	m := e.w.meta(tp)
	if m == nil || m.leader == 0 {
		return 0, false
	}
	return m.leader, true
}
func (e *consumerEnv) Send(to int, body msg.Body) int {
	var ps *pairState
	if cs := e.w.tx.cons[e.name]; cs != nil && to >= 1 && to <= len(cs.pairs) {
		ps = &cs.pairs[to-1]
	}
	id, _ := e.w.sendOn(msg.ClientAddr(e.name), msg.BrokerAddr(to), 0, 0, body, false, ps, nil)
	return id
}

// txnCommand performs the transaction and consumer commands.
func (w *World) txnCommand(c script.Command) (bool, error) {
	switch c := c.(type) {
	case *script.Txn:
		s, err := w.slot(c.Name)
		if err != nil || s.removed {
			return true, w.orFailed(err, c.Name)
		}
		switch c.Op {
		case script.Begin:
			s.p.Begin(s)
		case script.Commit:
			s.p.End(true, s)
		case script.Abort:
			s.p.End(false, s)
		}
		return true, nil
	case *script.Consumer:
		return true, w.createConsumer(c)
	case *script.Poll:
		cs := w.tx.cons[c.Name]
		if cs == nil {
			return true, fmt.Errorf("unknown consumer %q (create it first with: consumer %s read_committed TOPIC-PARTITION)", c.Name, c.Name)
		}
		cs.c.MarkPoll(w.now)
		if cs.c.Group() != "" && !w.pollGroup(cs) {
			return true, nil
		}
		if cs.c.NeedsOffsets() && !w.fetchOffsets(cs) {
			return true, nil
		}
		cs.c.Poll(cs.env)
		return true, nil
	case *script.RestartConsumer:
		cs := w.tx.cons[c.Name]
		if cs == nil {
			return true, fmt.Errorf("unknown consumer %q (create it first with: consumer %s read_committed TOPIC-PARTITION)", c.Name, c.Name)
		}
		var committed map[msg.TP]int64
		if g := w.tx.groups[cs.c.Group()]; g != nil && cs.c.Group() != "" {
			committed = g.Committed
		}
		w.closeConnsOf(msg.ClientAddr(c.Name), "the process that opened it ended")
		w.leaveOnRestart(cs)
		cs.c.Restart(committed) // provisional: the first poll fetches the group's offsets
		if w.tracing() {
			w.emit(trace.New("consumer.restart", fmt.Sprintf("%s restarts at %s", c.Name, positionsText(cs.c))).
				With("consumer", trace.Str(c.Name)))
		}
		return true, nil
	case *script.TxnTool:
		return true, w.txnTool(c)
	case *script.Seek:
		cs := w.tx.cons[c.Name]
		if cs == nil {
			return true, fmt.Errorf("unknown consumer %q (create it first with: consumer %s read_committed TOPIC-PARTITION group=G)", c.Name, c.Name)
		}
		return true, w.seekCommitted(cs)
	case *script.SendOffsets:
		return true, w.sendOffsets(c)
	case *script.MarkerFault:
		return true, w.armMarkers(c)
	case *script.FailoverCoordinator:
		w.started = true
		w.moveCoordinator(stateTP(c.TxnID), "coordinator failover for "+c.TxnID)
		return true, nil
	case *script.Effect:
		w.tx.effects = append(w.tx.effects, Effect{Step: w.steps, App: c.Name, Label: c.Label})
		if w.tracing() {
			w.emit(trace.New("effect", fmt.Sprintf("%s performs %q outside Kafka: no transaction can take it back", c.Name, c.Label)).
				With("name", trace.Str(c.Name)).With("label", trace.Str(c.Label)))
		}
		return true, nil
	}
	return false, nil
}

func (w *World) orFailed(err error, name string) error {
	if err != nil {
		return err
	}
	if w.tracing() {
		w.emit(trace.New("producer.refused", name+" does not exist: it failed to start").With("producer", trace.Str(name)))
	}
	return nil
}

func (w *World) createConsumer(c *script.Consumer) error {
	if _, ok := w.tx.cons[c.Name]; ok {
		return fmt.Errorf("consumer %q exists already", c.Name)
	}
	if w.producers.get(c.Name) != nil {
		return fmt.Errorf("%q is a producer's name", c.Name)
	}
	if isAdmin(c.Name) {
		return fmt.Errorf("%q is the name of the operator's transactions tool", c.Name)
	}
	var tps []msg.TP
	for _, t := range c.TPs {
		tp := msg.TP{Topic: t.Topic, Partition: t.Partition}
		if w.meta(tp) == nil {
			return w.unknownPartition(tp)
		}
		tps = append(tps, tp)
	}
	w.started = true
	var committed map[msg.TP]int64
	if g := w.tx.groups[c.Group]; g != nil && c.Group != "" {
		committed = g.Committed
	}
	cs := &consumerSlot{c: client.NewConsumer(c.Name, c.Isolation == script.ReadCommitted, tps, c.Group, committed, c.MaxPoll), env: &consumerEnv{w, c.Name},
		pairs: w.clientPairs(c.Name)}
	cs.c.SetMaxPollInterval(int64(c.MaxPollIntervalMs))
	w.tx.cons[c.Name] = cs
	for i := range cs.pairs {
		if pc := cs.pairs[i].c; pc != nil {
			pc.ps, pc.cons = &cs.pairs[i], cs
		}
	}
	w.tx.consOrd = append(w.tx.consOrd, c.Name)
	if w.tracing() {
		w.emit(trace.New("consumer.create", fmt.Sprintf("%s reads %v with isolation %s%s", c.Name, tps, cs.c.Isolation(), groupText(c.Group))).
			With("consumer", trace.Str(c.Name)).With("isolation", trace.Str(cs.c.Isolation())).With("group", trace.Str(c.Group)))
	}
	return nil
}

func positionsText(c *client.Consumer) string {
	var parts []string
	for _, tp := range c.Partitions() {
		parts = append(parts, fmt.Sprintf("%s offset %d", tp, c.Position(tp)))
	}
	what := "the beginning (no group)"
	if c.Group() != "" {
		what = "group " + c.Group() + "'s committed offsets"
	}
	return what + ": " + strings.Join(parts, ", ")
}

func groupText(g string) string {
	if g == "" {
		return ""
	}
	return " in group " + g
}

// fetchOffsets is a consumer's OffsetFetch with require_stable (KIP-447):
// while a transaction's offsets for its partitions are pending, the group
// coordinator answers UNSTABLE_OFFSET_COMMIT and the consumer must wait,
// or it would start from offsets that are about to move and read input
// that the transaction already consumed.
func (w *World) fetchOffsets(cs *consumerSlot) bool {
	if w.unstable(cs, "poll") {
		return false
	}
	var committed map[msg.TP]int64
	if g := w.tx.groups[cs.c.Group()]; g != nil {
		committed = g.Committed
	}
	cs.c.SetOffsets(committed)
	return true
}

// unstable is the group coordinator's require_stable check: it reports
// (with a consumer.unstable event) whether an open transaction has offsets
// of the consumer's group pending for one of its partitions.
// call says what asked: a first poll, or the application's seek.
func (w *World) unstable(cs *consumerSlot, call string) bool {
	g := w.tx.groups[cs.c.Group()]
	if g == nil {
		return false
	}
	pids := make([]int64, 0, len(g.Pending))
	for pid := range g.Pending {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	for _, pid := range pids {
		for _, o := range g.Pending[pid] {
			if slices.Contains(cs.c.Partitions(), o.TP) {
				if w.tracing() {
					w.emit(trace.New("consumer.unstable", fmt.Sprintf("%s: OffsetFetch for group %s with require_stable (KIP-447) is answered %s: offsets for %s are pending in an open transaction of producer id %d, so the %s waits; the application must try again",
						cs.c.Name(), cs.c.Group(), kerr.UnstableOffsetCommit.Name(), o.TP, pid, call)).
						With("consumer", trace.Str(cs.c.Name())).With("call", trace.Str(call)).With("group", trace.Str(cs.c.Group())).With("error", trace.Str(kerr.UnstableOffsetCommit.Name())))
				}
				return true
			}
		}
	}
	return false
}

// sendOffsets is sendOffsetsToTransaction with the positions of the
// group's consumers.
func (w *World) sendOffsets(c *script.SendOffsets) error {
	s, err := w.slot(c.Producer)
	if err != nil || s.removed {
		return w.orFailed(err, c.Producer)
	}
	var offsets []msg.Offset
	var from []*consumerSlot
	for _, name := range w.tx.consOrd {
		cs := w.tx.cons[name]
		if cs.c.Group() != c.Group || c.Consumer != "" && name != c.Consumer {
			continue
		}
		from = append(from, cs)
		for _, tp := range cs.c.Partitions() {
			offsets = append(offsets, msg.Offset{TP: tp, Offset: cs.c.Position(tp)})
		}
	}
	switch {
	case c.Consumer != "" && len(from) == 0:
		if _, ok := w.tx.cons[c.Consumer]; ok {
			return fmt.Errorf("consumer %q is not in group %q", c.Consumer, c.Group)
		}
		return fmt.Errorf("unknown consumer %q (create it first with: consumer %s read_committed TOPIC-PARTITION group=%s)", c.Consumer, c.Consumer, c.Group)
	case len(offsets) == 0:
		return fmt.Errorf("no consumer of group %q (create one with: consumer NAME read_committed TOPIC-PARTITION group=%s)", c.Group, c.Group)
	case len(from) > 1 && !c.Legacy:
		return fmt.Errorf("group %q has %d consumers: say whose positions and group metadata go in with consumer=NAME (or send the group id only with legacy)", c.Group, len(from))
	}
	// consumer.groupMetadata(), or the groupId-only API (before KIP-447).
	member, generation := "", int32(-1)
	if !c.Legacy {
		member, generation = from[0].c.GroupMetadata()
	}
	s.p.SendOffsets(c.Group, offsets, member, generation, s)
	return nil
}

// settleTxnAcks gives the checker the batches of a transaction that
// committed, and forgets those of one that aborted.
func (w *World) settleTxnAcks(s *producerSlot) {
	n, committed := s.p.TxnEnds()
	if s.extra == nil {
		if n == 0 {
			return
		}
		s.extra = &slotExtra{} // transactional.id set among the settings
	}
	if n == s.extra.ends {
		return
	}
	s.extra.ends = n
	if committed {
		for _, b := range s.extra.acked {
			w.check.noteAck(s, b)
		}
	}
	s.extra.acked = s.extra.acked[:0]
}

// seekCommitted is the application's answer to an aborted
// consume-transform-produce step, as in Kafka's ExactlyOnceMessageProcessor:
// consumer.committed() — an OffsetFetch with require_stable — and a seek of
// every partition to it (to the beginning where nothing is committed).
// Kafka's consumer never moves back by itself when a transaction aborts;
// without this the application goes on after the aborted input.
func (w *World) seekCommitted(cs *consumerSlot) error {
	group := cs.c.Group()
	if group == "" {
		return fmt.Errorf("consumer %q is in no group, so it has no committed offsets to seek to (create it with group=G)", cs.c.Name())
	}
	if w.unstable(cs, "seek") {
		return nil
	}
	var committed map[msg.TP]int64
	if g := w.tx.groups[group]; g != nil {
		committed = g.Committed
	}
	cs.c.SetOffsets(committed) // Seek for each partition, and the committed offsets are known now
	if w.tracing() {
		w.emit(trace.New("consumer.seek", fmt.Sprintf("%s seeks to %s", cs.c.Name(), positionsText(cs.c))).
			With("consumer", trace.Str(cs.c.Name())).With("group", trace.Str(group)))
	}
	return nil
}

// moveCoordinator hands an internal partition (a transaction or group
// coordinator) to the next live broker at the next coordinator epoch; the
// new transaction coordinator reads __transaction_state and finishes
// decided transactions.
func (w *World) moveCoordinator(tp msg.TP, why string) {
	m := w.internalLeader(tp)
	old := m.leader
	next := 0
	for i := 1; i <= len(w.brokers); i++ {
		id := (old-1+i)%len(w.brokers) + 1
		if id != old && w.brokers[id-1].Alive() {
			next = id
			break
		}
	}
	if next == 0 {
		if w.tracing() {
			w.emit(trace.New("failover.refused", fmt.Sprintf("no other live broker can take over %s", tp)).With("partition", trace.Str(tp.String())))
		}
		return
	}
	m.leader, m.epoch = next, m.epoch+1
	if w.tracing() {
		w.emit(trace.New("coordinator.change", fmt.Sprintf("%s: broker %d takes over %s from broker %d (coordinator epoch %d)", why, next, tp, old, m.epoch)).
			With("partition", trace.Str(tp.String())).With("broker", trace.Int(int64(next))).
			With("previous", trace.Int(int64(old))).With("coordinator_epoch", trace.Int(int64(m.epoch))))
	}
	defer w.wakeClients() // clients look the coordinator up again
	if tp.Topic != txn.StateTopic {
		return
	}
	for _, id := range w.txnIDsIn(tp.Partition) {
		w.brokers[old-1].ForgetTxn(id)
		w.brokers[next-1].ResumeTxn(id, w.benv)
	}
}

func (w *World) txnIDsIn(p int) []string {
	if tp := w.tx.txnLog[p]; tp != nil {
		return slices.Clone(tp.ids)
	}
	return nil
}

// moveCoordinatorsOf moves every internal partition a broker leads (it
// stopped or restarted).
func (w *World) moveCoordinatorsOf(id int, why string) {
	var tps []msg.TP
	for tp, m := range w.tx.internal {
		if m.leader == id {
			tps = append(tps, tp)
		}
	}
	slices.SortFunc(tps, compareTP)
	for _, tp := range tps {
		w.moveCoordinator(tp, why)
	}
}

func (w *World) armMarkers(c *script.MarkerFault) error {
	tp := msg.TP{Topic: c.TP.Topic, Partition: c.TP.Partition}
	if w.meta(tp) == nil {
		return w.unknownPartition(tp)
	}
	w.nextFault++
	f := &armedFault{id: w.nextFault, action: c.Action, markers: true, selector: true, tp: tp}
	w.armFault(f)
	if w.tracing() {
		w.emit(trace.New("fault.armed", "armed: "+f.describe()).
			With("fault", trace.Int(int64(f.id))).With("action", trace.Str(c.Action.String())).
			With("target", trace.Str("markers")).With("partition", trace.Str(tp.String())))
	}
	return nil
}

// txnViews adds the transactions, consumers, groups and effects to a snapshot.
func (w *World) txnViews(s *Snapshot) {
	var ids []string
	for p := range w.tx.txnLog {
		for _, id := range w.txnIDsIn(p) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		md, _ := w.benv.LoadTxn(id)
		tp := stateTP(id)
		leader, epoch := w.internalLeaderNow(tp)
		m := &internalMeta{leader: leader, epoch: epoch}
		v := TxnView{TransactionalID: id, Coordinator: m.leader, CoordinatorEpoch: m.epoch, StatePartition: tp.Partition,
			ProducerID: md.ProducerID, Epoch: md.Epoch, State: md.State.String(), TimeoutMs: md.TimeoutMs, StartMs: md.StartMs,
			Partitions: tpStrings(md.Partitions)}
		if b := w.brokers[m.leader-1]; b.Alive() {
			v.PendingMarkers = tpStrings(b.PendingMarkers(id))
		}
		s.Transactions = append(s.Transactions, v)
	}
	for _, name := range w.tx.consOrd {
		c := w.tx.cons[name].c
		read := c.Records() // shared: what a consumer read only grows
		if len(read) == 0 {
			read = nil
		}
		v := ConsumerView{Name: name, Isolation: c.Isolation(), Group: c.Group(), Read: read[:len(read):len(read)]}
		for _, tp := range c.Partitions() {
			v.Positions = append(v.Positions, Position{tp.String(), c.Position(tp)})
		}
		s.Consumers = append(s.Consumers, v)
	}
	groups := make([]string, 0, len(w.tx.groups))
	for g := range w.tx.groups {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		leader, _ := w.internalLeaderNow(txn.OffsetsPartition(g))
		v := GroupView{Group: g, Coordinator: leader, Generation: w.tx.groups[g].Generation, Members: sortedMembers(w.tx.groups[g])}
		tps := make([]msg.TP, 0, len(w.tx.groups[g].Committed))
		for tp := range w.tx.groups[g].Committed {
			tps = append(tps, tp)
		}
		slices.SortFunc(tps, compareTP)
		for _, tp := range tps {
			v.Committed = append(v.Committed, Position{tp.String(), w.tx.groups[g].Committed[tp]})
		}
		s.Groups = append(s.Groups, v)
	}
	if len(w.tx.effects) > 0 {
		s.Effects = w.tx.effects[:len(w.tx.effects):len(w.tx.effects)] // shared: effects only grow
	}
}

func tpStrings(tps []msg.TP) []string {
	out := make([]string, len(tps))
	for i, tp := range tps {
		out[i] = tp.String()
	}
	return out
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
