package client

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/trace"
)

// TxnState is the transactional producer's state (TransactionManager.State).
type TxnState uint8

const (
	Uninitialized TxnState = iota
	Initializing
	Ready
	InTransaction
	Committing
	Aborting
	AbortableError
	FatalError
)

func (s TxnState) String() string {
	return [...]string{"UNINITIALIZED", "INITIALIZING", "READY", "IN_TRANSACTION", "COMMITTING_TRANSACTION",
		"ABORTING_TRANSACTION", "ABORTABLE_ERROR", "FATAL_ERROR"}[s]
}

// concurrentRetryMs is how soon AddPartitionsToTxn is retried after
// CONCURRENT_TRANSACTIONS (the Java client's special short back-off).
const concurrentRetryMs = 20

// txnKind names a transactional request.
type txnKind uint8

const (
	txnNone txnKind = iota
	txnAddPartitions
	txnAddOffsets
	txnOffsetCommit
	txnEnd
)

// pendingOffsets is a sendOffsetsToTransaction call on its way.
type pendingOffsets struct {
	group      string
	offsets    []msg.Offset
	member     string // the consumer's group metadata (KIP-447); "" and -1 without
	generation int32
	added      bool // AddOffsetsToTxn done (version 1)
}

// txnManager is the transactional half of a producer.
type txnManager struct {
	state TxnState
	// tv2: this transaction speaks transaction version 2. beginTransaction
	// takes it from features, the finalized transaction.version the client
	// last learned from a broker's ApiVersions answer, which it asks for on
	// every new connection (TransactionManager.maybeUpdateTransactionV2Enabled).
	tv2       bool
	features  int
	added     map[msg.TP]bool // partitions in the current transaction
	toAdd     []msg.TP        // version 1: partitions waiting for AddPartitionsToTxn
	offsets   []pendingOffsets
	started   bool // something was added or sent: EndTxn must be sent
	commit    bool // the decision being sent
	inFlight  txnKind
	readyAt   int64 // back-off before the next transactional request
	lastError kerr.Code
	// bumpRequired: a batch failed or its outcome is unknown, so after the
	// abort (version 1) the producer asks its coordinator for the next epoch
	// with InitProducerId(producerId, epoch) (TransactionManager.epochBumpRequired).
	bumpRequired bool
	groups       []string // groups whose offsets went into this transaction
	ends         int      // transactions completed
	lastCommit   bool     // whether the last one committed
}

// TxnError is the error that left the transaction abortable or the
// producer stopped (NONE otherwise).
func (p *Producer) TxnError() kerr.Code {
	if p.txn == nil || (p.txn.state != AbortableError && p.txn.state != FatalError) {
		return kerr.None
	}
	return p.txn.lastError
}

// TxnState returns the transactional state (Uninitialized for others).
func (p *Producer) TxnState() TxnState {
	if p.txn == nil {
		return Uninitialized
	}
	return p.txn.state
}

// refuse reports an application call Kafka's client would reject; the
// call does nothing.
func (p *Producer) refuse(call, why string, env Env) {
	if env.Tracing() {
		env.Emit(p.ev("producer.refused", fmt.Sprintf("%s fails: %s", call, why)).With("call", trace.Str(call)))
	}
}

// refuseTransition reports a call the Java client answers with an
// IllegalStateException because its state machine has no such transition
// (TransactionManager.transitionTo): the call changes nothing, and an open
// transaction goes on as it was.
func (p *Producer) refuseTransition(call string, to TxnState, env Env) {
	if env.Tracing() {
		msg := fmt.Sprintf("TransactionalId %s: Invalid transition attempted from state %s to state %s",
			p.cfg.TransactionalID, p.txn.state, to)
		why := "IllegalStateException: " + msg
		if p.txn.state == InTransaction && to == InTransaction {
			why += " (one transaction at a time: the open one goes on)"
		}
		env.Emit(p.ev("producer.refused", fmt.Sprintf("%s fails: %s", call, why)).With("call", trace.Str(call)).
			With("exception", trace.Str("IllegalStateException")).With("state", trace.Str(p.txn.state.String())))
	}
}

