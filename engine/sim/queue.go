package sim

import (
	"container/heap"

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
)

// item is one due event. Items due at the same time run in the order they
// were scheduled (seq), which keeps the world deterministic.
type item struct {
	due      int64
	seq      uint64
	kind     itemKind
	msg      int // itemDeliver: message id
	producer string
	life     int // producer incarnation the item belongs to
	timer    client.TimerKind
	ref      int // timer reference, purgatory request id
	broker   int
	tp       msg.TP
}

type itemHeap []*item

func (h itemHeap) Len() int { return len(h) }
func (h itemHeap) Less(i, j int) bool {
	if h[i].due != h[j].due {
		return h[i].due < h[j].due
	}
	return h[i].seq < h[j].seq
}
func (h itemHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *itemHeap) Push(x any)   { *h = append(*h, x.(*item)) }
func (h *itemHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

func (w *World) schedule(it *item) {
	w.seq++
	it.seq = w.seq
	heap.Push(&w.queue, it)
}

func (w *World) peek() *item {
	if len(w.queue) == 0 {
		return nil
	}
	return w.queue[0]
}

func (w *World) pop() *item { return heap.Pop(&w.queue).(*item) }
