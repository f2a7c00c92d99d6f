package broker

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/trace"
)

// Fetch makes this broker's follower replica of tp send a fetch now, if
// it follows someone and none is in flight; with one in flight, it
// fetches again once the answer comes (which may already be stale).
func (b *Broker) Fetch(tp msg.TP, env Env) {
	r := b.replicas.get(tp)
	if !b.alive || r == nil || r.IsLeader || r.Leader == 0 {
		return
	}
	if r.fetching {
		r.refetch = true
		return
	}
	b.sendFetch(r, tp, env)
}

// sendFetch sends the fetch of r, the replica of tp, a follower with no
// fetch in flight, and marks it fetching on the connection it went on.
func (b *Broker) sendFetch(r *Replica, tp msg.TP, env Env) {
	r.fetching = true
	r.fetchConn = env.SendFetch(b.ID, r.Leader, tp, r.Log.LogEndOffset())
}

// HandleFetch answers a follower: it records the follower's log end offset
// (which may move the high watermark and grow the ISR) and sends every
// batch from the fetch offset with the high watermark. req is the body
// sent, only read.
func (b *Broker) HandleFetch(m *msg.Message, req *msg.FetchRequest, env Env) {
	r := b.replicas.get(req.TP)
	if r == nil || !r.IsLeader {
		resp := b.fetchResps.New()
		resp.TP, resp.Error = req.TP, kerr.NotLeaderOrFollower
		env.Reply(b.ID, m.From, m.Conn, m.ID, resp)
		return
	}
	f := r.followers.get(req.ReplicaID)
	if f == nil {
		f = &follower{id: req.ReplicaID, knownHW: -1}
		r.followers.add(f)
		r.isrChanged(b.ID)
	}
	f.leo, f.everFetched = req.FetchOffset, true
	if f.leo >= r.Log.LogEndOffset() {
		f.caughtUpMs = env.Now()
	}
	if !r.InISR(req.ReplicaID) && f.leo >= r.Log.HighWatermark() && f.leo >= r.Log.LogEndOffset() {
		b.expandISR(r, req.TP, req.ReplicaID, env)
	}
	b.advanceHW(r, env, req.ReplicaID, true)
	resp := b.fetchResponse() // a *msg.FetchResponse: the body is never changed once sent
	resp.TP, resp.HighWatermark, resp.LeaderEpoch = req.TP, r.Log.HighWatermark(), r.LeaderEpoch
	if i := r.Log.BatchAt(req.FetchOffset); i >= 0 {
		n := r.Log.NumBatches()
		if cap(resp.Batches) < n-i {
			resp.Batches = b.fetchBatches.Make(n - i)
		}
		for ; i < n; i++ { // mostly one batch: indexed, not walked with a closure
			resp.Batches = append(resp.Batches, r.Log.Batch(i).Bytes())
		}
	}
	f.knownHW = resp.HighWatermark
	env.Reply(b.ID, m.From, m.Conn, m.ID, resp)
}

// fetchResponse is a zero answer to a follower's fetch but for the room
// of its list of batches: one a follower has read and handed back
// (TakeBack), else a new one.
func (b *Broker) fetchResponse() *msg.FetchResponse {
	r := b.spareResps.Take()
	if r == nil {
		return b.fetchResps.New()
	}
	clear(r.Batches) // the log's bytes are no longer kept alive by it
	*r = msg.FetchResponse{Batches: r.Batches[:0]}
	return r
}

// TakeBack keeps resp, an answer of this broker to a follower's fetch,
// to make the next one of: the follower has read it and nothing points to
// it any more. (Each world owns the answers it has in flight: a copy of
// the world copies them.)
func (b *Broker) TakeBack(resp *msg.FetchResponse) { b.spareResps.Give(resp, spareAnswers) }

// expandISR adds follower id, caught up, to the ISR of r, the replica of
// tp. Apart from HandleFetch, which runs on every fetch, so that its frame
// stays small.
func (b *Broker) expandISR(r *Replica, tp msg.TP, id int, env Env) {
	r.ISR = append(r.ISR, id)
	slices.Sort(r.ISR)
	r.isrChanged(b.ID)
	env.AlterISR(tp, r.LeaderEpoch, r.ISR)
	if env.Tracing() {
		env.Emit(b.ev("isr.expand", fmt.Sprintf("adds broker %d to the ISR of %s: it caught up; ISR now %v", id, tp, r.ISR)).
			With("partition", trace.Str(tp.String())).With("isr", trace.List(ints64(r.ISR))))
	}
}

// OnFetchResponse appends the fetched batches as a follower, takes the
// leader's high watermark, and fetches again if it made progress (to report
// its new log end offset). An answer from a leader this replica no longer
// follows (another broker, or an older leader epoch) is dropped, as Kafka's
// fetcher does. It returns the number of batches appended. resp is the
// body sent, only read.
func (b *Broker) OnFetchResponse(from int, resp *msg.FetchResponse, env Env) int {
	r := b.replicas.get(resp.TP)
	if r == nil || !b.alive {
		return 0
	}
	r.fetching = false
	if r.IsLeader {
		return 0
	}
	if from != r.Leader || resp.LeaderEpoch != r.LeaderEpoch || resp.Error != kerr.None {
		env.Fetch(b.ID, resp.TP) // ask the current leader instead
		return 0
	}
	n := 0
	for _, data := range resp.Batches {
		if err := r.Log.AppendAsFollower(data); err != nil {
			break // a stale response; the next fetch starts from the log end
		}
		n++
	}
	r.Log.SetHighWatermark(min(resp.HighWatermark, r.Log.LogEndOffset()))
	again := n > 0 || r.refetch
	r.refetch = false
	if n > 0 && env.Tracing() {
		b.emitReplicaAppend(r, resp.TP, n, env)
	}
	if again {
		// After replica.append: the trace tells of the copy before the
		// fetch that reports it. Fetch would send it (a live follower of
		// from, fetching nothing): sent without looking r up again.
		b.sendFetch(r, resp.TP, env)
	}
	return n
}

// emitReplicaAppend emits the replica.append event for n batches copied
// into r, the replica of tp. Apart from OnFetchResponse, so that its frame
// stays small.
// It is written straight into the slab, as the produce path's events are:
// a follower's fetch that brings batches emits one on every produce.
func (b *Broker) emitReplicaAppend(r *Replica, tp msg.TP, n int, env Env) {
	slab := env.Slab()
	name := slab.Partition(tp.Topic, tp.Partition)
	leo, hw := r.Log.LogEndOffset(), r.Log.HighWatermark()
	var buf [160]byte
	t := strconv.AppendInt(append(buf[:0], "broker "...), int64(b.ID), 10)
	t = append(strconv.AppendInt(append(t, " copies "...), int64(n), 10), " batch(es) of "...)
	t = strconv.AppendInt(append(append(t, name...), " from broker "...), int64(r.Leader), 10)
	t = strconv.AppendInt(append(t, "; log end "...), leo, 10)
	t = strconv.AppendInt(append(t, ", high watermark "...), hw, 10)
	a := slab.Begin(len(t) + len(name) + 48)
	a = a.Text(t)
	a = a.Int(trace.KeyBroker, int64(b.ID))
	a = a.Str(trace.KeyPartition, name)
	a = a.Int(trace.KeyLogEndOffset, leo)
	a = a.Int(trace.KeyHighWatermark, hw)
	env.Event("replica.append").Attrs = slab.Done(a)
}
