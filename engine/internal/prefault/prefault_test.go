package prefault

import "testing"

// Slice must leave what the memory holds as it was, whatever the type,
// the size and where the slice starts within its pages: asking for pages
// writes nothing. (Under the race detector, its pointer checks also fail
// the test if Slice reaches outside the slice's memory.)
func TestSliceKeepsContents(t *testing.T) {
	type event struct {
		step int
		name string
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"empty", func(t *testing.T) { Slice([]byte(nil)) }},
		{"a page", func(t *testing.T) { bytesKept(t, make([]byte, pageSize), 0) }},
		{"unaligned bytes", func(t *testing.T) { bytesKept(t, make([]byte, 10*pageSize+123), 77) }},
		{"capacity past the length", func(t *testing.T) { bytesKept(t, make([]byte, 100, 8*pageSize), 0) }},
		{"pointers", func(t *testing.T) {
			s := make([]event, 4096)
			for i := range s {
				s[i] = event{i, "e"}
			}
			Slice(s)
			for i, e := range s {
				if e.step != i || e.name != "e" {
					t.Fatalf("event %d is %+v after Slice", i, e)
				}
			}
		}},
	} {
		t.Run(tc.name, tc.run)
	}
}

// bytesKept fills b[from:] with a pattern, asks for its pages and checks
// the pattern.
func bytesKept(t *testing.T, b []byte, from int) {
	t.Helper()
	s := b[from:]
	for i := range s {
		s[i] = byte(i*7 + 1)
	}
	Slice(s)
	for i := range s {
		if s[i] != byte(i*7+1) {
			t.Fatalf("byte %d is %d after Slice, was %d", i, s[i], byte(i*7+1))
		}
	}
}
