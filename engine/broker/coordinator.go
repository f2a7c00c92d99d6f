package broker

import (
	"fmt"
	"math"
	"slices"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/engine/txn"
)

// markerRetryMs is how soon a failed marker write is tried again.
const markerRetryMs = 100

// markerTimeoutMs is how long the coordinator waits for a marker answer
// (the inter-broker request.timeout.ms) before it closes the connection.
const markerTimeoutMs = 30_000

// markerReconnectMs is how soon markers are sent again after their
// connection closed (reconnect.backoff.max.ms): the leader may be down.
const markerReconnectMs = 1000

// txnState is a transaction this broker coordinates: its metadata as
// written to __transaction_state, and the markers still to be written.
type txnState struct {
	md       txn.Metadata
	pending  map[msg.TP]bool       // partitions whose marker is not acknowledged
	commit   bool                  // the decision the markers carry
	inFlight map[msg.TP]sentMarker // marker requests sent and unanswered
	// The one pending timer for the markers: an earlier one replaces a
	// later one, and every firing asks again for the next time it is needed.
	timerSet bool
	timerDue int64
	timerGen int
}

// armTimer asks for the coordinator to look at t's markers at time at.
func (b *Broker) armTimer(t *txnState, at int64, env Env) {
	if t.timerSet && t.timerDue <= at {
		return
	}
	b.timerSeq++ // unique across transactions and restarts, so an old timer never matches a new one
	t.timerGen = b.timerSeq
	t.timerSet, t.timerDue = true, at
	env.CoordinatorTimer(at, b.ID, t.md.TransactionalID, t.timerGen)
}

// sentMarker is a marker on its way: to which leader, on which of the
// coordinator's connections to it, since when.
type sentMarker struct {
	leader int
	conn   int
	at     int64
}

// coordinated returns the coordinator's view of txnID, loading it from
// __transaction_state the first time (after a failover, a restart).
func (b *Broker) coordinated(id string, env Env) *txnState {
	if t := b.txns[id]; t != nil {
		return t
	}
	md, ok := env.LoadTxn(id)
	if !ok {
		return nil
	}
	t := &txnState{md: md}
	b.keepTxn(id, t)
	return t
}

// isCoordinator reports whether this broker coordinates txnID now.
func (b *Broker) isCoordinator(id string, env Env) bool {
	c, _ := env.CoordinatorFor(id)
	return c == b.ID
}

// persist writes the metadata to __transaction_state (durably, before it
// takes effect) and reports the state change.
func (b *Broker) persist(t *txnState, from txn.State, env Env) {
	env.PersistTxn(t.md.Clone())
	if env.Tracing() && from != t.md.State {
		env.Emit(b.ev("txn.state", fmt.Sprintf("coordinates %s: %s -> %s (producer id %d, epoch %d)",
			t.md.TransactionalID, from, t.md.State, t.md.ProducerID, t.md.Epoch)).
			With("transactional_id", trace.Str(t.md.TransactionalID)).With("producer_id", trace.Int(t.md.ProducerID)).
			With("producer_epoch", trace.Int(int64(t.md.Epoch))).With("from", trace.Str(from.String())).
			With("to", trace.Str(t.md.State.String())))
	}
}

func (b *Broker) replyTxn(m *msg.Message, body msg.Body, env Env) {
	b.arrive(m)
	b.answer(m.From, m.Conn, m.ID, body, env)
}

