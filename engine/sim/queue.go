package sim

import (
	"iter"
	"slices"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/msg"
)

type itemKind uint8

const (
	itemDeliver       itemKind = iota + 1 // a message arrives
	itemWake                              // a producer's sender runs
	itemProducerTimer                     // request or delivery timeout
	itemProduceTimer                      // a broker's purgatory entry times out
	itemFence                             // the controller fences a silent broker
	itemCoordTimer                        // a transaction coordinator checks its markers
	itemConnClosed                        // a connection's opener learns it is gone
	itemFetch                             // a follower's fetcher tries its leader again
	itemGroupTimer                        // a group coordinator's deadline for a group with real members
)

// item is one due event. Items due at the same time run in the order they
// were scheduled (seq), which keeps the world deterministic.
type item struct {
	due    int64
	seq    uint64
	kind   itemKind
	timer  client.TimerKind
	fl     flight        // itemDeliver: the message, by value (the one field of that kind; zero for the others)
	slot   *producerSlot // itemWake, itemProducerTimer: the producer
	life   int           // producer incarnation the item belongs to
	ref    int           // timer reference, purgatory request id
	broker int
	tp     msg.TP
	txnID  string  // itemCoordTimer; the group of itemGroupTimer
	conn   connKey // itemConnClosed
}

// qent is a heap entry: the order of an item and where its payload is.
// The heap moves only these 24 bytes; payloads stay in the slab.
type qent struct {
	due int64
	seq uint64
	at  int32 // index into queue.slab
}

// queue orders items by (due, seq). Payloads live in a slab reused
// through a free list, so that scheduling allocates nothing once the slab
// has grown to the most items ever queued at once.
//
// Most items are deliveries, due a fixed time after they are sent, so
// they come due in the order they were queued, and wakes of producers'
// senders due at once: those go into a FIFO lane (lane[lh:]) as long as
// each is due no earlier than the one before it, and everything else (the
// timers, due later) into a binary min-heap. The lane is sorted by
// (due, seq) — seq only grows — so the next item is the earlier of the
// lane's head and the heap's top, and the order is exactly the one heap's.
// A delivery costs a few instructions instead of a heap's sift up and
// down past the timers queued far ahead (a lab schedule's heap holds
// 20 to 40 of them). An item of another kind that is due at once when
// queued (a producer's sender woken to send what it was just given, most
// of them) goes before the lane's head when the head is due later, in
// the room the lane keeps there: it is the earliest of the lane, and the
// lane stays in order.
//
// A producer's deadlines (a request's, a batch's) and a purgatory
// entry's timeout are armed for every request and nearly always answered
// long before they come due: they wait unsorted in later, with the
// earliest of them in laterMin, and go into the heap only when the next
// item could be one of them or the queue is compacted (settleLater);
// those that can never act again by then are dropped without ever being
// sifted through the heap. The order is still the one heap's: no item is
// taken while one of later comes before it.
type queue struct {
	heap     []qent
	lane     fifo
	later    []lateEnt
	laterMin qent // the earliest of later (its due and seq), when later is not empty
	slab     []item
	free     []int32
	// The wake register: a producer's wake due at once when every item
	// queued comes after it (World.scheduleFor), as most are (a send's, an
	// answer's). It waits in reg instead of a slot of the slab and the
	// lane, and stays the head of the queue (reg comes before any item
	// queued after it: enqueue moves it into the heap otherwise). regQ is
	// its order, regSet whether it holds one. The step takes it off before
	// it runs the sender (stepsWithin), so that the register is free for
	// the wake the sender asks for.
	reg    item
	regQ   qent
	regSet bool
}

// regAt is the slot of the wake register (queue.reg), which the slab's
// slots never are.
const regAt int32 = -2

// itemAt is the item in slot at.
func (q *queue) itemAt(at int32) *item {
	if at == regAt {
		return &q.reg
	}
	return &q.slab[at]
}

// regFree reports whether the register is free for a wake due at due: no
// item queued is due at or before it (those queued later have a later
// seq, so due at due they still come after it).
func (q *queue) regFree(due int64) bool {
	return !q.regSet && (q.lane.h == len(q.lane.e) || q.lane.e[q.lane.h].due > due) &&
		(len(q.heap) == 0 || q.heap[0].due > due) && (len(q.later) == 0 || q.laterMin.due > due)
}

