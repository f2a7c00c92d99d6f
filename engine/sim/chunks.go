package sim

import "iter"

// chunkShift makes chunkSize, how many entries one chunk holds: 2 048
// entries of 16 or 24 bytes are a large allocation of whole pages (more
// than 32 KB), which carries no header, where 1 024 of 24 bytes holding
// pointers would be rounded up past their 24 KB and the header to the
// next size class, an eighth more.
const (
	chunkShift = 11
	chunkSize  = 1 << chunkShift
)

// chunks is a list stored in chunks of chunkSize entries, so that growing
// it never copies what is already there and leaves nothing behind for the
// collector: the world's producers and the checker's tables of them grow
// to a million entries in a large world, where a slice grown by append
// would copy them over and over (by a quarter each time). The first chunk
// grows as it fills, from a few entries: most worlds are small. Entries
// may be changed in place.
type chunks[T any] struct {
	c [][]T // whole: entry i is c[i>>chunkShift][i&(chunkSize-1)], those from n on zero
	n int
}

// firstChunk is the room the first chunk starts with.
const firstChunk = 2

func (l *chunks[T]) append(v T) {
	k, j := uint(l.n)>>chunkShift, uint(l.n)&(chunkSize-1)
	if k >= uint(len(l.c)) || j >= uint(len(l.c[k])) {
		l.grow()
	}
	l.c[k][j] = v
	l.n++
}

// grow makes room for entry n: a new chunk, or the first one doubled.
func (l *chunks[T]) grow() {
	switch k := len(l.c) - 1; {
	case k < 0:
		l.c = append(l.c, make([]T, firstChunk))
	case len(l.c[k]) == chunkSize:
		l.c = append(l.c, make([]T, chunkSize))
	default: // the first chunk
		t := make([]T, min(chunkSize, 2*len(l.c[k])))
		copy(t, l.c[k])
		l.c[k] = t
	}
}

func (l *chunks[T]) len() int { return l.n }

// at returns a pointer to entry i, valid until the next append.
func (l *chunks[T]) at(i int) *T { return &l.c[uint(i)>>chunkShift][uint(i)&(chunkSize-1)] }

// all yields every entry with its index, in order.
func (l *chunks[T]) all() iter.Seq2[int, *T] {
	return func(yield func(int, *T) bool) {
		for k, ch := range l.c {
			for j := range min(len(ch), l.n-k*chunkSize) {
				if !yield(k*chunkSize+j, &ch[j]) {
					return
				}
			}
		}
	}
}

// clone returns a copy of the list that changes independently of l (its
// entries copied as they are).
func (l *chunks[T]) clone() chunks[T] {
	d := chunks[T]{c: make([][]T, len(l.c)), n: l.n}
	for k, ch := range l.c {
		d.c[k] = append(make([]T, 0, len(ch)), ch...)
	}
	return d
}
