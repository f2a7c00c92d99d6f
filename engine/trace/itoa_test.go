package trace

import (
	"math"
	"strconv"
	"testing"
)

// AppendInt writes what strconv.AppendInt writes in base 10, at every
// length of number, into a buffer with room to spare or without.
func TestAppendInt(t *testing.T) {
	vals := []int64{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for p := int64(1); p < math.MaxInt64/10; p *= 10 {
		vals = append(vals, p-1, p, p+1, 7*p, -p, -(p - 1))
	}
	for _, v := range vals {
		for _, b := range [][]byte{nil, []byte("x"), make([]byte, 3, 64)} {
			want := strconv.AppendInt(append([]byte(nil), b...), v, 10)
			if got := AppendInt(append([]byte(nil), b...), v); string(got) != string(want) {
				t.Fatalf("AppendInt(%q, %d) = %q, want %q", b, v, got, want)
			}
		}
	}
}

func FuzzAppendInt(f *testing.F) {
	f.Add(int64(0), "")
	f.Add(int64(math.MinInt64), "pid ")
	f.Fuzz(func(t *testing.T, v int64, prefix string) {
		want := strconv.AppendInt([]byte(prefix), v, 10)
		if got := AppendInt([]byte(prefix), v); string(got) != string(want) {
			t.Fatalf("AppendInt(%q, %d) = %q, want %q", prefix, v, got, want)
		}
	})
}

func BenchmarkAppendInt(b *testing.B) {
	var buf [64]byte
	b.Run("strconv", func(b *testing.B) {
		for i := range b.N {
			_ = strconv.AppendInt(buf[:0], int64(i), 10)
		}
	})
	b.Run("trace", func(b *testing.B) {
		for i := range b.N {
			_ = AppendInt(buf[:0], int64(i))
		}
	})
}

// A produce path's mix of numbers: mostly two to five digits.
var intMix = [...]int64{23, 456, 1234, 5678, 12345, 3, 99, 123456, 4321, 87, 7777, 31337}

func BenchmarkAppendIntMix(b *testing.B) {
	var buf [64]byte
	for range b.N {
		for _, v := range intMix {
			_ = AppendInt(buf[:0], v)
		}
	}
}