// LearnFeatures is an ApiVersions answer on a new connection: the cluster's
// finalized transaction.version, which the next beginTransaction uses.
func (p *Producer) LearnFeatures(transactionVersion int) {
	if p.txn != nil {
		p.txn.features = transactionVersion
	}
}

// Begin is beginTransaction.
func (p *Producer) Begin(env Env) {
	t := p.txn
	switch {
	case t == nil:
		p.refuse("beginTransaction", "not a transactional producer (no transactional.id)", env)
	case p.fatal:
		p.refuse("beginTransaction", "the producer hit the fatal error "+p.Fatal(), env)
	case t.state == AbortableError:
		// maybeFailWithError comes before the transition: the error is thrown.
		p.refuse("beginTransaction", "the transaction hit "+t.lastError.Name()+"; it must be aborted first", env)
	case t.state != Ready:
		p.refuseTransition("beginTransaction", InTransaction, env)
	default:
		t.state, t.started, t.commit, t.lastError = InTransaction, false, false, kerr.None
		t.tv2 = t.features >= 2
		t.added, t.toAdd, t.offsets, t.groups = map[msg.TP]bool{}, nil, nil, nil
		if env.Tracing() {
			env.Emit(p.ev("txn.begin", "begins a transaction").With("producer_epoch", trace.Int(int64(p.epoch))))
		}
	}
}

// canSendInTxn checks a send on a transactional producer.
func (p *Producer) canSendInTxn(env Env) bool {
	switch p.txn.state {
	case InTransaction:
		return true
	case AbortableError:
		p.refuse("send", "the transaction hit "+p.txn.lastError.Name()+"; it can only be aborted", env)
	default:
		p.refuse("send", "a transactional producer sends inside a transaction; state is "+p.txn.state.String(), env)
	}
	return false
}

// noteTxnPartition records that a batch goes to tp in this transaction.
func (p *Producer) noteTxnPartition(tp msg.TP) {
	t := p.txn
	if t.added[tp] || slices.Contains(t.toAdd, tp) {
		return
	}
	if t.tv2 {
		t.added[tp] = true // the partition leader adds it on the first write (KIP-890)
		t.started = true
		return
	}
	t.toAdd = append(t.toAdd, tp)
}

// SendOffsets is sendOffsetsToTransaction with the group's positions and
// a consumer's group metadata (member id and generation; "" and -1 for the
// groupId-only form).
func (p *Producer) SendOffsets(group string, offsets []msg.Offset, member string, generation int32, env Env) {
	t := p.txn
	switch {
	case t == nil:
		p.refuse("sendOffsetsToTransaction", "not a transactional producer", env)
		return
	case t.state != InTransaction:
		p.refuse("sendOffsetsToTransaction", "state is "+t.state.String()+", not IN_TRANSACTION", env)
		return
	}
	t.offsets = append(t.offsets, pendingOffsets{group: group, offsets: offsets, member: member, generation: generation})
	if env.Tracing() {
		var parts []string
		for _, o := range offsets {
			parts = append(parts, fmt.Sprintf("%s=%d", o.TP, o.Offset))
		}
		env.Emit(p.ev("txn.offsets", fmt.Sprintf("calls sendOffsetsToTransaction: group %s's positions %s commit with the transaction",
			group, strings.Join(parts, ", "))).With("group", trace.Str(group)))
	}
	if !slices.Contains(t.groups, group) {
		t.groups = append(t.groups, group)
	}
	t.started = true
	env.Wake(env.Now())
}

