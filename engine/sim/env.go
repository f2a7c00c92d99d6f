package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/trace"
)

// A producer's slot is the world as the producer sees it: every call
// comes from the slot's current incarnation, since a restart drops the old
// client, which is never called again.

func (s *producerSlot) Now() int64          { return s.w.now }
func (s *producerSlot) Jitter() float64     { return 0.8 + 0.4*s.w.rng.Float64() }
func (s *producerSlot) Timestamp() int64    { return EpochMs + s.w.now }
func (s *producerSlot) Emit(ev trace.Event) { s.w.emitRef(&ev) }
func (s *producerSlot) Event(k trace.Kind) *trace.Event {
	return s.w.event(k)
}
func (s *producerSlot) Tracing() bool            { return s.w.tracing() }
func (s *producerSlot) Slab() *trace.Slab        { return &s.w.slab }
func (s *producerSlot) Scratch() *client.Scratch { return &s.w.scratch }

// Delivered hands an acknowledged batch to the checker. A transactional
// batch counts only once its transaction commits: until then its fate is
// the transaction's (an aborted one may lose it without loss).
func (s *producerSlot) Delivered(b *client.Batch) {
	switch {
	case b.BaseOffset < 0:
	case s.txnID() != "":
		s.extra.acked = append(s.extra.acked, b)
	default:
		s.w.check.noteAck(s, b)
	}
}

func (s *producerSlot) Leader(tp msg.TP) (int, bool) {
	m := s.w.meta(tp)
	if m == nil || m.leader == 0 {
		return 0, false
	}
	return m.leader, true
}

// Bootstrap is the lowest-numbered live broker (Kafka picks the least
// loaded node; with no load to compare, the lowest id keeps runs readable).
func (s *producerSlot) Bootstrap() (int, bool) {
	for _, b := range s.w.brokers {
		if b.Alive() {
			return b.ID, true
		}
	}
	return 0, false
}

func (s *producerSlot) Send(to int, body msg.Body) int {
	if req, ok := body.(*msg.ProduceRequest); ok {
		for _, pb := range req.Batches {
			if b := s.p.Batch(pb.BatchID); b != nil {
				s.w.check.noteSent(pb.Data, s.w.check.sourceOf(s.w.check.slotWho(s), b))
			}
		}
	}
	id, _ := s.w.sendOn(msg.ClientAddr(s.name()), msg.BrokerAddr(to), 0, 0, body, false, &s.pairs[to-1], s)
	return id
}

// Ready reports whether a connection to the broker can be made: a broker
// that is down refuses it, and the producer leaves its batches in the
// accumulator (NetworkClient.ready) until metadata names another leader.
func (s *producerSlot) Ready(broker int) bool {
	b := s.w.broker(broker)
	return b != nil && b.Alive()
}

// CloseConnection is the producer closing its connection to broker (after
// request.timeout.ms): what it sent still arrives; nothing comes back.
func (s *producerSlot) CloseConnection(broker int) {
	if c := s.w.currentConn(connPair{opener: msg.ClientAddr(s.name()), broker: broker}, &s.pairs[broker-1]); c != nil {
		why := "" // closeConn puts it in the trace only
		if s.w.tracing() {
			why = s.name() + " closes it after request.timeout.ms"
		}
		s.w.closeConn(c, closedByOpener, why)
	}
}

// Wake asks for the sender to run at time at. A producer has at most one
// wake pending: an earlier one replaces a later one, because every run of
// the sender asks again for the next time it has something to do.
func (s *producerSlot) Wake(at int64) {
	if s.wakePending && s.wakeDue <= at {
		return
	}
	s.wakeGen++
	s.wakePending, s.wakeDue = true, at
	s.w.scheduleFor(s, at, itemWake, 0, s.wakeGen)
}

func (s *producerSlot) Timer(at int64, kind client.TimerKind, ref int) {
	s.w.scheduleFor(s, at, itemProducerTimer, kind, ref)
}

// scheduleFor queues one of a producer's timers or wakes, written in place.
func (w *World) scheduleFor(s *producerSlot, due int64, kind itemKind, timer client.TimerKind, ref int) {
	if waitsLater(kind) && due > w.now {
		w.scheduleLate(&lateEnt{due: due, kind: kind, slot: s, life: s.life, timer: timer, ref: ref})
		return
	}
	if kind == itemWake && due == w.now && w.queue.regFree(due) {
		// The next item the world takes, unless something due at once is
		// queued before the world takes it: the register, not the slab.
		w.seq++
		q := &w.queue
		r := &q.reg
		r.due, r.seq, r.kind, r.slot, r.life, r.ref = due, w.seq, kind, s, s.life, ref
		q.regQ, q.regSet = qent{due: due, seq: w.seq, at: regAt}, true
		return
	}
	at, it := w.queue.reserve()
	it.due, it.kind, it.slot, it.life, it.timer, it.ref = due, kind, s, s.life, timer, ref
	w.enqueue(at, it)
}

