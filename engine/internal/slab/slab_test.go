package slab

import "testing"

// TestNewNeverShares: every value is handed out once, and a copy of a
// slab never cuts from the chunk the first still uses.
func TestNewNeverShares(t *testing.T) {
	var s Slab[[2]int]
	seen := map[*[2]int]bool{}
	for i := range 3 * chunkLen {
		v := s.New()
		if seen[v] || *v != [2]int{} {
			t.Fatalf("value %d handed out twice or not zero", i)
		}
		seen[v] = true
		v[0] = i + 1
	}
	c := s // a copy of the owner, with its slab
	for range chunkLen {
		v, w := s.New(), c.New()
		if v == w || seen[v] || seen[w] {
			t.Fatal("the copy cut from the original's chunk")
		}
		seen[v], seen[w] = true, true
		v[0], w[0] = 1, 2
	}
}

// TestMakeNeverShares: slices handed out never overlap, appending past
// one's room leaves its neighbours alone, and a copy cuts from a chunk of
// its own.
func TestMakeNeverShares(t *testing.T) {
	var s Slices[int]
	var got [][]int
	for i := range 3 * chunkLen {
		n := i%5 + 1
		v := s.Make(n)
		if len(v) != 0 || cap(v) != n {
			t.Fatalf("Make(%d): len %d cap %d", n, len(v), cap(v))
		}
		for j := range n {
			v = append(v, i)
			_ = j
		}
		got = append(got, v)
	}
	got[0] = append(got[0], -1) // past its room: moves away
	c := s
	for range chunkLen {
		got = append(got, append(s.Make(2), -2, -2), append(c.Make(3), -3, -3, -3))
	}
	for i, v := range got[1 : 3*chunkLen] {
		for _, x := range v {
			if x != i+1 {
				t.Fatalf("slice %d holds %v: another wrote into it", i+1, v)
			}
		}
	}
	if v := s.Make(chunkLen); cap(v) != chunkLen {
		t.Fatalf("a large slice: cap %d", cap(v))
	}
}

// TestPackedNeverShares: as TestNewNeverShares, for Packed, whose chunks
// grow to what packedBytes holds with an allocation's header.
func TestPackedNeverShares(t *testing.T) {
	type v64 struct {
		p *int
		x [7]int64
	}
	var s Packed[v64]
	seen := map[*v64]bool{}
	const n = 1000
	for i := range n {
		v := s.New()
		if seen[v] || *v != (v64{}) {
			t.Fatalf("value %d handed out twice or not zero", i)
		}
		seen[v] = true
		v.x[0] = int64(i + 1)
	}
	if most := (packedBytes - 8) / 64; s.last != most {
		t.Fatalf("chunks of %d values, want %d", s.last, most)
	}
	c := s
	for range n {
		v, w := s.New(), c.New()
		if v == w || seen[v] || seen[w] {
			t.Fatal("the copy cut from the original's chunk")
		}
		seen[v], seen[w] = true, true
	}
}

// TestSparesKeepsAtMostMax: Take hands back what Give kept, last first,
// and Give keeps nothing past max.
func TestSparesKeepsAtMostMax(t *testing.T) {
	var s Spares[int]
	if s.Take() != nil {
		t.Fatal("an empty list hands out a value")
	}
	a, b, c := new(int), new(int), new(int)
	s.Give(a, 2)
	s.Give(b, 2)
	s.Give(c, 2) // over max: dropped
	if s.Len() != 2 {
		t.Fatalf("len %d, want 2", s.Len())
	}
	if got := s.Take(); got != b {
		t.Fatal("Take does not hand back the last value given")
	}
	if got := s.Take(); got != a {
		t.Fatal("Take does not hand back the first value given")
	}
	if s.Take() != nil || s.Len() != 0 {
		t.Fatal("values left after taking all")
	}
}
