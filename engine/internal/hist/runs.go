package hist

// runsChunkLen is how many entries a chunk of a Runs covers.
const runsChunkLen = 256

// Runs is a vector indexed from 0, as Vec is, kept as runs of equal
// entries: a write of n equal entries costs a run per chunk it covers,
// not n entries, and a chunk holds as many runs as it has (one when its
// entries are all equal). Entries never written read as the zero value.
// Copies are made in constant time, as Vec's: after Clone, the original
// and the copy share every chunk, and each copies a chunk the first time
// it writes to it.
//
// A Runs must be copied only with Clone.
type Runs[T comparable] struct {
	// The first chunk, and the others by index / runsChunkLen - 1: most
	// vectors of a large world are short, and one chunk needs no table.
	first  *runsChunk[T]
	chunks Vec[*runsChunk[T]]
	own    *token // chunks owned by this Runs are written in place
}

// runsInline is how many runs a chunk holds without slices of its own.
const runsInline = 4

// runsChunk holds the entries of one chunk as maximal runs: run j covers
// entries starts[j] to starts[j+1]-1 (the last one to the chunk's end)
// and holds vals[j]; starts[0] is 0, and neighbours hold different values.
// A chunk of a few runs keeps them in its own arrays: one allocation.
type runsChunk[T comparable] struct {
	owner  *token
	starts []uint8
	vals   []T
	s0     [runsInline]uint8
	v0     [runsInline]T
}

// chunk returns chunk c, or nil.
func (r *Runs[T]) chunk(c uint) *runsChunk[T] {
	if c == 0 {
		return r.first
	}
	return r.chunks.Get(int(c - 1))
}