// flushReg moves the register's wake into the heap, for an item that
// comes before it.
func (q *queue) flushReg() {
	at, d := q.reserve()
	put(d, &q.reg)
	if cap(q.heap) == 0 {
		q.heap = make([]qent, 0, firstHeap)
	}
	q.heap = append(q.heap, qent{due: q.regQ.due, seq: q.regQ.seq, at: at})
	q.up(len(q.heap) - 1)
	q.regSet, q.reg.slot = false, nil
}

// fifo is the lane: entries in (due, seq) order, from the head e[h]; the
// entries before the head are room for one to go in front of it.
type fifo struct {
	e []qent
	h int
}

// lateEnt is a deadline waiting in queue.later: its order and all an item
// of its kind holds, so that one that can never act again by the time
// the later timers are settled (nearly all) never takes a slot of the
// slab: it is written there only if it is still live then.
type lateEnt struct {
	due    int64
	seq    uint64
	slot   *producerSlot // itemProducerTimer: the producer
	life   int           // the producer's incarnation
	ref    int           // the timer's reference, the purgatory request id
	broker int           // itemProduceTimer: the broker
	timer  client.TimerKind
	kind   itemKind
}

// order is the entry's place in the queue's order.
func (e *lateEnt) order() qent { return qent{due: e.due, seq: e.seq} }

// item is the item the entry stands for.
func (e *lateEnt) item() item {
	return item{due: e.due, seq: e.seq, kind: e.kind, timer: e.timer, slot: e.slot, life: e.life, ref: e.ref, broker: e.broker}
}

// laneFront is the room a lane keeps before its head once it has been
// emptied or moved down.
const laneFront = 4

// fits reports whether an entry due at due may join the lane at its end:
// no earlier than its last (seq only grows, so the lane stays in order).
func (l *fifo) fits(due int64) bool { return l.h == len(l.e) || l.e[len(l.e)-1].due <= due }

func (l *fifo) push(e qent) {
	if cap(l.e) == 0 {
		l.e, l.h = make([]qent, laneFront, firstLane), laneFront
	}
	l.e = append(l.e, e)
}

// pushFront puts e before the head, if it is due before the head (its seq
// is the newest) and there is room.
func (l *fifo) pushFront(e qent) bool {
	if l.h == 0 || l.h == len(l.e) || e.due >= l.e[l.h].due {
		return false
	}
	l.h--
	l.e[l.h] = e
	return true
}

// pop takes the head off.
func (l *fifo) pop() {
	l.h++
	switch {
	case l.h == len(l.e):
		l.e, l.h = l.e[:laneFront], laneFront
	case l.h >= laneShift && 2*l.h >= len(l.e):
		// Half the lane is taken: move the rest down, so that a lane that
		// never empties reuses its room.
		n := copy(l.e[laneFront:], l.e[l.h:])
		l.e, l.h = l.e[:laneFront+n], laneFront
	}
}

// queued is the lane's entries.
func (l *fifo) queued() []qent { return l.e[l.h:] }

func (l *fifo) clone() fifo { return fifo{e: slices.Clone(l.e), h: l.h} }

func (q *queue) len() int {
	n := len(q.heap) + len(q.lane.e) - q.lane.h + len(q.later)
	if q.regSet {
		n++
	}
	return n
}

// top is the next entry and whether it is the lane's, or nil, the
// register aside (World.top and the step look at it first).
func (q *queue) top() (*qent, bool) {
	if l := &q.lane; l.h < len(l.e) {
		if len(q.heap) == 0 || before(&l.e[l.h], &q.heap[0]) {
			return &l.e[l.h], true
		}
	}
	if len(q.heap) == 0 {
		return nil, false
	}
	return &q.heap[0], false
}

// removeNext takes the next entry off the lane or the heap.
func (q *queue) removeNext(fromLane bool) {
	if q.regSet { // the register, when it holds a wake, is the head
		q.regSet, q.reg.slot = false, nil
		return
	}
	if !fromLane {
		q.removeTop()
		return
	}
	q.lane.pop()
}

// laneShift is how many taken entries the lane keeps before moving down.
const laneShift = 32

