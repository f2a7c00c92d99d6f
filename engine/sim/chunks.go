package sim

// chunkSize is how many entries one chunk holds.
const chunkSize = 1024

// chunks is an append-only list stored in fixed-size chunks, so that
// growing it never copies what is already there: the world's history and
// the checker's acknowledgements grow with every step of a long run.
type chunks[T any] struct {
	c [][]T
	n int
}

func (l *chunks[T]) append(v T) {
	if l.n%chunkSize == 0 {
		l.c = append(l.c, make([]T, 0, chunkSize))
	}
	last := len(l.c) - 1
	l.c[last] = append(l.c[last], v)
	l.n++
}

func (l *chunks[T]) len() int { return l.n }

// at returns a pointer to entry i, valid for the life of the list.
func (l *chunks[T]) at(i int) *T { return &l.c[i/chunkSize][i%chunkSize] }
