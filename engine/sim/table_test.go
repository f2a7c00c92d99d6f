package sim

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestProducerTable locates and puts random names, new and known, into a producer
// table and checks every lookup, and the order of numbering, against a
// map: through the index's growths, with names that share their hash's
// low bits, and with a name that is absent.
func TestProducerTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tab producerTable
	want := map[string]*producerSlot{}
	var order []string
	if tab.get("p0") != nil {
		t.Fatal("an empty table finds p0")
	}
	for i := range 5000 {
		name := "p" + strconv.Itoa(rng.IntN(3000))
		if i%7 == 0 {
			name = strconv.Itoa(rng.IntN(100)) + "/" + name
		}
		s := &producerSlot{life: i}
		old, at := tab.locate(name)
		if old != want[name] {
			t.Fatalf("put %d: %s is located with %v, want %v", i, name, old, want[name])
		}
		if want[name] == nil {
			order = append(order, name)
		}
		want[name] = s
		tab.putAt(at, name, s)
		if got := tab.get(name); got != s {
			t.Fatalf("put %d: %s gives life %v, want %d", i, name, got, i)
		}
		if probe := "q" + name; tab.get(probe) != nil {
			t.Fatalf("put %d: the absent name %s is found", i, probe)
		}
	}
	if tab.all.len() != len(order) || 2*tab.all.len() > len(tab.index) {
		t.Fatalf("%d names in an index of %d, want %d at most half full", tab.all.len(), len(tab.index), len(order))
	}
	for i, e := range tab.all.all() {
		if e.name != order[i] || e.slot != want[e.name] || tab.get(e.name) != e.slot {
			t.Fatalf("number %d: %s, want %s and its last slot", i, e.name, order[i])
		}
	}
}

// TestConnTable puts, finds and deletes random ids in a connection table
// and checks every lookup, and the table's contents, against a map:
// through its growths, with deletions in runs of neighbours.
func TestConnTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tab connTable
	want := map[int]*connection{}
	tab.del(1)
	if tab.get(1) != nil || tab.len() != 0 {
		t.Fatal("an empty table finds 1")
	}
	for i := range 20000 {
		id := 1 + rng.IntN(2000)
		if i > 10000 {
			id = 1 + rng.IntN(200) // a crowded, shrinking range
		}
		if rng.IntN(3) == 0 {
			tab.del(id)
			delete(want, id)
		} else {
			c := &connection{id: id}
			tab.put(c)
			want[id] = c
		}
		if tab.len() != len(want) || 2*tab.len() > len(tab.slots) {
			t.Fatalf("op %d: %d connections in %d places, want %d at most half full", i, tab.len(), len(tab.slots), len(want))
		}
		for _, probe := range []int{id, 1 + rng.IntN(2000)} {
			if got := tab.get(probe); got != want[probe] {
				t.Fatalf("op %d: id %d gives %v, want %v", i, probe, got, want[probe])
			}
		}
	}
	n := 0
	for c := range tab.all() {
		if want[c.id] != c {
			t.Fatalf("all lists %d, which is not the table's", c.id)
		}
		n++
	}
	for id, c := range want {
		if tab.get(id) != c {
			t.Fatalf("id %d lost", id)
		}
	}
	if n != len(want) {
		t.Fatalf("all lists %d, want %d", n, len(want))
	}
}
