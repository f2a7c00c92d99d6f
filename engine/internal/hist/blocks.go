package hist

// Blocks holds a log of byte entries in blocks that never move once
// sealed, for the logs that encode their entries in a few bytes each (a
// world's history, a producer's done batches). An entry never straddles
// two blocks, and is found by its place (an offset): its block's number
// and the byte in the block, BlockPosBits bits of it.
//
// A copy (Clone) shares every entry; the first entry either appends after
// it goes into room of its own (the open block copied, at most
// BlockSize bytes), since the open block's room past its end belongs to
// one Blocks alone.
type Blocks struct {
	full [][]byte // sealed blocks, each at most BlockSize long
	tail []byte   // the open block; tail[len:cap] belongs to this Blocks alone
}

const (
	BlockSize    = 4 << 10
	BlockPosBits = 13 // room for a position at a block's very end
)

// Room returns the open block with room for an entry of up to max bytes
// past its end, for the caller to append the entry to and hand back
// (Keep). The block is sealed and a new one opened when the entry would
// take it past BlockSize; the first block grows as it fills, from room
// for least bytes (Regrown).
func (b *Blocks) Room(max, least int) []byte {
	if len(b.tail)+max > cap(b.tail) { // mostly not: the test inlined, the work apart
		b.grow(max, least)
	}
	return b.tail
}

// grow is Room's work, kept out of line so that Room is inlined.
//
//go:noinline
func (b *Blocks) grow(max, least int) {
	if len(b.tail)+max > BlockSize {
		b.full = append(b.full, b.tail)
		b.tail = nil
	}
	// Full, or shared with a copy: continue in room of its own.
	b.tail = Regrown(b.tail, len(b.full) == 0, least, BlockSize)
}

// Keep takes the open block back, the entry appended to it (within the
// room Room made).
func (b *Blocks) Keep(tail []byte) { b.tail = tail }

// End is the offset where the next entry goes.
func (b *Blocks) End() int64 { return int64(len(b.full))<<BlockPosBits | int64(len(b.tail)) }

// At returns the block the entry at offset off is in, its number and the
// entry's first byte in it. An offset at a sealed block's very end (where
// the entry after that block's last was to go) is the next block's start.
func (b *Blocks) At(off int64) (blk []byte, n, pos int) {
	n, pos = int(off>>BlockPosBits), int(off&(1<<BlockPosBits-1))
	if n < len(b.full) {
		if pos < len(b.full[n]) {
			return b.full[n], n, pos
		}
		n, pos = n+1, 0 // the entry did not fit: it starts the next block
		if n < len(b.full) {
			return b.full[n], n, pos
		}
	}
	return b.tail, n, pos
}

// Offset is the offset of byte pos of block n.
func Offset(n, pos int) int64 { return int64(n)<<BlockPosBits | int64(pos) }

// Truncate keeps the bytes before offset off, the start of an entry.
func (b *Blocks) Truncate(off int64) {
	n, pos := int(off>>BlockPosBits), int(off&(1<<BlockPosBits-1))
	if n < len(b.full) {
		b.tail = b.full[n][:pos:pos]
		b.full = b.full[:n:n]
	} else {
		b.tail = b.tail[:pos:pos] // a copy may still see what follows: the next append moves
	}
}

// Clone returns Blocks sharing b's entries.
func (b *Blocks) Clone() Blocks {
	return Blocks{full: b.full[:len(b.full):len(b.full)], tail: b.tail[:len(b.tail):len(b.tail)]}
}

// Sealed is the number of sealed blocks.
func (b *Blocks) Sealed() int { return len(b.full) }

// Bytes is the room the blocks take.
func (b *Blocks) Bytes() int { return len(b.full)*BlockSize + len(b.tail) }
