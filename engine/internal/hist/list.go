// Package hist holds the engine's append-only collections: what grows with
// the history of a world (logs, the commands it was given, the batches a
// producer made, the records the checker has judged). A copy made with
// Clone shares everything already there, so that copying a world — a
// time-travel checkpoint, a fork — costs the same at any history length.
package hist

// chunkLen is how many entries a chunk of a List holds.
const chunkLen = 256

// List is an append-only list stored in fixed-size chunks. Entries are
// never changed once appended; Truncate drops a suffix. Clone returns a
// List that shares every entry: either may append afterwards without the
// other seeing it, and the first append after a Clone copies at most one
// chunk.
//
// A List must be copied only with Clone: two plain copies of one List
// would append into the same memory.
type List[T any] struct {
	full [][]T // sealed chunks, each chunkLen long
	tail []T   // the open chunk; tail[len:cap] belongs to this List alone
	n    int
}

// Len is the number of entries.
func (l *List[T]) Len() int { return l.n }

// At returns entry i.
func (l *List[T]) At(i int) T { return *l.Ptr(i) }

// Ptr returns a pointer to entry i, for reading only.
func (l *List[T]) Ptr(i int) *T {
	u := uint(i) // unsigned: dividing is a shift, and a negative i is past the end
	if c := u / chunkLen; c < uint(len(l.full)) {
		return &l.full[c][u%chunkLen]
	}
	return &l.tail[u-uint(len(l.full))*chunkLen]
}

// Last returns a pointer to the last entry (for reading only), or nil.
func (l *List[T]) Last() *T {
	if l.n == 0 {
		return nil
	}
	return l.Ptr(l.n - 1)
}

// Append adds v at the end.
func (l *List[T]) Append(v T) {
	if len(l.tail) == cap(l.tail) {
		// Full, or shared with a copy: continue in a chunk of its own.
		l.tail = Regrown(l.tail, len(l.full) == 0, 1, chunkLen)
	}
	l.tail = append(l.tail, v)
	l.n++
	if len(l.tail) == chunkLen {
		l.full = append(l.full, l.tail)
		l.tail = nil
	}
}

// Regrown returns tail copied into room of its own, for at least one more
// entry: a chunk of size, or for the first chunk (first) fourfold the
// entries it holds, at least least. The first chunk of an append-only
// collection grows as it fills (most of a small world's stay short), and
// fourfold: doubling left the chunks it outgrew, as much again as the
// last, to the collector (a replayed world's logs and lists, 6 % of what
// a replay allocates).
func Regrown[T any](tail []T, first bool, least, size int) []T {
	c := size
	if first {
		c = min(size, max(least, 4*len(tail)))
	}
	t := make([]T, len(tail), c)
	copy(t, tail)
	return t
}

// Reserve gives an empty list room for its first n entries (at most a
// chunk) at once, for a list that is known to grow past a few: the first
// chunk otherwise grows from one entry, doubling.
func (l *List[T]) Reserve(n int) {
	if l.n == 0 && cap(l.tail) < n {
		l.tail = make([]T, 0, min(n, chunkLen))
	}
}

// Truncate keeps the first n entries.
func (l *List[T]) Truncate(n int) {
	if n >= l.n {
		return
	}
	if n < 0 {
		n = 0
	}
	c, k := n/chunkLen, n%chunkLen
	if c < len(l.full) {
		t := make([]T, k, chunkLen)
		if c == 0 {
			t = make([]T, k, min(chunkLen, max(1, 2*k)))
		}
		copy(t, l.full[c])
		l.full, l.tail = l.full[:c:c], t
	} else {
		l.tail = l.tail[:k:k] // a copy may still see what follows: the next append moves
	}
	l.n = n
}

// Clone returns a List sharing l's entries.
func (l *List[T]) Clone() List[T] {
	return List[T]{full: l.full[:len(l.full):len(l.full)], tail: l.tail[:len(l.tail):len(l.tail)], n: l.n}
}

// All calls f for each entry from index from on, in order, until f returns false.
func (l *List[T]) All(from int, f func(i int, v *T) bool) {
	for i := from; i < l.n; {
		c := i / chunkLen
		var chunk []T
		base := c * chunkLen
		if c < len(l.full) {
			chunk = l.full[c]
		} else {
			chunk = l.tail
		}
		for j := i - base; j < len(chunk); j++ {
			if !f(base+j, &chunk[j]) {
				return
			}
		}
		i = base + len(chunk)
	}
}