// initTransactional is InitProducerId with a transactional id
// (TransactionCoordinator.handleInitProducerId, kafka-facts §5.3).
func (b *Broker) initTransactional(m *msg.Message, req msg.InitProducerIDRequest, env Env) {
	answer := func(code kerr.Code, pid int64, epoch int16) {
		b.replyTxn(m, msg.InitProducerIDResponse{Error: code, ProducerID: pid, Epoch: epoch}, env)
	}
	// TransactionCoordinator.handleInitProducerId checks the timeout
	// (TransactionStateManager.validateTransactionTimeoutMs) before it
	// looks the id up, so any broker answers it.
	maxMs := b.cfg.TxnMaxTimeoutMs
	if maxMs == 0 {
		maxMs = txn.MaxTimeoutMs
	}
	switch {
	case req.TimeoutMs <= 0 || req.TimeoutMs > maxMs:
		if env.Tracing() {
			env.Emit(b.ev("txn.invalid_timeout", fmt.Sprintf("refuses InitProducerId for %s: transaction.timeout.ms %d is above this broker's transaction.max.timeout.ms %d (%s)",
				req.TransactionalID, req.TimeoutMs, maxMs, kerr.InvalidTransactionTimeout.Name())).
				With("transactional_id", trace.Str(req.TransactionalID)).With("timeout_ms", trace.Int(int64(req.TimeoutMs))).
				With("max_timeout_ms", trace.Int(int64(maxMs))).With("error", trace.Str(kerr.InvalidTransactionTimeout.Name())))
		}
		answer(kerr.InvalidTransactionTimeout, -1, -1)
		return
	case !b.isCoordinator(req.TransactionalID, env):
		answer(kerr.NotCoordinator, -1, -1)
		return
	}
	t := b.coordinated(req.TransactionalID, env)
	if t == nil {
		pid := b.nextPID(env)
		t = &txnState{md: txn.Metadata{TransactionalID: req.TransactionalID, ProducerID: pid, PrevProducerID: -1, Epoch: -1, LastEpoch: -1, State: txn.Empty}}
		b.keepTxn(req.TransactionalID, t)
	}
	md := &t.md
	expect := req.ProducerID >= 0 // KIP-360: the producer says which id and epoch it has
	if expect && md.Epoch != -1 && req.ProducerID != md.ProducerID &&
		!(req.ProducerID == md.PrevProducerID && req.Epoch >= txn.ExhaustedEpoch) {
		answer(kerr.ProducerFenced, -1, -1) // isValidProducerId
		return
	}
	switch md.State {
	case txn.PrepareCommit, txn.PrepareAbort:
		answer(kerr.ConcurrentTransactions, -1, -1)
	case txn.Ongoing:
		// A new instance while the old one is mid-transaction: fence the old
		// epoch and abort its transaction; the new instance retries.
		// The open transaction ends by its own client's version
		// (TransactionCoordinator: txnMetadata.clientTransactionVersion).
		b.fenceAndAbort(t, "a new instance of "+md.TransactionalID+" started", md.ClientTV2, env)
		answer(kerr.ConcurrentTransactions, -1, -1)
	default:
		from := md.State
		switch {
		case md.Epoch >= txn.ExhaustedEpoch && (!expect || req.Epoch == md.Epoch):
			md.PrevProducerID, md.ProducerID, md.Epoch, md.LastEpoch = md.ProducerID, b.nextPID(env), 0, -1
		case !expect:
			md.LastEpoch, md.Epoch = -1, md.Epoch+1
		case md.Epoch == -1 || req.Epoch == md.Epoch:
			// The producer continues after an error (prepareIncrementProducerEpoch).
			md.LastEpoch, md.Epoch = md.Epoch, md.Epoch+1
		case req.Epoch == md.LastEpoch:
			// A retry of a bump whose answer was lost: the same epoch again.
			answer(kerr.None, md.ProducerID, md.Epoch)
			return
		default:
			answer(kerr.ProducerFenced, -1, -1)
			return
		}
		md.TimeoutMs = req.TimeoutMs
		md.State, md.Partitions, md.UpdateMs = txn.Empty, nil, env.Now()
		b.persist(t, from, env)
		answer(kerr.None, md.ProducerID, md.Epoch)
	}
}

// fenceAndAbort bumps the epoch so the current producer instance is
// fenced, and aborts its open transaction with the new epoch. Under
// transaction version 2 the abort is itself an end of transaction and bumps
// once more.
func (b *Broker) fenceAndAbort(t *txnState, why string, tv2 bool, env Env) {
	md := &t.md
	from := md.State
	md.LastEpoch, md.Epoch = md.Epoch, md.Epoch+1
	if env.Tracing() {
		env.Emit(b.ev("txn.fence", fmt.Sprintf("fences producer id %d of %s at epoch %d: %s", md.ProducerID, md.TransactionalID, md.Epoch, why)).
			With("transactional_id", trace.Str(md.TransactionalID)).With("producer_id", trace.Int(md.ProducerID)).
			With("producer_epoch", trace.Int(int64(md.Epoch))))
	}
	md.Transition(txn.PrepareEpochFence, false, env.Now())
	md.ClientTV2 = tv2
	if tv2 {
		md.LastEpoch, md.Epoch = md.Epoch, md.Epoch+1
	}
	md.Transition(txn.PrepareAbort, tv2, env.Now())
	b.persist(t, from, env)
	b.startMarkers(t, false, env)
}

