package sim

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/eoslab/eoslab/engine/internal/hist"
	"github.com/eoslab/eoslab/engine/script"
)

// The log gives back every action as it was appended, whatever its
// fields: those its short forms leave out (a run as long as its steps, a
// limit of 0 or none) and those they do not (steps going back, numbers
// at the ends of their range, a command named again or not).
func TestActionLogKeepsActions(t *testing.T) {
	run, step := &script.Run{}, &script.Step{N: 1}
	actions := []action{
		{kind: actApply, cmd: run, after: 7},
		{kind: actApply, after: 7},
		{kind: actInput, cmd: run},
		{kind: actStep, at: 3, after: 9, limit: noLimit},
		{kind: actStep, at: 300, after: 900, limit: -5},
		{kind: actStep, at: 0, after: 901},
		{kind: actStep, at: 2, after: 901},
		{kind: actIdle, after: 9, limit: 1000},
		{kind: actAdvance, at: 60_000, after: 2},
		{kind: actClock, at: -1, after: 2},
		{kind: actApply, cmd: step, at: 1},
		{kind: actInput, cmd: run, limit: 1},
		{kind: actStep, cmd: step, at: 1},
		{kind: actIdle, at: 1, limit: 2},
		{kind: actAdvance, at: 1, limit: 2},
		{kind: actClock, cmd: run, at: math.MinInt64, limit: math.MinInt64},
		{kind: actStep, at: math.MaxInt64, after: math.MaxInt64},
		{kind: actApply, cmd: run, after: -1},
		{kind: actApply, cmd: &script.Run{}, after: math.MinInt64},
	}
	var l actionLog
	for _, a := range actions {
		l.Append(a)
		if got, want := l.endsIdle(a.limit), a.kind == actIdle; got != want {
			t.Errorf("after %+v: ends idle within %d %v, want %v", a, a.limit, got, want)
		}
		if l.endsIdle(a.limit + 1) {
			t.Errorf("after %+v: ends idle within %d", a, a.limit+1)
		}
	}
	for i, a := range actions {
		if got := l.At(i); got != a {
			t.Errorf("entry %d: kept %+v, gives back %+v", i, a, got)
		}
	}
	if l.cmds.Len() != 3 {
		t.Errorf("%d commands kept, want 3: the last few are named again, not kept again", l.cmds.Len())
	}
}

// randomAction is an action as a world records them: steps that go on,
// commands often named again, limits mostly none.
func randomAction(rng *rand.Rand, after *int, cmds []script.Command) action {
	a := action{kind: actionKind(1 + rng.IntN(6))}
	switch a.kind {
	case actStep:
		a.at = int64(1 + rng.IntN(3))
		if rng.IntN(8) == 0 {
			a.at = rng.Int64N(1 << 40)
		}
		*after += int(a.at)
		a.limit = noLimit
		if rng.IntN(4) == 0 {
			a.limit = rng.Int64N(1<<20) - 1<<19
		}
	case actApply, actInput:
		a.cmd = cmds[rng.IntN(len(cmds))]
	case actIdle:
		a.limit = noLimit
	default:
		a.at = rng.Int64N(1 << 30)
	}
	a.after = *after
	return a
}

