package slab

import "unsafe"

// packedBytes is the size of a Packed chunk at its largest: one of the
// allocator's size classes, filled to within a value.
const packedBytes = 8 << 10

// Packed hands out values of T as Slab does, from chunks that fill the
// allocator's size classes: for values that live as long as their
// neighbours, such as what a world keeps of each of a million producers.
// Slab's chunks of 64 would often waste a fifth of their room: an
// allocation holding pointers that is larger than 512 bytes carries an
// 8-byte header, and 64 values of 64 bytes and the header take the 4 864-
// byte size class. The first chunk holds one value and each next one
// twice the last, up to what packedBytes holds with the header: a world of
// a few producers keeps little more than they need.
type Packed[T any] struct {
	at   *Packed[T] // where the chunk was last cut from
	free []T
	last int // the length of the last chunk
}

// New returns a zero T that nobody else has.
func (s *Packed[T]) New() *T {
	if len(s.free) == 0 || s.at != s {
		var zero T
		most := max(1, (packedBytes-8)/int(unsafe.Sizeof(zero)))
		s.last = min(most, max(1, 2*s.last))
		s.at, s.free = s, make([]T, s.last)
	}
	v := &s.free[0]
	s.free = s.free[1:]
	return v
}
