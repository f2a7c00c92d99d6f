package sim

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Real clients. `eoslab serve` hands the world every request a real Kafka
// client sends, as an `arrive` command carrying the request's bytes, its
// connection and its time; the world decodes it (kmsg) and puts it on
// that connection like any other message, so the broker reads it one at a
// time (Kafka's SocketServer mute), faults act on it, and the broker code
// that answers simulated producers answers it: a Produce's batches go
// through engine/record and the producer state's five-batch window. What
// the broker answers comes back on the connection; when every engine
// answer a Kafka request needed is in, the world queues the Kafka
// response for `eoslab serve` to write to the socket (Outgoing).
//
// Nothing here reads a clock or a socket: the same arrivals give the same
// world, which is why a served session can be saved and replayed.

// extWorld is the real clients' part of the world.
type extWorld struct {
	conns   map[int]*extConn // by the serve connection number
	clients map[string]*extClient
	order   []string // client names in the order they first spoke
	groups  map[string]*extGroup
	keep    bool // someone drains the outbox (eoslab serve)
	outbox  []Outgoing
	members int // member ids handed out
	// topicConfigs are the configs each created topic's CreateTopics
	// named (its overrides), by topic; a topic's map never changes.
	topicConfigs map[string]map[string]string
}

// extConn is one real TCP connection.
type extConn struct {
	n       int
	broker  int
	client  string
	ps      pairState
	cn      *connection // the engine's side of it
	pending []*extReq   // Kafka requests waiting for their answer, in order
	hungUp  bool
}

// extReq is one Kafka request on its way through the engine.
type extReq struct {
	hdr RequestHeader
	req kmsg.Request
	// resp is the answer's skeleton (what is known at arrival); the
	// engine's answers are kept as they come and filled into a copy of it
	// once all are in, so that a copy of the world (a checkpoint) shares
	// nothing that changes.
	resp    kmsg.Response
	answers []msg.Body
	waiting int // engine answers still to come
	// produce: the engine result of each partition goes to this index of
	// the response's (topic, partition) list.
	slots []extSlot
	fetch *kmsg.FetchRequest
}

type extSlot struct{ topic, part int }

// extClient is a real client as the lab shows it, by client.id.
type extClient struct {
	name       string
	producer   bool
	consumer   bool
	txnID      string
	pid        int64
	epoch      int16
	batches    []ClientBatchView // the newest batches it sent, as they arrived
	nextBatch  int
	serials    int64 // records it sent, counted as the checker numbers them
	sent       map[batchKey]int64
	isolation  string
	positions  map[msg.TP]int64
	readCount  int64
	reader     *client.Consumer // what the client hands its application, filtered as its library does
	group      string
	maxBatches int
}

// maxClientBatches bounds the batches a real client's view keeps.
const maxClientBatches = 64

// Outgoing is what the world has for `eoslab serve` to do on a socket:
// write a response, or close the connection.
type Outgoing struct {
	Conn          int
	CorrelationID int32
	Response      kmsg.Response // nil with Close
	Close         bool
	Why           string
}

func newExtWorld() *extWorld {
	return &extWorld{conns: map[int]*extConn{}, clients: map[string]*extClient{}, groups: map[string]*extGroup{}}
}

func (w *World) extw() *extWorld {
	if w.ext == nil {
		w.ext = newExtWorld()
	}
	return w.ext
}

// KeepOutgoing makes the world keep what real clients are owed for
// TakeOutgoing (eoslab serve turns it on; a replayed world keeps nothing).
func (w *World) KeepOutgoing(on bool) { w.extw().keep = on }

// TakeOutgoing returns, and forgets, the responses and closes owed to real
// connections since the last call, in order.
func (w *World) TakeOutgoing() []Outgoing {
	if w.ext == nil {
		return nil
	}
	out := w.ext.outbox
	w.ext.outbox = nil
	return out
}

