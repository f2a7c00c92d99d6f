package trace

import (
	"iter"

	"github.com/eoslab/eoslab/engine/internal/prefault"
)

// logChunk is how many events a chunk of a Log holds (192 KB of them).
const logChunk = 4096

// Log is a trace that grows without ever moving or copying its events:
// they are kept in chunks of a fixed size, and a new chunk starts when
// the last one is full. (One slice growing by doubling would copy the
// whole trace, with the collector's write barrier on its pointers, every
// time it doubled, and leave the old copy to be collected.)
//
// A Log value is also a view of its first Len events, cheap to copy, and
// what a view shows never changes: a Log writes only past the end of
// every view taken of it, and one that shares its last chunk with
// another (a view, a copy of a world) copies that chunk before it writes.
// Events added and not yet committed are pending: no view shows them.
type Log struct {
	chunks [][]Event // each logChunk long; the events are the first n+p
	n      int       // committed events
	p      int       // pending events, after them
	own    bool      // the last chunk is this Log's to write into
	free   []Event   // the last chunk's room past the events, when own
}

// Len is the number of events.
func (l Log) Len() int { return l.n }

// At is event i (shared: do not modify it).
func (l Log) At(i int) *Event {
	if uint(i) >= uint(l.n) {
		panic("trace: event index out of range")
	}
	return &l.chunks[i/logChunk][i%logChunk]
}

// Last is the last event, or nil.
func (l Log) Last() *Event {
	if l.n == 0 {
		return nil
	}
	return l.At(l.n - 1)
}

// View is the Log as a read-only view of its committed events.
func (l Log) View() Log { return l.Prefix(l.n) }

// Prefix is a view of the first n events.
func (l Log) Prefix(n int) Log {
	if n < 0 || n > l.n {
		panic("trace: prefix out of range")
	}
	k := (n + logChunk - 1) / logChunk
	return Log{chunks: l.chunks[:k:k], n: n}
}

// Slice returns events i to j as one slice: shared with the Log when they
// are in one chunk (do not modify it), copied when they straddle two.
func (l Log) Slice(i, j int) []Event {
	if i < 0 || i > j || j > l.n {
		panic("trace: slice out of range")
	}
	return l.slice(i, j)
}

func (l Log) slice(i, j int) []Event {
	if i == j {
		return nil
	}
	c, o := i/logChunk, i%logChunk
	if (j-1)/logChunk == c {
		return l.chunks[c][o : o+j-i : o+j-i]
	}
	out := make([]Event, 0, j-i)
	for k := i; k < j; {
		c, o := k/logChunk, k%logChunk
		e := min(logChunk, o+j-k)
		out = append(out, l.chunks[c][o:e]...)
		k += e - o
	}
	return out
}

// From is events i to the end (see Slice).
func (l Log) From(i int) []Event { return l.Slice(i, l.n) }

// Events is every event as one slice (see Slice): a copy once the Log has
// more than one chunk. For tests and small traces.
func (l Log) Events() []Event { return l.Slice(0, l.n) }

// All yields the events in order.
func (l Log) All() iter.Seq2[int, *Event] {
	return func(yield func(int, *Event) bool) {
		for i := range l.n {
			if !yield(i, &l.chunks[i/logChunk][i%logChunk]) {
				return
			}
		}
	}
}

// Backward yields the events from the last to the first.
func (l Log) Backward() iter.Seq2[int, *Event] {
	return func(yield func(int, *Event) bool) {
		for i := l.n - 1; i >= 0; i-- {
			if !yield(i, &l.chunks[i/logChunk][i%logChunk]) {
				return
			}
		}
	}
}

// Add adds a pending event.
func (l *Log) Add(e Event) { l.AddAt(&e, e.Step, e.TimeMs) }

// AddAt adds a pending event: *e's content, at the given step and time
// (a world stamps its events as it adds them). By pointer, and with the
// room found here while the last chunk has some: an event is 56 bytes,
// and copying it from call to call cost more than writing it.
func (l *Log) AddAt(e *Event, step int, timeMs int64) {
	if len(l.free) == 0 {
		l.room()
	}
	d := &l.free[0]
	l.free = l.free[1:]
	// Field by field: a struct copy would take the collector's bulk write
	// barrier for the event's pointers whenever it is marking.
	d.Step, d.TimeMs, d.Kind, d.Attrs = step, timeMs, e.Kind, e.Attrs
	l.p++
}

