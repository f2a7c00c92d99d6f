package hist

// vecChunkLen is how many entries a chunk of a Vec holds at most.
const vecChunkLen = 128

// Vec is a vector indexed from 0 whose copies are made in constant time:
// after Clone, the original and the copy share every chunk and each copies
// a chunk (and the chunk table) the first time it writes to it. Entries
// never written read as the zero value.
//
// A Vec must be copied only with Clone.
type Vec[T any] struct {
	chunks []*vchunk[T]
	own    *token // chunks owned by this Vec are written in place
	table  *token // the chunk table is this Vec's own when table == own
}

type token struct{ _ byte }

type vchunk[T any] struct {
	owner *token
	v     []T
}

// Get returns entry i.
func (v *Vec[T]) Get(i int) T {
	c := i / vecChunkLen
	if c < len(v.chunks) {
		if ch := v.chunks[c]; ch != nil && i%vecChunkLen < len(ch.v) {
			return ch.v[i%vecChunkLen]
		}
	}
	var zero T
	return zero
}

// Run returns entries i to i+k-1, for the largest k ≤ n that stays in
// i's chunk (k ≥ 1 when n ≥ 1): stored holds a prefix of them, those
// ever written; the rest read as the zero value. stored must not be
// written to and is valid until the Vec's next write.
func (v *Vec[T]) Run(i, n int) (stored []T, k int) {
	c, j := i/vecChunkLen, i%vecChunkLen
	k = min(n, vecChunkLen-j)
	if c < len(v.chunks) {
		if ch := v.chunks[c]; ch != nil && j < len(ch.v) {
			return ch.v[j:min(len(ch.v), j+k)], k
		}
	}
	return nil, k
}

// Set sets entry i.
func (v *Vec[T]) Set(i int, x T) {
	if v.own == nil {
		v.own = &token{}
	}
	c, j := i/vecChunkLen, i%vecChunkLen
	if v.table != v.own {
		v.chunks = append([]*vchunk[T](nil), v.chunks...)
		v.table = v.own
	}
	for len(v.chunks) <= c {
		v.chunks = append(v.chunks, nil)
	}
	ch := v.writable(c, j+1)
	ch.v[j] = x
}

// SetRange sets entries i to i+n-1 to x, as n calls of Set would, a chunk
// at a time: a chunk shared with a copy is copied once, not once an entry.
func (v *Vec[T]) SetRange(i, n int, x T) {
	if n <= 0 {
		return
	}
	if v.own == nil {
		v.own = &token{}
	}
	if v.table != v.own {
		v.chunks = append([]*vchunk[T](nil), v.chunks...)
		v.table = v.own
	}
	last := (i + n - 1) / vecChunkLen
	for len(v.chunks) <= last {
		v.chunks = append(v.chunks, nil)
	}
	for n > 0 {
		c, j := i/vecChunkLen, i%vecChunkLen
		k := min(n, vecChunkLen-j) // entries j to j+k-1 of chunk c
		ch := v.writable(c, j+k)
		s := ch.v[j : j+k]
		for m := range s {
			s[m] = x
		}
		i, n = i+k, n-k
	}
}

// writable returns chunk c, owned by v and at least n entries long, grown
// as Set grows it.
func (v *Vec[T]) writable(c, n int) *vchunk[T] {
	ch := v.chunks[c]
	switch {
	case ch == nil:
		ch = &vchunk[T]{owner: v.own, v: make([]T, n, min(2*n, vecChunkLen))}
		v.chunks[c] = ch
	case ch.owner != v.own:
		m := max(len(ch.v), n)
		cp := &vchunk[T]{owner: v.own, v: make([]T, m, max(m, cap(ch.v)))}
		copy(cp.v, ch.v)
		ch = cp
		v.chunks[c] = ch
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
	v.own, v.table = &token{}, nil // v copies what it shares from now on
	return Vec[T]{chunks: v.chunks[:len(v.chunks):len(v.chunks)], own: &token{}}
}
