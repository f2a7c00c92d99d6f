package trace

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/eoslab/eoslab/engine/producerstate"
)

// attrCases has every kind of value, at the edges of their encodings.
var attrCases = []Attr{
	{"zero", Int(0)}, {"one", Int(1)}, {"minus", Int(-1)}, {"small", Int(63)}, {"edge", Int(64)},
	{"neg_edge", Int(-65)}, {"max", Int(math.MaxInt64)}, {"min", Int(math.MinInt64)},
	{"empty", Str("")}, {"text", Str("orders-0")}, {"long", Str(strings.Repeat("é", 200))},
	{"yes", Bool(true)}, {"no", Bool(false)}, {"list", List([]int64{3, -4, 5})}, {"json", JSON(`[{"a":1}]`)},
	{strings.Repeat("k", 300), Str("a key longer than one length byte")},
	{"partition", Str("orders-0")}, {"broker", Int(3)}, {"warning", Str("")}, {"offsets", List(nil)},
}

// Packed attributes read back as they were written, in order, by Get and
// All, whether packed by Append, by With or in a slab.
func TestAttrsRoundTrip(t *testing.T) {
	var s Slab
	e := New("k", "text")
	for _, a := range attrCases {
		e = e.With(a.Key, a.Val)
	}
	for name, got := range map[string]Attrs{
		"Append": Attrs("").Append(attrCases...),
		"With":   e.Attrs,
		"Slab":   s.Attrs(attrCases...),
	} {
		if got.Len() != len(attrCases) {
			t.Fatalf("%s: %d attributes, want %d", name, got.Len(), len(attrCases))
		}
		i := 0
		for k, v := range got.All() {
			if want := attrCases[i]; k != want.Key || v != want.Val {
				t.Fatalf("%s: attribute %d is %q=%#v, want %q=%#v", name, i, k, v, want.Key, want.Val)
			}
			i++
		}
		for _, want := range attrCases {
			if v, ok := got.Get(want.Key); !ok || v != want.Val {
				t.Fatalf("%s: Get(%q) = %#v, %v; want %#v", name, want.Key, v, ok, want.Val)
			}
		}
		if _, ok := got.Get("absent"); ok {
			t.Fatalf("%s: Get found an absent key", name)
		}
	}
	if !reflect.DeepEqual(Attrs("").Append(attrCases...), s.Attrs(attrCases...)) {
		t.Fatal("the slab packs differently from Append")
	}
}

// The slab's attributes never change once handed out, when its blocks
// fill up, when an event appends to its own attributes or sets its text,
// or when another event is packed after it.
func TestSlabKeeps(t *testing.T) {
	var s Slab
	type kept struct {
		attrs Attrs
		want  string
	}
	var all []kept
	blocks, last := 0, (*byte)(nil)
	for i := range (slabText + 2*slabLong) / 24 { // the first block and two long ones
		word := strings.Repeat(string(rune('a'+i%26)), 1+i%40)
		a := s.Attrs(Attr{"w", Str(word)}, Attr{"i", Int(int64(i))})
		if b := unsafe.SliceData(s.text[:cap(s.text)]); b != last {
			blocks, last = blocks+1, b
		}
		e := Event{Attrs: a}
		e = e.With("extra", Str("appended after")) // must not write into the slab
		e.SetText(word)
		all = append(all, kept{a, word})
		if e.Str("w") != word || e.Str("extra") != "appended after" || e.Text() != word || e.Attrs.Len() != 3 {
			t.Fatalf("event %d reads %q, %q, %q", i, e.Str("w"), e.Str("extra"), e.Text())
		}
	}
	if blocks < 3 {
		t.Fatalf("the attributes took %d blocks of the slab, want at least 3", blocks)
	}
	for i, k := range all {
		if v, _ := k.attrs.Get("w"); v.String() != k.want || k.attrs.Len() != 2 {
			t.Fatalf("kept %d changed: attribute %q, %d attributes; want %q", i, v.String(), k.attrs.Len(), k.want)
		}
	}
}

// reflect.DeepEqual, which the time-travel tests use on events, compares
// the attributes' content, not where they are kept.
func TestEventsEqualByContent(t *testing.T) {
	var s1, s2 Slab
	d := producerstate.Decision{EntryLastSeq: 4}
	mk := func(s *Slab, partition string) Event {
		a := s.Begin(64).Decision(&d).Text([]byte("broker 1 appends")).Int(KeyBroker, 1).Str(KeyPartition, partition).Path(KeyPath, d.Path)
		return Event{Kind: "produce.decision", Attrs: s.Done(a)}
	}
	a := mk(&s1, s1.Partition("orders", 0))
	b := mk(&s2, string([]byte("orders-0"))) // the same text, made elsewhere
	if !reflect.DeepEqual(a, b) {
		t.Fatal("events with the same content differ")
	}
	if c := mk(&s2, "orders-1"); reflect.DeepEqual(a, c) {
		t.Fatal("events with different partitions are equal")
	}
	if got := a.Decision(); got == nil || *got != d || a.Decision() == got {
		t.Fatalf("the event keeps the decision %+v, want %+v, a copy of it each time", got, d)
	}
}