// brokerEnv is the world as the brokers see it.
type brokerEnv struct{ w *World }

func (e brokerEnv) Now() int64          { return e.w.now }
func (e brokerEnv) Timestamp() int64    { return EpochMs + e.w.now }
func (e brokerEnv) Emit(ev trace.Event) { e.w.emitRef(&ev) }
func (e brokerEnv) Event(k trace.Kind) *trace.Event {
	return e.w.event(k)
}
func (e brokerEnv) Tracing() bool     { return e.w.tracing() }
func (e brokerEnv) Slab() *trace.Slab { return &e.w.slab }

func (e brokerEnv) Reply(from int, to msg.Addr, conn, replyTo int, body msg.Body) int {
	id, _ := e.w.sendOn(msg.BrokerAddr(from), to, conn, replyTo, body, true, nil, nil)
	return id
}

func (e brokerEnv) AllocatePIDBlock(int) int64 {
	start := e.w.pidNext
	e.w.pidNext += 1000
	return start
}

func (e brokerEnv) ProduceTimer(at int64, b int, request int) {
	w := e.w
	if at > w.now {
		w.scheduleLate(&lateEnt{due: at, kind: itemProduceTimer, broker: b, ref: request})
		return
	}
	slot, it := w.queue.reserve()
	it.due, it.kind, it.broker, it.ref = at, itemProduceTimer, b, request
	w.enqueue(slot, it)
}

// Fetch makes follower send a fetch for tp now, unless one is in flight.
func (e brokerEnv) Fetch(follower int, tp msg.TP) {
	b := e.w.broker(follower)
	if b == nil {
		return
	}
	b.Fetch(tp, e)
}

func (e brokerEnv) SendFetch(follower, leader int, tp msg.TP, offset int64) int {
	req := e.w.spareFetchs.Take() // a *msg.FetchRequest: the body is never changed once sent
	if req == nil {
		req = e.w.fetchReqs.New()
	}
	*req = msg.FetchRequest{ReplicaID: follower, TP: tp, FetchOffset: offset}
	_, c := e.w.sendOn(msg.BrokerAddr(follower), msg.BrokerAddr(leader), 0, 0, req, false, e.w.brokerPair(follower, leader, fetcherChannel), nil)
	return c.id
}

func (e brokerEnv) FetchLater(follower int, tp msg.TP, at int64) {
	e.w.schedule(item{due: at, kind: itemFetch, broker: follower, tp: tp})
}

// CloseConnection is a broker closing its own connection to another (its
// marker channel timing out): what it sent still arrives; nothing comes back.
func (e brokerEnv) CloseConnection(from, to int) {
	if c := e.w.currentConn(connPair{opener: msg.BrokerAddr(from), broker: to, channel: markerChannel}, e.w.brokerPair(from, to, markerChannel)); c != nil {
		e.w.closeConn(c, closedByOpener, fmt.Sprintf("broker %d closes it: no answer within request.timeout.ms", from))
	}
}

func (e brokerEnv) AlterISR(tp msg.TP, _ int32, isr []int) {
	if m := e.w.meta(tp); m != nil {
		m.isr = append(m.isr[:0], isr...)
	}
}

// send puts a message on its connection, applying any armed fault to it.
// A request travels on the sender's open connection to the broker (opening
// one if needed); a response on the connection its request came by, which
// may have closed meanwhile: then the answer goes nowhere.
func (w *World) send(from, to msg.Addr, conn, replyTo int, body msg.Body) int {
	id, _ := w.sendOn(from, to, conn, replyTo, body, body.IsResponse(), nil, nil)
	return id
}