// items yields every queued item with its slot, in no particular order: a
// copy of each of the later timers, with slot -1.
func (q *queue) items() iter.Seq2[int32, *item] {
	return func(yield func(int32, *item) bool) {
		for _, e := range q.heap {
			if !yield(e.at, &q.slab[e.at]) {
				return
			}
		}
		for _, e := range q.lane.queued() {
			if !yield(e.at, &q.slab[e.at]) {
				return
			}
		}
		for i := range q.later {
			it := q.later[i].item() // a copy: it has no slot (at -1)
			if !yield(-1, &it) {
				return
			}
		}
		if q.regSet {
			it := q.reg // a copy, as the later timers'
			yield(-1, &it)
		}
	}
}

// top is the queue's next entry and whether it is the lane's, or nil, as
// queue.top, with the later timers settled first when one of them comes
// before the head of the lane and of the heap.
func (w *World) top() (*qent, bool) {
	q := &w.queue
	if q.regSet { // the head, when it holds a wake
		return &q.regQ, true
	}
	head, inLane := q.top()
	if len(q.later) > 0 && (head == nil || before(&q.laterMin, head)) {
		w.settleLater()
		head, inLane = q.top()
	}
	return head, inLane
}

// settleLater moves the later timers into the heap, dropping those that
// can never act again.
func (w *World) settleLater() {
	q := &w.queue
	for i := range q.later {
		if e := &q.later[i]; !w.lateObsolete(e) {
			q.heap = append(q.heap, q.place(e))
			q.up(len(q.heap) - 1)
		}
	}
	q.later = q.later[:0]
}

// place writes the item e stands for into a slot of the slab and returns
// its heap entry.
func (q *queue) place(e *lateEnt) qent {
	at, d := q.reserve()
	d.due, d.seq, d.kind, d.timer, d.slot, d.life, d.ref, d.broker = e.due, e.seq, e.kind, e.timer, e.slot, e.life, e.ref, e.broker
	return qent{due: e.due, seq: e.seq, at: at}
}

// scheduleLate queues a deadline of a kind that waits in later
// (waitsLater), due after now, without a slot of the slab.
func (w *World) scheduleLate(e *lateEnt) {
	w.seq++
	e.seq = w.seq
	q := &w.queue
	if q.regSet && e.due < q.regQ.due {
		q.flushReg() // as enqueue: the register's wake is no longer the head
	}
	if len(q.later) == 0 {
		if cap(q.later) == 0 {
			q.later = make([]lateEnt, 0, firstLater)
		}
		q.laterMin = e.order()
	} else if o := e.order(); before(&o, &q.laterMin) {
		q.laterMin = o
	}
	q.later = append(q.later, *e)
	if len(q.heap)+len(q.later) > w.compactAt {
		w.compact()
	}
}

// waitsLater reports whether an item of kind k not due at once waits in
// queue.later: the deadlines armed for each request, nearly all of which
// are answered first.
func waitsLater(k itemKind) bool { return k == itemProducerTimer || k == itemProduceTimer }

func (h *queue) less(i, j int) bool {
	a, b := &h.heap[i], &h.heap[j]
	if a.due != b.due {
		return a.due < b.due
	}
	return a.seq < b.seq
}

func (w *World) schedule(it item) {
	at, d := w.queue.reserve()
	put(d, &it)
	w.enqueue(at, d)
}

// reserve returns a free slot of the slab, zero, for an item to be written
// in place (an item is some 300 bytes: built elsewhere, it would be copied
// into the slot); enqueue then queues it. Nothing may be scheduled between
// the two: the slab could move.
func (q *queue) reserve() (int32, *item) {
	if n := len(q.free); n > 0 {
		at := q.free[n-1]
		q.free = q.free[:n-1]
		return at, &q.slab[at]
	}
	if cap(q.slab) == 0 {
		q.slab = make([]item, 0, firstSlab)
	}
	q.slab = append(q.slab, item{})
	at := int32(len(q.slab) - 1)
	return at, &q.slab[at]
}

