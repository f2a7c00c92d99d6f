package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLimited(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.eos")
	os.WriteFile(small, []byte("run\n"), 0o644)
	tests := []struct {
		path    string
		limit   int64
		wantErr string
	}{
		{small, 4, ""},
		{small, 3, "small.eos: larger than 3 bytes, the most a script may be"},
		{"/dev/zero", 16 << 20, "/dev/zero: larger than 16 MiB, the most a script may be"},
		{filepath.Join(dir, "none"), 10, "no such file"},
	}
	for _, tt := range tests {
		data, err := ReadLimited(tt.path, tt.limit, "a script")
		switch {
		case tt.wantErr == "" && (err != nil || string(data) != "run\n"):
			t.Errorf("%s: %q, %v", tt.path, data, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want %q", tt.path, err, tt.wantErr)
		}
	}
}

// An atomic write leaves no temporary file behind and replaces the old
// content whole; a write into a missing directory fails and changes nothing.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.eos")
	os.WriteFile(path, []byte("old"), 0o644)
	if err := WriteAtomic(path, []byte("new content")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new content" {
		t.Fatalf("content %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := WriteAtomic(filepath.Join(dir, "no", "such.eos"), []byte("x")); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
}