// sendOn is send, with whether body is an answer (body.IsResponse(), which
// most callers know without asking) and the sender's pair and slot (a
// producer's) when the caller has them at hand; it also returns the
// connection used (nil for an answer that goes nowhere).
func (w *World) sendOn(from, to msg.Addr, conn, replyTo int, body msg.Body, resp bool, ps *pairState, s *producerSlot) (int, *connection) {
	w.nextMsgID++
	id := w.nextMsgID
	dir := uint8(toBroker)
	var c *connection
	if resp {
		dir = toOpener
		// Once the answer is on its way (or goes nowhere), the broker reads
		// the connection's next request: w.read, last thing before returning.
		c = w.connByID(conn)
		if c == nil || c.closed != connOpen {
			if w.tracing() {
				w.emit(trace.New("message.drop", fmt.Sprintf("%s cannot send %s #%d to %s: that connection is closed, so the answer goes nowhere", from, body.Name(), id, to)).
					With("message", trace.Int(int64(id))).With("api", trace.Str(body.Name())).With("from", trace.Str(from.String())).
					With("to", trace.Str(to.String())).With("request", trace.Int(int64(replyTo))))
			}
			if c != nil {
				w.read(c, replyTo)
			}
			return id, nil
		}
	} else if c = ps.open(); c == nil {
		// The pair is named only to find its state or open a connection:
		// most requests go out on the connection their sender has open.
		pair, _ := endsOf(from, to, body)
		if ps == nil {
			ps = w.pairOf(pair)
		}
		c = w.openConn(pair, ps, s)
	}
	refused := !resp && !w.broker(to.Broker).Alive()
	at, it := w.queue.reserve() // written in its slot: nothing is scheduled until enqueue
	it.kind = itemDeliver
	f := &it.fl
	m := &f.m
	m.ID, m.From, m.To, m.SentMs, m.Conn, m.ReplyTo, m.Body = id, from, to, w.now, c.id, replyTo, body
	f.due, f.cn, f.dir = w.now+w.wireMs(c), c, dir
	if to.Client != "" {
		f.to = c.slot
	}
	switch {
	case c.closed != connOpen:
		f.lost, f.lostHow = true, lostWrittenShut
	case c.brokeAt != 0:
		f.lost, f.lostHow, f.lostAt = true, lostBroken, c.brokeAt
	case refused:
		f.lost, f.lostHow, f.lostAt = true, lostRefused, to.Broker
	case len(w.faults) > 0: // applyFaults' own first test, without its call for most messages
		w.applyFaults(f)
	}
	f.due = max(f.due, c.due[dir]) // in order behind everything sent before it
	c.due[dir] = f.due
	c.wire++
	it.due = f.due
	w.enqueue(at, it) // the slot stays put until the item is performed: f is still the message
	if w.tracing() {
		api := body.Name()
		req, isProduce := body.(*msg.ProduceRequest)
		batches := 0 // about the length of the list of a produce request's batches
		if isProduce {
			batches = 48 * len(req.Batches)
		}
		// Written straight into the slab: With would copy the event for
		// each attribute, on the hottest event of a traced run. The text is
		// the attributes' (trace.SentenceSend) but for the message's
		// content, which follows them.
		conn := c.name()
		a := w.slab.Begin(192 + len(api) + len(from.Client) + len(to.Client) + len(conn) + batches) // a broker's end: a byte or two
		a = appendHead(a, id, api, resp, from, to)
		head := len(a)
		a = a.Int(trace.KeyDueMs, f.due)
		a = a.Bool(trace.KeyDelayed, f.delayed)
		a = a.Conn(trace.KeyConnection, conn, c.key.n, c.key.saidBy(from, to, resp))
		switch {
		case isProduce && !f.delayed && batchesParse(req):
			a = a.BatchRefs(trace.KeyBatches) // said by the content's arguments (appendContent)
		case isProduce:
			open := len(a)
			a = trace.Builder(w.appendBatchRefs([]byte(a.OpenJSON(trace.KeyBatches)), req)).CloseJSON(open)
		}
		a = w.appendContent(a, &f.m, f.delayed)
		if f.delayed {
			a = trace.Builder(trace.AppendInt([]byte(a.ArgText(" (held back ")), DelayMs))
			a = a.ArgText(" ms, and the connection with it)")
		}
		attrs := w.slab.Done(a)
		w.event("message.send").Attrs = attrs
		f.head = attrs[:head]
	}
	if refused && c.closed == connOpen {
		why := "" // closeConn puts it in the trace only
		if w.tracing() {
			why = "broker " + strconv.Itoa(to.Broker) + " is down"
		}
		w.closeConn(c, closedByRefusal, why)
	}
	if resp {
		w.read(c, replyTo)
	}
	return id, c
}

