package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eoslab/eoslab/engine/broker"
	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/producerstate"
	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/engine/txn"
)

// adminClient is the operator's kafka-transactions.sh: the name its
// requests travel under.
const adminClient = "kafka-transactions"

// hangingAfterMs is find-hanging's --max-transaction-timeout default
// (15 minutes, the broker's default transaction.max.timeout.ms): only a
// transaction open longer than any coordinator would allow is a candidate.
const hangingAfterMs = 15 * 60 * 1000

// openTxn is a transaction a partition replica's producer state holds open
// (an active producer with a currentTransactionStartOffset, in
// DescribeProducers' words).
type openTxn struct {
	tp    msg.TP
	entry producerstate.Entry
	start int64
}

// txnTool performs the operator's kafka-transactions.sh commands
// (org.apache.kafka.tools.TransactionsCommand). Its reads — DescribeProducers,
// ListTransactions, DescribeTransactions — are answered at once from the
// brokers' state at that moment (they change nothing); the abort's
// WriteTxnMarkers travels to the partition leader like any request.
func (w *World) txnTool(c *script.TxnTool) error {
	w.started = true
	switch c.Op {
	case script.DescribeProducers:
		tp := msg.TP{Topic: c.TP.Topic, Partition: c.TP.Partition}
		r, id, err := w.adminReplica(tp, c.Broker)
		if err != nil {
			return err
		}
		w.describeProducers(tp, r, id)
	case script.FindHanging:
		if c.Broker != 0 && w.broker(c.Broker) == nil {
			return fmt.Errorf("unknown broker %d (the cluster has brokers 1-%d)", c.Broker, len(w.brokers))
		}
		w.findHanging(c.Broker)
	case script.AbortTransaction:
		return w.abortTransaction(msg.TP{Topic: c.TP.Topic, Partition: c.TP.Partition}, c.StartOffset)
	}
	return nil
}

// adminReplica is the replica DescribeProducers reads: on broker id if
// given (any replica answers, ReplicaManager.activeProducerState), else on
// the partition's leader. A nil replica means the broker cannot answer
// (NOT_LEADER_OR_FOLLOWER, or it is down).
func (w *World) adminReplica(tp msg.TP, id int) (*broker.Replica, int, error) {
	m := w.meta(tp)
	if m == nil {
		return nil, 0, w.unknownPartition(tp)
	}
	if id == 0 {
		id = m.leader
	} else if w.broker(id) == nil {
		return nil, 0, fmt.Errorf("unknown broker %d (the cluster has brokers 1-%d)", id, len(w.brokers))
	}
	if id == 0 || !w.brokers[id-1].Alive() {
		return nil, id, nil
	}
	return w.brokers[id-1].Replica(tp), id, nil
}

// activeProducers is UnifiedLog.activeProducers: every producer the
// replica remembers, with the first offset of its open transaction (-1).
func activeProducers(r *broker.Replica) []openTxn {
	st := r.Log.State()
	var out []openTxn
	for _, e := range st.Entries() {
		start := int64(-1)
		if off, ok := st.TxnFirstOffset(e.ProducerID()); ok {
			start = off
		}
		out = append(out, openTxn{tp: r.TP, entry: e, start: start})
	}
	return out
}

func (w *World) describeProducers(tp msg.TP, r *broker.Replica, id int) {
	if !w.tracing() {
		return
	}
	if r == nil {
		what := "has no leader"
		if id != 0 {
			what = fmt.Sprintf("cannot be described by broker %d (%s)", id, kerr.NotLeaderOrFollower.Name())
		}
		w.emit(trace.New("admin.producers", fmt.Sprintf("describe-producers: %s %s", tp, what)).
			With("partition", trace.Str(tp.String())).With("broker", trace.Int(int64(id))).With("count", trace.Int(0)).
			With("error", trace.Str(kerr.NotLeaderOrFollower.Name())))
		return
	}
	ps := activeProducers(r)
	w.emit(trace.New("admin.producers", fmt.Sprintf("describe-producers: broker %d remembers %d producer(s) on %s", id, len(ps), tp)).
		With("partition", trace.Str(tp.String())).With("broker", trace.Int(int64(id))).With("count", trace.Int(int64(len(ps)))).
		With("error", trace.Str(kerr.None.Name())))
	for _, p := range ps {
		w.emit(producerEvent("admin.producer", p, id, fmt.Sprintf("  %s: producer id %d epoch %d, last sequence %d, last timestamp %s, coordinator epoch %d, %s",
			tp, p.entry.ProducerID(), p.entry.Epoch(), p.entry.LastSeq(), trace.FormatTime(p.entry.LastTimestamp()-EpochMs),
			p.entry.CoordinatorEpoch(), txnStartText(p.start))))
	}
}

func txnStartText(start int64) string {
	if start < 0 {
		return "no open transaction"
	}
	return fmt.Sprintf("a transaction open since offset %d", start)
}

