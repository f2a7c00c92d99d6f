package sim

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/eoslab/eoslab/engine/script"
)

// A world may hold a million producers: the slot stays in its 80-byte
// size class, what few producers need behind its extra pointer.
func TestProducerSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(producerSlot{}); n > 80 {
		t.Fatalf("a producer slot takes %d bytes, more than 80", n)
	}
}

// pausedWorld is a world whose paused producers hold items: p an
// idempotent one with a batch in flight, t a transactional one.
func pausedWorld(t *testing.T) *World {
	w := New(1)
	tp := script.TopicPartition{Topic: "orders"}
	for _, c := range []script.Command{
		&script.Producer{Name: "p"},
		&script.Producer{Name: "t", Mode: script.ModeTransactional, TxnID: "tx"},
		&script.Send{Producer: "p", TP: tp, Count: 1},
		&script.Pause{Name: "p"},
		&script.Pause{Name: "t"},
	} {
		if _, err := w.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	w.Run()
	return w
}

// What a paused producer holds is the slot's own: two worlds given the
// same commands are deeply equal (tests compare worlds so), and a clone's
// held items are for its own slots.
func TestHeldItemsAreTheSlots(t *testing.T) {
	a, b := pausedWorld(t), pausedWorld(t)
	held := 0
	for _, e := range a.producers.all.all() {
		held += len(e.slot.held())
	}
	if held == 0 {
		t.Fatal("the paused producers hold nothing: the test proves nothing")
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two worlds given the same commands are not deeply equal")
	}
	c := a.Clone()
	for _, e := range c.producers.all.all() {
		name, s := e.name, e.slot
		for _, it := range s.held() {
			if it.slot != nil && it.slot != s || it.kind == itemDeliver && it.fl.to != nil && it.fl.to != s {
				t.Fatalf("%s: the clone holds an item for the original's slot", name)
			}
		}
	}
	for _, name := range []string{"p", "t"} {
		if _, err := a.Apply(&script.Resume{Name: name}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Apply(&script.Resume{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	a.Run()
	c.Run()
	if string(a.Snapshot().StateJSON()) != string(c.Snapshot().StateJSON()) {
		t.Fatal("resumed, the clone and the original differ")
	}
}
