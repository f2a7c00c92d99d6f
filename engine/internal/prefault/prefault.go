// Package prefault asks the operating system to back memory the engine
// is about to fill with pages at once, instead of one page fault at a
// time as the first write to each page arrives.
//
// A world that keeps a long trace writes into fresh memory all the time:
// a traced produce keeps about 700 bytes of trace, a page every six
// produces. Measured on a virtual machine, the fault of a fresh page cost
// 1.35 µs, and asking for the pages of a chunk at once (Linux's
// MADV_POPULATE_WRITE) 0.95 µs a page: the fault's own trap, taken once a
// chunk instead of once a page. Faults were a sixth of a traced
// produce's time (docs/performance.md).
//
// It is a hint: nothing the engine computes depends on it, and where the
// system does not offer it (another system, a Linux before 5.14) it does
// nothing.
package prefault

import "unsafe"

// pageSize is the size of the pages asked for: the smallest page of the
// systems it is used on.
const pageSize = 4096

// Slice backs the whole pages within s's capacity, best effort. (Only
// whole pages: the pointer handed over stays within s's own memory, as
// the race detector's pointer checks require.)
func Slice[T any](s []T) {
	n := uintptr(cap(s)) * unsafe.Sizeof(*new(T))
	if n < 2*pageSize {
		return // a page or two: little to save
	}
	p := unsafe.Pointer(unsafe.SliceData(s[:1]))
	skip := -uintptr(p) & (pageSize - 1) // to the first page boundary within s
	if whole := (n - skip) &^ (pageSize - 1); whole > 0 {
		populate(unsafe.Add(p, skip), whole)
	}
}
