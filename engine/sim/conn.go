package sim

import (
	"fmt"
	"iter"
	"math"
	"strconv"

	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/trace"
)

// Connections behave like TCP, because Kafka runs over TCP and a learner
// must never see what TCP cannot do. Every message travels on a connection
// between the side that opened it — a producer, a consumer, a follower's
// fetcher, a transaction coordinator's marker channel — and a broker.
//
//   - Each direction delivers in order: a message never overtakes an
//     earlier one on the same connection. A held (delayed) message holds
//     everything behind it.
//   - Nothing is lost alone. A connection breaks silently at some message:
//     that message and every later one, both ways, are gone, and neither
//     end notices until a timeout.
//   - A close is known to both ends. A reset reaches both at once and
//     takes everything on the wire with it. An end that closes (a client
//     timing out, a process exiting) lets what it already sent arrive and
//     reads nothing more; an end whose process dies receives nothing more,
//     and its peer learns of it after what the dead end had sent.
//
// Overtaking therefore happens only across connections: after a
// reconnect, or between an old leader and a new one.

// connPair is the two ends of a connection: who opened it, and the
// broker; a broker opens separate connections for its replica fetcher and
// its transaction marker channel (each has a NetworkClient of its own).
type connPair struct {
	opener  msg.Addr
	broker  int
	channel channel
}

type channel uint8

const (
	clientChannel  channel = iota // a producer's or consumer's connection
	fetcherChannel                // a follower's replica fetcher
	markerChannel                 // a transaction coordinator's marker channel
)

// channelOf says which of a broker's clients a message belongs to.
func channelOf(body msg.Body) channel {
	switch body.(type) {
	case *msg.FetchRequest, *msg.FetchResponse: // sent by pointer: World.fetchReqs, Broker.fetchResps
		return fetcherChannel
	case msg.WriteTxnMarkersRequest, msg.WriteTxnMarkersResponse:
		return markerChannel
	}
	return clientChannel
}

// connKey names one connection; a reconnect opens the next number.
type connKey struct {
	connPair
	n int
}

func (k connKey) String() string {
	what := ""
	switch k.channel {
	case fetcherChannel:
		what = " fetcher"
	case markerChannel:
		what = " markers"
	}
	return k.opener.String() + what + "-broker " + strconv.Itoa(k.broker) + " #" + strconv.Itoa(k.n)
}

// saidBy reports whether the connection's name is what a message's ends
// say with its number (trace.Builder.Conn): a client channel's, opened by
// the end that sent the request (to for an answer), to the broker at the
// other end.
func (k connKey) saidBy(from, to msg.Addr, resp bool) bool {
	opener, broker := from, to
	if resp {
		opener, broker = to, from
	}
	return k.channel == clientChannel && k.opener == opener && broker.Broker > 0 && k.broker == broker.Broker
}

type closeKind uint8

const (
	connOpen        closeKind = iota
	closedByOpener            // what the opener sent still arrives; nothing reaches it any more
	closedByBroker            // the broker process died: nothing reaches it; what it sent still arrives
	closedReset               // both ends learn at once; everything on the wire is gone
	closedByRefusal           // the broker was down when the connection was opened
)

// pairState is a pair's newest connection and its number. Every opener
// keeps its own (a producer or consumer in its slot, brokers in the world),
// so that sending looks nothing up by name.
//
// A producer's open connection that nothing travels on is idle: a large
// world drops its state and keeps only its id here (see idleConn), and
// makes it again, the same, when it is used. TCP does not close it: an
// idle connection is open, as before.
type pairState struct {
	n    int32
	idle int32       // the id of the pair's idle open connection, whose state was dropped (0: none)
	c    *connection // nil once forgotten, or while idle
}

