package broker

import (
	"fmt"
	"slices"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/engine/txn"
)

// joinCheck is the leader's question to the coordinator before the first
// transactional write of a producer to a partition: from a transaction
// version 2 client (Produce v12) the partition is added to the
// transaction, from a version 1 client it must already be in it
// (KIP-890). It returns the error to answer, or NONE.
func (b *Broker) joinCheck(txnID string, tv2 bool, tp msg.TP, data []byte, env Env) kerr.Code {
	// Three fields of the header, read in place: the log parses it again.
	if !record.HeaderParses(data) || !record.AttributesOf(data).Transactional() {
		return kerr.None
	}
	pid := record.ProducerIDOf(data)
	if pid < 0 { // no producer id (Header.HasProducerID)
		return kerr.None
	}
	r := b.replicas.get(tp)
	if _, open := r.Log.State().TxnFirstOffset(pid); open {
		return kerr.None // already verified when the transaction began here
	}
	if txnID == "" {
		return kerr.InvalidTxnState
	}
	code := env.JoinTransaction(txnID, pid, record.ProducerEpochOf(data), tp, tv2)
	switch {
	case code == kerr.ProducerFenced:
		return kerr.InvalidProducerEpoch // never PRODUCER_FENCED on the produce path
	case code == kerr.None:
		return kerr.None
	case code == kerr.ConcurrentTransactions, code == kerr.CoordinatorNotAvailable, code == kerr.NotCoordinator,
		code == kerr.NetworkException, code == kerr.CoordinatorLoadInProgress:
		// The coordinator could not answer yet: Kafka turns this into a
		// retriable error every client retries without a metadata refresh.
		return kerr.NotEnoughReplicas
	case tv2:
		return code
	}
	return kerr.InvalidTxnState
}

// HandleWriteTxnMarkers writes the markers the coordinator asks for: a
// control batch on each data partition this broker leads, or, for a
// __consumer_offsets partition, the decision on the group offsets written
// in the transaction.
//
// Like Kafka, the markers are appended with acks=-1: the answer waits until
// the ISR has every marker, so that a marker lost in a failover is never
// reported written (the coordinator then retries on the new leader).
func (b *Broker) HandleWriteTxnMarkers(m *msg.Message, req msg.WriteTxnMarkersRequest, env Env) {
	p := &pendingProduce{request: m.ID, from: m.From, conn: m.Conn, deadline: env.Now() + MarkerTimeoutMs,
		markers: &msg.WriteTxnMarkersResponse{TransactionalID: req.TransactionalID, ProducerID: req.ProducerID}}
	wait := false
	for _, tp := range req.Partitions {
		code, waitFor := b.writeMarker(tp, req, env)
		p.results = append(p.results, msg.ProduceResult{TP: tp, Error: code, BaseOffset: -1})
		p.waitFor = append(p.waitFor, waitFor)
		wait = wait || waitFor >= 0
	}
	if !wait || b.settle(p) {
		b.reply(p, env)
		return
	}
	b.addPending(p)
	env.ProduceTimer(p.deadline, b.ID, m.ID)
}

// MarkerTimeoutMs is how long a marker write waits for the ISR (the
// broker's request.timeout.ms).
const MarkerTimeoutMs = 30000