// HandleAddPartitions is AddPartitionsToTxn from a producer (protocol v1).
func (b *Broker) HandleAddPartitions(m *msg.Message, req msg.AddPartitionsToTxnRequest, env Env) {
	code := b.addToTxn(req.TransactionalID, req.ProducerID, req.Epoch, req.Partitions, false, env)
	b.replyTxn(m, msg.AddPartitionsToTxnResponse{Error: code}, env)
}

// HandleAddOffsets is AddOffsetsToTxn: the group's __consumer_offsets
// partition joins the transaction like a data partition.
func (b *Broker) HandleAddOffsets(m *msg.Message, req msg.AddOffsetsToTxnRequest, env Env) {
	code := b.addToTxn(req.TransactionalID, req.ProducerID, req.Epoch, []msg.TP{txn.OffsetsPartition(req.Group)}, false, env)
	b.replyTxn(m, msg.AddOffsetsToTxnResponse{Error: code}, env)
}

// addToTxn adds partitions to an ongoing transaction, or starts one
// (kafka-facts §5.4 step 3); tv2 says the request came through a leader
// from a transaction version 2 client (AddPartitionsToTxn is version 1's).
func (b *Broker) addToTxn(id string, pid int64, epoch int16, tps []msg.TP, tv2 bool, env Env) kerr.Code {
	if !b.isCoordinator(id, env) {
		return kerr.NotCoordinator
	}
	t := b.coordinated(id, env)
	switch {
	case t == nil || t.md.ProducerID != pid:
		return kerr.InvalidProducerIDMapping
	case t.md.Epoch != epoch:
		return kerr.ProducerFenced
	case t.md.State == txn.PrepareCommit || t.md.State == txn.PrepareAbort:
		return kerr.ConcurrentTransactions
	}
	from := t.md.State
	if from == txn.Ongoing && allIn(&t.md, tps) {
		return kerr.None // nothing new: no log write
	}
	if from != txn.Ongoing {
		t.md.StartMs, t.md.ClientTV2 = env.Now(), tv2
	}
	t.md.AddPartitions(tps)
	t.md.Transition(txn.Ongoing, false, env.Now())
	b.persist(t, from, env)
	return kerr.None
}

func allIn(md *txn.Metadata, tps []msg.TP) bool {
	for _, tp := range tps {
		if !md.HasPartition(tp) {
			return false
		}
	}
	return true
}

// JoinTransaction is what a partition leader (or group coordinator) asks
// of the coordinator for a transactional write: under transaction version 2
// the partition is added (KIP-890 part 2); under version 1 it is only
// verified to be part of the ongoing transaction (KIP-890 part 1).
func (b *Broker) JoinTransaction(id string, pid int64, epoch int16, tp msg.TP, add bool, env Env) kerr.Code {
	t := b.coordinated(id, env)
	if t == nil || t.md.ProducerID != pid {
		return kerr.InvalidProducerIDMapping
	}
	if add {
		return b.addToTxn(id, pid, epoch, []msg.TP{tp}, true, env)
	}
	// handleVerifyPartitionsInTransaction: the leader maps PRODUCER_FENCED
	// to INVALID_PRODUCER_EPOCH, and TRANSACTION_ABORTABLE to
	// INVALID_TXN_STATE for produce requests before version 11.
	switch {
	case t.md.Epoch != epoch:
		return kerr.ProducerFenced
	case t.md.State == txn.PrepareCommit || t.md.State == txn.PrepareAbort:
		return kerr.ConcurrentTransactions
	case t.md.State != txn.Ongoing || !t.md.HasPartition(tp):
		return kerr.TransactionAbortable
	}
	return kerr.None
}

// HandleEndTxn commits or aborts (kafka-facts §5.4 step 6, §5.7 for version 2).
func (b *Broker) HandleEndTxn(m *msg.Message, req msg.EndTxnRequest, env Env) {
	answer := func(code kerr.Code, pid int64, epoch int16) {
		if !req.TV2 {
			pid, epoch = -1, -1 // only version 2 answers carry the identity (EndTxn v5+)
		}
		b.replyTxn(m, msg.EndTxnResponse{Error: code, ProducerID: pid, Epoch: epoch}, env)
	}
	if !b.isCoordinator(req.TransactionalID, env) {
		answer(kerr.NotCoordinator, -1, -1)
		return
	}
	t := b.coordinated(req.TransactionalID, env)
	if t == nil || t.md.ProducerID != req.ProducerID {
		answer(kerr.InvalidProducerIDMapping, -1, -1)
		return
	}
	// The client's EndTxn version decides the protocol
	// (KafkaApis.handleEndTxnRequest: version > 4 is transaction version 2).
	var code kerr.Code
	if req.TV2 {
		code = b.endTxnV2(t, req, env)
	} else {
		code = b.endTxnV1(t, req, env)
	}
	answer(code, t.md.ProducerID, t.md.Epoch)
}

