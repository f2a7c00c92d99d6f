package trace

import (
	"strconv"
	"testing"
)

// QuotedPartition quotes as strconv.Quote does, names that need escapes
// included, whichever name was asked for before.
func TestQuotedPartition(t *testing.T) {
	var s Slab
	for range 2 {
		for _, topic := range []string{"orders", "a.b_c", `q"uote`, `back\slash`, "tab\t", "é", "\x7f", "~ ", ""} {
			for _, p := range []int{0, 0, 3, -1, 1 << 12} {
				want := strconv.Quote(topic + "-" + strconv.Itoa(p))
				if got := s.QuotedPartition(topic, p); got != want {
					t.Fatalf("QuotedPartition(%q, %d) = %s, want %s", topic, p, got, want)
				}
			}
		}
	}
}