// End is commitTransaction (commit) or abortTransaction.
func (p *Producer) End(commit bool, env Env) {
	defer p.settle(env.Scratch())
	t := p.txn
	call := "abortTransaction"
	if commit {
		call = "commitTransaction"
	}
	switch {
	case t == nil:
		p.refuse(call, "not a transactional producer", env)
		return
	case p.fatal:
		p.refuse(call, "the producer hit the fatal error "+p.Fatal(), env)
		return
	case commit && t.state == AbortableError:
		p.refuse(call, "the transaction hit "+t.lastError.Name()+"; abort it instead", env)
		return
	case commit && t.state != InTransaction, !commit && t.state != InTransaction && t.state != AbortableError:
		p.refuse(call, "state is "+t.state.String(), env)
		return
	}
	t.commit = commit
	if commit {
		t.state = Committing
	} else {
		t.state = Aborting
		p.abortUndrained(env)
	}
	if env.Tracing() {
		env.Emit(p.ev("txn.end", fmt.Sprintf("calls %s: waits for its batches, then sends EndTxn", call)))
	}
	env.Wake(env.Now())
}

// abortUndrained fails the batches that were never sent (Java's
// abortUndrainedBatches): they are not part of any request.
func (p *Producer) abortUndrained(env Env) {
	for _, ps := range p.parts {
		for _, b := range slices.Clone(ps.waiting()) {
			if b.Sends == 0 {
				p.fail(b, Failed, kerr.TransactionAbortable, "aborted before it was sent", false, env)
			}
		}
	}
}

// runTxn sends the next transactional request, one at a time, in Java's
// priority order: AddPartitions/AddOffsets/TxnOffsetCommit, then EndTxn once
// every batch is done.
func (p *Producer) runTxn(env Env) bool {
	t := p.txn
	if t.inFlight != txnNone || t.state == FatalError {
		return false
	}
	if t.state == AbortableError || t.state == Aborting {
		p.abortUndrained(env) // what was never sent is not part of any request (Sender)
	}
	if t.readyAt > env.Now() {
		return false // backing off: scheduleWake returns at readyAt
	}
	coord, ok := env.Coordinator(p.cfg.TransactionalID)
	if !ok || !env.Ready(coord) {
		return false // the world wakes the producer when the coordinator moves or comes back
	}
	switch {
	case len(t.toAdd) > 0 && (t.state == InTransaction || t.state == Committing):
		t.inFlight = txnAddPartitions
		p.sendTxn(coord, msg.AddPartitionsToTxnRequest{TransactionalID: p.cfg.TransactionalID, ProducerID: p.pid, Epoch: p.epoch, Partitions: slices.Clone(t.toAdd)}, env)
	case len(t.offsets) > 0 && (t.state == InTransaction || t.state == Committing):
		o := t.offsets[0]
		if !t.tv2 && !o.added {
			t.inFlight = txnAddOffsets
			p.sendTxn(coord, msg.AddOffsetsToTxnRequest{TransactionalID: p.cfg.TransactionalID, ProducerID: p.pid, Epoch: p.epoch, Group: o.group}, env)
			break
		}
		gc, ok := env.GroupCoordinator(o.group)
		if !ok || !env.Ready(gc) {
			return false
		}
		t.inFlight = txnOffsetCommit
		p.sendTxn(gc, msg.TxnOffsetCommitRequest{TransactionalID: p.cfg.TransactionalID, Group: o.group, ProducerID: p.pid, Epoch: p.epoch, Offsets: o.offsets, TV2: t.tv2,
			MemberID: o.member, GenerationID: o.generation}, env)
	case (t.state == Committing || t.state == Aborting) && !p.Pending():
		if !t.started {
			p.completeTxn(env) // nothing was added: no EndTxn (TransactionManager)
			return true
		}
		if !t.commit && t.lastError == kerr.InvalidProducerIDMapping {
			// The coordinator would not take an EndTxn: go straight to
			// InitProducerId (beginCompletingTransaction).
			t.bumpRequired = true
			p.completeTxn(env)
			return true
		}
		t.inFlight = txnEnd
		p.sendTxn(coord, msg.EndTxnRequest{TransactionalID: p.cfg.TransactionalID, ProducerID: p.pid, Epoch: p.epoch, Commit: t.commit, TV2: t.tv2}, env)
	default:
		return false
	}
	return true
}

