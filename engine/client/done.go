package client

import "github.com/eoslab/eoslab/engine/internal/hist"

// doneList is the producer's settled batches: the first one on its own,
// the others in a hist.List made with the second. A quiet producer of a
// large world has made one batch, and pays for it two pointers and the
// entry, not a list's 56 bytes and the entry.
type doneList struct {
	first *doneBatch
	more  *hist.List[doneBatch] // the batches after the first (nil: none)
}

// Len is the number of entries.
func (l *doneList) Len() int {
	if l.more != nil {
		return 1 + l.more.Len()
	}
	if l.first != nil {
		return 1
	}
	return 0
}

// Ptr returns a pointer to entry i, for reading only.
func (l *doneList) Ptr(i int) *doneBatch {
	if i == 0 {
		return l.first
	}
	return l.more.Ptr(i - 1)
}

// start appends the first or the second entry; the others go to more
// (settle appends there itself, inlined).
func (l *doneList) start(d doneBatch, sc *Scratch) {
	if l.first == nil {
		l.first = sc.dones.New() // not &d: d would be moved to the heap before the test
		*l.first = d
		return
	}
	l.more = &hist.List[doneBatch]{}
	l.more.Append(d)
}

// Clone returns a doneList sharing l's entries (hist.List.Clone).
func (l *doneList) Clone() doneList {
	c := doneList{first: l.first}
	if l.more != nil {
		m := l.more.Clone()
		c.more = &m
	}
	return c
}
