package producerstate

import (
	"reflect"
	"testing"
)

// An entry keeps its oldest batch inline and the others apart: whatever
// it remembers reads the same, and a copy (Lookup, Entries, Clone) is
// its own — appends to the original never show in it, nor the other way.
func TestEntryCopiesAreTheirOwn(t *testing.T) {
	m := New(Config{})
	var want []BatchMeta
	for s := range int32(8) {
		off := int64(10 * s)
		m.Append(Batch{ProducerID: 1, BaseSeq: s, LastOffsetDelta: 0, MaxTimestamp: 100 + int64(s)}, off)
		want = append(want, BatchMeta{LastSeq: s, LastOffset: off, Timestamp: 100 + int64(s)})
		if len(want) > NumBatchesToRetain {
			want = want[1:]
		}
		e, _ := m.Lookup(1)
		if got := e.Batches(); !reflect.DeepEqual(got, want) {
			t.Fatalf("after %d batches: %+v, want %+v", s+1, got, want)
		}
		for i := range e.Len() {
			if e.Batch(i) != want[i] {
				t.Fatalf("after %d batches, batch %d: %+v, want %+v", s+1, i, e.Batch(i), want[i])
			}
		}
		if e.LastSeq() != s || e.LastOffset() != off {
			t.Fatalf("after %d batches: last %d at %d", s+1, e.LastSeq(), e.LastOffset())
		}
	}
	looked, _ := m.Lookup(1)
	listed := m.Entries()[0]
	c := m.Clone()
	m.Append(Batch{ProducerID: 1, BaseSeq: 8, MaxTimestamp: 200}, 80)
	if !reflect.DeepEqual(looked.Batches(), want) || !reflect.DeepEqual(listed.Batches(), want) {
		t.Fatal("an append changed a copy the manager handed out")
	}
	ce, _ := c.Lookup(1)
	if !reflect.DeepEqual(ce.Batches(), want) {
		t.Fatal("an append to the original changed its clone")
	}
	c.Append(Batch{ProducerID: 1, BaseSeq: 8, MaxTimestamp: 300}, 90)
	if e, _ := m.Lookup(1); e.LastOffset() != 80 || e.Batch(e.Len()-1).Timestamp != 200 {
		t.Fatal("an append to the clone changed the original")
	}
	// A duplicate is found at any place in the window, inline or apart.
	for _, b := range want[1:] {
		d := m.Validate(Batch{ProducerID: 1, BaseSeq: b.LastSeq, MaxTimestamp: 1}, Client)
		if d.Outcome != Duplicate || d.Original != b {
			t.Fatalf("sequence %d: %v, original %+v, want a duplicate of %+v", b.LastSeq, d.Outcome, d.Original, b)
		}
	}
}
