package sim

import (
	"encoding/binary"
	"math"

	"github.com/eoslab/eoslab/engine/internal/hist"
	"github.com/eoslab/eoslab/engine/script"
)

// actionLog is the world's history but for its open run of steps: each
// action encoded in a few bytes, in blocks that never move once written,
// and the commands the actions name kept apart, a command named again
// soon after (a caller sending one command over and over, `run` after
// each) kept once. A produce in a loop — a send, a run, its steps, the
// idle look that ends the run — takes about a dozen bytes, where entries
// of 32 bytes, each with a pointer for the collector to follow, took 128.
//
// Entries never change once appended, so a Clone shares them all, as
// hist.List does, and the first append after it copies at most the open
// block. Reading is in order from an entry (reader); every markEvery-th
// entry's place is marked, so that a reader starts near any entry.
//
// An entry is a flags byte (the kind in the low bits) and varints:
//
//	flags      kind | oldCmd | hasAt | hasLimit | limitMax | newCmd
//	after      zigzag: the steps since the entry before
//	cmd        oldCmd: zigzag, how far back in cmds its command is (0: the last);
//	           newCmd: none, the command is the next one in cmds
//	at         hasAt: zigzag; without it, at is 0, or the steps since
//	           the entry before for a run of steps (actStep)
//	limit      hasLimit: zigzag; without it, limit is 0, or
//	           math.MaxInt64 with limitMax
type actionLog struct {
	blocks hist.Blocks
	marks  hist.List[logState]
	cmds   hist.List[script.Command]
	n      int      // entries
	end    logState // where the next entry goes
	// The last entry's limit when it is an idle step (idle), and the last
	// two commands of cmds (named again most often): what appending
	// looks at, kept so that it need not read them back.
	idle     int64
	idleLast bool
	cmd0     script.Command
	cmd1     script.Command
}

// logState is where a reader is: the entry's first byte and what the
// entry before left (its after, the commands so far).
type logState struct {
	off   int64 // the entry's place in blocks (hist.Blocks.At)
	after int64
	cmds  int64
}

const (
	markEvery = 64

	flagOldCmd   = 1 << 3
	flagAt       = 1 << 4
	flagLimit    = 1 << 5
	flagLimitMax = 1 << 6
	flagNewCmd   = 1 << 7

	maxEntry = 1 + 4*binary.MaxVarintLen64
)

// Len is the number of entries.
func (l *actionLog) Len() int { return l.n }

// endsIdle reports whether the last entry is an idle step within limit.
func (l *actionLog) endsIdle(limit int64) bool { return l.idleLast && l.idle == limit }

// Append adds a at the end.
func (l *actionLog) Append(a action) {
	if uint(l.n)%markEvery == 0 {
		l.marks.Append(l.end)
	}
	// Encoded in place, in the room made for an entry of any size.
	t := l.blocks.Room(maxEntry, 64)
	e := (*[maxEntry]byte)(t[len(t) : len(t)+maxEntry]) // one bounds check for the fixed places
	flags := byte(a.kind)
	delta := int64(a.after) - l.end.after
	k := 2
	if u := uint64(delta)<<1 ^ uint64(delta>>63); u < 0x80 { // putVarint's first case, inlined: nearly every entry's
		e[1] = byte(u)
	} else {
		k = 1 + putLongVarint(e[1:], delta)
	}
	switch {
	case a.cmd == nil:
	case a.cmd == l.cmd0: // commands are pointers, never changed once given
		flags |= flagOldCmd
		e[k] = 0 // putVarint(e[k:], 0)
		k++
	case a.cmd == l.cmd1:
		flags |= flagOldCmd
		e[k] = 2 // putVarint(e[k:], 1)
		k++
	default:
		flags |= flagNewCmd
		l.cmds.Append(a.cmd)
		l.end.cmds++
		l.cmd0, l.cmd1 = a.cmd, l.cmd0
	}
	if a.at != defaultAt(a.kind, delta) {
		flags |= flagAt
		k += putVarint(e[k:], a.at)
	}
	switch a.limit {
	case 0:
	case math.MaxInt64:
		flags |= flagLimitMax
	default:
		flags |= flagLimit
		k += putVarint(e[k:], a.limit)
	}
	e[0] = flags
	l.blocks.Keep(t[:len(t)+k])
	l.end.off = l.blocks.End()
	l.end.after = int64(a.after)
	l.idle, l.idleLast = a.limit, a.kind == actIdle
	l.n++
}

