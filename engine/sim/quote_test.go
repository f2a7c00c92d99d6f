package sim

import (
	"strconv"
	"testing"
)

// appendQuoted quotes as strconv.AppendQuote does, for a partition's name
// and for any text that needs escapes.
func TestAppendQuoted(t *testing.T) {
	for _, s := range []string{"", "orders-0", "a.b_c-12", `q"uote`, `back\slash`, "tab\t", "é", "\x7f", "~ "} {
		if got, want := appendQuoted([]byte("x"), s), strconv.AppendQuote([]byte("x"), s); string(got) != string(want) {
			t.Errorf("appendQuoted(%q) = %s, want %s", s, got, want)
		}
	}
}
