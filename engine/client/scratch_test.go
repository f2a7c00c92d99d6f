package client

import (
	"bytes"
	"testing"
)

// TestScratchKeep checks that what keep returns is never written again:
// not by the batches encoded after it into the same chunk, whether they
// fit their room, outgrew it or were given room of their own.
func TestScratchKeep(t *testing.T) {
	// The second list fills its first chunk (1 KB) to the last byte first.
	for _, list := range [][]keptBatch{
		{{100, 60}, {100, 100}, {10, 2000}, {5000, 4000}, {900, 900}, {64, 3}, {8000, 10}, {1000, 700}, {1000, 1000}},
		{{100, 1024}, {5000, 4000}, {10, 5}, {2000, 2000}, {10, 5}},
	} {
		scratchKeep(t, list)
	}
}

// keptBatch is a batch's room asked for and its size.
type keptBatch struct{ room, size int }

func scratchKeep(t *testing.T, list []keptBatch) {
	var sc Scratch
	type kept struct{ got, want []byte }
	var all []kept
	fill := func(n int, c byte) []byte { return bytes.Repeat([]byte{c}, n) }
	for i, c := range list {
		data := fill(c.size, byte('a'+i))
		b := sc.keep(append(sc.room(c.room), data...))
		if !bytes.Equal(b, data) || cap(b) != len(b) {
			t.Fatalf("batch %d: kept %d bytes (capacity %d), want %d", i, len(b), cap(b), len(data))
		}
		all = append(all, kept{b, data})
		for j, k := range all {
			if !bytes.Equal(k.got, k.want) {
				t.Fatalf("batch %d changed once batch %d was kept", j, i)
			}
		}
	}
}
