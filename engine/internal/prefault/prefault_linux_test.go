package prefault

import (
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// On Linux, Slice must back the pages: memory mapped and never touched is
// resident afterwards (mincore), all its whole pages. A kernel without
// MADV_POPULATE_WRITE (before 5.14) skips the test.
func TestSliceBacksPages(t *testing.T) {
	const pages = 64
	m, err := unix.Mmap(-1, 0, pages*pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if err := unix.Madvise(m[:pageSize], unix.MADV_POPULATE_WRITE); errors.Is(err, unix.EINVAL) {
		t.Skip("this kernel has no MADV_POPULATE_WRITE")
	}
	resident := func() int {
		v := make([]byte, pages)
		if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&v[0]))); e != 0 {
			t.Fatal(e)
		}
		n := 0
		for _, x := range v {
			n += int(x & 1)
		}
		return n
	}
	if n := resident(); n != 1 { // the page the probe above backed
		t.Fatalf("%d pages resident before Slice, want 1", n)
	}
	Slice(m)
	if n := resident(); n != pages {
		t.Fatalf("%d of %d pages resident after Slice", n, pages)
	}
}
