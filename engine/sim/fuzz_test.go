package sim

import (
	"strings"
	"testing"
)

// FuzzWorld drives the engine with command sequences chosen by the fuzzer
// and checks its invariants after every command: no panic, nothing grows
// without bound, and the same commands always give the same trace. Run it
// with `go test ./engine/sim -fuzz FuzzWorld -fuzzminimizetime=1s` (.ci/fuzz).
func FuzzWorld(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0"))
	f.Add([]byte(strings.Repeat("\x00\x2a\x01\x05\x00\x40\x00\x2f", 20)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 400 {
			data = data[:400]
		}
		cmds := sessionFrom(&byteChoices{data: data}, len(data)/4)
		play := func() string {
			w := New(7)
			var b strings.Builder
			for _, c := range cmds {
				evs, _ := w.Apply(c)
				for _, e := range evs {
					b.WriteString(e.Describe())
					b.WriteByte('\n')
				}
				deliveries, others := liveItems(w)
				if n := w.queue.len(); n > 2*(deliveries+others)+compactSlack {
					t.Fatalf("%s: the queue holds %d items of which %d can act", c.Verb(), n, deliveries+others)
				}
				if others > actorBound(w) {
					t.Fatalf("%s: %d timers can act, the state accounts for %d", c.Verb(), others, actorBound(w))
				}
			}
			return b.String()
		}
		if a, b := play(), play(); a != b {
			t.Fatal("the same commands gave two different traces")
		}
	})
}