func producerEvent(kind trace.Kind, p openTxn, broker int, text string) trace.Event {
	return trace.New(kind, text).
		With("partition", trace.Str(p.tp.String())).With("broker", trace.Int(int64(broker))).
		With("producer_id", trace.Int(p.entry.ProducerID())).With("producer_epoch", trace.Int(int64(p.entry.Epoch()))).
		With("coordinator_epoch", trace.Int(int64(p.entry.CoordinatorEpoch()))).
		With("last_sequence", trace.Int(int64(p.entry.LastSeq()))).
		With("last_timestamp", trace.Int(p.entry.LastTimestamp())).
		With("start_offset", trace.Int(p.start))
}

// findHanging is TransactionsCommand.FindHangingTransactionsCommand: the
// open transactions of the partitions on broker id (every partition of the
// topic when 0) that began longer ago than the longest timeout a
// coordinator grants, looked up by producer id among the coordinators'
// transactions (ListTransactions) and kept when no coordinator still counts
// the partition in that transaction (DescribeTransactions): the ongoing
// transaction's partitions, or those still waiting for a marker.
func (w *World) findHanging(id int) {
	now := EpochMs + w.now
	var candidates []openTxn
	searched := 0
	for _, m := range w.parts {
		if id != 0 && !slices.Contains(m.replicas, id) {
			continue
		}
		searched++
		at := id
		if at == 0 {
			at = m.leader
		}
		if at == 0 || !w.brokers[at-1].Alive() {
			continue // the tool gives up on that batch; a lab just skips it
		}
		for _, p := range activeProducers(w.brokers[at-1].Replica(m.tp)) {
			if p.start >= 0 && now-p.entry.LastTimestamp() > hangingAfterMs {
				candidates = append(candidates, p)
			}
		}
	}
	var hanging []openTxn
	var ids []string
	for _, p := range candidates {
		txnID, md, known := w.transactionOf(p.entry.ProducerID())
		if known && w.stillCounted(txnID, md, p.tp) {
			continue // the coordinator will write the marker itself
		}
		hanging = append(hanging, p)
		ids = append(ids, txnID)
	}
	if !w.tracing() {
		return
	}
	scope := "every partition of " + strings.Join(w.topicNames(), ", ")
	if id != 0 {
		scope = fmt.Sprintf("the partitions with a replica on broker %d", id)
	}
	w.emit(trace.New("admin.find_hanging", fmt.Sprintf("find-hanging: %d partition(s) searched (%s), %d transaction(s) open longer than 15 minutes, %d hanging",
		searched, scope, len(candidates), len(hanging))).
		With("broker", trace.Int(int64(id))).With("partitions", trace.Int(int64(searched))).
		With("candidates", trace.Int(int64(len(candidates)))).With("hanging", trace.Int(int64(len(hanging)))))
	for i, p := range hanging {
		why := "no coordinator knows its producer id"
		if ids[i] != "" {
			why = fmt.Sprintf("its transactional id %s no longer counts %s in a transaction", ids[i], p.tp)
		}
		minutes := (now - p.entry.LastTimestamp()) / 60_000
		w.emit(producerEvent("admin.hanging", p, 0, fmt.Sprintf("  hanging: %s producer id %d epoch %d, open since offset %d for %d min, coordinator epoch %d: %s",
			p.tp, p.entry.ProducerID(), p.entry.Epoch(), p.start, minutes, p.entry.CoordinatorEpoch(), why)).
			With("transactional_id", trace.Str(ids[i])).With("duration_min", trace.Int(minutes)))
	}
}

