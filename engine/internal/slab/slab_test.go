package slab

import "testing"

// TestNewNeverShares: every value is handed out once, and a copy of a
// slab under another owner never cuts from the chunk the first still uses.
func TestNewNeverShares(t *testing.T) {
	a, b := new(int), new(int)
	var s Slab[[2]int]
	seen := map[*[2]int]bool{}
	for i := range 3 * chunkLen {
		v := s.New(a)
		if seen[v] || *v != [2]int{} {
			t.Fatalf("value %d handed out twice or not zero", i)
		}
		seen[v] = true
		v[0] = i + 1
	}
	c := s // a copy of the owner, with its slab
	for range chunkLen {
		v, w := s.New(a), c.New(b)
		if v == w || seen[v] || seen[w] {
			t.Fatal("the copy cut from the original's chunk")
		}
		seen[v], seen[w] = true, true
		v[0], w[0] = 1, 2
	}
}
