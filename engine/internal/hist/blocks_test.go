package hist

import (
	"bytes"
	"testing"
)

// Entries appended to Blocks and to a copy of them are found again by
// their offsets, none straddling two blocks, each copy seeing only its
// own after the copy; a cut after a sealed block's last entry goes on in
// a new block.
func TestBlocksKeepEntries(t *testing.T) {
	type entry struct {
		off  int64
		data []byte
	}
	add := func(b *Blocks, list *[]entry, data []byte) {
		off := b.End()
		tail := b.Room(97, 8) // room for the largest entry, as a log asks
		b.Keep(append(tail, data...))
		*list = append(*list, entry{off, data})
	}
	check := func(name string, b *Blocks, list []entry) {
		t.Helper()
		for i, e := range list {
			blk, n, pos := b.At(e.off)
			if pos+len(e.data) > len(blk) || !bytes.Equal(blk[pos:pos+len(e.data)], e.data) {
				t.Fatalf("%s: entry %d at %d (block %d, byte %d) does not read back", name, i, e.off, n, pos)
			}
		}
	}
	var a Blocks
	var ea []entry
	for i := range 3000 {
		add(&a, &ea, bytes.Repeat([]byte{byte(i)}, 1+i%97))
	}
	if a.Sealed() < 2 {
		t.Fatalf("%d blocks sealed", a.Sealed())
	}
	c := a.Clone()
	ec := append([]entry(nil), ea...)
	for i := range 500 {
		add(&a, &ea, []byte{1, byte(i)})
		add(&c, &ec, []byte{2, byte(i), 3})
	}
	check("original", &a, ea)
	check("copy", &c, ec)

	// A cut right after the first sealed block's last entry.
	var cut int
	for i := range ea {
		if _, n, _ := a.At(ea[i].off); n == 1 {
			cut = i
			break
		}
	}
	a.Truncate(ea[cut].off)
	ea = ea[:cut]
	add(&a, &ea, []byte{9, 9})
	if _, n, pos := a.At(ea[cut].off); n != 1 || pos != 0 {
		t.Fatalf("the entry after a cut at a sealed block's end is at block %d, byte %d", n, pos)
	}
	check("cut", &a, ea)
}