// connection is one TCP connection's state as the network sees it.
type connection struct {
	key     connKey
	id      int // unique in the world: what messages name it by (msg.Message.Conn)
	ps      *pairState
	slot    *producerSlot // the opener, when a producer opened it
	cons    *consumerSlot // the opener, when a consumer opened it
	brokeAt int           // the message at which it broke silently; 0 while healthy
	closed  closeKind
	// openerKnows: the opener has learned that it is closed. Until then it
	// still writes to it, and what it writes is lost; after, it opens the next.
	openerKnows bool
	due         [2]int64 // arrival of the newest message each way: [0] to the broker, [1] back
	wire        int      // messages on the wire (or arrived and waiting to be read)
	busy        int      // the request the broker is handling and has not answered yet
	inbox       []flight
	ext         *extConn // the real client's socket, when a real client opened it
	keyName     string   // key.String(), made once (see name)
}

// name is the connection's name in the trace, made on first use: every
// message event carries it.
func (c *connection) name() string {
	if c.keyName == "" {
		c.keyName = c.key.String()
	}
	return c.keyName
}

// direction of a message on its connection.
const (
	toBroker = 0
	toOpener = 1
)

// endsOf returns the connection pair and direction of a message.
func endsOf(from, to msg.Addr, body msg.Body) (connPair, uint8) {
	ch := channelOf(body)
	if ch == markerChannel && (from.Client != "" || to.Client != "") {
		ch = clientChannel // the operator's tool sends markers on its own client connection
	}
	if body.IsResponse() {
		return connPair{opener: to, broker: from.Broker, channel: ch}, toOpener
	}
	return connPair{opener: from, broker: to.Broker, channel: ch}, toBroker
}

// pairOf returns the state of a pair, creating it.
func (w *World) pairOf(p connPair) *pairState {
	if b := p.opener.Broker; b > 0 {
		return w.brokerPair(b, p.broker, p.channel)
	}
	if p.channel == clientChannel && p.broker >= 1 && p.broker <= len(w.brokers) {
		if s := w.producers.get(p.opener.Client); s != nil {
			return &s.pairs[p.broker-1]
		}
		if cs := w.tx.cons[p.opener.Client]; cs != nil {
			return &cs.pairs[p.broker-1]
		}
	}
	ps := w.otherPairs[p]
	if ps == nil {
		ps = &pairState{}
		w.otherPairs[p] = ps
	}
	return ps
}

// brokerPair is a broker's pair with another broker on a channel.
func (w *World) brokerPair(from, to int, ch channel) *pairState {
	return &w.brokerPairs[((from-1)*len(w.brokers)+to-1)*3+int(ch)]
}

// clientPairs returns the pairs of a new producer or consumer named name,
// taking over what an earlier sender under that name (inject) left.
func (w *World) clientPairs(name string) []pairState {
	pairs := w.pairSlab.Make(len(w.brokers))[:len(w.brokers)]
	if len(w.otherPairs) == 0 {
		return pairs // nobody sent under a name without a slot: the usual case, without hashing the name for each broker
	}
	for i := range pairs {
		k := connPair{opener: msg.ClientAddr(name), broker: i + 1}
		if ps := w.otherPairs[k]; ps != nil {
			pairs[i] = *ps
			if ps.c != nil {
				ps.c.ps = &pairs[i]
			}
			delete(w.otherPairs, k)
		}
	}
	return pairs
}

// openConn returns the pair's current connection, opening the next one if
// the last was closed and its opener knows it (or there was none). s is
// the opener's slot if the caller has it (it is then the one of that name),
// else nil: it is looked up by name.
func (w *World) openConn(p connPair, ps *pairState, s *producerSlot) *connection {
	if c := ps.open(); c != nil {
		return c
	}
	if ps.idle != 0 {
		return w.wakeConn(p, ps, s)
	}
	ps.n++
	w.nextConn++
	c := w.newConn(connKey{p, int(ps.n)}, w.nextConn, ps)
	if p.opener.Client != "" {
		// A name is a producer's or a consumer's, never both.
		if s == nil {
			s = w.producers.get(p.opener.Client)
		}
		if c.slot = s; c.slot == nil {
			c.cons = w.tx.cons[p.opener.Client]
		} else if c.slot.p != nil {
			// The client's first request on a connection is ApiVersions, whose
			// answer carries the finalized features.
			c.slot.p.LearnFeatures(w.cluster.TransactionVersion)
		}
	}
	ps.c = c
	w.conns.put(c)
	return c
}