// enqueue queues the item written in slot at (it, as reserve gave it),
// in the order of its due time and, among items due at once, of
// scheduling.
func (w *World) enqueue(at int32, it *item) {
	w.seq++
	q := &w.queue
	it.seq = w.seq
	if q.regSet && it.due < q.regQ.due {
		q.flushReg() // it comes before the register's wake: which then is not the head
	}
	switch e := (qent{due: it.due, seq: it.seq, at: at}); {
	case (it.kind == itemDeliver || it.due <= w.now) && q.lane.fits(it.due):
		q.lane.push(e)
		return
	case it.due <= w.now && q.lane.pushFront(e):
		return
	default:
		if cap(q.heap) == 0 {
			q.heap = make([]qent, 0, firstHeap)
		}
		q.heap = append(q.heap, e)
		q.up(len(q.heap) - 1)
	}
	if len(q.heap)+len(q.later) > w.compactAt {
		w.compact()
	}
}

// put copies it into a slot of the slab, one field at a time: the message
// of an itemDeliver, the other fields of the other kinds (each kind has
// only its own; the rest of a slot stays zero, so release need not clear
// it). Copied whole, an item (304 bytes, a dozen pointers) goes through
// the runtime's bulk write barrier while the collector marks — most of the
// time during a replay — which walks the type's pointer bitmap word by
// word; field by field, each pointer gets the compiler's inline barrier.
// TestPutCopiesAll keeps it complete.
func put(d, it *item) {
	d.due, d.seq, d.kind = it.due, it.seq, it.kind
	if it.kind == itemDeliver {
		f, g := &d.fl, &it.fl
		m, n := &f.m, &g.m
		m.ID, m.From, m.To, m.SentMs, m.Conn, m.ReplyTo, m.Body = n.ID, n.From, n.To, n.SentMs, n.Conn, n.ReplyTo, n.Body
		f.due, f.lost, f.lostHow, f.delayed, f.lostAt, f.to, f.cn, f.dir = g.due, g.lost, g.lostHow, g.delayed, g.lostAt, g.to, g.cn, g.dir
		f.head = g.head
		return
	}
	d.timer, d.slot, d.life, d.ref, d.broker, d.tp, d.txnID = it.timer, it.slot, it.life, it.ref, it.broker, it.tp, it.txnID
	d.conn.opener, d.conn.broker, d.conn.channel, d.conn.n = it.conn.opener, it.conn.broker, it.conn.channel, it.conn.n
}

func (h *queue) up(i int) {
	heap := h.heap
	x := heap[i]
	for i > 0 {
		parent := (i - 1) / 2
		if !before(&x, &heap[parent]) {
			break
		}
		heap[i] = heap[parent]
		i = parent
	}
	heap[i] = x
}

// before is the queue's order: by due time, then by seq.
func before(a, b *qent) bool {
	if a.due != b.due {
		return a.due < b.due
	}
	return a.seq < b.seq
}

// removeTop takes the head off the heap. The last entry, which takes its
// place, is usually due late (a timer far ahead), so the hole left at the
// top goes down to a leaf along the earlier child, one comparison a level,
// and the last entry goes up from there (Floyd's way), instead of sifting
// it down with two comparisons a level.
func (h *queue) removeTop() {
	last := len(h.heap) - 1
	x := h.heap[last]
	heap := h.heap[:last]
	h.heap = heap
	if last == 0 {
		return
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= last {
			break
		}
		if r := c + 1; r < last && before(&heap[r], &heap[c]) {
			c = r
		}
		heap[i] = heap[c]
		i = c
	}
	heap[i] = x
	h.up(i)
}

// compact drops the timers that can never act again: a request timeout
// whose request was answered, a delivery deadline of a finished batch, a
// purgatory timeout of an answered request, a superseded wake. Left in the
// queue they would be dropped when due; with many requests and long
// timeouts they would pile up meanwhile. After compaction the queue holds
// at most twice its live items plus compactSlack, whatever the history.
// The order in which items come due does not change: it is a total order.
func (w *World) compact() {
	q := &w.queue
	kept := q.heap[:0]
	for _, e := range q.heap {
		if w.obsolete(&q.slab[e.at]) {
			q.release(e.at)
			continue
		}
		kept = append(kept, e)
	}
	for i := range q.later {
		if e := &q.later[i]; !w.lateObsolete(e) {
			kept = append(kept, q.place(e))
		}
	}
	q.heap, q.later = kept, q.later[:0]
	for i := len(kept)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
	w.compactAt = 2*len(kept) + compactSlack
	w.sweepAt = 2*len(kept) + sweepSlack
}