// Next adds a pending event of kind k at the given step and time and
// returns it, for the caller to fill in (its Attrs)
// before the Log is used again: the hottest events are written where the
// Log keeps them, instead of built elsewhere and copied in.
//
// The room is the front of free, which a Log that writes keeps: taking
// it costs a length check, where finding it by the events' count cost
// two checks and a chunk's index, eight times a traced produce.
func (l *Log) Next(step int, timeMs int64, k Kind) *Event {
	if len(l.free) == 0 {
		l.room()
	}
	d := &l.free[0]
	l.free = l.free[1:]
	d.Step, d.TimeMs, d.Kind = step, timeMs, k // the rest of the room is zero
	l.p++
	return d
}

// room makes free the room where the next events go.
func (l *Log) room() {
	i := l.n + l.p
	if !l.own {
		// The last chunk may be shared: this Log's events from now on go
		// into a chunk of its own, and into a list of chunks of its own.
		k := i / logChunk
		chunks := l.chunks[:k:k]
		if i%logChunk != 0 {
			c := newChunk(i)
			copy(c, l.chunks[k][:i%logChunk])
			chunks = append(chunks, c)
		}
		l.chunks, l.own = chunks, true
	}
	if i/logChunk == len(l.chunks) {
		l.chunks = append(l.chunks, newChunk(i))
	}
	l.free = l.chunks[i/logChunk][i%logChunk:]
}

// newChunk returns a chunk for the events from i on. A trace past its
// first chunk is a long one, which will fill this one too: its pages are
// asked for at once (prefault), the chunk's 48 page faults taken as one.
func newChunk(i int) []Event {
	c := make([]Event, logChunk)
	if i >= logChunk {
		prefault.Slice(c)
	}
	return c
}

// Pending is the number of pending events. (By pointer: asked after every
// step, and a Log taken by value is copied whole to read one field.)
func (l *Log) Pending() int { return l.p }

// Drop discards the last k pending events.
func (l *Log) Drop(k int) {
	k = min(k, l.p)
	if k == 0 {
		return
	}
	for i := l.n + l.p - k; i < l.n+l.p; i++ {
		l.chunks[i/logChunk][i%logChunk] = Event{} // nothing kept alive by them
	}
	l.p -= k
	i := l.n + l.p // its room again: pending events are in chunks of this Log's own
	l.free = l.chunks[i/logChunk][i%logChunk:]
}

// Commit makes the pending events part of the Log and returns them
// (shared with the Log when they are in one chunk: do not modify them).
func (l *Log) Commit() []Event {
	if l.p == 0 {
		return nil // most steps of an untraced world: not worth a call
	}
	i, j := uint(l.n), uint(l.n+l.p)
	l.n, l.p = l.n+l.p, 0
	if c := i / logChunk; (j-1)/logChunk == c {
		o := i % logChunk
		return l.chunks[c][o : o+j-i : o+j-i] // nearly always: the step's events are in one chunk
	}
	return l.slice(int(i), int(j))
}

// TakePending returns a copy of the pending events and discards them.
func (l *Log) TakePending() []Event {
	evs := append([]Event(nil), l.slice(l.n, l.n+l.p)...)
	l.Drop(l.p)
	return evs
}

// Fork is a copy of the Log that goes on independently, its pending
// events included.
func (l Log) Fork() Log {
	f := l.View()
	for i := l.n; i < l.n+l.p; i++ {
		e := &l.chunks[i/logChunk][i%logChunk]
		f.AddAt(e, e.Step, e.TimeMs)
	}
	return f
}

// AppendTo appends the events to dst.
func (l Log) AppendTo(dst []Event) []Event {
	for c := 0; c*logChunk < l.n; c++ {
		dst = append(dst, l.chunks[c][:min(logChunk, l.n-c*logChunk)]...)
	}
	return dst
}