// writeMarker appends one marker; it returns the error, or NONE and the
// offset the high watermark must pass before the marker counts as written
// (-1 when there is nothing to wait for).
func (b *Broker) writeMarker(tp msg.TP, req msg.WriteTxnMarkersRequest, env Env) (kerr.Code, int64) {
	typ := record.ControlAbort
	if req.Commit {
		typ = record.ControlCommit
	}
	if tp.Topic == txn.OffsetsTopic {
		if leader, ok := env.LeaderOf(tp); !ok || leader != b.ID {
			return kerr.NotCoordinator, -1
		}
		b.decideOffsets(tp, req.ProducerID, req.Commit, env)
		return kerr.None, -1
	}
	r := b.replicas.get(tp)
	if r == nil || !r.IsLeader {
		return kerr.NotLeaderOrFollower, -1
	}
	if b.underMinIsr(r) {
		// Markers are appended with acks=-1, so below min.insync.replicas
		// they are refused before anything is written
		// (Partition.appendRecordsToLeader); the coordinator retries.
		if env.Tracing() {
			env.Emit(b.ev("txn.marker_refused", fmt.Sprintf("refuses the %s marker for producer id %d on %s: ISR %v is below min.insync.replicas %d, nothing appended",
				typ, req.ProducerID, tp, r.ISR, b.minInsync(r))).
				With("partition", trace.Str(tp.String())).With("producer_id", trace.Int(req.ProducerID)).With("error", trace.Str(kerr.NotEnoughReplicas.Name())))
		}
		return kerr.NotEnoughReplicas, -1
	}
	res := r.Log.AppendMarker(req.ProducerID, req.Epoch, record.Marker{Type: typ, CoordinatorEpoch: req.CoordinatorEpoch}, req.TV2, env.Timestamp())
	if res.Error != kerr.None {
		if env.Tracing() {
			env.Emit(b.ev("txn.marker_refused", fmt.Sprintf("refuses the %s marker for producer id %d on %s: %s", typ, req.ProducerID, tp, res.Reason)).
				With("partition", trace.Str(tp.String())).With("producer_id", trace.Int(req.ProducerID)).With("error", trace.Str(res.Error.Name())))
		}
		return res.Error, -1
	}
	if env.Tracing() {
		text := fmt.Sprintf("writes the %s marker for producer id %d epoch %d on %s at offset %d", typ, req.ProducerID, req.Epoch, tp, res.Offset)
		if !res.Done {
			text += " (no transaction of this producer was open here)"
		}
		env.Emit(b.ev("txn.marker", text).
			With("partition", trace.Str(tp.String())).With("type", trace.Str(typ.String())).With("offset", trace.Int(res.Offset)).
			With("producer_id", trace.Int(req.ProducerID)).With("producer_epoch", trace.Int(int64(req.Epoch))).
			With("coordinator_epoch", trace.Int(int64(req.CoordinatorEpoch))))
	}
	b.replicate(r, env)
	return kerr.None, res.Offset + 1
}

// decideOffsets applies a marker to the group offsets written under the
// producer's transaction in this __consumer_offsets partition.
func (b *Broker) decideOffsets(tp msg.TP, pid int64, commit bool, env Env) {
	groups := env.Groups()
	for _, name := range sortedGroupNames(groups) {
		g := groups[name]
		offsets, ok := g.Pending[pid]
		if !ok || txn.OffsetsPartition(name) != tp {
			continue
		}
		delete(g.Pending, pid)
		if commit {
			for _, o := range offsets {
				g.Committed[o.TP] = o.Offset
			}
		}
		if env.Tracing() {
			what := "discards"
			if commit {
				what = "commits"
			}
			env.Emit(b.ev("group.offsets", fmt.Sprintf("%s the offsets of group %s written by producer id %d: %s", what, name, pid, offsetsText(offsets))).
				With("group", trace.Str(name)).With("producer_id", trace.Int(pid)).With("committed", trace.Bool(commit)))
		}
	}
}

func offsetsText(os []msg.Offset) string {
	s := ""
	for i, o := range os {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s=%d", o.TP, o.Offset)
	}
	return s
}

func sortedGroupNames(m map[string]*GroupOffsets) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && names[j] < names[j-1]; j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
	return names
}

