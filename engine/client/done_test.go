package client

import "testing"

// doneList holds what hist.List would: every entry in order, and clones
// that append without seeing each other's entries, whether they were made
// with none, one (first alone) or more entries.
func TestDoneListClones(t *testing.T) {
	entry := func(i int) doneBatch { return doneBatch{firstSerial: int64(i)} }
	var sc Scratch
	add := func(l *doneList, d doneBatch) { // as settle appends
		if l.more != nil {
			l.more.Append(d)
		} else {
			l.start(d, &sc)
		}
	}
	check := func(name string, l *doneList, n, offset int) {
		t.Helper()
		if l.Len() != n {
			t.Fatalf("%s: Len %d, want %d", name, l.Len(), n)
		}
		for i := range n {
			want := int64(i)
			if i >= n-offset {
				want += 1000
			}
			if got := l.Ptr(i).firstSerial; got != want {
				t.Fatalf("%s: entry %d is %d, want %d", name, i, got, want)
			}
		}
	}
	for _, at := range []int{0, 1, 2, 3, 255, 256, 257, 600} {
		var l doneList
		for i := range at {
			add(&l, entry(i))
		}
		c := l.Clone()
		for i := at; i < at+300; i++ {
			add(&l, entry(i))
			add(&c, entry(i+1000))
		}
		check("original", &l, at+300, 0)
		check("clone", &c, at+300, 300)
	}
}