func (b *Broker) endTxnV1(t *txnState, req msg.EndTxnRequest, env Env) kerr.Code {
	md := &t.md
	if req.Epoch != md.Epoch {
		return kerr.ProducerFenced
	}
	switch {
	case md.State == txn.Ongoing:
		b.prepare(t, req.Commit, false, env)
		return kerr.None
	case md.State == txn.CompleteCommit && req.Commit, md.State == txn.CompleteAbort && !req.Commit:
		return kerr.None // a retry of an end that already completed
	case md.State == txn.PrepareCommit && req.Commit, md.State == txn.PrepareAbort && !req.Commit:
		return kerr.ConcurrentTransactions
	}
	return kerr.InvalidTxnState
}

func (b *Broker) endTxnV2(t *txnState, req msg.EndTxnRequest, env Env) kerr.Code {
	md := &t.md
	retry := req.Epoch == md.Epoch-1
	same := md.State == txn.PrepareCommit && req.Commit || md.State == txn.PrepareAbort && !req.Commit ||
		md.State == txn.CompleteCommit && req.Commit || md.State == txn.CompleteAbort && !req.Commit
	switch md.State {
	case txn.Ongoing:
		if req.Epoch != md.Epoch {
			return kerr.ProducerFenced
		}
		b.prepare(t, req.Commit, true, env)
		return kerr.None
	case txn.Empty:
		if req.Epoch != md.Epoch {
			return kerr.ProducerFenced
		}
		if req.Commit {
			return kerr.InvalidTxnState
		}
		b.prepare(t, false, true, env) // an abort with nothing in it still bumps the epoch
		return kerr.None
	case txn.PrepareCommit, txn.PrepareAbort:
		switch {
		case !retry:
			return kerr.ProducerFenced
		case same:
			return kerr.ConcurrentTransactions
		}
		return kerr.InvalidTxnState
	case txn.CompleteCommit, txn.CompleteAbort:
		switch {
		case retry && same:
			return kerr.None
		case retry:
			return kerr.InvalidTxnState
		case req.Epoch == md.Epoch && !req.Commit:
			b.prepare(t, false, true, env)
			return kerr.None
		case req.Epoch == md.Epoch:
			return kerr.InvalidTxnState
		}
	}
	return kerr.ProducerFenced
}

// prepare writes PrepareCommit/PrepareAbort (version 2: with epoch+1), then
// starts the markers. The producer is answered now, before any marker.
func (b *Broker) prepare(t *txnState, commit, tv2 bool, env Env) {
	md := &t.md
	from := md.State
	if tv2 {
		if md.Epoch >= txn.ExhaustedEpoch {
			md.PrevProducerID = md.ProducerID
		}
		md.LastEpoch, md.Epoch = md.Epoch, md.Epoch+1
	}
	to := txn.PrepareAbort
	if commit {
		to = txn.PrepareCommit
	}
	md.ClientTV2 = tv2
	md.Transition(to, tv2, env.Now())
	b.persist(t, from, env)
	b.startMarkers(t, commit, env)
}

// startMarkers sends WriteTxnMarkers to the leader of every partition in
// the transaction; with none, the transaction completes at once.
func (b *Broker) startMarkers(t *txnState, commit bool, env Env) {
	t.commit = commit
	t.pending, t.inFlight = map[msg.TP]bool{}, map[msg.TP]sentMarker{}
	for _, tp := range t.md.Partitions {
		t.pending[tp] = true
	}
	b.sendMarkers(t, env)
}

