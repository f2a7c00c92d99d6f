package sim

import (
	"fmt"
	"strings"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/trace"
)

// producerEnv is the world as one producer incarnation sees it.
type producerEnv struct {
	w    *World
	s    *producerSlot
	life int
}

func (e producerEnv) Now() int64          { return e.w.now }
func (e producerEnv) Timestamp() int64    { return EpochMs + e.w.now }
func (e producerEnv) Emit(ev trace.Event) { e.w.emit(ev) }
func (e producerEnv) Tracing() bool       { return e.w.tracing() }
func (e producerEnv) Delivered(b *client.Batch) {
	if b.BaseOffset >= 0 {
		e.w.check.noteAck(e.s.name, b)
	}
}

func (e producerEnv) Leader(tp msg.TP) (int, bool) {
	m := e.w.meta(tp)
	if m == nil || m.leader == 0 {
		return 0, false
	}
	return m.leader, true
}

// Bootstrap is the lowest-numbered live broker (Kafka picks the least
// loaded node; with no load to compare, the lowest id keeps runs readable).
func (e producerEnv) Bootstrap() (int, bool) {
	for _, b := range e.w.brokers {
		if b.Alive() {
			return b.ID, true
		}
	}
	return 0, false
}

func (e producerEnv) Send(to, conn int, body msg.Body) int {
	if req, ok := body.(msg.ProduceRequest); ok {
		for _, pb := range req.Batches {
			if b := e.s.p.Batch(pb.BatchID); b != nil {
				e.w.check.noteSent(pb.Data, e.w.check.sourceOf(e.s.name, b))
			}
		}
	}
	return e.w.send(msg.ClientAddr(e.s.name), msg.BrokerAddr(to), conn, 0, body)
}

func (e producerEnv) Wake(at int64) {
	e.w.schedule(item{due: at, kind: itemWake, slot: e.s, life: e.life})
}

func (e producerEnv) Timer(at int64, kind client.TimerKind, ref int) {
	e.w.schedule(item{due: at, kind: itemProducerTimer, slot: e.s, life: e.life, timer: kind, ref: ref})
}

// brokerEnv is the world as the brokers see it.
type brokerEnv struct{ w *World }

func (e brokerEnv) Now() int64          { return e.w.now }
func (e brokerEnv) Timestamp() int64    { return EpochMs + e.w.now }
func (e brokerEnv) Emit(ev trace.Event) { e.w.emit(ev) }
func (e brokerEnv) Tracing() bool       { return e.w.tracing() }

func (e brokerEnv) Reply(from int, to msg.Addr, conn, replyTo int, body msg.Body) int {
	return e.w.send(msg.BrokerAddr(from), to, conn, replyTo, body)
}

func (e brokerEnv) AllocatePIDBlock(int) int64 {
	start := e.w.pidNext
	e.w.pidNext += 1000
	return start
}

func (e brokerEnv) ProduceTimer(at int64, b int, request int) {
	e.w.schedule(item{due: at, kind: itemProduceTimer, broker: b, ref: request})
}

// Fetch makes follower send a fetch for tp now, unless one is in flight.
func (e brokerEnv) Fetch(follower int, tp msg.TP) {
	b := e.w.broker(follower)
	if b == nil {
		return
	}
	if leader, offset, ok := b.StartFetch(tp); ok {
		e.w.send(msg.BrokerAddr(follower), msg.BrokerAddr(leader), 0, 0, msg.FetchRequest{ReplicaID: follower, TP: tp, FetchOffset: offset})
	}
}

func (e brokerEnv) AlterISR(tp msg.TP, _ int32, isr []int) {
	if m := e.w.meta(tp); m != nil {
		m.isr = append(m.isr[:0], isr...)
	}
}

// send puts a message on the wire, applying any armed fault to it.
func (w *World) send(from, to msg.Addr, conn, replyTo int, body msg.Body) int {
	w.nextMsgID++
	f := &flight{m: msg.Message{ID: w.nextMsgID, From: from, To: to, SentMs: w.now, Conn: conn, ReplyTo: replyTo, Body: body}, due: w.now + LatencyMs}
	if _, ok := body.(msg.ProduceResponse); ok {
		defer delete(w.requests, replyTo) // its faults have had their chance
	}
	if req, ok := body.(msg.ProduceRequest); ok {
		w.requests[f.m.ID] = req
	}
	if to.Client != "" {
		f.to = w.producers[to.Client]
	}
	w.applyFaults(f)
	w.schedule(item{due: f.due, kind: itemDeliver, flight: f})
	if w.tracing() {
		verb := "sends"
		if body.IsResponse() {
			verb = "answers"
		}
		text := fmt.Sprintf("%s %s %s #%d to %s: %s", from, verb, body.Name(), f.m.ID, to, summarize(&f.m))
		if f.delayed {
			text += fmt.Sprintf(" (held back %d ms)", DelayMs)
		}
		e := trace.New("message.send", text).
			With("message", trace.Int(int64(f.m.ID))).With("api", trace.Str(body.Name())).
			With("response", trace.Bool(body.IsResponse())).With("from", trace.Str(from.String())).
			With("to", trace.Str(to.String())).With("due_ms", trace.Int(f.due)).With("delayed", trace.Bool(f.delayed))
		if req, ok := body.(msg.ProduceRequest); ok {
			e = e.With("batches", trace.JSON(batchRefs(req)))
		}
		w.emit(e)
	}
	return f.m.ID
}

