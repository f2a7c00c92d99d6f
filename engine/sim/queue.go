package sim

import (
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
)

// item is one due event. Items due at the same time run in the order they
// were scheduled (seq), which keeps the world deterministic.
type item struct {
	due    int64
	seq    uint64
	kind   itemKind
	flight *flight       // itemDeliver: the message
	slot   *producerSlot // itemWake, itemProducerTimer: the producer
	life   int           // producer incarnation the item belongs to
	timer  client.TimerKind
	ref    int // timer reference, purgatory request id
	broker int
	tp     msg.TP
	txnID  string  // itemCoordTimer
	conn   connKey // itemConnClosed
}

// itemHeap is a binary min-heap of items by (due, seq), kept as values so
// that scheduling allocates nothing.
type itemHeap []item

func (h itemHeap) less(i, j int) bool {
	if h[i].due != h[j].due {
		return h[i].due < h[j].due
	}
	return h[i].seq < h[j].seq
}

func (w *World) schedule(it item) {
	w.seq++
	it.seq = w.seq
	h := append(w.queue, it)
	h.up(len(h) - 1)
	w.queue = h
	if len(h) > w.compactAt {
		w.compact()
	}
}

func (h itemHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

// compact drops the timers that can never act again: a request timeout
// whose request was answered, a delivery deadline of a finished batch, a
// purgatory timeout of an answered request, a superseded wake. Left in the
// queue they would be dropped when due; with many requests and long
// timeouts they would pile up meanwhile. After compaction the queue holds
// at most twice its live items plus compactSlack, whatever the history.
// The order in which items come due does not change: it is a total order.
func (w *World) compact() {
	kept := w.queue[:0]
	for _, it := range w.queue {
		if !w.obsolete(&it) {
			kept = append(kept, it)
		}
	}
	clear(w.queue[len(kept):])
	for i := len(kept)/2 - 1; i >= 0; i-- {
		kept.down(i)
	}
	w.queue = kept
	w.compactAt = 2*len(kept) + compactSlack
}

// compactSlack keeps small queues from being compacted over and over.
const compactSlack = 64

// obsolete reports whether an item can never act again, whatever happens
// meanwhile (timers whose condition might come back are kept).
func (w *World) obsolete(it *item) bool {
	switch it.kind {
	case itemWake:
		return it.slot.life != it.life || it.ref != it.slot.wakeGen
	case itemProducerTimer:
		return it.slot.life != it.life || it.slot.removed || !it.slot.p.TimerLive(it.timer, it.ref)
	case itemProduceTimer:
		b := w.broker(it.broker)
		return !b.HasPending(it.ref)
	case itemCoordTimer:
		return !w.broker(it.broker).CoordinatorTimerLive(it.txnID, it.ref)
	}
	return false
}

func (h itemHeap) down(i int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h.less(l, m) {
			m = l
		}
		if r < len(h) && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// peek returns the next item, or nil; the pointer is valid until the queue changes.
func (w *World) peek() *item {
	if len(w.queue) == 0 {
		return nil
	}
	return &w.queue[0]
}

func (w *World) pop() item {
	h := w.queue
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = item{} // let the collector have what it pointed to
	h = h[:last]
	h.down(0)
	w.queue = h
	return top
}