// sendMarkers sends the pending markers that are not in flight, one
// request per leader, each with a timer for its request timeout.
func (b *Broker) sendMarkers(t *txnState, env Env) {
	if len(t.pending) == 0 {
		b.complete(t, env)
		return
	}
	_, coordEpoch := env.CoordinatorFor(t.md.TransactionalID)
	byLeader := map[int][]msg.TP{}
	var leaders []int
	retryLater := false
	for _, tp := range t.md.Partitions {
		if _, sent := t.inFlight[tp]; !t.pending[tp] || sent {
			continue
		}
		leader, ok := env.LeaderOf(tp)
		if !ok {
			retryLater = true
			continue
		}
		if _, seen := byLeader[leader]; !seen {
			leaders = append(leaders, leader)
		}
		byLeader[leader] = append(byLeader[leader], tp)
	}
	for _, leader := range sortedInts(setOf(leaders)) {
		conn := env.Request(b.ID, leader, msg.WriteTxnMarkersRequest{ProducerID: t.md.ProducerID, Epoch: t.md.Epoch, Commit: t.commit,
			CoordinatorEpoch: coordEpoch, Partitions: byLeader[leader], TV2: t.md.ClientTV2, TransactionalID: t.md.TransactionalID})
		for _, tp := range byLeader[leader] {
			t.inFlight[tp] = sentMarker{leader: leader, conn: conn, at: env.Now()}
		}
	}
	if retryLater {
		b.armTimer(t, env.Now()+markerRetryMs, env)
	}
	b.armTimeout(t, env)
}

