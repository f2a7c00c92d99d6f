package sim

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/script"
)

// TestPutCopiesAll fills every field of an item, however deep, with a value
// of its own and checks that put copies each of the item's kind (the
// message of an itemDeliver, the other fields of the others): a field
// added to item, flight or the message and not to put would fail here.
func TestPutCopiesAll(t *testing.T) {
	for _, kind := range []itemKind{itemDeliver, itemWake, itemConnClosed} {
		src := filledItem(t)
		src.kind = kind
		var dst item
		put(&dst, &src)
		want := src
		if kind == itemDeliver {
			want = item{due: src.due, seq: src.seq, kind: kind, fl: src.fl}
		} else {
			want.fl = flight{}
		}
		if !reflect.DeepEqual(dst, want) {
			t.Fatalf("kind %d: put left fields behind:\n got %+v\nwant %+v", kind, dst, want)
		}
	}
}

// TestReleaseClearsAll: a released slot is zero, every field of it, as
// reserve hands it out.
func TestReleaseClearsAll(t *testing.T) {
	for _, kind := range []itemKind{itemDeliver, itemWake, itemConnClosed} {
		var q queue
		at, d := q.reserve()
		src := filledItem(t)
		src.kind = kind
		put(d, &src)
		q.release(at)
		if !reflect.ValueOf(q.slab[at]).IsZero() {
			t.Fatalf("kind %d: release left fields behind: %+v", kind, q.slab[at])
		}
		if again, _ := q.reserve(); again != at {
			t.Fatalf("reserve handed out slot %d, not the free %d", again, at)
		}
	}
}

// filledItem is an item whose every field, however deep, has a value of
// its own.
func filledItem(t *testing.T) item {
	var src item
	n := 0
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		n++
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				f := v.Field(i) // unexported: set through its address
				fill(reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem())
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			v.SetInt(int64(n))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			v.SetUint(uint64(n))
		case reflect.Bool:
			v.SetBool(true)
		case reflect.String:
			v.SetString(string(rune('a' + n%26)))
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
		case reflect.Interface:
			v.Set(reflect.ValueOf(wireRequest{}))
		default:
			t.Fatalf("a field of kind %s: teach this test (and put and release) about it", v.Kind())
		}
	}
	fill(reflect.ValueOf(&src).Elem())
	return src
}

// qkey is the order the queue must hand its items out in: by due time,
// then by seq, as one heap would.
type qkey struct{ due, seq int64 }

func qkeyOf(it *item) qkey { return qkey{it.due, int64(it.seq)} }

func sortQkeys(k []qkey) {
	slices.SortFunc(k, func(a, b qkey) int { return cmp.Or(cmp.Compare(a.due, b.due), cmp.Compare(a.seq, b.seq)) })
}

// The ways an item leaves the queue.
const (
	takePop    = iota // pop
	takeAsStep        // as a step takes it: off the queue, performed in its slot, released
	takeTop           // the world's top, then dropped
	takePeek          // peek, then dropped
)

// takeNext takes the next item off w's queue the given way.
func takeNext(w *World, how int) qkey {
	switch how {
	case takePop:
		it := w.pop()
		return qkeyOf(&it)
	case takeAsStep:
		head, inLane := w.top()
		at, it := head.at, w.queue.itemAt(head.at)
		if at == regAt { // as stepsWithin takes the register's wake: its fields, then off
			c := *it
			it = &c
		}
		w.queue.removeNext(inLane)
		got := qkeyOf(it)
		w.queue.release(at)
		if w.queue.regSet && w.queue.regQ.seq == uint64(got.seq) {
			panic("the register's wake was not taken off")
		}
		return got
	case takeTop:
		head, _ := w.top()
		got := qkeyOf(w.queue.itemAt(head.at))
		w.drop()
		return got
	}
	got := qkeyOf(w.peek())
	w.drop()
	return got
}

// checkTaken checks that got, the item just taken, is the first of want
// (sorted), moves the world's clock to it, and checks that the queue
// holds exactly the rest of want (of its items, those counted, when
// counted is not nil); it returns the rest.
func checkTaken(t *testing.T, seed uint64, op int, w *World, got qkey, want []qkey, counted func(*item) bool) []qkey {
	t.Helper()
	if got != want[0] {
		t.Fatalf("seed %d op %d: next is due %d seq %d, want due %d seq %d", seed, op, got.due, got.seq, want[0].due, want[0].seq)
	}
	want = want[1:]
	w.now = got.due
	var left []qkey
	for _, it := range w.queue.items() {
		if counted == nil || counted(it) {
			left = append(left, qkeyOf(it))
		}
	}
	sortQkeys(left)
	if !slices.Equal(left, want) {
		t.Fatalf("seed %d op %d: the queue holds %v, want %v", seed, op, left, want)
	}
	return want
}

// TestQueueOrderWithLane: whatever mix of deliveries and items due at
// once (which may take the lane) and other items is queued, at whatever due times, the queue hands
// them out in (due, seq) order — the order one heap would — and its
// items are exactly those queued and not yet taken.
func TestQueueOrderWithLane(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		w := &World{compactAt: 8} // compaction re-heaps: never obsolete, these kinds are all kept
		var want []qkey           // queued, not taken
		now := int64(0)
		for op := 0; op < 400; op++ {
			if r.IntN(3) > 0 || len(want) == 0 {
				at, it := w.queue.reserve()
				it.kind = itemDeliver
				if r.IntN(4) == 0 {
					it.kind = itemFence
				}
				it.due = now + []int64{0, 1, 1, 1, 11, 30000}[r.IntN(6)]
				w.enqueue(at, it)
				want = append(want, qkeyOf(it))
				continue
			}
			sortQkeys(want)
			got := takeNext(w, []int{takePop, takeAsStep, takePeek}[r.IntN(3)])
			// An item due by the new now may take the lane, whatever its kind.
			want, now = checkTaken(t, seed, op, w, got, want, nil), got.due
			if w.queue.len() != len(want) {
				t.Fatalf("seed %d op %d: the queue counts %d items, want %d", seed, op, w.queue.len(), len(want))
			}
		}
	}
}

