package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// script100k is a script of 100 000 commands: two producers sending to
// every partition, steps, lost answers and held requests now and then.
func script100k() string {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("producer p1\nproducer p2\n")
	for n := 2; n < 100_000; n++ {
		switch r := rng.IntN(100); {
		case r < 45:
			fmt.Fprintf(&b, "send p%d orders-%d %d\n", 1+rng.IntN(2), rng.IntN(3), 1+rng.IntN(3))
		case r < 50:
			fmt.Fprintf(&b, "lose response p%d\n", 1+rng.IntN(2))
		case r < 53:
			fmt.Fprintf(&b, "delay request p%d\n", 1+rng.IntN(2))
		default:
			fmt.Fprintf(&b, "step %d\n", 1+rng.IntN(10))
		}
	}
	return b.String()
}

// BenchmarkPlay is `eoslab play` of a 100 000-command script, its text
// transcript written nowhere (budget: 3 s; its memory is measured with
// /usr/bin/time on the CLI, docs/performance.md).
func BenchmarkPlay(b *testing.B) {
	path := filepath.Join(b.TempDir(), "100k.eos")
	if err := os.WriteFile(path, []byte(script100k()), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if code := run([]string{"play", path}, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
