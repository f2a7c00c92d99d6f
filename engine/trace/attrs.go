package trace

import (
	"encoding/binary"
	"iter"
	"unsafe"
)

// Attrs is an event's attributes, in order, packed into bytes: for each,
// its key's length (a uvarint) and the key, the value's kind (one byte)
// and the value — an integer as a varint, a boolean as one byte, a text
// as its length (a uvarint) and its bytes.
//
// Packed, an event's attributes hold no pointers, so the collector never
// scans them however long the trace grows, and they take about a third
// of the room of a slice of Attr. Two events with the same attributes
// have equal Attrs, byte for byte, which is what reflect.DeepEqual (the
// time-travel tests) compares. Bytes once appended are never changed:
// the strings read from them (Get, All) share them.
type Attrs []byte

// Append appends the attributes to a and returns the result.
func (a Attrs) Append(attrs ...Attr) Attrs {
	for _, at := range attrs {
		a = binary.AppendUvarint(a, uint64(len(at.Key)))
		a = append(append(a, at.Key...), at.Val.kind)
		switch at.Val.kind {
		case 'i':
			a = binary.AppendVarint(a, at.Val.i)
		case 'b':
			a = append(a, byte(at.Val.i))
		default:
			a = binary.AppendUvarint(a, uint64(len(at.Val.s)))
			a = append(a, at.Val.s...)
		}
	}
	return a
}

// size is the number of bytes Append adds for attrs.
func size(attrs []Attr) int {
	n := 0
	for _, at := range attrs {
		n += uvarintLen(uint64(len(at.Key))) + len(at.Key) + 1
		switch at.Val.kind {
		case 'i':
			u := uint64(at.Val.i) << 1 // zig-zag, as binary.AppendVarint
			if at.Val.i < 0 {
				u = ^u
			}
			n += uvarintLen(u)
		case 'b':
			n++
		default:
			n += uvarintLen(uint64(len(at.Val.s))) + len(at.Val.s)
		}
	}
	return n
}

func uvarintLen(u uint64) int {
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// at decodes the attribute that starts at a[i] and returns it with the
// index of the next one.
func (a Attrs) at(i int) (Attr, int) {
	kl, n := binary.Uvarint(a[i:])
	i += n
	key := a.str(i, int(kl))
	i += int(kl)
	v := Value{kind: a[i]}
	i++
	switch v.kind {
	case 'i':
		v.i, n = binary.Varint(a[i:])
		i += n
	case 'b':
		v.i = int64(a[i])
		i++
	default:
		sl, n := binary.Uvarint(a[i:])
		i += n
		v.s = a.str(i, int(sl))
		i += int(sl)
	}
	return Attr{key, v}, i
}

// str is a[i:i+n] as a string sharing a's bytes, which never change.
func (a Attrs) str(i, n int) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&a[i], n)
}

// Get returns the attribute named key.
func (a Attrs) Get(key string) (Value, bool) {
	for i := 0; i < len(a); {
		kl, n := binary.Uvarint(a[i:])
		if k := i + n; int(kl) == len(key) && string(a[k:k+int(kl)]) == key {
			at, _ := a.at(i)
			return at.Val, true
		}
		_, i = a.at(i)
	}
	return Value{}, false
}

// All yields the attributes in order.
func (a Attrs) All() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		for i := 0; i < len(a); {
			var at Attr
			at, i = a.at(i)
			if !yield(at.Key, at.Val) {
				return
			}
		}
	}
}

// Len is the number of attributes.
func (a Attrs) Len() int {
	n := 0
	for i := 0; i < len(a); n++ {
		_, i = a.at(i)
	}
	return n
}
