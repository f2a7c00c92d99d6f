package hist

// vecChunkLen is how many entries a chunk of a Vec holds at most, and
// vecPageLen how many chunks a page of its table points to at most.
const (
	vecChunkLen = 128
	vecPageLen  = 128
)

// Vec is a vector indexed from 0 whose copies are made in constant time:
// after Clone, the original and the copy share every chunk and each copies
// a chunk (and the part of the table that points to it) the first time it
// writes to it. Entries never written read as the zero value.
//
// The table is in two levels, pages of chunk pointers under a top table
// of pages, so that the first write after a Clone copies one page (at most
// vecPageLen pointers) and a top table of len/(vecChunkLen·vecPageLen)
// pointers, not a pointer per chunk: a world takes a checkpoint (a Clone)
// every few hundred steps, and a vector indexed by sequence number grows
// with its history.
//
// A Vec must be copied only with Clone.
type Vec[T any] struct {
	pages []*vpage[T]
	own   *token // pages and chunks owned by this Vec are written in place
	top   *token // the top table is this Vec's own when top == own
}

type token struct{ _ byte }

type vpage[T any] struct {
	owner  *token
	chunks []*vchunk[T]
}

type vchunk[T any] struct {
	owner *token
	v     []T
}

// chunk returns chunk c, or nil. Indexes are unsigned here, so that
// dividing them is a shift (and a negative one is past the end).
func (v *Vec[T]) chunk(c uint) *vchunk[T] {
	if p := c / vecPageLen; p < uint(len(v.pages)) {
		if pg := v.pages[p]; pg != nil && c%vecPageLen < uint(len(pg.chunks)) {
			return pg.chunks[c%vecPageLen]
		}
	}
	return nil
}

// Get returns entry i.
func (v *Vec[T]) Get(i int) T {
	u := uint(i)
	if ch := v.chunk(u / vecChunkLen); ch != nil && u%vecChunkLen < uint(len(ch.v)) {
		return ch.v[u%vecChunkLen]
	}
	var zero T
	return zero
}

// Run returns entries i to i+k-1, for the largest k ≤ n that stays in
// i's chunk (k ≥ 1 when n ≥ 1): stored holds a prefix of them, those
// ever written; the rest read as the zero value. stored must not be
// written to and is valid until the Vec's next write.
func (v *Vec[T]) Run(i, n int) (stored []T, k int) {
	c, j := uint(i)/vecChunkLen, int(uint(i)%vecChunkLen)
	k = min(n, vecChunkLen-j)
	if ch := v.chunk(c); ch != nil && j < len(ch.v) {
		return ch.v[j:min(len(ch.v), j+k)], k
	}
	return nil, k
}

// Set sets entry i.
func (v *Vec[T]) Set(i int, x T) {
	// Most writes go to a chunk this Vec already owns, through a page and
	// a top table it owns too, and within the chunk's room: written in
	// place, as writable would, without its walk. Anything shared with a
	// copy, or not there yet, goes through writable.
	u := uint(i)
	c, j := u/vecChunkLen, u%vecChunkLen
	if p := c / vecPageLen; v.top == v.own && p < uint(len(v.pages)) {
		if pg := v.pages[p]; pg != nil && pg.owner == v.own && c%vecPageLen < uint(len(pg.chunks)) {
			if ch := pg.chunks[c%vecPageLen]; ch != nil && ch.owner == v.own && j < uint(cap(ch.v)) {
				if j >= uint(len(ch.v)) {
					ch.v = ch.v[:j+1] // never written past its length: zero there
				}
				ch.v[j] = x
				return
			}
		}
	}
	k := i % vecChunkLen
	v.writable(i/vecChunkLen, k+1).v[k] = x
}

// SetRange sets entries i to i+n-1 to x, as n calls of Set would, a chunk
// at a time: a chunk shared with a copy is copied once, not once an entry.
func (v *Vec[T]) SetRange(i, n int, x T) {
	for n > 0 {
		c, j := i/vecChunkLen, i%vecChunkLen
		k := min(n, vecChunkLen-j) // entries j to j+k-1 of chunk c
		s := v.writable(c, j+k).v[j : j+k]
		for m := range s {
			s[m] = x
		}
		i, n = i+k, n-k
	}
}

// writable returns chunk c, owned by v and at least n entries long, grown
// as Set grows it, with the page and the top table that lead to it owned
// by v too.
func (v *Vec[T]) writable(c, n int) *vchunk[T] {
	if v.own == nil {
		v.own = &token{}
	}
	if v.top != v.own {
		v.pages = append([]*vpage[T](nil), v.pages...)
		v.top = v.own
	}
	p, k := c/vecPageLen, c%vecPageLen
	for len(v.pages) <= p {
		v.pages = append(v.pages, nil)
	}
	pg := v.pages[p]
	switch {
	case pg == nil:
		pg = &vpage[T]{owner: v.own}
		v.pages[p] = pg
	case pg.owner != v.own:
		pg = &vpage[T]{owner: v.own, chunks: append(make([]*vchunk[T], 0, cap(pg.chunks)), pg.chunks...)}
		v.pages[p] = pg
	}
	for len(pg.chunks) <= k {
		pg.chunks = append(pg.chunks, nil)
	}
	ch := pg.chunks[k]
	switch {
	case ch == nil:
		// A chunk past the first is whole from the start: a vector that has
		// grown past one mostly grows on through it (a producer's
		// sequences), and doubling up to it left as much to the collector.
		room := vecChunkLen
		if p == 0 && k == 0 {
			room = min(2*n, vecChunkLen)
		}
		ch = &vchunk[T]{owner: v.own, v: make([]T, n, max(n, room))}
		pg.chunks[k] = ch
	case ch.owner != v.own:
		m := max(len(ch.v), n)
		cp := &vchunk[T]{owner: v.own, v: make([]T, m, max(m, cap(ch.v)))}
		copy(cp.v, ch.v)
		ch = cp
		pg.chunks[k] = ch
	case n > len(ch.v):
		if n > cap(ch.v) {
			nv := make([]T, n, min(2*n, vecChunkLen))
			copy(nv, ch.v)
			ch.v = nv
		} else {
			ch.v = ch.v[:n]
		}
	}
	return ch
}

// Clone returns a Vec with v's entries that changes independently of v.
func (v *Vec[T]) Clone() Vec[T] {
	v.own, v.top = &token{}, nil // v copies what it shares from now on
	return Vec[T]{pages: v.pages[:len(v.pages):len(v.pages)], own: &token{}}
}
