// Package slab hands out values cut from chunks instead of allocating each
// on its own: a message body boxed into an interface costs an allocation,
// and the followers' fetches send two of them a round trip.
package slab

// chunkLen is how many values a chunk holds at most: a pointer to one
// keeps the whole chunk alive, so chunks stay small. The first chunk of a
// slab holds firstLen and each next one twice the last, so that a small
// world (a lab schedule plays a few hundred steps) does not pay for room
// it never uses; a lab schedule's broker cuts some 20 to 60 values from
// each of its slabs, which chunks of 4, 8, 16 and 32 took four
// allocations to hold, and chunks from 16 take one or two.
const (
	chunkLen = 64
	firstLen = 16
)

// grow is the length of the chunk after one of length last.
func grow(last int) int { return min(chunkLen, max(firstLen, 2*last)) }

// Slab hands out values of T. A value handed out is never handed out
// again, so it may be shared (a world's copy shares its messages) for as
// long as anyone points at it. A copy of a Slab (its owner copied with
// it) knows itself for one — it is not where it was last used — and
// starts a chunk of its own instead of cutting from the one it shares.
type Slab[T any] struct {
	at   *Slab[T] // where the chunk was last cut from
	free []T
	last int // the length of the last chunk
}

// New returns a zero T that nobody else has.
func (s *Slab[T]) New() *T {
	if len(s.free) == 0 || s.at != s {
		s.last = grow(s.last)
		s.at, s.free = s, make([]T, s.last)
	}
	v := &s.free[0]
	s.free = s.free[1:]
	return v
}

// Slices hands out small slices of T cut from chunks, each with room for
// the number of values asked for and no more: appending past it moves the
// slice out of the chunk, never into a neighbour's room. As with Slab, a
// slice handed out is never handed out again, and a copy cuts from a
// chunk of its own.
type Slices[T any] struct {
	at   *Slices[T]
	free []T
	last int
}

// Make returns an empty slice with room for n values.
func (s *Slices[T]) Make(n int) []T {
	if n > chunkLen/4 {
		return make([]T, 0, n)
	}
	if len(s.free) < n || s.at != s {
		s.last = max(grow(s.last), n)
		s.at, s.free = s, make([]T, s.last)
	}
	v := s.free[:0:n]
	s.free = s.free[n:]
	return v
}
