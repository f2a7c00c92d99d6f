package hist

// arenaBlock is the size of the blocks an Arena cuts byte strings from.
const arenaBlock = 16 << 10

// Arena stores byte strings that never change once stored (batches as a
// log keeps them or a producer sent them), packed in shared blocks. A
// copy of an Arena must not be used: a world's copy gets a new one.
type Arena struct {
	buf     []byte
	scratch []byte
}

// Scratch returns an empty buffer to build a byte string in; Keep stores
// what was built and takes the buffer back.
func (a *Arena) Scratch() []byte { return a.scratch[:0] }

// Keep returns a stored copy of b, built in the buffer from Scratch.
func (a *Arena) Keep(b []byte) []byte {
	a.scratch = b[:0]
	return a.Copy(b)
}

// Copy returns a copy of data, whose capacity ends with it.
func (a *Arena) Copy(data []byte) []byte {
	if len(data) > arenaBlock/4 {
		return append([]byte(nil), data...)
	}
	if cap(a.buf)-len(a.buf) < len(data) {
		// Blocks grow to arenaBlock: a small world keeps little.
		a.buf = make([]byte, 0, min(arenaBlock, max(1024, 2*cap(a.buf), 4*len(data))))
	}
	// Copied into the room just checked: no second check, as append's.
	start, end := len(a.buf), len(a.buf)+len(data)
	a.buf = a.buf[:end]
	copy(a.buf[start:], data)
	return a.buf[start:end:end]
}