// connByID is w.conns.get(id), looked up through a small cache: every answer
// names the connection its request came by, mostly one of a few.
func (w *World) connByID(id int) *connection {
	e := &w.connCache[id&(len(w.connCache)-1)]
	if c := *e; c != nil && c.id == id {
		return c
	}
	c := w.conns.get(id)
	if c != nil {
		*e = c
	}
	return c
}

// dropConn removes c from w.conns (and so from the cache).
func (w *World) dropConn(c *connection) {
	w.conns.del(c.id)
	if e := &w.connCache[c.id&(len(w.connCache)-1)]; *e == c {
		*e = nil
	}
}

// open is the connection the pair's opener writes to (open, or closed
// without its opener knowing yet), or nil: a new one is needed. ps may be
// nil (not at hand).
func (ps *pairState) open() *connection {
	if ps == nil {
		return nil
	}
	if c := ps.c; c != nil && (c.closed == connOpen || !c.openerKnows) {
		return c
	}
	return nil
}

// currentConn is the pair's open connection, or nil; p names the pair.
func (w *World) currentConn(p connPair, ps *pairState) *connection {
	if ps.idle != 0 {
		return w.wakeConn(p, ps, nil)
	}
	if c := ps.c; c != nil && c.closed == connOpen {
		return c
	}
	return nil
}

// idleAbove is the number of connections a world keeps whole (World.
// connsKept; tests lower it to make every quiet connection idle): past it, a
// producer's connection is made idle (idleConn) whenever nothing travels
// on it, so that a world of a million producers does not keep a million
// connections' state. Fewer connections are kept as they are: a producer
// sending batch after batch does not make its connection again each time.
const idleAbove = 256

// idleConn drops the state of a producer's open connection once nothing
// travels on it, keeping its id in its pair (wakeConn makes it again); a
// producer that still has batches to send keeps it, to use it soon. What
// it drops is what a connection is when it is opened: no message on the
// wire or waiting to be read, no request being handled, not broken,
// nothing due later than now (every message on it has arrived), its name
// made again from its key. Only a delivery ends with nothing on the wire,
// and nothing but the pair and w.conns points to a connection then.
func (w *World) idleConn(c *connection) {
	if w.conns.len() <= w.connsKept || c.slot == nil || c.cons != nil || c.ext != nil || c.closed != connOpen ||
		c.wire != 0 || c.busy != 0 || len(c.inbox) != 0 || c.brokeAt != 0 || c.ps.c != c ||
		c.key.channel != clientChannel || c.id > math.MaxInt32 || max(c.due[0], c.due[1]) > w.now {
		return
	}
	if s := c.slot; s.p != nil && !s.removed && s.p.Pending() {
		return // it has batches to send: it will use the connection again soon
	}
	w.dropConn(c)
	c.ps.c, c.ps.idle = nil, int32(c.id)
	if s := c.slot; s.p != nil && !s.removed {
		s.p.Compact(&w.scratch) // a quiet producer keeps no room to go faster either
	}
	w.spareConns.Give(c, spareConnsMax) // nothing points to it any more
}

// spareConnsMax bounds the connections a world keeps for reuse (World.
// spareConns): enough for thousands of producers sending at once, and a
// few hundred kilobytes when far more than that go quiet together.
const spareConnsMax = 4096

