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
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
	w.queue = h
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
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h.less(l, m) {
			m = l
		}
		if r < len(h) && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	w.queue = h
	return top
}
