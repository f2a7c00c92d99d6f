// Package fileio reads and writes the lab's files with the limits and the
// care users expect: a bounded read that names the file, and a write that
// leaves the old content or the new, never a part.
package fileio

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ReadLimited reads path, which may hold at most limit bytes: a larger
// file, or one that never ends (/dev/zero, an endless pipe), is an error
// naming it once limit+1 bytes have been read. what says what the file is
// ("a script"), for the message.
func ReadLimited(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %s, the most %s may be", path, ByteSize(limit), what)
	}
	return data, nil
}

// ByteSize renders a size such as 16 MiB.
func ByteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// WriteAtomic replaces path with data so that a reader, or a crash, sees
// the old content or the new, never a part: a temporary file in the same
// directory, synced, then renamed over path.
func WriteAtomic(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The rename is durable once the directory is; some systems cannot
	// sync a directory, and the file is already in place then.
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