// newConn returns a new connection: one that went idle (and that nothing
// points to any more), made new, if the world keeps one. A large world's
// producers each open a connection, send a request or two and go quiet:
// most connections are made from one that went idle, not allocated.
func (w *World) newConn(k connKey, id int, ps *pairState) *connection {
	c := w.spareConns.Take()
	if c == nil {
		return &connection{key: k, id: id, ps: ps}
	}
	*c = connection{key: k, id: id, ps: ps}
	return c
}

// wakeConn makes a pair's idle connection again, as it was; s is the
// opener's slot, or nil to look it up by name (as openConn).
func (w *World) wakeConn(p connPair, ps *pairState, s *producerSlot) *connection {
	c := w.newConn(connKey{p, int(ps.n)}, int(ps.idle), ps)
	if s == nil {
		s = w.producers.get(p.opener.Client)
	}
	c.slot = s
	ps.c, ps.idle = c, 0
	w.conns.put(c)
	return c
}

// afterDeliver is the end of a message's delivery on c: a closed
// connection may be forgotten, an open one made idle.
func (w *World) afterDeliver(c *connection) {
	w.maybeForget(c)
	if w.conns.len() > w.connsKept {
		w.idleConn(c)
	}
}

// wakeConnsOf makes every idle connection of the producers (all of them
// when name is "") that goes to broker (any, when broker is 0) again, so
// that closing them finds them in w.conns.
func (w *World) wakeConnsOf(name string, broker int) {
	wake := func(name string, s *producerSlot) {
		for i := range s.pairs {
			if ps, b := &s.pairs[i], i+1; ps.idle != 0 && (broker == 0 || b == broker) {
				w.wakeConn(connPair{opener: msg.ClientAddr(name), broker: b}, ps, s)
			}
		}
	}
	if name != "" {
		if s := w.producers.get(name); s != nil {
			wake(name, s)
		}
		return
	}
	for _, e := range w.producers.all.all() {
		wake(e.name, e.slot)
	}
}

// closeConn closes a connection; why is said in the event.
func (w *World) closeConn(c *connection, kind closeKind, why string) {
	if c.closed != connOpen {
		return
	}
	c.closed = kind
	c.openerKnows = kind == closedByOpener
	w.dropInbox(c)
	if w.tracing() {
		w.emit(trace.New("connection.close", fmt.Sprintf("the connection %s closes: %s", c.key, why)).
			With("connection", trace.Str(c.key.String())).With("opener", trace.Str(c.key.opener.String())).
			With("broker", trace.Int(int64(c.key.broker))).With("how", trace.Str(kind.String())))
	}
	switch kind {
	case closedReset:
		// Both ends learn at once; a paused process learns when it resumes.
		it := w.closeNotice(c, w.now)
		if it.slot == nil || !it.slot.paused {
			w.connClosed(&it)
		} else {
			w.schedule(it)
		}
	case closedByBroker, closedByRefusal:
		// The close travels behind what the broker had already sent.
		lat := int64(LatencyMs)
		if c.ext == nil {
			lat = w.wireMs(c)
		}
		w.notifyClosed(c, max(w.now+lat, c.due[toOpener]))
	}
	w.maybeForget(c)
}

func (k closeKind) String() string {
	return [...]string{"open", "closed by its opener", "closed by the broker", "reset", "refused"}[k]
}

// read is the broker answering request id on c: it reads the next
// request waiting there, if any.
func (w *World) read(c *connection, id int) {
	if c.busy != id {
		return
	}
	c.busy = 0
	w.readNext(c)
}

// readNext hands the broker the next request waiting in the socket
// buffer, if any. The connection stays reserved for it until it is read,
// so that a request sent later, due at the same moment, cannot be read
// first: TCP delivers in order.
func (w *World) readNext(c *connection) {
	if len(c.inbox) > 0 {
		f := c.inbox[0]
		c.inbox[0] = flight{}
		c.inbox = c.inbox[1:]
		f.due = w.now
		c.busy = f.m.ID
		w.schedule(item{due: w.now, kind: itemDeliver, fl: f})
	}
}

