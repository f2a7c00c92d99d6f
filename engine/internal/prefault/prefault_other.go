//go:build !linux

package prefault

import "unsafe"

func populate(unsafe.Pointer, uintptr) {}