// transactionOf is ListTransactions filtered by producer id: the
// transactional id whose newest __transaction_state record has that
// producer id.
func (w *World) transactionOf(pid int64) (string, txn.Metadata, bool) {
	var ps []int
	for p := range w.tx.txnLog {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	for _, p := range ps {
		for _, id := range w.txnIDsIn(p) {
			if md, ok := w.benv.LoadTxn(id); ok && md.ProducerID == pid {
				return id, md, true
			}
		}
	}
	return "", txn.Metadata{}, false
}

// markerTV2 reports whether the transaction a marker of pid ends was one of
// transaction version 2 (its coordinator's record says so; the cluster's
// level for a producer id no coordinator knows).
func (w *World) markerTV2(pid int64) bool {
	if _, md, ok := w.transactionOf(pid); ok {
		return md.ClientTV2
	}
	return w.cluster.TransactionVersion >= 2
}

// stillCounted is DescribeTransactions' answer: whether the transaction
// still lists tp — an ongoing one every partition it wrote to, a decided one
// those whose marker its coordinator still has to write.
func (w *World) stillCounted(id string, md txn.Metadata, tp msg.TP) bool {
	switch md.State {
	case txn.Ongoing:
		return md.HasPartition(tp)
	case txn.PrepareCommit, txn.PrepareAbort:
		c := w.internalLeader(stateTP(id)).leader
		if b := w.brokers[c-1]; b.Alive() {
			return slices.Contains(b.PendingMarkers(id), tp)
		}
		return md.HasPartition(tp)
	}
	return false
}

// abortTransaction is TransactionsCommand.AbortTransactionCommand with
// --start-offset: DescribeProducers on the leader finds the producer whose
// transaction starts there, and Admin.abortTransaction sends the leader a
// WriteTxnMarkers with an ABORT marker for that producer id and epoch and
// its coordinator epoch (0 when the partition never saw a marker of it).
// The leader checks it as it checks a coordinator's marker.
func (w *World) abortTransaction(tp msg.TP, start int64) error {
	r, id, err := w.adminReplica(tp, 0)
	if err != nil {
		return err
	}
	if r == nil {
		if w.tracing() {
			w.emit(trace.New("admin.abort_refused", fmt.Sprintf("abort: %s has no leader to describe its producers", tp)).
				With("partition", trace.Str(tp.String())).With("start_offset", trace.Int(start)))
		}
		return nil
	}
	i := slices.IndexFunc(activeProducers(r), func(p openTxn) bool { return p.start == start })
	if i < 0 {
		if w.tracing() {
			w.emit(trace.New("admin.abort_refused", fmt.Sprintf("abort: Could not find any open transactions starting at offset %d on partition %s", start, tp)).
				With("partition", trace.Str(tp.String())).With("start_offset", trace.Int(start)))
		}
		return nil
	}
	p := activeProducers(r)[i]
	coordEpoch := max(p.entry.CoordinatorEpoch(), 0)
	req := msg.WriteTxnMarkersRequest{ProducerID: p.entry.ProducerID(), Epoch: p.entry.Epoch(), Commit: false,
		CoordinatorEpoch: coordEpoch, Partitions: []msg.TP{tp}}
	if w.tracing() {
		w.emit(trace.New("admin.abort", fmt.Sprintf("abort: asks broker %d to write an ABORT marker on %s for producer id %d epoch %d, coordinator epoch %d (the transaction open since offset %d)",
			id, tp, req.ProducerID, req.Epoch, coordEpoch, start)).
			With("partition", trace.Str(tp.String())).With("broker", trace.Int(int64(id))).
			With("producer_id", trace.Int(req.ProducerID)).With("producer_epoch", trace.Int(int64(req.Epoch))).
			With("coordinator_epoch", trace.Int(int64(coordEpoch))).With("start_offset", trace.Int(start)))
	}
	w.send(msg.ClientAddr(adminClient), msg.BrokerAddr(id), 0, 0, req)
	return nil
}

// adminAnswer is the tool learning how its WriteTxnMarkers went.
func (w *World) adminAnswer(m *msg.Message) {
	resp, ok := m.Body.(msg.WriteTxnMarkersResponse)
	if !ok || !w.tracing() {
		return
	}
	for _, r := range resp.Results {
		text := fmt.Sprintf("abort: the ABORT marker for producer id %d on %s is written", resp.ProducerID, r.TP)
		if r.Error != kerr.None {
			text = fmt.Sprintf("abort: failed for producer id %d on %s: %s (run it again)", resp.ProducerID, r.TP, r.Error.Name())
		}
		w.emit(trace.New("admin.aborted", text).
			With("partition", trace.Str(r.TP.String())).With("producer_id", trace.Int(resp.ProducerID)).
			With("error", trace.Str(r.Error.Name())))
	}
}

// isAdmin reports whether a client name is the operator's tool.
func isAdmin(name string) bool { return strings.EqualFold(name, adminClient) }

// applyFeature is kafka-features.sh upgrade (or downgrade) --feature
// transaction.version=N: the cluster's finalized level. The brokers decide
// each transaction by its client's request versions (EndTxn v5, Produce
// v12 for version 2), so what changes is what clients use: a producer
// started from now on takes the new level. One already running keeps the
// version it started with here; the Java client reads the finalized
// features when it connects and switches at a later beginTransaction
// (TransactionManager.maybeUpdateTransactionV2Enabled), which eoslab does
// not model.
func (w *World) applyFeature(level int) {
	w.started = true
	old := w.cluster.TransactionVersion
	w.cluster.TransactionVersion = level
	if !w.tracing() {
		return
	}
	what := "upgrade"
	switch {
	case level < old:
		what = "downgrade"
	case level == old:
		what = "upgrade (no change)"
	}
	w.emit(trace.New("feature.update", fmt.Sprintf("kafka-features.sh %s: transaction.version %d -> %d; producers that start from now on use version %d",
		what, old, level, level)).
		With("feature", trace.Str("transaction.version")).With("from", trace.Int(int64(old))).With("to", trace.Int(int64(level))))
}