// Appended, cut, copied and appended to again in random order, a log and
// its copies each give back what a plain list of the same actions holds,
// from any entry on: a copy never sees what the other appends.
func TestActionLogAgreesWithList(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	cmds := make([]script.Command, 12)
	for i := range cmds {
		cmds[i] = &script.Step{N: i}
	}
	type pair struct {
		l     actionLog
		want  []action
		after int
	}
	pairs := []*pair{{}}
	for round := range 3000 {
		p := pairs[rng.IntN(len(pairs))]
		switch op := rng.IntN(20); {
		case op == 0 && len(pairs) < 8:
			c := &pair{l: p.l.Clone(), want: append([]action(nil), p.want...), after: p.after}
			pairs = append(pairs, c)
		case op == 1:
			n := rng.IntN(len(p.want) + 1)
			p.l.Truncate(n)
			p.want = p.want[:n]
			if n > 0 {
				p.after = p.want[n-1].after
			}
		default:
			for range 1 + rng.IntN(200) {
				a := randomAction(rng, &p.after, cmds)
				p.l.Append(a)
				p.want = append(p.want, a)
			}
		}
		for k, q := range pairs {
			if q.l.Len() != len(q.want) {
				t.Fatalf("round %d, log %d: %d entries, want %d", round, k, q.l.Len(), len(q.want))
			}
			if len(q.want) == 0 {
				continue
			}
			last := q.want[len(q.want)-1]
			if got, want := q.l.endsIdle(last.limit), last.kind == actIdle; got != want {
				t.Fatalf("round %d, log %d: ends idle %v after %+v", round, k, got, last)
			}
			from := rng.IntN(len(q.want))
			to := min(len(q.want), from+3*markEvery) // a few marks on: the whole log is read at the end
			if round == 2999 {
				from, to = 0, len(q.want)
			}
			r := q.l.reader(from)
			for i := from; i < to; i++ {
				if got := r.next(); got != q.want[i] {
					t.Fatalf("round %d, log %d, entry %d (read from %d): %+v, want %+v", round, k, i, from, got, q.want[i])
				}
			}
		}
	}
}

// A block is sealed before an entry could straddle it and the next one;
// a log cut right after a sealed block's last entry goes on in a new
// block and reads back whole.
func TestActionLogBlockEdge(t *testing.T) {
	var l actionLog
	var want []action
	for l.blocks.Sealed() == 0 {
		a := action{kind: actApply}
		l.Append(a)
		want = append(want, a)
	}
	inFirst := len(want) - 1
	if first, _, _ := l.blocks.At(0); len(first) > hist.BlockSize || len(first) < hist.BlockSize-maxEntry || len(first) != 2*inFirst {
		t.Fatalf("the first block sealed at %d bytes with %d two-byte entries, want %d-%d", len(first), inFirst, hist.BlockSize-maxEntry, hist.BlockSize)
	}
	l.Truncate(inFirst)
	want = want[:inFirst]
	for i := range 3 {
		a := action{kind: actIdle, after: i, limit: noLimit}
		l.Append(a)
		want = append(want, a)
	}
	r := l.reader(0)
	for i, a := range want {
		if got := r.next(); got != a {
			t.Fatalf("entry %d: %+v, want %+v", i, got, a)
		}
	}
}

// Whatever actions are appended — any kind, any numbers, commands named
// again or not — and wherever the log is cut, it reads back what a plain
// list holds.
func FuzzActionLog(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 2, 3, 3, 3, 5, 1, 1, 9}, uint16(3))
	f.Add([]byte{2, 255, 255, 255, 255, 255, 255, 255, 127, 6, 128, 0}, uint16(0))
	cmds := []script.Command{&script.Run{}, &script.Step{N: 1}, &script.Step{N: 2}}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		var l actionLog
		var want []action
		for len(data) >= 4 {
			a := action{kind: actionKind(data[0] % 7), after: int(int8(data[1])) * int(data[2])}
			if c := int(data[3] % 4); c < len(cmds) {
				a.cmd = cmds[c]
			}
			switch {
			case len(data) >= 12:
				a.at = int64(binary.LittleEndian.Uint64(data[4:12]))
				a.limit = int64(data[4]) << 56 >> int(data[5]%64)
				data = data[12:]
			default:
				a.limit = noLimit
				data = data[4:]
			}
			l.Append(a)
			want = append(want, a)
		}
		n := int(cut) % (len(want) + 1)
		l.Truncate(n)
		want = want[:n]
		if l.Len() != n {
			t.Fatalf("%d entries after a cut at %d", l.Len(), n)
		}
		if n > 0 {
			r := l.reader(0)
			for i, a := range want {
				if got := r.next(); got != a {
					t.Fatalf("entry %d: %+v, want %+v", i, got, a)
				}
			}
		}
	})
}
