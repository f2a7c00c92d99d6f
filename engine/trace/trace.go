// Package trace defines the events the world records: one per thing that
// happens (a message sent, delivered or lost, a broker decision, a
// producer retry, a leader change, an anomaly...). Each event has a kind,
// its step and logical time, and ordered attributes; it has one canonical
// text form (Describe) and one JSON form, used by the transcript, the
// headless JSON Lines output, the golden tests and the UI alike.
package trace

import (
	"encoding/json"
	"strconv"

	"github.com/eoslab/eoslab/engine/producerstate"
)

// Kind names an event, e.g. "produce.decision". Kinds are a contract of
// the JSON trace (docs/trace.md).
type Kind string

// Event is one thing that happened.
type Event struct {
	Step   int
	TimeMs int64
	Kind   Kind
	Attrs  Attrs // and the human sentence, first or rendered from them (Text), and a decision (Decision)
}

// Decision is the broker's verdict with the path of checks it took, for
// the UI's decision tree, on a produce.decision event that keeps one
// (Builder.Decision), or nil. Each call unpacks a copy of it.
func (e *Event) Decision() *producerstate.Decision {
	d, ok := e.Attrs.bytes().decision()
	if !ok {
		return nil
	}
	return &d
}

// HasDecision reports whether the event keeps a decision, without
// unpacking it.
func (e *Event) HasDecision() bool { return len(e.Attrs) > 0 && e.Attrs[0] == decisionKey }

// Attr is one key/value of an event.
type Attr struct {
	Key string
	Val Value
}

// Value is a small union: an integer, a string, a boolean or a list of
// integers (kept as its text, which is all a list is read as).
type Value struct {
	s    string
	i    int64
	kind byte // 'i', 's', 'b', 'l', 'j'
}

// JSON is a value written into the JSON form as it is (it must be valid
// JSON), e.g. a list of objects.
func JSON(raw string) Value { return Value{kind: 'j', s: raw} }

// Int, Str, Bool and List build attribute values.
func Int(v int64) Value  { return Value{kind: 'i', i: v} }
func Str(v string) Value { return Value{kind: 's', s: v} }
func List(v []int64) Value {
	b := make([]byte, 0, 2+8*len(v))
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, x, 10)
	}
	return Value{kind: 'l', s: string(append(b, ']'))}
}
func Bool(v bool) Value {
	if v {
		return Value{kind: 'b', i: 1}
	}
	return Value{kind: 'b'}
}

// New starts an event of kind k with the human sentence text and, packed
// with it at once, attributes (With adds one more, a copy each time).
func New(k Kind, text string, attrs ...Attr) Event {
	b := appendText(make([]byte, 0, len(text)+8+bound(attrs)), text)
	return Event{Kind: k, Attrs: attrsOf(appendAttrs(b, attrs))}
}

// Text is the event's human sentence; Describe adds step and time. The
// sentence is kept before the attributes (New, SetText, Builder.Text), or
// the attributes end with a Sentence, a form of words they fill in: then
// it is rendered here, each time it is read.
func (e *Event) Text() string {
	a := e.Attrs.bytes()
	if t, ok := a.text(); ok {
		return t
	}
	return string(a.appendSentence(nil))
}

// AppendText appends Text() to b, rendering a Sentence straight into b.
func (e *Event) AppendText(b []byte) []byte {
	a := e.Attrs.bytes()
	if t, ok := a.text(); ok {
		return append(b, t...)
	}
	return a.appendSentence(b)
}

// SetText sets the event's sentence.
func (e *Event) SetText(text string) {
	x := e.Attrs.bytes()
	d, a := x[:x.decisionEnd()], x[x.start():]
	e.Attrs = attrsOf(append(appendText(append(make([]byte, 0, len(d)+8+len(text)+len(a)), d...), text), a...))
}

// With appends an attribute and returns the event (for chaining).
func (e Event) With(key string, v Value) Event {
	e.Attrs = e.Attrs.Append(Attr{key, v})
	return e
}

// Get returns the attribute named key.
func (e *Event) Get(key string) (Value, bool) { return e.Attrs.Get(key) }

// Int returns an integer attribute (0 if absent).
func (e *Event) Int(key string) int64 { v, _ := e.Get(key); return v.i }

// Str returns a string attribute ("" if absent).
func (e *Event) Str(key string) string {
	if v, _ := e.Get(key); v.kind == 's' || v.kind == 'j' {
		return v.s
	}
	return ""
}

// Bool returns a boolean attribute (false if absent).
func (e *Event) Bool(key string) bool { v, _ := e.Get(key); return v.kind == 'b' && v.i == 1 }

// String renders the value as it appears in text and JSON.
func (v Value) String() string {
	switch v.kind {
	case 'i':
		return strconv.FormatInt(v.i, 10)
	case 'b':
		return strconv.FormatBool(v.i == 1)
	}
	return v.s
}

func (v Value) appendJSON(b []byte) []byte {
	switch v.kind {
	case 'i':
		return strconv.AppendInt(b, v.i, 10)
	case 'b':
		return strconv.AppendBool(b, v.i == 1)
	case 'l', 'j':
		return append(b, v.s...)
	}
	q, _ := json.Marshal(v.s)
	return append(b, q...)
}

// Describe is the event's canonical one-line text:
// "  12  1.004s  produce.decision  broker 1 appended ...".
func (e *Event) Describe() string {
	return strconv.Itoa(e.Step) + "\t" + FormatTime(e.TimeMs) + "\t" + string(e.Kind) + "\t" + e.Text()
}

// FormatTime renders logical milliseconds as seconds with three decimals.
func FormatTime(ms int64) string {
	var b [24]byte
	return string(AppendTime(b[:0], ms))
}

// AppendTime appends FormatTime(ms) to b.
func AppendTime(b []byte, ms int64) []byte {
	if ms < 0 {
		b, ms = append(b, '-'), -ms
	}
	b = strconv.AppendInt(b, ms/1000, 10)
	frac := ms % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10), 's')
}

// MarshalJSON writes {"kind", "step", "time_ms", attributes in order..., "text"}.
func (e Event) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// AppendJSON appends the event's JSON object to b.
func (e *Event) AppendJSON(b []byte) []byte {
	b = append(b, `{"kind":`...)
	b = Str(string(e.Kind)).appendJSON(b)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(e.Step), 10)
	b = append(b, `,"time_ms":`...)
	b = strconv.AppendInt(b, e.TimeMs, 10)
	x := e.Attrs.bytes()
	for i := x.start(); i < len(x) && x[i] != sentenceKey; {
		var a Attr
		a, i = x.at(i)
		b = append(b, ',')
		b = Str(a.Key).appendJSON(b)
		b = append(b, ':')
		b = a.Val.appendJSON(b)
	}
	b = append(b, `,"text":`...)
	b = Str(e.Text()).appendJSON(b)
	return append(b, '}')
}

// JSON renders the value as JSON.
func (v Value) JSON() string { return string(v.appendJSON(nil)) }