// ExternalBroken lists the real connections whose engine side is broken
// or closed (a lost message, a reset, a broker that went down) while the
// socket is still open: `eoslab serve` closes those sockets, and says so
// with a hangup.
func (w *World) ExternalBroken() []int {
	if w.ext == nil {
		return nil
	}
	var out []int
	for n, x := range w.ext.conns {
		if !x.hungUp && x.cn != nil && (x.cn.brokeAt != 0 || x.cn.closed != connOpen) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// BrokerAlive reports whether broker id is running (`eoslab serve` listens
// on the ports of running brokers only).
func (w *World) BrokerAlive(id int) bool {
	b := w.broker(id)
	return b != nil && b.Alive()
}

// isExternal reports whether name is a real client.
func (w *World) isExternal(name string) bool {
	return w.ext != nil && w.ext.clients[name] != nil
}

// ClientName is the name a real client goes by in the lab: its client.id
// when that is a valid name of the command language, otherwise the
// client.id with every other character replaced by '-' (and "client" for
// an empty one), so that fault commands can name it.
func ClientName(clientID string) string {
	if clientID == "" {
		return "client"
	}
	var b strings.Builder
	for i := 0; i < len(clientID) && b.Len() < 64; i++ {
		c := clientID[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-')
		if !ok {
			if i == 0 {
				b.WriteString("c-")
			}
			if i > 0 || !(c >= '0' && c <= '9') {
				c = '-'
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// arrive is `arrive CONN BROKER API at=MS data=...`.
func (w *World) arrive(c *script.Arrive) error {
	b := w.broker(c.Broker)
	if b == nil {
		return w.errorf("unknown broker %d (brokers are 1-%d)", c.Broker, len(w.brokers))
	}
	hdr, req, unsupported, err := DecodeRequest(c.Data)
	if err != nil {
		return err
	}
	if name := APIName(hdr.Key); name != c.API {
		return w.errorf("the request's bytes are a %s (key %d), not a %s", name, hdr.Key, c.API)
	}
	e := w.extw()
	x := e.conns[c.Conn]
	if x == nil {
		x = &extConn{n: c.Conn, broker: c.Broker, client: ClientName(hdr.ClientID)}
		x.ps.n = int32(c.Conn - 1) // the engine numbers the connection as serve does
		e.conns[c.Conn] = x
	}
	if x.broker != c.Broker {
		return w.errorf("connection %d is to broker %d, not %d", c.Conn, x.broker, c.Broker)
	}
	if x.hungUp {
		return w.errorf("connection %d was closed (hangup)", c.Conn)
	}
	w.started = true
	w.now = max(w.now, c.AtMs)
	cl := e.client(x.client)
	xr := &extReq{hdr: hdr, req: req}
	if unsupported {
		xr.resp = unsupportedResponse(hdr, req)
		w.sendExternal(x, xr, wireRequest{api: c.API, prepared: xr.resp})
		return nil
	}
	switch r := req.(type) {
	case *kmsg.ProduceRequest:
		w.arriveProduce(x, cl, xr, r)
	case *kmsg.FetchRequest:
		w.arriveFetch(x, cl, xr, r)
	case *kmsg.InitProducerIDRequest:
		// The request says which producer asks, never the client.id that
		// two processes may share (kcat's is always rdkafka): an idempotent
		// one after a transactional one of the same name gets an id of
		// its own, and touches no transaction.
		cl.producer, cl.txnID = true, ""
		if r.TransactionalID != nil {
			cl.txnID = *r.TransactionalID
		}
		xr.resp = r.ResponseKind()
		w.sendExternal(x, xr, msg.InitProducerIDRequest{TransactionalID: cl.txnID, TimeoutMs: r.TransactionTimeoutMillis,
			ProducerID: r.ProducerID, Epoch: r.ProducerEpoch})
	case *kmsg.AddPartitionsToTxnRequest:
		resp := r.ResponseKind().(*kmsg.AddPartitionsToTxnResponse)
		body := msg.AddPartitionsToTxnRequest{TransactionalID: r.TransactionalID, ProducerID: r.ProducerID, Epoch: r.ProducerEpoch}
		for _, t := range r.Topics {
			rt := kmsg.NewAddPartitionsToTxnResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				body.Partitions = append(body.Partitions, msg.TP{Topic: t.Topic, Partition: int(p)})
				rp := kmsg.NewAddPartitionsToTxnResponseTopicPartition()
				rp.Partition = p
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		xr.resp = resp
		w.sendExternal(x, xr, body)
	case *kmsg.AddOffsetsToTxnRequest:
		xr.resp = r.ResponseKind()
		w.sendExternal(x, xr, msg.AddOffsetsToTxnRequest{TransactionalID: r.TransactionalID, ProducerID: r.ProducerID,
			Epoch: r.ProducerEpoch, Group: r.Group})
	case *kmsg.TxnOffsetCommitRequest:
		resp := r.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
		body := msg.TxnOffsetCommitRequest{TransactionalID: r.TransactionalID, Group: r.Group, ProducerID: r.ProducerID, Epoch: r.ProducerEpoch,
			MemberID: "", GenerationID: -1}
		if r.Version >= 3 { // KIP-447's group metadata, which the coordinator checks
			body.MemberID, body.GenerationID = r.MemberID, r.Generation
			if r.InstanceID != nil {
				body.GroupInstanceID = *r.InstanceID
			}
		}
		for _, t := range r.Topics {
			rt := kmsg.NewTxnOffsetCommitResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				body.Offsets = append(body.Offsets, msg.Offset{TP: msg.TP{Topic: t.Topic, Partition: int(p.Partition)}, Offset: p.Offset})
				rp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
				rp.Partition = p.Partition
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		xr.resp = resp
		w.sendExternal(x, xr, body)
	case *kmsg.EndTxnRequest:
		xr.resp = r.ResponseKind()
		w.sendExternal(x, xr, msg.EndTxnRequest{TransactionalID: r.TransactionalID, ProducerID: r.ProducerID,
			Epoch: r.ProducerEpoch, Commit: r.Commit})
	default:
		// Answered by the broker from the world's state when it reads it.
		w.sendExternal(x, xr, wireRequest{api: c.API, req: req, client: x.client})
	}
	return nil
}

func (e *extWorld) client(name string) *extClient {
	cl := e.clients[name]
	if cl == nil {
		cl = &extClient{name: name, pid: -1, epoch: -1, positions: map[msg.TP]int64{}, sent: map[batchKey]int64{}, maxBatches: maxClientBatches}
		e.clients[name] = cl
		e.order = append(e.order, name)
	}
	return cl
}

// sendExternal puts one engine message of a Kafka request on the
// connection; xr is queued for its answer unless it expects none.
func (w *World) sendExternal(x *extConn, xr *extReq, body msg.Body) {
	if xr != nil {
		if n := len(x.pending); n == 0 || x.pending[n-1] != xr {
			x.pending = append(x.pending, xr)
		}
		xr.waiting++
	}
	if x.cn != nil && x.cn.closed != connOpen {
		// One socket is one connection: once the engine closed it, what
		// the client still wrote goes nowhere (serve closes the socket).
		return
	}
	from, to := msg.ClientAddr(x.client), msg.BrokerAddr(x.broker)
	if x.cn == nil {
		// Open the engine's side first, so that even the first message
		// travels on a connection known to be real (wireMs).
		pair, _ := endsOf(from, to, body)
		c := w.openConn(pair, &x.ps, nil)
		x.cn = c
		c.slot, c.cons, c.ext = nil, nil, x
	}
	_, c := w.sendOn(from, to, 0, 0, body, false, &x.ps, nil)
	if c != nil && x.cn != c {
		x.cn = c
		c.slot, c.cons, c.ext = nil, nil, x
	}
}

// wireMs is how long a message spends on the wire of connection c:
// LatencyMs, except on a real client's connection, whose wire is the real
// socket the request already crossed when it arrived (and the answer
// crosses after it is sent): there the broker reads a request the moment
// it arrives, and an answer is on its way out as soon as it is sent. Faults
// still act on those messages (a delay holds them DelayMs). Between two
// brokers (a follower's fetches, a coordinator's markers) it is the
// cluster's broker.latency.ms.
func (w *World) wireMs(c *connection) int64 {
	switch {
	case c.ext != nil:
		return 0
	case c.key.opener.Broker > 0:
		return int64(w.cluster.BrokerLatencyMs)
	}
	return LatencyMs
}

// hangup is `hangup CONN at=MS`: the real client (or serve, after a
// fault broke the connection) closed the socket.
func (w *World) hangup(c *script.Hangup) error {
	e := w.extw()
	x := e.conns[c.Conn]
	if x == nil {
		return w.errorf("unknown connection %d", c.Conn)
	}
	w.now = max(w.now, c.AtMs)
	if x.hungUp {
		return nil
	}
	x.hungUp = true
	x.pending = nil
	if x.cn != nil {
		w.closeConn(x.cn, closedByOpener, fmt.Sprintf("%s closed its socket", x.client))
		x.cn.openerKnows = true
		w.maybeForget(x.cn)
	}
	delete(e.conns, c.Conn)
	return nil
}

// deliverExternal is an answer reaching a real client's connection.
func (w *World) deliverExternal(f *flight, x *extConn) bool {
	if w.tracing() {
		w.emitDelivered(f, "")
	}
	if len(x.pending) == 0 {
		return true
	}
	xr := x.pending[0]
	xr.answers = append(xr.answers, f.m.Body)
	xr.waiting--
	if xr.waiting > 0 {
		return true
	}
	x.pending = x.pending[1:]
	cl := w.ext.clients[x.client]
	resp := copyResponse(xr.resp)
	for _, a := range xr.answers {
		resp = w.fillExternal(cl, xr, resp, a)
	}
	if xr.fetch != nil {
		finishFetch(xr, resp.(*kmsg.FetchResponse))
	}
	if w.ext.keep && !x.hungUp {
		w.ext.outbox = append(w.ext.outbox, Outgoing{Conn: x.n, CorrelationID: xr.hdr.CorrelationID, Response: resp})
	}
	return true
}

// copyResponse is a deep copy of a response, made by kmsg itself.
func copyResponse(r kmsg.Response) kmsg.Response {
	if r == nil {
		return nil
	}
	c := kmsg.ResponseForKey(r.Key())
	c.SetVersion(r.GetVersion())
	if err := c.ReadFrom(r.AppendTo(nil)); err != nil {
		panic(fmt.Sprintf("copying a %T: %v", r, err)) // what kmsg wrote, it reads
	}
	return c
}

// fillExternal copies one engine answer into the Kafka response, and
// returns the response.
func (w *World) fillExternal(cl *extClient, xr *extReq, into kmsg.Response, body msg.Body) kmsg.Response {
	switch b := body.(type) {
	case wireResponse:
		return b.resp
	case *msg.ProduceResponse:
		resp := into.(*kmsg.ProduceResponse)
		for i, r := range b.Results {
			if i >= len(xr.slots) {
				break
			}
			s := xr.slots[i]
			p := &resp.Topics[s.topic].Partitions[s.part]
			p.ErrorCode, p.BaseOffset, p.LogStartOffset = int16(r.Error), r.BaseOffset, r.LogStartOffset
			if r.Error != kerr.None && r.Reason != "" {
				reason := r.Reason
				p.ErrorMessage = &reason
			}
			cl.settleBatch(w, r)
		}
	case msg.ConsumerFetchResponse:
		w.fillFetch(cl, xr, into.(*kmsg.FetchResponse), b)
	case msg.InitProducerIDResponse:
		resp := into.(*kmsg.InitProducerIDResponse)
		resp.ErrorCode, resp.ProducerID, resp.ProducerEpoch = int16(b.Error), b.ProducerID, b.Epoch
		if b.Error == kerr.None {
			cl.pid, cl.epoch = b.ProducerID, b.Epoch
		}
	case msg.AddPartitionsToTxnResponse:
		resp := into.(*kmsg.AddPartitionsToTxnResponse)
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				resp.Topics[i].Partitions[j].ErrorCode = int16(b.Error)
			}
		}
	case msg.AddOffsetsToTxnResponse:
		into.(*kmsg.AddOffsetsToTxnResponse).ErrorCode = int16(b.Error)
	case msg.TxnOffsetCommitResponse:
		resp := into.(*kmsg.TxnOffsetCommitResponse)
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				resp.Topics[i].Partitions[j].ErrorCode = int16(b.Error)
			}
		}
	case msg.EndTxnResponse:
		into.(*kmsg.EndTxnResponse).ErrorCode = int16(b.Error)
	}
	return into
}

// arriveProduce turns a Kafka Produce into the engine's produce request.
// Partitions the broker would refuse before looking at the batch (an
// unknown topic, more than one batch, a batch over message.max.bytes) are
// answered here, in the response the engine's answer completes.
func (w *World) arriveProduce(x *extConn, cl *extClient, xr *extReq, r *kmsg.ProduceRequest) {
	cl.producer = true
	resp := r.ResponseKind().(*kmsg.ProduceResponse)
	body := &msg.ProduceRequest{Acks: r.Acks, TimeoutMs: r.TimeoutMillis}
	if r.TransactionID != nil {
		body.TransactionalID = *r.TransactionID
	}
	for ti, t := range r.Topics {
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewProduceResponseTopicPartition()
			rp.Partition = p.Partition
			rp.BaseOffset, rp.LogAppendTime, rp.LogStartOffset = -1, -1, -1
			tp := msg.TP{Topic: t.Topic, Partition: int(p.Partition)}
			code := w.produceCheck(tp, p.Records)
			if code != 0 {
				rp.ErrorCode = code
				w.traceRefusal(x.broker, cl.name, tp, len(p.Records), code)
			} else {
				cl.nextBatch++
				h, _ := record.ParseHeader(p.Records)
				xr.slots = append(xr.slots, extSlot{ti, len(rt.Partitions)})
				body.Batches = append(body.Batches, msg.ProduceBatch{TP: tp, Data: p.Records, BatchID: cl.nextBatch, BaseSeq: h.BaseSequence})
				cl.noteBatch(w, tp, p.Records, &h)
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	xr.resp = resp
	if r.Acks == 0 {
		// No answer at all, not even to an error (Kafka's acks=0).
		if len(body.Batches) > 0 {
			w.sendExternal(x, nil, body)
		}
		return
	}
	if len(body.Batches) == 0 {
		w.sendExternal(x, xr, wireRequest{api: "Produce", prepared: resp})
		return
	}
	w.sendExternal(x, xr, body)
}

// MaxMessageBytes is message.max.bytes, Kafka's default: the largest
// batch a broker appends.
const MaxMessageBytes = 1048588

// produceCheck is what Kafka refuses before the log sees a batch.
func (w *World) produceCheck(tp msg.TP, data []byte) int16 {
	if w.meta(tp) == nil {
		return errUnknownTopicOrPartition
	}
	if len(data) > MaxMessageBytes {
		return errMessageTooLarge
	}
	h, err := record.ParseHeader(data)
	if err != nil {
		return errCorruptMessage
	}
	if int(h.BatchLength)+12 != len(data) {
		// Produce v3+ carries exactly one batch per partition
		// (LogValidator.validateOneBatchRecords).
		return errInvalidRecord
	}
	return 0
}

// noteBatch remembers a batch a real producer sent, as it arrived, for
// the lab and for the checker: a retry (the same bytes) is the same
// records; a new batch gets the next serial numbers.
func (cl *extClient) noteBatch(w *World, tp msg.TP, data []byte, h *record.Header) {
	k, ok := keyOf(data)
	first, seen := cl.sent[k]
	if !seen {
		first = cl.serials
		cl.serials += int64(h.RecordsCount)
		if ok {
			cl.sent[k] = first
		}
	}
	w.check.noteSent(data, w.check.sourceOf(w.check.nameWho(w, cl.name), &client.Batch{FirstSerial: first}))
	v := ClientBatchView{ID: cl.nextBatch, Partition: tp.String(), BaseSeq: h.BaseSequence, LastSeq: h.LastSequence(),
		Count: h.RecordsCount, FirstSerial: first, State: "in flight", BaseOffset: -1, Sends: 1, Bytes: data}
	for i := range cl.batches {
		if b := &cl.batches[i]; b.Partition == v.Partition && b.BaseSeq == v.BaseSeq && h.BaseSequence >= 0 && string(b.Bytes) == string(data) {
			b.Sends++
			b.ID, b.State = v.ID, "in flight"
			return
		}
	}
	if len(cl.batches) >= cl.maxBatches {
		cl.batches = slices.Delete(cl.batches, 0, 1)
	}
	cl.batches = append(cl.batches, v)
}

// settleBatch records the broker's answer to one of the client's batches.
func (cl *extClient) settleBatch(w *World, r msg.ProduceResult) {
	for i := len(cl.batches) - 1; i >= 0; i-- {
		b := &cl.batches[i]
		if b.Partition != r.TP.String() || b.BaseSeq != r.BaseSeq || b.State != "in flight" {
			continue
		}
		if r.Error != kerr.None {
			b.State, b.Error = "failed", r.Error.Name()
			return
		}
		b.State, b.BaseOffset, b.Error = "acked", r.BaseOffset, ""
		// A transactional batch's fate is its transaction's; the batch says
		// which it is (the client.id may have meant another producer since).
		if h, err := record.ParseHeader(b.Bytes); err == nil && !h.Attributes.Transactional() {
			w.check.noteAckAt(w.check.nameWho(w, cl.name), &client.Batch{FirstSerial: b.FirstSerial, Count: b.Count, BaseOffset: r.BaseOffset, TP: r.TP}, w.partIndex(r.TP))
		}
		return
	}
}

// arriveFetch sends one engine fetch per partition of a Kafka Fetch; the
// answers are gathered into one response.
func (w *World) arriveFetch(x *extConn, cl *extClient, xr *extReq, r *kmsg.FetchRequest) {
	cl.consumer = true
	cl.isolation = "read_uncommitted"
	if r.IsolationLevel == 1 {
		cl.isolation = "read_committed"
	}
	resp := r.ResponseKind().(*kmsg.FetchResponse)
	xr.resp, xr.fetch = resp, r
	var bodies []msg.Body
	for ti, t := range r.Topics {
		rt := kmsg.NewFetchResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewFetchResponseTopicPartition()
			rp.Partition = p.Partition
			rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = -1, -1, -1
			// No records is an empty set, never null: librdkafka refuses a
			// MessageSetSize of -1.
			rp.RecordBatches = []byte{}
			tp := msg.TP{Topic: t.Topic, Partition: int(p.Partition)}
			if w.meta(tp) == nil {
				rp.ErrorCode = errUnknownTopicOrPartition
			} else {
				xr.slots = append(xr.slots, extSlot{ti, len(rt.Partitions)})
				bodies = append(bodies, msg.ConsumerFetchRequest{TP: tp, Offset: p.FetchOffset, ReadCommitted: r.IsolationLevel == 1})
				cl.positions[tp] = p.FetchOffset
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	if len(bodies) == 0 {
		w.sendExternal(x, xr, wireRequest{api: "Fetch", prepared: resp})
		return
	}
	for _, b := range bodies {
		w.sendExternal(x, xr, b)
	}
}

// fillFetch puts one partition's engine answer into the Fetch response,
// in order of the request's partitions.
func (w *World) fillFetch(cl *extClient, xr *extReq, resp *kmsg.FetchResponse, b msg.ConsumerFetchResponse) {
	for _, s := range xr.slots {
		t := &resp.Topics[s.topic]
		p := &t.Partitions[s.part]
		if t.Topic != b.TP.Topic || int(p.Partition) != b.TP.Partition || p.HighWatermark != -1 || p.ErrorCode != 0 {
			continue
		}
		p.ErrorCode = int16(b.Error)
		if b.Error != kerr.None {
			p.HighWatermark = 0 // filled: later answers go to later partitions
			return
		}
		p.HighWatermark, p.LastStableOffset = b.HighWatermark, b.LastStableOffset
		if m := w.meta(b.TP); m != nil && m.leader != 0 {
			p.LogStartOffset = w.leaderLog(m).LogStartOffset()
		}
		limit := partitionMaxBytes(xr.fetch, b.TP)
		var n int64
		sent := b
		sent.Batches = nil
		for i, data := range b.Batches {
			if i > 0 && len(p.RecordBatches)+len(data) > limit {
				break
			}
			sent.Batches = b.Batches[:i+1]
			p.RecordBatches = append(p.RecordBatches, data...)
			if h, err := record.ParseHeader(data); err == nil {
				n = h.LastOffset() + 1
				cl.readCount += int64(h.RecordsCount)
			}
		}
		if cl.reader == nil {
			cl.reader = client.NewConsumer(cl.name, cl.isolation == "read_committed", nil, "", nil, math.MaxInt32)
		}
		from := int64(0)
		if fp := fetchPartition(xr.fetch, b.TP); fp != nil {
			from = fp.FetchOffset
		}
		cl.reader.Accept(b.TP, from, sent, maxClientBatches)
		if n > 0 {
			cl.positions[b.TP] = n
		}
		for _, a := range b.Aborted {
			at := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
			at.ProducerID, at.FirstOffset = a.ProducerID, a.FirstOffset
			p.AbortedTransactions = append(p.AbortedTransactions, at)
		}
		return
	}
}

// fetchPartition is the request's entry for tp (nil if it has none).
func fetchPartition(r *kmsg.FetchRequest, tp msg.TP) *kmsg.FetchRequestTopicPartition {
	for i := range r.Topics {
		if t := &r.Topics[i]; t.Topic == tp.Topic {
			for j := range t.Partitions {
				if int(t.Partitions[j].Partition) == tp.Partition {
					return &t.Partitions[j]
				}
			}
		}
	}
	return nil
}

func partitionMaxBytes(r *kmsg.FetchRequest, tp msg.TP) int {
	if p := fetchPartition(r, tp); p != nil && p.PartitionMaxBytes > 0 {
		return int(p.PartitionMaxBytes)
	}
	return MaxMessageBytes
}

// finishFetch trims the response to the request's MaxBytes (at least one
// batch always goes, as in Kafka).
func finishFetch(xr *extReq, resp *kmsg.FetchResponse) {
	limit, total := int(xr.fetch.MaxBytes), 0
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			p := &resp.Topics[i].Partitions[j]
			if limit > 0 && total > 0 && total+len(p.RecordBatches) > limit {
				p.RecordBatches = p.RecordBatches[:0]
			}
			if p.RecordBatches == nil {
				p.RecordBatches = []byte{} // never null (librdkafka)
			}
			total += len(p.RecordBatches)
		}
	}
}

// FetchWaits reports whether a Fetch would find nothing to return on
// broker: every partition it names is led there, has no error, and holds
// nothing at or after the fetch offset below its high watermark (or last
// stable offset for read_committed). `eoslab serve` then holds the fetch
// back for up to its MaxWaitMillis, as Kafka's fetch purgatory does, and
// hands it to the world once there is something to read.
func (w *World) FetchWaits(broker int, r *kmsg.FetchRequest) bool {
	if r.MaxWaitMillis <= 0 || r.MinBytes <= 0 {
		return false
	}
	if b := w.broker(broker); b == nil || !b.Alive() {
		return false
	}
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			m := w.meta(msg.TP{Topic: t.Topic, Partition: int(p.Partition)})
			if m == nil || m.leader != broker {
				return false
			}
			log := w.leaderLog(m)
			bound := log.HighWatermark()
			if r.IsolationLevel == 1 {
				bound = log.LastStableOffset()
			}
			if p.FetchOffset < bound || p.FetchOffset > log.LogEndOffset() || p.FetchOffset < log.LogStartOffset() {
				return false
			}
		}
	}
	return true
}

// wireRequest is a Kafka request the broker answers from the world's
// state when it reads it (Metadata, ApiVersions, groups, ...), or whose
// answer is already known (prepared) but must wait its turn on the
// connection.
type wireRequest struct {
	api      string
	req      kmsg.Request
	prepared kmsg.Response
	client   string
}

// wireResponse carries a Kafka response back on the connection.
type wireResponse struct {
	api  string
	resp kmsg.Response
}

func (r wireRequest) Name() string    { return r.api }
func (wireRequest) IsResponse() bool  { return false }
func (r wireResponse) Name() string   { return r.api }
func (wireResponse) IsResponse() bool { return true }

// answerWire is the broker reading a wireRequest.
func (w *World) answerWire(m *msg.Message, r wireRequest) {
	resp := r.prepared
	if resp == nil {
		resp = w.answerKafka(m.To.Broker, m, r)
	}
	if resp == nil {
		return // parked: the group sends the answer when it has it (the channel stays muted)
	}
	if w.tracing() {
		w.emit(trace.New("kafka.answer", fmt.Sprintf("broker %d answers %s's %s", m.To.Broker, m.From, r.api)).
			With("broker", trace.Int(int64(m.To.Broker))).With("client", trace.Str(m.From.String())).With("api", trace.Str(r.api)))
	}
	w.send(m.To, m.From, m.Conn, m.ID, wireResponse{api: r.api, resp: resp})
}

// resetExternal is `reset connection NAME BROKER` for a real client: every
// socket it has to that broker is reset.
func (w *World) resetExternal(name string, broker int) {
	for _, n := range w.extConnsOf(name) {
		x := w.ext.conns[n]
		if x.broker == broker && x.cn != nil && x.cn.closed == connOpen {
			w.closeConn(x.cn, closedReset, "reset: both ends learn at once, and what was on the wire is gone")
		}
	}
}

func (w *World) extConnsOf(name string) []int {
	var out []int
	for n, x := range w.ext.conns {
		if x.client == name {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// externalViews adds the real clients to a snapshot: producers and
// consumers named by their client.id.
func (w *World) externalViews(s *Snapshot) {
	if w.ext == nil {
		return
	}
	for _, name := range w.ext.order {
		cl := w.ext.clients[name]
		if cl.producer {
			mode := "idempotent"
			switch {
			case cl.txnID != "":
				mode = "transactional"
			case cl.pid < 0:
				mode = "plain"
			}
			v := ProducerView{Name: name, Mode: mode + " (real client)", ProducerID: cl.pid, Epoch: cl.epoch}
			v.Config.TransactionalID = cl.txnID
			v.Batches = slices.Clone(cl.batches)
			s.Producers = append(s.Producers, v)
		}
		if cl.consumer {
			v := ConsumerView{Name: name, Isolation: cl.isolation, Group: cl.group}
			if cl.reader != nil {
				v.Read = slices.Clone(cl.reader.Records())
			}
			tps := make([]msg.TP, 0, len(cl.positions))
			for tp := range cl.positions {
				tps = append(tps, tp)
			}
			slices.SortFunc(tps, compareTP)
			for _, tp := range tps {
				v.Positions = append(v.Positions, Position{tp.String(), cl.positions[tp]})
			}
			s.Consumers = append(s.Consumers, v)
		}
	}
}

// faultable reports whether a fault may pick the message: not a real
// client's Metadata, ApiVersions or other state request, nor a fetch (the
// faults act on producers' requests and their answers, as for simulated
// ones).
func faultable(body msg.Body) bool {
	switch body.(type) {
	case wireRequest, wireResponse, msg.ConsumerFetchRequest, msg.ConsumerFetchResponse:
		return false
	}
	return true
}

// NextDue is the time of the earliest queued item that still has
// something to do, without doing or dropping anything: `eoslab serve`
// performs a step when the wall clock reaches it.
func (w *World) NextDue() (int64, bool) {
	if head := w.peek(); head == nil {
		return 0, false
	} else if w.live(head) && w.pausedOwner(head) == nil {
		return head.due, true // the usual case: no scan
	}
	best, ok := int64(0), false
	w.queue.each(func(it *item) {
		if (!ok || it.due < best) && w.live(it) && w.pausedOwner(it) == nil {
			best, ok = it.due, true
		}
	})
	return best, ok
}

// SegmentFile is one file of a partition's log as Kafka stores it: a
// segment (NAME.log, its batches as stored) or a producer-state snapshot
// (NAME.snapshot).
type SegmentFile struct {
	Partition string // topic-partition, the directory
	Name      string // 00000000000000000000.log
	Size      int64
	Data      func() []byte
}

// SegmentFiles lists the files of every partition's log, as its leader
// (or, offline, its first replica) holds them.
func (w *World) SegmentFiles() []SegmentFile {
	var out []SegmentFile
	for _, m := range w.parts {
		lead := m.leader
		if lead == 0 {
			lead = m.replicas[0]
		}
		log := w.brokers[lead-1].Replica(m.tp).Log
		for _, seg := range log.Segments() {
			out = append(out, SegmentFile{Partition: m.tp.String(), Name: fmt.Sprintf("%020d.log", seg.BaseOffset), Size: seg.Size,
				Data: func() []byte { return log.SegmentBytes(seg) }})
		}
		for _, sn := range log.Snapshots() {
			out = append(out, SegmentFile{Partition: m.tp.String(), Name: fmt.Sprintf("%020d.snapshot", sn.Offset), Size: int64(len(sn.Data)),
				Data: func() []byte { return sn.Data }})
		}
	}
	return out
}

// clone copies the real clients' state for a copy of the world (a
// checkpoint, a rewound world): what changes is copied, requests and
// answers (never changed once made) are shared. The copy keeps no
// outbox: only the world eoslab serve drives has sockets.
func (e *extWorld) clone(cl *cloner) *extWorld {
	if e == nil {
		return nil
	}
	out := &extWorld{conns: make(map[int]*extConn, len(e.conns)), clients: make(map[string]*extClient, len(e.clients)),
		order: slices.Clone(e.order), groups: make(map[string]*extGroup, len(e.groups)), members: e.members,
		topicConfigs: maps.Clone(e.topicConfigs)}
	cl.exts = make(map[*extConn]*extConn, len(e.conns))
	for n, x := range e.conns {
		d := *x
		d.pending = make([]*extReq, len(x.pending))
		for i, xr := range x.pending {
			r := *xr
			r.answers = slices.Clone(xr.answers)
			r.slots = slices.Clone(xr.slots)
			d.pending[i] = &r
		}
		out.conns[n] = &d
		cl.exts[x] = &d
		cl.pairs[&x.ps] = &d.ps
	}
	for name, c := range e.clients {
		d := *c
		d.batches = slices.Clone(c.batches)
		d.sent = maps.Clone(c.sent)
		d.positions = maps.Clone(c.positions)
		if c.reader != nil {
			d.reader = c.reader.Clone()
		}
		out.clients[name] = &d
	}
	for name, g := range e.groups {
		out.groups[name] = g.clone()
	}
	return out
}

// relink points the copied connections at the copied engine connections,
// once those are made.
func (e *extWorld) relink(cl *cloner) {
	if e == nil {
		return
	}
	for _, x := range e.conns {
		x.cn = cl.conn(x.cn) // x.ps was relinked with the other pairs
	}
}
