package slab

// Spares is a free list of values that nothing points to any more, kept
// to be made anew instead of allocated: a large world's producers and
// connections each send a request or two and go quiet, and the next ones
// take what the quiet ones gave back. It holds at most max values, so
// that many going quiet at once keep a bounded amount of memory alive.
type Spares[T any] struct {
	v []*T
}

// Take returns a kept value, as it was given back, or nil.
func (s *Spares[T]) Take() *T {
	n := len(s.v)
	if n == 0 {
		return nil
	}
	x := s.v[n-1]
	s.v[n-1] = nil // the list no longer keeps it alive
	s.v = s.v[:n-1]
	return x
}

// Give keeps x for Take, unless max values are kept already.
func (s *Spares[T]) Give(x *T, max int) {
	if len(s.v) < max {
		s.v = append(s.v, x)
	}
}

// Len is the number of values kept.
func (s *Spares[T]) Len() int { return len(s.v) }