func (p *Producer) sendTxn(b int, body msg.Body, env Env) {
	id := p.send(b, body, env)
	p.addReq(id, b, env.Scratch()).txn = true
	env.Timer(env.Now()+p.cfg.RequestTimeoutMs, RequestTimeout, id)
}

// onTxnResponse handles the answer to a transactional request.
func (p *Producer) onTxnResponse(body msg.Body, env Env) {
	t := p.txn
	kind := t.inFlight
	t.inFlight = txnNone
	var code kerr.Code
	switch r := body.(type) {
	case msg.AddPartitionsToTxnResponse:
		code = r.Error
		if code == kerr.None {
			for _, tp := range t.toAdd {
				t.added[tp] = true
			}
			t.toAdd, t.started = nil, true
		}
	case msg.AddOffsetsToTxnResponse:
		code = r.Error
		if code == kerr.None && len(t.offsets) > 0 {
			t.offsets[0].added = true
		}
	case msg.TxnOffsetCommitResponse:
		code = r.Error
		if code == kerr.None && len(t.offsets) > 0 {
			t.offsets = t.offsets[1:]
		}
	case msg.EndTxnResponse:
		code = r.Error
		if code == kerr.None {
			if t.tv2 && r.ProducerID >= 0 {
				p.adoptIdentity(r.ProducerID, r.Epoch)
			}
			p.completeTxn(env)
			return
		}
	}
	if code != kerr.None {
		p.txnError(kind, code, env)
	}
}

// txnError reacts to a coordinator error as Java's TransactionManager does.
func (p *Producer) txnError(kind txnKind, code kerr.Code, env Env) {
	t := p.txn
	switch code {
	case kerr.ConcurrentTransactions, kerr.CoordinatorLoadInProgress, kerr.NotCoordinator, kerr.CoordinatorNotAvailable,
		kerr.NetworkException, kerr.RequestTimedOut:
		backoff := p.cfg.RetryBackoffMs
		if code == kerr.ConcurrentTransactions && kind == txnAddPartitions {
			backoff = concurrentRetryMs
		}
		t.readyAt = env.Now() + backoff
		env.Wake(t.readyAt)
	case kerr.ProducerFenced, kerr.InvalidProducerEpoch:
		p.fence(code, env)
	case kerr.TransactionAbortable, kerr.InvalidProducerIDMapping:
		p.abortable(code, env)
	case kerr.UnknownMemberID, kerr.IllegalGeneration:
		// TxnOffsetCommitHandler: a CommitFailedException, "consumer group
		// metadata mismatch" — a rebalance moved on without this instance.
		p.abortable(code, env)
	default:
		p.setFatal(code, env)
	}
}

// fence is the producer learning that a newer instance took its
// transactional id over: fatal, the application must close it.
func (p *Producer) fence(code kerr.Code, env Env) {
	if env.Tracing() {
		env.Emit(p.ev("fenced", fmt.Sprintf("is fenced (%s): a newer producer with transactional.id %s exists; it must be closed", code.Name(), p.cfg.TransactionalID)).
			With("producer_id", trace.Int(p.pid)).With("producer_epoch", trace.Int(int64(p.epoch))).With("error", trace.Str(code.Name())))
	}
	p.setFatal(code, env)
}

func (p *Producer) setFatal(code kerr.Code, env Env) {
	p.fatal, p.fatalCode = true, code
	if p.txn != nil {
		p.txn.state, p.txn.lastError = FatalError, code
	}
	if env.Tracing() {
		env.Emit(p.ev("producer.fatal", "stops with the fatal error "+code.Name()).With("error", trace.Str(code.Name())))
	}
}