func setOf(xs []int) map[int]bool {
	m := map[int]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// complete writes CompleteCommit/CompleteAbort once every marker is written.
func (b *Broker) complete(t *txnState, env Env) {
	md := &t.md
	from := md.State
	to := txn.CompleteAbort
	if t.commit {
		to = txn.CompleteCommit
	}
	md.Transition(to, md.ClientTV2, env.Now())
	md.Partitions = nil
	if md.PrevProducerID >= 0 && md.Epoch >= math.MaxInt16 {
		md.ProducerID, md.Epoch = md.PrevProducerID, 0
	}
	b.persist(t, from, env)
	t.pending, t.inFlight = nil, nil
}

// OnMarkersResponse records which markers are written; failures are sent
// again (to the partition's current leader) shortly.
func (b *Broker) OnMarkersResponse(resp msg.WriteTxnMarkersResponse, env Env) bool {
	t := b.txns[resp.TransactionalID]
	if t == nil || t.pending == nil || t.md.ProducerID != resp.ProducerID {
		return false
	}
	retry := false
	for _, r := range resp.Results {
		delete(t.inFlight, r.TP)
		if r.Error == kerr.None {
			delete(t.pending, r.TP)
		} else {
			retry = true
		}
	}
	if len(t.pending) == 0 {
		b.complete(t, env)
	} else if retry {
		b.armTimer(t, env.Now()+markerRetryMs, env)
	}
	return true
}

// OnCoordinatorTimer sends the markers that wait: those never sent or
// refused, and those whose request went unanswered for the request timeout
// — then the coordinator closes that connection, and every marker that was
// in flight on it is sent again on a new one. It reports whether there was
// anything to do.
func (b *Broker) OnCoordinatorTimer(id string, gen int, env Env) bool {
	t := b.txns[id]
	if t == nil || t.timerGen != gen {
		return false
	}
	t.timerSet = false
	if !b.markerWorkDue(t, env.Now()) {
		b.armTimeout(t, env)
		return false
	}
	var stale []int
	for _, tp := range t.md.Partitions {
		if s, ok := t.inFlight[tp]; ok && t.pending[tp] && env.Now()-s.at >= markerTimeoutMs && !slices.Contains(stale, s.leader) {
			stale = append(stale, s.leader)
		}
	}
	slices.Sort(stale)
	for _, leader := range stale {
		env.CloseConnection(b.ID, leader)
		b.forgetInFlightTo(leader, -1)
	}
	b.sendMarkers(t, env)
	return true
}

// markerWorkDue reports whether a coordinator timer for t would send anything.
func (b *Broker) markerWorkDue(t *txnState, now int64) bool {
	if !b.alive || t == nil || len(t.pending) == 0 {
		return false
	}
	for tp := range t.pending {
		s, sent := t.inFlight[tp]
		if !sent || now-s.at >= markerTimeoutMs {
			return true
		}
	}
	return false
}

// forgetInFlightTo drops the markers in flight to leader on connection
// conn (any, for -1), in every transaction: their connection is gone.
func (b *Broker) forgetInFlightTo(leader, conn int) []string {
	var ids []string
	for _, id := range sortedTxnIDs(b.txns) {
		t := b.txns[id]
		for tp, s := range t.inFlight {
			if s.leader == leader && (conn < 0 || s.conn == conn) {
				delete(t.inFlight, tp)
				if !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
	}
	return ids
}

// markersDisconnected is the marker channel learning that its connection
// to leader is gone: what was in flight there goes again after a back-off.
func (b *Broker) markersDisconnected(leader, conn int, env Env) {
	for _, id := range b.forgetInFlightTo(leader, conn) {
		b.armTimer(b.txns[id], env.Now()+markerReconnectMs, env)
	}
}

// CoordinatorTimerLive reports whether a marker timer for id is the one the
// coordinator waits for, so that a superseded timer is dropped without
// moving the clock.
// (It must not look at the work itself: a timer dropped unseen would leave
// the coordinator believing one is pending.)
func (b *Broker) CoordinatorTimerLive(id string, gen int) bool {
	t := b.txns[id]
	return b.alive && t != nil && t.timerGen == gen
}

// armTimeout sets the timer for the request timeout of the oldest marker
// in flight.
func (b *Broker) armTimeout(t *txnState, env Env) {
	first := int64(math.MaxInt64)
	for _, s := range t.inFlight {
		first = min(first, s.at)
	}
	if first != math.MaxInt64 {
		b.armTimer(t, first+markerTimeoutMs, env)
	}
}

// PendingMarkers lists the partitions whose marker for id is not yet
// acknowledged (sorted), as this coordinator sees them.
func (b *Broker) PendingMarkers(id string) []msg.TP {
	t := b.txns[id]
	if t == nil {
		return nil
	}
	var out []msg.TP
	for _, tp := range t.md.Partitions {
		if t.pending[tp] {
			out = append(out, tp)
		}
	}
	return out
}

// ResumeTxn is a new coordinator picking up a transaction from the log: a
// decided transaction (PrepareCommit/PrepareAbort) gets its markers again.
func (b *Broker) ResumeTxn(id string, env Env) {
	delete(b.txns, id)
	t := b.coordinated(id, env)
	if t == nil {
		return
	}
	switch t.md.State {
	case txn.PrepareCommit:
		b.startMarkers(t, true, env)
	case txn.PrepareAbort:
		b.startMarkers(t, false, env)
	}
}

// ForgetTxn drops the coordinator's memory of a transaction it no longer coordinates.
func (b *Broker) ForgetTxn(id string) { delete(b.txns, id) }

// AbortTimedOut is the coordinator's periodic scan: an Ongoing transaction
// older than its timeout is fenced and aborted. It reports whether it did.
func (b *Broker) AbortTimedOut(env Env) bool {
	did := false
	for _, id := range sortedTxnIDs(b.txns) {
		t := b.txns[id]
		md := &t.md
		if md.State != txn.Ongoing || md.StartMs+int64(md.TimeoutMs) >= env.Now() || !b.isCoordinator(id, env) {
			continue
		}
		did = true
		if env.Tracing() {
			env.Emit(b.ev("txn.timeout", fmt.Sprintf("aborts %s: open since %s, longer than transaction.timeout.ms (%d ms)",
				id, trace.FormatTime(md.StartMs), md.TimeoutMs)).
				With("transactional_id", trace.Str(id)).With("producer_id", trace.Int(md.ProducerID)))
		}
		// Not from a client: the coordinator uses the cluster's level.
		b.fenceAndAbort(t, "the transaction timed out", env.TransactionVersion() >= 2, env)
	}
	return did
}

// NextTxnTimeout is the earliest time at which AbortTimedOut would abort a
// transaction, or math.MaxInt64.
func (b *Broker) NextTxnTimeout(env Env) int64 {
	next := int64(math.MaxInt64)
	for id, t := range b.txns {
		if t.md.State == txn.Ongoing && b.isCoordinator(id, env) {
			next = min(next, t.md.StartMs+int64(t.md.TimeoutMs)+1)
		}
	}
	return next
}

func sortedTxnIDs(m map[string]*txnState) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Txns lists the transactions this broker coordinates (for snapshots).
func (b *Broker) Txns() []txn.Metadata {
	var out []txn.Metadata
	for _, id := range sortedTxnIDs(b.txns) {
		out = append(out, b.txns[id].md.Clone())
	}
	return out
}