// dropInbox loses the requests a closing connection still held unread.
func (w *World) dropInbox(c *connection) {
	for i := range c.inbox {
		f := &c.inbox[i]
		c.wire--
		if w.tracing() {
			m := &f.m
			w.emit(trace.New("message.lost", fmt.Sprintf("%s #%d from %s to %s is lost: its connection closed before broker %d read it (%s)",
				m.Body.Name(), m.ID, m.From, m.To, c.key.broker, summarize(m)),
				lostAttrs(m, false, c, "unread when the connection closed")...))
		}
	}
	c.inbox = nil
}

// maybeForget drops a closed connection once nothing travels on it and
// its opener knows it is closed.
func (w *World) maybeForget(c *connection) {
	if c.closed != connOpen && c.wire == 0 && c.openerKnows {
		w.dropConn(c)
		if c.ps.c == c {
			c.ps.c = nil
		}
	}
}

// notifyClosed tells the opener, at time at, that its connection closed
// (a reset, or the broker's process ending after what it had sent).
func (w *World) notifyClosed(c *connection, at int64) { w.schedule(w.closeNotice(c, at)) }

func (w *World) closeNotice(c *connection, at int64) item {
	it := item{due: at, kind: itemConnClosed, broker: c.key.broker, conn: c.key, ref: c.id}
	if s := c.slot; s != nil {
		it.slot, it.life = s, s.life
	}
	return it
}

// connClosed performs a close notice: the opener fails what it had in
// flight on that connection.
func (w *World) connClosed(it *item) bool {
	k := it.conn
	if c := w.connByID(it.ref); c != nil {
		c.openerKnows = true
		defer w.maybeForget(c)
	}
	switch {
	case k.opener.Broker > 0:
		b := w.broker(k.opener.Broker)
		switch {
		case !b.Alive():
			return false
		case k.channel == fetcherChannel:
			b.OnFetcherDisconnected(k.broker, it.ref, w.benv)
		default:
			b.OnMarkersDisconnected(k.broker, it.ref, w.benv)
		}
	case it.slot != nil:
		if it.slot.life != it.life || it.slot.removed {
			return false
		}
		it.slot.p.Disconnect(k.broker, it.slot)
	default:
		cs := w.tx.cons[k.opener.Client]
		if cs == nil {
			return false
		}
		cs.c.Disconnect(k.broker)
	}
	if w.tracing() {
		w.emit(trace.New("connection.closed", fmt.Sprintf("%s learns that its connection to broker %d is gone", k.opener, k.broker)).
			With("connection", trace.Str(k.String())).With("opener", trace.Str(k.opener.String())).With("broker", trace.Int(int64(k.broker))))
	}
	return true
}

// closeConnsOf closes every connection of an opener (its process ended).
func (w *World) closeConnsOf(opener msg.Addr, why string) {
	if opener.Client != "" {
		w.wakeConnsOf(opener.Client, 0)
	}
	for _, c := range w.sortedConns() {
		if c.key.opener == opener {
			w.closeConn(c, closedByOpener, why)
		}
	}
}

// brokerDown closes every connection to and from a broker whose process ended.
func (w *World) brokerDown(id int, why string) {
	w.wakeConnsOf("", id)
	for _, c := range w.sortedConns() {
		switch {
		case c.key.broker == id:
			w.closeConn(c, closedByBroker, why)
		case c.key.opener.Broker == id:
			w.closeConn(c, closedByOpener, why)
		}
	}
}

// sortedConns lists the connections in a fixed order (maps do not have one).
func (w *World) sortedConns() []*connection {
	out := make([]*connection, 0, w.conns.len())
	for c := range w.conns.all() {
		out = append(out, c)
	}
	sortConns(out)
	return out
}