// TestQueueOrderWithWakeRegister: a producer's wake due at once waits in
// the register (queue.reg) when nothing queued comes before it, and is
// moved into the heap when an item due before it is queued after all (the
// clock set back by a step that did nothing). Whatever the mix, and in a
// copy of the world taken at any point, items are handed out in (due,
// seq) order, and the queue holds exactly those not taken yet.
func TestQueueOrderWithWakeRegister(t *testing.T) {
	base := New(1)
	base.SetTracing(false)
	base.Apply(&script.Producer{Name: "p"})
	regs, flushes := 0, 0
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 13))
		w := base.Clone()
		w.queue, w.compactAt, w.sweepAt = queue{}, 8, 8
		s := w.producers.get("p")
		var want []qkey
		now := w.now
		for op := 0; op < 300; op++ {
			if r.IntN(3) > 0 || len(want) == 0 {
				switch k := r.IntN(6); {
				case k < 2: // a wake, mostly due at once
					due := now + []int64{0, 0, 0, 1}[r.IntN(4)]
					set := w.queue.regSet
					w.scheduleFor(s, due, itemWake, 0, s.wakeGen)
					if !set && w.queue.regSet {
						regs++
					}
					want = append(want, qkey{due, int64(w.seq)})
				case k == 2 && now > 0 && w.queue.regSet:
					// The clock set back below the register's wake, then an
					// item due before it.
					now = max(0, now-int64(1+r.IntN(3)))
					w.now = now
					at, it := w.queue.reserve()
					it.kind, it.due = itemFence, now
					w.enqueue(at, it)
					flushes++
					want = append(want, qkeyOf(it))
					if w.queue.regSet && before(&qent{due: it.due, seq: it.seq}, &w.queue.regQ) {
						t.Fatalf("seed %d op %d: an item due %d is queued before the register's wake (due %d) and the register still holds it", seed, op, it.due, w.queue.regQ.due)
					}
				default:
					at, it := w.queue.reserve()
					it.kind = []itemKind{itemDeliver, itemFence}[r.IntN(2)]
					it.due = now + []int64{0, 1, 1, 11, 30000}[r.IntN(5)]
					w.enqueue(at, it)
					want = append(want, qkeyOf(it))
				}
				if r.IntN(40) == 0 {
					w = w.Clone() // the register goes with the copy
					s = w.producers.get("p")
				}
				continue
			}
			sortQkeys(want)
			got := takeNext(w, []int{takePop, takeAsStep, takeTop, takePeek}[r.IntN(4)])
			want, now = checkTaken(t, seed, op, w, got, want, nil), got.due
			if w.queue.len() != len(want) {
				t.Fatalf("seed %d op %d: the queue counts %d items, want %d", seed, op, w.queue.len(), len(want))
			}
		}
	}
	if regs < 500 || flushes < 100 {
		t.Fatalf("the register held %d wakes and was passed %d times: the test no longer reaches it", regs, flushes)
	}
}

// TestQueueOrderWithLater: deadlines wait unsorted beside the heap
// (queue.later), yet every item that can still act is handed out in
// (due, seq) order, as one heap would, and a deadline that can never act
// again is never handed out: it is dropped when it would be sorted.
func TestQueueOrderWithLater(t *testing.T) {
	base := New(1)
	base.SetTracing(false)
	base.Apply(&script.Producer{Name: "p"})
	base.Apply(&script.Send{Producer: "p", TP: script.TopicPartition{Topic: "orders", Partition: 0}, Count: 1})
	s := base.producers.get("p")
	if !s.p.TimerLive(client.DeliveryDeadline, 1) {
		t.Fatal("batch 1's deadline should be live")
	}
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		w := base.Clone()
		w.queue, w.compactAt, w.sweepAt = queue{}, 8, 8
		s := w.producers.get("p")
		var want []qkey // queued, not taken, able to act
		now := w.now
		for op := 0; op < 400; op++ {
			if r.IntN(3) > 0 || len(want) == 0 {
				if k := r.IntN(4); k == 1 || k == 2 {
					// A deadline, as a producer arms it (queue.later).
					ref, due := 1, now+[]int64{1, 11, 30000}[r.IntN(3)]
					if r.IntN(2) == 0 {
						ref = 9999 // no such batch: can never act
					}
					w.scheduleFor(s, due, itemProducerTimer, client.DeliveryDeadline, ref)
					if ref == 1 {
						want = append(want, qkey{due, int64(w.seq)})
					}
					continue
				} else if k == 0 {
					at, it := w.queue.reserve()
					it.kind, it.due = itemFence, now+[]int64{0, 1, 1, 1, 11, 30000}[r.IntN(6)]
					w.enqueue(at, it)
					want = append(want, qkeyOf(it))
					continue
				}
				at, it := w.queue.reserve()
				it.kind = itemDeliver
				it.due = now + []int64{0, 1, 1, 1, 11, 30000}[r.IntN(6)]
				w.enqueue(at, it)
				want = append(want, qkeyOf(it))
				continue
			}
			sortQkeys(want)
			got := takeNext(w, []int{takePop, takeTop, takePeek}[r.IntN(3)])
			able := func(it *item) bool { return it.kind != itemProducerTimer || it.ref == 1 }
			want, now = checkTaken(t, seed, op, w, got, want, able), got.due
		}
	}
}
