package trace

import (
	"strconv"
	"testing"
)

func ev(i int) Event { e := New("k", strconv.Itoa(i)); e.Step = i; return e }

// check fails unless l shows exactly events from to to-1 of ev's, by
// every way of reading it.
func check(t *testing.T, what string, l Log, n int) {
	t.Helper()
	if l.Len() != n {
		t.Fatalf("%s: %d events, want %d", what, l.Len(), n)
	}
	for i, e := range l.All() {
		if e.Step != i || l.At(i) != e {
			t.Fatalf("%s: event %d is step %d", what, i, e.Step)
		}
	}
	evs := l.Events()
	if len(evs) != n || len(l.AppendTo(nil)) != n {
		t.Fatalf("%s: Events has %d, AppendTo %d", what, len(evs), len(l.AppendTo(nil)))
	}
	for i := range evs {
		if evs[i].Step != i {
			t.Fatalf("%s: Events[%d] is step %d", what, i, evs[i].Step)
		}
	}
	k := n
	for i, e := range l.Backward() {
		if k--; i != k || e.Step != k {
			t.Fatalf("%s: backward %d is %d", what, i, e.Step)
		}
	}
	for _, r := range [][2]int{{0, n}, {n / 3, n / 2}, {max(n-5, 0), n}} {
		s := l.Slice(r[0], r[1])
		if len(s) != r[1]-r[0] || len(s) > 0 && s[0].Step != r[0] {
			t.Fatalf("%s: Slice(%d, %d) is %d events", what, r[0], r[1], len(s))
		}
	}
}

// A Log commits its pending events in order across chunks, and what a
// view, a prefix or a fork shows never changes, whatever the Log or the
// others add or drop afterwards.
func TestLogViewsNeverChange(t *testing.T) {
	var l Log
	n := 0
	add := func(k int) {
		for range k {
			l.Add(ev(n))
			n++
		}
		if got := l.Commit(); len(got) != k || k > 0 && got[0].Step != n-k {
			t.Fatalf("commit of %d returned %d", k, len(got))
		}
	}
	add(10)
	v10 := l.View()
	add(logChunk - 12) // one short of filling the chunk
	add(5)             // straddles
	vStraddle := l.View()
	p := l.Prefix(logChunk + 1)
	f := l.Fork() // shares the last chunk
	l.Add(ev(n))
	l.Drop(1) // dropped: never seen
	add(logChunk + 3)
	// The fork writes into a copy of the chunk it shares.
	for i := f.Len(); i < f.Len()+7; i++ {
		e := ev(i)
		e.Kind = "fork"
		f.Add(e)
	}
	f.Commit()
	pf := p // a prefix appended to is a Log of its own
	pf.Add(Event{Step: p.Len(), Kind: "prefix"})
	pf.Commit()

	check(t, "10", v10, 10)
	check(t, "straddle", vStraddle, logChunk+3)
	check(t, "prefix", p, logChunk+1)
	check(t, "log", l, n)
	check(t, "fork", f, logChunk+3+7)
	check(t, "prefix appended to", pf, logChunk+2)
	if l.At(logChunk+3).Kind != "k" || f.At(logChunk+3).Kind != "fork" || pf.At(logChunk+1).Kind != "prefix" || l.At(logChunk+1).Kind != "k" {
		t.Fatal("a fork or a prefix wrote into the events of another")
	}
}

// Pending events are in no view; TakePending hands out copies and
// discards them, and a fork keeps its own.
func TestLogPending(t *testing.T) {
	var l Log
	l.Add(ev(0))
	l.Commit()
	l.Add(ev(1))
	l.Add(ev(2))
	if l.View().Len() != 1 || l.Pending() != 2 {
		t.Fatalf("view %d, pending %d", l.View().Len(), l.Pending())
	}
	f := l.Fork()
	taken := l.TakePending()
	l.Add(Event{Step: 1, Kind: "later"})
	if len(taken) != 2 || taken[0].Step != 1 || taken[0].Kind != "k" || l.Pending() != 1 {
		t.Fatalf("taken %v, pending %d", taken, l.Pending())
	}
	if got := f.Commit(); len(got) != 2 || got[0].Kind != "k" || f.Len() != 3 {
		t.Fatalf("the fork's pending events: %v", got)
	}
}