// An event's decision comes before its text and its attributes, which
// read as they do without one: in order, the same text, the same JSON.
func TestDecisionReadsAsNoAttribute(t *testing.T) {
	var s Slab
	d := producerstate.Decision{Outcome: producerstate.Append, EntryLastSeq: 7, Batch: producerstate.Batch{ProducerID: 9, MaxTimestamp: 1 << 41}}
	for _, text := range []string{"", "broker 1 appends"} {
		build := func(withDecision bool) Event {
			a := s.Begin(64)
			if withDecision {
				a = a.Decision(&d)
			}
			if text != "" {
				a = a.Text([]byte(text))
			}
			a = a.Int(KeyBroker, 1).Str(KeyPartition, "orders-0")
			return Event{Step: 3, Kind: "produce.decision", Attrs: s.Done(a)}
		}
		with, without := build(true), build(false)
		if with.HasDecision() == without.HasDecision() || without.Decision() != nil || *with.Decision() != d {
			t.Fatalf("text %q: decisions %v and %v", text, with.Decision(), without.Decision())
		}
		if with.Text() != without.Text() || string(with.AppendJSON(nil)) != string(without.AppendJSON(nil)) || with.Attrs.Len() != 2 {
			t.Fatalf("text %q: with a decision the event reads %q %s, without %q %s", text, with.Text(), with.AppendJSON(nil), without.Text(), without.AppendJSON(nil))
		}
		with.SetText("said again")
		if with.Text() != "said again" || *with.Decision() != d || with.Int("broker") != 1 {
			t.Fatalf("text %q: after SetText, %q, decision %v, broker %d", text, with.Text(), with.Decision(), with.Int("broker"))
		}
	}
}

// The slab's partition names are msg.TP's texts, and a path packed into
// the attributes reads as Path's text.
func TestSlabNames(t *testing.T) {
	var s Slab
	for _, p := range []int{0, 7, 3, 0, 4095, 4096, -1} {
		for _, topic := range []string{"orders", "payments"} {
			want := topic + "-" + Int(int64(p)).String()
			if got := s.Partition(topic, p); got != want {
				t.Fatalf("Partition(%q, %d) = %q", topic, p, got)
			}
		}
	}
	m := producerstate.New(producerstate.Config{})
	first := m.Validate(producerstate.Batch{ProducerID: 1}, 0)
	m.Append(producerstate.Batch{ProducerID: 1}, 0)
	next := m.Validate(producerstate.Batch{ProducerID: 1, BaseSeq: 1}, 0)
	gap := m.Validate(producerstate.Batch{ProducerID: 1, BaseSeq: 5}, 0)
	var zero producerstate.Decision
	for _, d := range []producerstate.Decision{zero, first, next, next, first, gap, next, zero, gap} {
		a := s.Done(s.Begin(16).Int(KeyBroker, 1).Path(KeyPath, d.Path).Int(KeyBatch, 2))
		if got, _ := a.Get("path"); got.String() != d.Path.String() || a.Len() != 3 {
			t.Fatalf("path %q, want %q, in %d attributes", got, d.Path.String(), a.Len())
		}
		if got, _ := a.Get("batch"); got.String() != "2" {
			t.Fatalf("the attribute after the path reads %q", got)
		}
	}
	if first.Path.String() == next.Path.String() || next.Path.String() == gap.Path.String() {
		t.Fatal("the paths tried are not different")
	}
}

// Every key of the table packs into its one byte and reads back as its
// name, with every kind of value, and a Builder writes the bytes Append
// writes; a key outside the table is written out and reads back too.
func TestKeyTable(t *testing.T) {
	seen := map[string]bool{}
	for i, name := range keys {
		if name == "" || seen[name] || len(name) > maxKeyLen || name[0] < 'a' || name[0] > 'z' {
			t.Fatalf("key %d is %q: empty, twice in the table, longer than maxKeyLen or not starting with a letter", i, name)
		}
		seen[name] = true
		k, ok := KeyOf(name)
		if !ok || int(k) != i || k.String() != name {
			t.Fatalf("KeyOf(%q) = %d, %v; want %d", name, k, ok, i)
		}
		var s Slab
		b := s.Begin(0)
		b = b.Int(k, -300)
		b = b.Str(k, "orders-0")
		b = b.Bool(k, true)
		b = b.JSON(k, `[{"a":1}]`)
		b = b.List(k, []int64{1, -2})
		got := s.Done(b)
		want := Attrs("").Append(Attr{name, Int(-300)}, Attr{name, Str("orders-0")}, Attr{name, Bool(true)},
			Attr{name, JSON(`[{"a":1}]`)}, Attr{name, List([]int64{1, -2})})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: the builder packs % x, Append % x", name, got, want)
		}
		// The produce path's keys fold an integer's, a text's and a
		// boolean's kind into their byte.
		first, size := byte(k), 4+11+3+12+9
		if k < foldedKeys {
			first, size = foldedBase+byte(k), size-3
		}
		if got[0] != first || len(got) != size {
			t.Fatalf("%q: packed as % x: not by its number", name, got)
		}
		var vals []string
		for key, v := range got.All() {
			if key != name {
				t.Fatalf("%q reads back as %q", name, key)
			}
			vals = append(vals, v.JSON())
		}
		if strings.Join(vals, " ") != `-300 "orders-0" true [{"a":1}] [1,-2]` {
			t.Fatalf("%q: values read back as %v", name, vals)
		}
	}
	for _, name := range []string{"", "brokers2", "Partition", "_id", "last_stable_offsets", "produce", strings.Repeat("x", 200)} {
		if _, ok := KeyOf(name); ok {
			t.Fatalf("%q is in the table", name)
		}
		a := Attrs("").Append(Attr{name, Int(7)})
		if a[0] != inlineKey {
			t.Fatalf("%q packed as % x", name, a)
		}
		if v, ok := a.Get(name); !ok || v != Int(7) {
			t.Fatalf("Get(%q) = %v, %v", name, v, ok)
		}
	}
}