// putVarint is binary.PutVarint, a small number's one byte written
// without its loop.
func putVarint(e []byte, v int64) int {
	if u := uint64(v)<<1 ^ uint64(v>>63); u < 0x80 {
		e[0] = byte(u)
		return 1
	}
	return putLongVarint(e, v)
}

// putLongVarint is binary.PutVarint, kept out of line so that putVarint
// is inlined.
//
//go:noinline
func putLongVarint(e []byte, v int64) int { return binary.PutVarint(e, v) }

// defaultAt is the at an entry keeps without its own: a run of steps is
// as long as the steps it adds.
func defaultAt(kind actionKind, delta int64) int64 {
	if kind == actStep {
		return delta
	}
	return 0
}

// Clone returns a log sharing l's entries.
func (l *actionLog) Clone() actionLog {
	c := *l
	c.blocks, c.marks, c.cmds = l.blocks.Clone(), l.marks.Clone(), l.cmds.Clone()
	return c
}

// Truncate keeps the first n entries.
func (l *actionLog) Truncate(n int) {
	if n >= l.n {
		return
	}
	if n <= 0 {
		*l = actionLog{}
		return
	}
	r := l.reader(n - 1)
	last := r.next()
	l.blocks.Truncate(r.at.off)
	l.marks.Truncate((n + markEvery - 1) / markEvery)
	l.cmds.Truncate(int(r.at.cmds))
	l.n, l.end = n, r.at
	l.idle, l.idleLast = last.limit, last.kind == actIdle
	l.cmd0, l.cmd1 = nil, nil
	if m := l.cmds.Len(); m > 0 {
		l.cmd0 = l.cmds.At(m - 1)
		if m > 1 {
			l.cmd1 = l.cmds.At(m - 2)
		}
	}
}

// At returns entry i.
func (l *actionLog) At(i int) action {
	r := l.reader(i)
	return r.next()
}

// Bytes is what the log holds: its blocks, marks and commands (what the
// commands point to is counted with the world's state).
func (l *actionLog) Bytes() int {
	return l.blocks.Bytes() + l.marks.Len()*24 + l.cmds.Len()*16
}

// logReader reads a log's entries in order.
type logReader struct {
	l  *actionLog
	at logState
}

// reader returns a reader at entry i (< l.Len()).
func (l *actionLog) reader(i int) logReader {
	r := logReader{l: l, at: l.marks.At(i / markEvery)}
	for range i % markEvery {
		r.next()
	}
	return r
}

// next decodes the entry at r and moves past it.
func (r *logReader) next() action {
	blk, b, pos := r.l.blocks.At(r.at.off)
	e := blk[pos:]
	flags := e[0]
	a := action{kind: actionKind(flags & 7)}
	var delta int64
	k := 2
	if u := e[1]; u < 0x80 { // getVarint's first case, inlined: nearly every entry's
		delta = int64(u>>1) ^ -int64(u&1)
	} else {
		delta, k = getVarint(e, 1)
	}
	a.after = int(r.at.after + delta)
	switch {
	case flags&flagNewCmd != 0:
		a.cmd = r.l.cmds.At(int(r.at.cmds))
		r.at.cmds++
	case flags&flagOldCmd != 0:
		var back int64
		back, k = getVarint(e, k)
		a.cmd = r.l.cmds.At(int(r.at.cmds - 1 - back))
	}
	a.at = defaultAt(a.kind, delta)
	if flags&flagAt != 0 {
		a.at, k = getVarint(e, k)
	}
	switch {
	case flags&flagLimitMax != 0:
		a.limit = math.MaxInt64
	case flags&flagLimit != 0:
		a.limit, k = getVarint(e, k)
	}
	r.at.off = hist.Offset(b, pos+k)
	r.at.after = int64(a.after)
	return a
}

// getVarint is binary.Varint of e[k:], a one-byte number read without its
// loop, and where the bytes after it start.
func getVarint(e []byte, k int) (int64, int) {
	if u := e[k]; u < 0x80 {
		return int64(u>>1) ^ -int64(u&1), k + 1
	}
	v, m := binary.Varint(e[k:])
	return v, k + m
}