// compactSlack keeps small queues from being compacted over and over, as
// sweepSlack does for the compactions a step makes when the next timer
// turns out to be stale (step).
const (
	compactSlack = 64
	sweepSlack   = 8
)

// firstSlab, firstHeap, firstLane and firstLater are the room a new
// world's queue starts with, instead of growing from one item a step at a
// time: a lab schedule keeps some 30 to 70 items queued at its busiest,
// most of them deliveries in the lane, and the heap grows to compactSlack
// before it is compacted. A slab that started smaller would grow to 64 items anyway,
// through chunks of 16 and 32 it copies and drops.
const (
	firstSlab  = 64
	firstHeap  = compactSlack
	firstLane  = 64
	firstLater = compactSlack // a busy world settles them only when compacting
)

// obsolete reports whether an item can never act again, whatever happens
// meanwhile (timers whose condition might come back are kept).
func (w *World) obsolete(it *item) bool {
	switch it.kind {
	case itemWake:
		return it.slot.life != it.life || it.ref != it.slot.wakeGen
	case itemProducerTimer:
		return producerTimerObsolete(it.slot, it.life, it.timer, it.ref)
	case itemProduceTimer:
		return !w.broker(it.broker).HasPending(it.ref)
	case itemCoordTimer:
		return !w.broker(it.broker).CoordinatorTimerLive(it.txnID, it.ref)
	}
	return false
}

// lateObsolete is obsolete for a later timer.
func (w *World) lateObsolete(e *lateEnt) bool {
	if e.kind == itemProducerTimer {
		return producerTimerObsolete(e.slot, e.life, e.timer, e.ref)
	}
	return !w.broker(e.broker).HasPending(e.ref) // itemProduceTimer
}

// producerTimerObsolete reports whether a producer's timer can never act
// again: its incarnation is gone, or the producer no longer waits for it.
func producerTimerObsolete(s *producerSlot, life int, timer client.TimerKind, ref int) bool {
	return s.life != life || s.removed || !s.p.TimerLive(timer, ref)
}

func (h *queue) down(i int) {
	n := len(h.heap)
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h.heap[i], h.heap[m] = h.heap[m], h.heap[i]
		i = m
	}
}

// release returns a payload slot to the free list, zero (reserve hands it
// out so), which also lets the collector have what the item pointed at.
// It clears field by field, for the reason put copies so, and only the
// fields of the item's kind; TestReleaseClearsAll keeps it complete.
func (q *queue) release(at int32) {
	if at == regAt {
		return // the register is cleared as its wake is taken off
	}
	d := &q.slab[at]
	if d.kind == itemDeliver {
		f := &d.fl
		m := &f.m
		m.ID, m.From, m.To, m.SentMs, m.Conn, m.ReplyTo, m.Body = 0, msg.Addr{}, msg.Addr{}, 0, 0, 0, nil
		f.due, f.lost, f.lostHow, f.delayed, f.lostAt, f.to, f.cn, f.dir = 0, false, lostNot, false, 0, nil, nil, 0
		f.head = ""
	} else {
		d.timer, d.slot, d.life, d.ref, d.broker, d.tp, d.txnID = 0, nil, 0, 0, 0, msg.TP{}, ""
		d.conn.opener, d.conn.broker, d.conn.channel, d.conn.n = msg.Addr{}, 0, 0, 0
	}
	d.due, d.seq, d.kind = 0, 0, 0
	q.free = append(q.free, at)
}

// peek returns the next item, or nil; the pointer is valid until the queue changes.
func (w *World) peek() *item {
	e, _ := w.top()
	if e == nil {
		return nil
	}
	return w.queue.itemAt(e.at)
}

// pop removes the next item and returns it.
func (w *World) pop() item {
	q := &w.queue
	top, lane := w.top()
	at := top.at
	it := *q.itemAt(at)
	q.release(at)
	q.removeNext(lane)
	return it
}

// drop removes the next item without returning it.
func (w *World) drop() {
	q := &w.queue
	top, lane := w.top()
	q.release(top.at)
	q.removeNext(lane)
}

// each calls f for every queued item, in no particular order.
func (q *queue) each(f func(it *item)) {
	for _, it := range q.items() {
		f(it)
	}
}