// appendBatchRefs appends the list of a produce request's batches as the
// client numbers them: [{"partition":"orders-0","batch":3}, ...].
func (w *World) appendBatchRefs(b []byte, req *msg.ProduceRequest) []byte {
	b = append(b, '[')
	for i, pb := range req.Batches {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"partition":`...)
		b = append(b, w.slab.QuotedPartition(pb.TP.Topic, pb.TP.Partition)...)
		b = append(b, `,"batch":`...)
		b = trace.AppendInt(b, int64(pb.BatchID))
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendContent ends a message.send's attributes with its sentence and
// the message's content: a produce request's or response's as arguments
// the sentence says when read (formatting their numbers and words cost
// more than the rest of the event), any other's as text. A held back
// message's sentence goes on after the content, so it is said as text.
func (w *World) appendContent(a trace.Builder, m *msg.Message, delayed bool) trace.Builder {
	if !delayed {
		switch body := m.Body.(type) {
		case *msg.ProduceRequest:
			if batchesParse(body) {
				a = a.Say(trace.SentenceSendProduce).Arg(int64(body.Acks))
				for _, pb := range body.Batches {
					a = a.ArgStr(w.slab.Partition(pb.TP.Topic, pb.TP.Partition)).Arg(int64(pb.BatchID)).ArgHeader(pb.Data)
				}
				return a
			}
		case *msg.ProduceResponse:
			a = a.Say(trace.SentenceSendProduced)
			for _, r := range body.Results {
				a = a.ArgStr(w.slab.Partition(r.TP.Topic, r.TP.Partition)).Arg(int64(r.Error)).Arg(r.BaseOffset)
			}
			return a
		}
	}
	return trace.Builder(appendSummary([]byte(a.Say(trace.SentenceSend)), m))
}

// batchesParse reports whether every batch of req has a header to say.
func batchesParse(req *msg.ProduceRequest) bool {
	for _, pb := range req.Batches {
		if !record.HeaderParses(pb.Data) {
			return false
		}
	}
	return true
}

// appendSummary appends summarize(m) to b, without the intermediate
// strings for the messages of the produce path.
func appendSummary(b []byte, m *msg.Message) []byte {
	switch body := m.Body.(type) {
	case *msg.ProduceRequest:
		b = trace.AppendInt(append(b, "acks="...), int64(body.Acks))
		return append(client.AppendDescribe(append(b, " ["...), body), ']')
	case *msg.ProduceResponse:
		return appendProduceResults(b, body)
	}
	return append(b, summarize(m)...)
}

func appendProduceResults(s []byte, b *msg.ProduceResponse) []byte {
	for i, r := range b.Results {
		if i > 0 {
			s = append(s, "; "...)
		}
		s = append(append(trace.AppendInt(append(append(s, r.TP.Topic...), '-'), int64(r.TP.Partition)), ' '), r.Error.Name()...)
		s = trace.AppendInt(append(s, " base offset "...), r.BaseOffset)
	}
	return s
}

// summarize is the one-line content of a message for the trace and the UI.
func summarize(m *msg.Message) string {
	switch b := m.Body.(type) {
	case *msg.ProduceRequest: // sent by pointer (client.Scratch)
		return "acks=" + strconv.Itoa(int(b.Acks)) + " [" + client.Describe(b) + "]"
	case *msg.ProduceResponse: // sent by pointer (Broker.produceResps)
		return string(appendProduceResults(make([]byte, 0, 48*len(b.Results)), b))
	case msg.InitProducerIDRequest:
		if b.TransactionalID != "" && b.ProducerID >= 0 {
			return fmt.Sprintf("transactional.id %s, bump producer id %d epoch %d", b.TransactionalID, b.ProducerID, b.Epoch)
		}
		if b.TransactionalID != "" {
			return "transactional.id " + b.TransactionalID
		}
		return "a producer id for an idempotent producer"
	case msg.InitProducerIDResponse:
		return fmt.Sprintf("%s producer id %d epoch %d", b.Error.Name(), b.ProducerID, b.Epoch)
	case *msg.FetchRequest: // followers' fetches are sent by pointer (World.fetchReqs)
		return b.TP.String() + " from offset " + strconv.FormatInt(b.FetchOffset, 10)
	case *msg.FetchResponse:
		return b.TP.String() + " " + strconv.Itoa(len(b.Batches)) + " batch(es), high watermark " + strconv.FormatInt(b.HighWatermark, 10)
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
	case wireRequest:
		return summarizeWire(b)
	case wireResponse:
		return summarizeWireResponse(b)
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