// find returns the run that covers entry off. Most writes are at a
// chunk's last run (a producer's serials are marked as they come), which
// is looked at first.
func (ch *runsChunk[T]) find(off int) int {
	lo, hi := 0, len(ch.starts) // the run is in [lo, hi)
	if int(ch.starts[hi-1]) <= off {
		return hi - 1
	}
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if int(ch.starts[m]) <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// end returns where run j ends: the next run's start, or the chunk's end.
func (ch *runsChunk[T]) end(j int) int {
	if j+1 < len(ch.starts) {
		return int(ch.starts[j+1])
	}
	return runsChunkLen
}

// Get returns entry i.
func (r *Runs[T]) Get(i int) T {
	u := uint(i)
	if ch := r.chunk(u / runsChunkLen); ch != nil {
		return ch.vals[ch.find(int(u%runsChunkLen))]
	}
	var zero T
	return zero
}

// Run returns entry i and how many entries from i on, k ≤ n, hold the
// same value within its chunk's run (k ≥ 1 when n ≥ 1).
func (r *Runs[T]) Run(i, n int) (x T, k int) {
	u := uint(i)
	off := int(u % runsChunkLen)
	k = min(n, runsChunkLen-off)
	ch := r.chunk(u / runsChunkLen)
	if ch == nil {
		return x, k
	}
	j := ch.find(off)
	return ch.vals[j], min(k, ch.end(j)-off)
}

// SetRange sets entries i to i+n-1 (i ≥ 0) to x, as n calls of Set would.
func (r *Runs[T]) SetRange(i, n int, x T) {
	// Most writes (a batch's serials) fall in one chunk this Runs owns:
	// written there at once, without the loop and writable's look-up.
	if u := uint(i); n > 0 && int(u%runsChunkLen)+n <= runsChunkLen {
		var ch *runsChunk[T]
		if c := u / runsChunkLen; c == 0 {
			ch = r.first
		} else {
			ch = r.chunks.Get(int(c - 1))
		}
		if ch != nil && ch.owner == r.own {
			off := int(u % runsChunkLen)
			ch.set(off, off+n, x)
			return
		}
	}
	for n > 0 {
		c, off := i/runsChunkLen, i%runsChunkLen
		k := min(n, runsChunkLen-off)
		r.writable(c).set(off, off+k, x)
		i, n = i+k, n-k
	}
}

// Set sets entry i (i ≥ 0).
func (r *Runs[T]) Set(i int, x T) { r.SetRange(i, 1, x) }

// set writes x over entries lo to hi-1 of the chunk: the runs that cover
// them are replaced by at most three (the part of the first one before
// lo, x, the part of the last one from hi on), then x's run is joined to
// a neighbour that holds x too. Most writes fill a run (a gap between
// the batches marked before) or cut the last one (the serials after the
// latest), which costs no copy of the runs.
func (ch *runsChunk[T]) set(lo, hi int, x T) {
	if last := len(ch.starts) - 1; int(ch.starts[last]) <= lo {
		ch.setLast(last, lo, hi, x)
		return
	}
	a, b := ch.find(lo), ch.find(hi-1)
	at := a // x's run
	switch last := len(ch.starts) - 1; {
	case a == b && int(ch.starts[a]) == lo && ch.end(a) == hi:
		ch.vals[a] = x
	case a == b && a == last:
		v := ch.vals[a]
		if int(ch.starts[a]) < lo {
			ch.starts, ch.vals = append(ch.starts, uint8(lo)), append(ch.vals, x)
			at++
		} else {
			ch.vals[a] = x
		}
		if hi < runsChunkLen {
			ch.starts, ch.vals = append(ch.starts, uint8(hi)), append(ch.vals, v)
		}
	default:
		var starts [3]uint8
		var vals [3]T
		m := 0
		if int(ch.starts[a]) < lo { // the run a goes on before lo
			starts[m], vals[m] = ch.starts[a], ch.vals[a]
			m++
			at++
		}
		starts[m], vals[m] = uint8(lo), x
		m++
		if hi < runsChunkLen && ch.end(b) != hi { // the run b goes on from hi
			starts[m], vals[m] = uint8(hi), ch.vals[b]
			m++
		}
		ch.starts = replace(ch.starts, a, b+1, starts[:m])
		ch.vals = replace(ch.vals, a, b+1, vals[:m])
	}
	if next := at + 1; next < len(ch.vals) && ch.vals[next] == x {
		ch.starts = append(ch.starts[:next], ch.starts[next+1:]...)
		ch.vals = append(ch.vals[:next], ch.vals[next+1:]...)
	}
	if at > 0 && ch.vals[at-1] == x {
		ch.starts = append(ch.starts[:at], ch.starts[at+1:]...)
		ch.vals = append(ch.vals[:at], ch.vals[at+1:]...)
	}
}

// setLast is set for a write inside the last run, the one from start on
// (start ≤ lo): a producer's serials marked as they come. Its runs become
// the part before lo, x's and the part from hi on, the first two joined
// when x's run meets a run before that holds x, as a batch with the same
// shift as the one before it does; x's run meets no run after it, whose
// value is the last run's. It writes no more runs than the result holds.
func (ch *runsChunk[T]) setLast(last, lo, hi int, x T) {
	v := ch.vals[last]
	switch {
	case v == x:
	case int(ch.starts[last]) < lo:
		ch.starts, ch.vals = append(ch.starts, uint8(lo)), append(ch.vals, x)
		if hi < runsChunkLen {
			ch.starts, ch.vals = append(ch.starts, uint8(hi)), append(ch.vals, v)
		}
	case last > 0 && ch.vals[last-1] == x: // the run before x's holds x
		if hi < runsChunkLen {
			ch.starts[last] = uint8(hi)
		} else {
			ch.starts, ch.vals = ch.starts[:last], ch.vals[:last]
		}
	default:
		ch.vals[last] = x
		if hi < runsChunkLen {
			ch.starts, ch.vals = append(ch.starts, uint8(hi)), append(ch.vals, v)
		}
	}
}

// replace puts with in place of s[i:j], in s's array when it fits.
func replace[E any](s []E, i, j int, with []E) []E {
	tail := len(s) - j
	n := i + len(with) + tail
	if n > cap(s) {
		t := make([]E, n, max(n, 2*cap(s)))
		copy(t, s[:i])
		copy(t[i+len(with):], s[j:])
		copy(t[i:], with)
		return t
	}
	s = s[:max(n, len(s))]
	copy(s[i+len(with):], s[j:j+tail])
	copy(s[i:], with)
	return s[:n]
}

// writable returns chunk c, owned by r.
func (r *Runs[T]) writable(c int) *runsChunk[T] {
	if r.own == nil {
		r.own = &token{}
	}
	ch := r.chunk(uint(c))
	if ch != nil && ch.owner == r.own {
		return ch
	}
	nc := &runsChunk[T]{owner: r.own}
	switch {
	case ch == nil:
		nc.starts, nc.vals = nc.s0[:1], nc.v0[:1]
	case len(ch.vals) <= runsInline:
		nc.starts, nc.vals = append(nc.s0[:0], ch.starts...), append(nc.v0[:0], ch.vals...)
	default:
		nc.starts = append(make([]uint8, 0, cap(ch.starts)), ch.starts...)
		nc.vals = append(make([]T, 0, cap(ch.vals)), ch.vals...)
	}
	if c == 0 {
		r.first = nc
	} else {
		r.chunks.Set(c-1, nc)
	}
	return nc
}

// Clone returns a Runs with r's entries that changes independently of r.
func (r *Runs[T]) Clone() Runs[T] {
	r.own = &token{} // r copies the chunks it shares from now on
	return Runs[T]{first: r.first, chunks: r.chunks.Clone(), own: &token{}}
}
