package trace

import (
	"encoding/binary"
	"iter"
	"slices"
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
	n := len(a)
	a = slices.Grow(a, bound(attrs))
	return a[:n+encode(a[n:n+bound(attrs)], attrs)]
}

// bound is at least the number of bytes encode writes for attrs.
func bound(attrs []Attr) int {
	n := 0
	for i := range attrs {
		n += len(attrs[i].Key) + len(attrs[i].Val.s) + 2*binary.MaxVarintLen64 + 1
	}
	return n
}

// encode writes attrs into b, which has room for bound(attrs) bytes, and
// returns how many bytes it wrote.
func encode(b []byte, attrs []Attr) int {
	p := 0
	for i := range attrs {
		at := &attrs[i]
		p = putLen(b, p, len(at.Key))
		p += copy(b[p:], at.Key)
		b[p] = at.Val.kind
		p++
		switch at.Val.kind {
		case 'i':
			if u := uint64(at.Val.i)<<1 ^ uint64(at.Val.i>>63); u < 0x80 { // zig-zag, as binary.PutVarint
				b[p] = byte(u)
				p++
			} else {
				p += binary.PutUvarint(b[p:], u)
			}
		case 'b':
			b[p] = byte(at.Val.i)
			p++
		default:
			p = putLen(b, p, len(at.Val.s))
			p += copy(b[p:], at.Val.s)
		}
	}
	return p
}

// putLen writes n as a uvarint at b[p] and returns the index after it.
func putLen(b []byte, p, n int) int {
	if n < 0x80 {
		b[p] = byte(n)
		return p + 1
	}
	return p + binary.PutUvarint(b[p:], uint64(n))
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