func sortConns(cs []*connection) {
	less := func(a, b connKey) bool {
		if a.opener != b.opener {
			if a.opener.Broker != b.opener.Broker {
				return a.opener.Broker < b.opener.Broker
			}
			return a.opener.Client < b.opener.Client
		}
		if a.broker != b.broker {
			return a.broker < b.broker
		}
		if a.n != b.n {
			return a.n < b.n
		}
		return a.channel < b.channel // a broker's fetcher and marker connections to one broker
	}
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && less(cs[j].key, cs[j-1].key); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// resetConnection is `reset connection NAME BROKER`.
func (w *World) resetConnection(name string, broker int) error {
	if w.broker(broker) == nil {
		return w.errorf("unknown broker %d (brokers are 1-%d)", broker, len(w.brokers))
	}
	isProducer := w.producers.get(name) != nil
	_, isConsumer := w.tx.cons[name]
	if !isProducer && !isConsumer && w.isExternal(name) {
		w.resetExternal(name, broker)
		return nil
	}
	if !isProducer && !isConsumer {
		return fmt.Errorf("unknown producer or consumer %q", name)
	}
	p := connPair{opener: msg.ClientAddr(name), broker: broker}
	c := w.currentConn(p, w.pairOf(p))
	if c == nil {
		if w.tracing() {
			w.emit(trace.New("connection.reset", fmt.Sprintf("%s has no open connection to broker %d: nothing to reset", name, broker)).
				With("opener", trace.Str(name)).With("broker", trace.Int(int64(broker))))
		}
		return nil
	}
	w.closeConn(c, closedReset, "reset: both ends learn at once, and what was on the wire is gone")
	return nil
}

// connTable is the world's connections by id (World.conns). A large
// world's producers each open a connection, are answered on it and let it
// go idle, which puts, finds and deletes an id a few times a producer: an
// open-addressing table of ids and pointers, probed linearly from the
// id's Fibonacci hash and at most half full, does that without a map's
// hashing and groups. A deletion moves back the entries after it that
// belong before it, so a probe ends at the first free place. Nothing
// depends on the order of its entries (sortedConns sorts them).
type connTable struct {
	slots []connSlot // a power of 2 long
	n     int
}

type connSlot struct {
	id int
	c  *connection // nil: free
}

func connHome(id, mask int) int { return int(uint64(id)*0x9e3779b97f4a7c15>>32) & mask }

// len is the number of connections.
func (t *connTable) len() int { return t.n }

// find is the place of id, or the free place where the probe ended.
func (t *connTable) find(id int) int {
	mask := len(t.slots) - 1
	i := connHome(id, mask)
	for t.slots[i].c != nil && t.slots[i].id != id {
		i = (i + 1) & mask
	}
	return i
}

// get is the connection id, or nil.
func (t *connTable) get(id int) *connection {
	if t.n == 0 {
		return nil
	}
	return t.slots[t.find(id)].c
}

// put makes c the connection of its id.
func (t *connTable) put(c *connection) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		t.slots = make([]connSlot, max(16, 2*len(old)))
		for _, e := range old {
			if e.c != nil {
				t.slots[t.find(e.id)] = e
			}
		}
	}
	i := t.find(c.id)
	if t.slots[i].c == nil {
		t.n++
	}
	t.slots[i] = connSlot{c.id, c}
}

// del removes the connection id, if there is one.
func (t *connTable) del(id int) {
	if t.n == 0 {
		return
	}
	i := t.find(id)
	if t.slots[i].c == nil {
		return
	}
	mask := len(t.slots) - 1
	for j := (i + 1) & mask; t.slots[j].c != nil; j = (j + 1) & mask {
		// The entry at j moves back to the hole at i unless its probe
		// starts after i (cyclically, up to j).
		if h := connHome(t.slots[j].id, mask); (j-h)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = connSlot{}
	t.n--
}

// all is every connection, in no particular order.
func (t *connTable) all() iter.Seq[*connection] {
	return func(yield func(*connection) bool) {
		for _, e := range t.slots {
			if e.c != nil && !yield(e.c) {
				return
			}
		}
	}
}