// summarize is the one-line content of a message for the trace and the UI.
// batchRefs lists a produce request's batches as the client numbers them:
// [{"partition":"orders-0","batch":3}, ...].
func batchRefs(req msg.ProduceRequest) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, pb := range req.Batches {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"partition":%q,"batch":%d}`, pb.TP.String(), pb.BatchID)
	}
	b.WriteByte(']')
	return b.String()
}

func summarize(m *msg.Message) string {
	switch b := m.Body.(type) {
	case msg.ProduceRequest:
		return fmt.Sprintf("acks=%d [%s]", b.Acks, client.Describe(b))
	case msg.ProduceResponse:
		s := ""
		for i, r := range b.Results {
			if i > 0 {
				s += "; "
			}
			s += fmt.Sprintf("%s %s base offset %d", r.TP, r.Error.Name(), r.BaseOffset)
		}
		return s
	case msg.InitProducerIDRequest:
		if b.TransactionalID != "" {
			return "transactional.id " + b.TransactionalID
		}
		return "a producer id for an idempotent producer"
	case msg.InitProducerIDResponse:
		return fmt.Sprintf("%s producer id %d epoch %d", b.Error.Name(), b.ProducerID, b.Epoch)
	case msg.FetchRequest:
		return fmt.Sprintf("%s from offset %d", b.TP, b.FetchOffset)
	case msg.FetchResponse:
		return fmt.Sprintf("%s %d batch(es), high watermark %d", b.TP, len(b.Batches), b.HighWatermark)
	case msg.AddPartitionsToTxnRequest:
		return fmt.Sprintf("%s pid %d epoch %d adds %s", b.TransactionalID, b.ProducerID, b.Epoch, tpList(b.Partitions))
	case msg.AddPartitionsToTxnResponse:
		return b.Error.Name()
	case msg.AddOffsetsToTxnRequest:
		return fmt.Sprintf("%s pid %d epoch %d adds group %s", b.TransactionalID, b.ProducerID, b.Epoch, b.Group)
	case msg.AddOffsetsToTxnResponse:
		return b.Error.Name()
	case msg.TxnOffsetCommitRequest:
		s := fmt.Sprintf("%s group %s:", b.TransactionalID, b.Group)
		for _, o := range b.Offsets {
			s += fmt.Sprintf(" %s@%d", o.TP, o.Offset)
		}
		return s
	case msg.TxnOffsetCommitResponse:
		return b.Error.Name()
	case msg.EndTxnRequest:
		return fmt.Sprintf("%s pid %d epoch %d %s", b.TransactionalID, b.ProducerID, b.Epoch, commitWord(b.Commit))
	case msg.EndTxnResponse:
		if b.ProducerID >= 0 && b.Error == 0 {
			return fmt.Sprintf("%s, next producer id %d epoch %d", b.Error.Name(), b.ProducerID, b.Epoch)
		}
		return b.Error.Name()
	case msg.WriteTxnMarkersRequest:
		return fmt.Sprintf("%s for pid %d epoch %d on %s (coordinator epoch %d)", strings.ToUpper(commitWord(b.Commit)), b.ProducerID, b.Epoch, tpList(b.Partitions), b.CoordinatorEpoch)
	case msg.WriteTxnMarkersResponse:
		s := ""
		for i, r := range b.Results {
			if i > 0 {
				s += "; "
			}
			s += fmt.Sprintf("%s %s", r.TP, r.Error.Name())
		}
		return s
	case msg.ConsumerFetchRequest:
		iso := "read_uncommitted"
		if b.ReadCommitted {
			iso = "read_committed"
		}
		return fmt.Sprintf("%s from offset %d (%s)", b.TP, b.Offset, iso)
	case msg.ConsumerFetchResponse:
		return fmt.Sprintf("%s %s %d batch(es), high watermark %d, last stable offset %d", b.TP, b.Error.Name(), len(b.Batches), b.HighWatermark, b.LastStableOffset)
	}
	return ""
}

func commitWord(commit bool) string {
	if commit {
		return "commit"
	}
	return "abort"
}

func tpList(tps []msg.TP) string {
	parts := make([]string, len(tps))
	for i, tp := range tps {
		parts[i] = tp.String()
	}
	return strings.Join(parts, ", ")
}