// HandleTxnOffsetCommit stores a group's offsets under the producer's
// transaction; they count once the COMMIT marker reaches the group's
// __consumer_offsets partition (KIP-447). Under version 2 that partition
// joins the transaction here, without AddOffsetsToTxn.
func (b *Broker) HandleTxnOffsetCommit(m *msg.Message, req msg.TxnOffsetCommitRequest, env Env) {
	b.arrive(m)
	tp := txn.OffsetsPartition(req.Group)
	code := kerr.None
	if leader, ok := env.LeaderOf(tp); !ok || leader != b.ID {
		code = kerr.NotCoordinator
	} else if req.TV2 {
		code = env.JoinTransaction(req.TransactionalID, req.ProducerID, req.Epoch, tp, true)
	}
	groups := env.Groups()
	g := groups[req.Group]
	if code == kerr.None {
		// After the transaction check (KIP-890), as the group coordinator
		// validates the member when it writes (OffsetMetadataManager.
		// validateTransactionalOffsetCommit).
		code = g.ValidateTxnCommit(req.MemberID, req.GroupInstanceID, req.GenerationID)
		if code != kerr.None && env.Tracing() {
			gen, state := int32(-1), "does not exist"
			if g != nil {
				gen, state = g.Generation, fmt.Sprintf("is at generation %d", g.Generation)
			}
			env.Emit(b.ev("group.refused", fmt.Sprintf("refuses the offsets of group %s from producer id %d: member %q at generation %d, the group %s (%s)",
				req.Group, req.ProducerID, req.MemberID, req.GenerationID, state, code.Name())).
				With("group", trace.Str(req.Group)).With("member", trace.Str(req.MemberID)).
				With("generation", trace.Int(int64(req.GenerationID))).With("group_generation", trace.Int(int64(gen))).
				With("error", trace.Str(code.Name())))
		}
	}
	if code == kerr.None && g == nil {
		g = NewGroup() // a simple group, created by the commit
		groups[req.Group] = g
	}
	if code == kerr.None {
		// A later commit for the same partition in the transaction wins.
		pending := g.Pending[req.ProducerID]
		for _, o := range req.Offsets {
			i := slices.IndexFunc(pending, func(p msg.Offset) bool { return p.TP == o.TP })
			if i >= 0 {
				pending[i] = o
			} else {
				pending = append(pending, o)
			}
		}
		g.Pending[req.ProducerID] = pending
	}
	b.answer(m.From, m.Conn, m.ID, msg.TxnOffsetCommitResponse{Error: code}, env)
}

// HandleConsumerFetch answers a consumer: whole batches from the offset up
// to the high watermark (read_uncommitted) or the last stable offset
// (read_committed), aborted and control batches included — filtering is
// the client's job — with, for read_committed, the aborted transactions
// that overlap the returned range (kafka-facts §6.3).
func (b *Broker) HandleConsumerFetch(m *msg.Message, req msg.ConsumerFetchRequest, env Env) {
	r := b.replicas.get(req.TP)
	resp := msg.ConsumerFetchResponse{TP: req.TP}
	if r == nil || !r.IsLeader {
		resp.Error = kerr.NotLeaderOrFollower
		env.Reply(b.ID, m.From, m.Conn, m.ID, resp)
		return
	}
	log := r.Log
	resp.HighWatermark, resp.LastStableOffset = log.HighWatermark(), log.LastStableOffset()
	bound := resp.HighWatermark
	if req.ReadCommitted {
		bound = resp.LastStableOffset
	}
	upper := req.Offset
	if i := log.BatchAt(req.Offset); i >= 0 {
		log.EachBatch(i, func(_ int, s *partition.Stored) bool {
			if s.BaseOffset() >= bound || s.LastOffset() >= bound {
				return false
			}
			resp.Batches = append(resp.Batches, s.Bytes())
			upper = s.LastOffset() + 1
			return true
		})
	}
	if req.ReadCommitted {
		for _, a := range log.AbortedShared() {
			if a.LastOffset >= req.Offset && a.FirstOffset < upper {
				resp.Aborted = append(resp.Aborted, msg.AbortedTxn{ProducerID: a.ProducerID, FirstOffset: a.FirstOffset})
			}
		}
	}
	env.Reply(b.ID, m.From, m.Conn, m.ID, resp)
}
