package prefault

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

func populate(p unsafe.Pointer, n uintptr) {
	_ = unix.Madvise(unsafe.Slice((*byte)(p), n), unix.MADV_POPULATE_WRITE) // a hint: a kernel without it says EINVAL
}
