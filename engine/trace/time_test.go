package trace

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// FormatTime is seconds with three decimals, as it was written with
// string concatenation.
func TestFormatTime(t *testing.T) {
	old := func(ms int64) string {
		sign := ""
		if ms < 0 {
			sign, ms = "-", -ms
		}
		return sign + strconv.FormatInt(ms/1000, 10) + "." + strconv.FormatInt(1000+ms%1000, 10)[1:] + "s"
	}
	cases := []int64{0, 1, 9, 10, 99, 100, 999, 1000, 1001, 12_345, -1, -999, -1000, -12_345, math.MaxInt64, math.MinInt64 + 1}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		cases = append(cases, rng.Int64N(1<<40)-1<<39)
	}
	for _, ms := range cases {
		if got, want := FormatTime(ms), old(ms); got != want {
			t.Fatalf("FormatTime(%d) = %q, want %q", ms, got, want)
		}
	}
	if got := FormatTime(1_004); got != "1.004s" {
		t.Fatalf("FormatTime(1004) = %q", got)
	}
}