// abortable moves the transaction to ABORTABLE_ERROR: only an abort can follow.
func (p *Producer) abortable(code kerr.Code, env Env) {
	t := p.txn
	if t.state == AbortableError || t.state == Aborting || t.state == FatalError {
		return
	}
	was := t.state
	t.state, t.lastError = AbortableError, code
	if env.Tracing() {
		text := fmt.Sprintf("the transaction hit %s: the application must abort it", code.Name())
		if was == Committing {
			text = fmt.Sprintf("commitTransaction fails with %s: the application must abort the transaction", code.Name())
		}
		if code == kerr.UnknownMemberID || code == kerr.IllegalGeneration {
			text = fmt.Sprintf("TxnOffsetCommit fails with %s — CommitFailedException, the consumer group metadata no longer matches: the group has rebalanced without this instance, which must abort", code.Name())
		}
		env.Emit(p.ev("txn.abortable", text).
			With("error", trace.Str(code.Name())))
	}
}

// completeTxn ends the transaction on the client side.
func (p *Producer) completeTxn(env Env) {
	t := p.txn
	outcome := "committed"
	if !t.commit {
		outcome = "aborted"
	}
	t.state, t.added, t.toAdd, t.offsets, t.groups, t.started = Ready, map[msg.TP]bool{}, nil, nil, nil, false
	t.lastError = kerr.None
	t.ends, t.lastCommit = t.ends+1, t.commit
	next := fmt.Sprintf("ready for the next (producer id %d, epoch %d)", p.pid, p.epoch)
	if t.bumpRequired && !t.tv2 {
		// completeTransaction: with epochBumpRequired the producer is not
		// ready yet; InitProducerId(producerId, epoch) comes first. Under
		// version 2 the EndTxn answer already carried the next epoch.
		t.state = Initializing
		next = fmt.Sprintf("asks its coordinator to bump epoch %d before the next", p.epoch)
	}
	t.bumpRequired = t.state == Initializing
	if env.Tracing() {
		env.Emit(p.ev("txn.complete", fmt.Sprintf("sees its transaction %s; %s", outcome, next)).
			With("committed", trace.Bool(outcome == "committed")).With("producer_epoch", trace.Int(int64(p.epoch))))
	}
	env.Wake(env.Now())
}

// TxnEnds is how many transactions have completed, and whether the last
// one committed.
func (p *Producer) TxnEnds() (int, bool) {
	if p.txn == nil {
		return 0, false
	}
	return p.txn.ends, p.txn.lastCommit
}

// adoptIdentity takes the producer id and epoch the coordinator returned at
// the end of a version-2 transaction and restarts every sequence at 0.
func (p *Producer) adoptIdentity(pid int64, epoch int16) {
	p.pid, p.epoch = pid, epoch
	for _, ps := range p.parts {
		ps.pid, ps.epoch, ps.nextSeq, ps.lastAcked = pid, epoch, 0, -1
	}
}

// txnDrainable reports whether a transactional batch for tp may be sent.
func (p *Producer) txnDrainable(tp msg.TP) bool {
	t := p.txn
	switch t.state {
	case InTransaction, Committing, Aborting, AbortableError:
		// Retries keep going in ABORTABLE_ERROR (isSendToPartitionAllowed);
		// only batches never sent are dropped.
		return t.added[tp]
	}
	return false
}

// txnBatchFailed is a transactional batch's failure
// (TransactionManager.maybeTransitionToErrorState): fencing and
// authorization are fatal; anything else makes the transaction abortable
// and, unless it is already being completed, asks for an epoch bump after
// the abort.
func (p *Producer) txnBatchFailed(code kerr.Code, env Env) {
	t := p.txn
	if code != kerr.ProducerFenced && code != kerr.TransactionalIDAuthorizationFailed && t.state != Committing && t.state != Aborting {
		t.bumpRequired = true
	}
	switch code {
	case kerr.ProducerFenced, kerr.TransactionalIDAuthorizationFailed:
		p.fence(code, env)
	case kerr.InvalidProducerEpoch:
		if env.Tracing() {
			env.Emit(p.ev("fenced", fmt.Sprintf("writes with epoch %d but the partition has seen a newer one (%s): the transaction can only be aborted",
				p.epoch, code.Name())).
				With("producer_id", trace.Int(p.pid)).With("producer_epoch", trace.Int(int64(p.epoch))).With("error", trace.Str(code.Name())))
		}
		p.abortable(code, env)
	default:
		p.abortable(code, env)
	}
}