// A Builder whose attributes outgrow the room it was given moves them
// out of the block, and what the block handed out before stays as it was.
func TestBuilderOutgrows(t *testing.T) {
	var s Slab
	first := s.Attrs(Attr{"broker", Int(1)})
	long := strings.Repeat("p", slabText)
	b := s.Begin(8)
	b = b.Int(KeyBroker, 2)
	b = b.Str(KeyProducer, long)
	b = b.Int(KeyBatch, 3)
	a := s.Done(b)
	if a.Len() != 3 || !hasStr(a, "producer", long) {
		t.Fatalf("%d attributes, %d bytes", a.Len(), len(a))
	}
	if v, _ := first.Get("broker"); v != Int(1) || first.Len() != 1 {
		t.Fatal("the block's earlier attributes changed")
	}
	next := s.Attrs(Attr{"broker", Int(4)})
	if v, _ := next.Get("broker"); v != Int(4) || a.Len() != 3 {
		t.Fatal("attributes after the outgrown ones are wrong")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a slab used while a builder is open did not panic")
		}
	}()
	b = s.Begin(8)
	b = b.Int(KeyBroker, 1)
	s.Attrs(Attr{"broker", Int(2)})
	s.Done(b)
}

func hasStr(a Attrs, key, want string) bool {
	v, ok := a.Get(key)
	return ok && v == Str(want)
}

// FuzzAttrs: whatever the keys and values, packed attributes read back
// the same, and their JSON is the JSON of the values; a Builder packs
// the keys of the table as Append does.
func FuzzAttrs(f *testing.F) {
	f.Add("partition", "orders-0", int64(-5), true)
	f.Add("", "", int64(math.MinInt64), false)
	f.Add("batch", "p1", int64(64), true)
	f.Fuzz(func(t *testing.T, key, s string, i int64, b bool) {
		in := []Attr{{key, Str(s)}, {key + "i", Int(i)}, {key + "b", Bool(b)}}
		var sl Slab
		if k, ok := KeyOf(key); ok {
			in = append(in, Attr{key, Int(i)}, Attr{key, Bool(b)}, Attr{key, JSON(s)}, Attr{key, JSON(s)})
			bd := sl.Begin(len(s))
			bd = bd.Str(k, s)
			bd = Builder(appendAttrs(bd, in[1:3]))
			bd = bd.Int(k, i)
			bd = bd.Bool(k, b)
			bd = bd.JSON(k, s)
			bd = bd.JSONBytes(k, []byte(s))
			if got, want := sl.Done(bd), Attrs("").Append(in...); !reflect.DeepEqual(got, want) {
				t.Fatalf("the builder packs % x, Append % x", got, want)
			}
		}
		for _, a := range []Attrs{Attrs("").Append(in...), sl.Attrs(in...)} {
			j := 0
			for k, v := range a.All() {
				if k != in[j].Key || v != in[j].Val || v.JSON() != in[j].Val.JSON() {
					t.Fatalf("attribute %d: %q=%#v, want %q=%#v", j, k, v, in[j].Key, in[j].Val)
				}
				j++
			}
			if j != len(in) {
				t.Fatalf("%d attributes, want %d", j, len(in))
			}
		}
	})
}

// TestOpenJSON asks that a JSON attribute written in place pack as
// JSONBytes packs it, at every length of its length's encoding.
func TestOpenJSON(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 300, 20000} {
		raw := []byte(strings.Repeat("7", n))
		b := Builder(nil).Int(KeyMessage, 5)
		open := len(b)
		got := Builder(append([]byte(b.OpenJSON(KeyBatches)), raw...)).CloseJSON(open).Int(KeyBatch, 2)
		want := Builder(nil).Int(KeyMessage, 5).JSONBytes(KeyBatches, raw).Int(KeyBatch, 2)
		if string(got) != string(want) {
			t.Fatalf("%d bytes: %x, want %x", n, got, want)
		}
	}
}
