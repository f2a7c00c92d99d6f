package trace

import (
	"encoding/binary"
	"github.com/eoslab/eoslab/engine/internal/wire"
	"github.com/eoslab/eoslab/engine/producerstate"
	"iter"
	"slices"
	"strconv"
	"unsafe"
)

// Attrs is an event's attributes, in order, packed into bytes: for each,
// its key — one byte, the key's number in the table of the keys
// docs/trace.md fixes (keys), or inlineKey followed by the key's length
// (a uvarint) and its bytes for any other key — then the value's kind
// (one byte) and the value: an integer as a varint, a boolean as one
// byte, a text as its length (a uvarint) and its bytes. The produce
// path's keys fold an integer's, a text's or a boolean's kind into their
// byte (foldedBase). A produce request's list of batches takes its key
// and kind alone: the sentence's arguments name them (BatchRefs). The
// message events' names take a byte or two: an API's and a broker's by
// number, a connection's by its number beside the ends it joins (API,
// Addr, Conn), and they read back as their text. A
// produce.decision's decision, packed, may come first (decisionKey), and
// a sentence first or last (sentenceKey).
//
// Packed, an event's attributes hold no pointers, so the collector never
// scans them however long the trace grows, and they take about a sixth
// of the room of a slice of Attr. A key in the table is always written
// as its number, whoever packs it (Append, With, a Slab's Builder), so
// two events with the same attributes, written the same way (the name
// forms are the Builder's alone), have equal Attrs, byte for byte, which
// is what reflect.DeepEqual (the time-travel tests) compares. Bytes
// once appended are never changed: the strings read from them (Get, All)
// share them, and Attrs holds them as a string (16 bytes in each event,
// where a slice took 24: a traced produce keeps eight events).
type Attrs string

// attrBytes is Attrs' bytes, as the readers below walk them.
type attrBytes []byte

// bytes is a's bytes, shared (never written: see Attrs).
func (a Attrs) bytes() attrBytes { return unsafe.Slice(unsafe.StringData(string(a)), len(a)) }

// attrsOf is the Attrs of bytes that are never written again.
func attrsOf(b []byte) Attrs {
	if len(b) == 0 {
		return ""
	}
	return Attrs(unsafe.String(&b[0], len(b)))
}

// Key is a key of docs/trace.md by its number in the table of keys: the
// one byte a packed attribute names it by. The constants are the keys of
// the produce path's events, which a Builder writes.
type Key uint8

// The keys of the produce path's events (docs/trace.md).
const (
	KeyMessage Key = iota
	KeyAPI
	KeyResponse
	KeyFrom
	KeyTo
	KeyDueMs
	KeyDelayed
	KeyConnection
	KeyBatches
	KeyProducer
	KeyBatch
	KeyPartition
	KeyRecordCount
	KeyBroker
	KeyProducerID
	KeyProducerEpoch
	KeyBaseSequence
	KeyLastSequence
	KeyTransactional
	KeyOutcome
	KeyError
	KeyBaseOffset
	KeyRequest
	KeyPath
	KeyHighWatermark
	KeyLastStableOffset
)

// keys is the table of keys, by number: the produce path's first (the
// constants above), then every other key docs/trace.md fixes. It is read
// only. Attrs are never stored outside the running process, so the
// numbers may change from one version to the next; a key missing here
// is written out in full.
var keys = [...]string{
	KeyMessage: "message", KeyAPI: "api", KeyResponse: "response", KeyFrom: "from", KeyTo: "to",
	KeyDueMs: "due_ms", KeyDelayed: "delayed", KeyConnection: "connection", KeyBatches: "batches",
	KeyProducer: "producer", KeyBatch: "batch", KeyPartition: "partition", KeyRecordCount: "record_count",
	KeyBroker: "broker", KeyProducerID: "producer_id", KeyProducerEpoch: "producer_epoch",
	KeyBaseSequence: "base_sequence", KeyLastSequence: "last_sequence", KeyTransactional: "transactional",
	KeyOutcome: "outcome", KeyError: "error", KeyBaseOffset: "base_offset", KeyRequest: "request",
	KeyPath: "path", KeyHighWatermark: "high_watermark", KeyLastStableOffset: "last_stable_offset",

	"aborted", "acks", "action", "anomalies", "anomaly", "brokers", "by_ms", "bytes", "call",
	"candidates", "clean", "client", "command", "committed", "consumer", "coordinator_epoch", "count",
	"duration_min", "errors", "exception", "fault", "feature", "first", "from_offset", "generation",
	"group", "group_generation", "hanging", "how", "idempotent", "isolation", "isr", "label", "last",
	"last_timestamp", "leader", "leader_epoch", "log_end_offset", "lso", "max_timeout_ms", "member",
	"members", "min_insync", "mode", "name", "offset", "offsets", "old_epoch", "opener", "partitions",
	"previous", "previous_leader", "producer_ids", "reason", "replayed", "rf", "right", "serials",
	"snapshot_offset", "start_offset", "state", "steps", "target", "timeout_ms", "to_offset", "topic",
	"transactional_id", "type", "warning",
}

// inlineKey marks a key that is not in the table: its length and bytes
// follow.
const inlineKey = 0xff

// sentenceKey marks a sentence, where a key would be: first, the event's
// text itself (sentenceText, its length, its bytes), before the attributes;
// or last, after them, the Sentence the text is rendered from and its
// arguments.
const sentenceKey = 0xfe

// decisionKey marks a produce.decision's decision, packed, at the very
// start of the attributes (Builder.Decision): read as no attribute.
const decisionKey = 0xfd

// The table's numbers fit in the key's byte, below decisionKey; a packed
// decision's length fits a byte.
var (
	_ [decisionKey - len(keys)]struct{}
	_ [255 - producerstate.MaxPackedDecision]struct{}
)

// maxKeyLen is the length of the table's longest key.
const maxKeyLen = 18

// keyNumbers is the table the other way round, by the key's length and
// first letter (read only): most of its lists have one key, and finding
// one compares a string or two, where a map would hash the key first.
var keyNumbers = func() (t [maxKeyLen + 1][26][]Key) {
	for i, k := range keys {
		t[len(k)][k[0]-'a'] = append(t[len(k)][k[0]-'a'], Key(i))
	}
	return t
}()

// String is the key's name.
func (k Key) String() string { return keys[k] }

// KeyLogEndOffset is log_end_offset's number, a key past the produce
// path's that a Builder writes (replica.append).
var KeyLogEndOffset = keyNamed("log_end_offset")

// keyNamed is the number of a key the table has.
func keyNamed(name string) Key {
	k, ok := KeyOf(name)
	if !ok {
		panic("trace: no key " + name + " in the table")
	}
	return k
}

// KeyOf returns the number of a key of the table.
func KeyOf(name string) (Key, bool) {
	if len(name) == 0 || len(name) > maxKeyLen || name[0] < 'a' || name[0] > 'z' {
		return 0, false
	}
	for _, k := range keyNumbers[len(name)][name[0]-'a'] {
		if keys[k] == name {
			return k, true
		}
	}
	return 0, false
}

// Append returns a with the attributes appended (a new Attrs: a's bytes
// are not written).
func (a Attrs) Append(attrs ...Attr) Attrs {
	b := make([]byte, len(a), len(a)+bound(attrs))
	copy(b, a)
	return attrsOf(appendAttrs(b, attrs))
}

// appendAttrs appends the attributes to a, packed.
func appendAttrs(a []byte, attrs []Attr) []byte {
	a = slices.Grow(a, bound(attrs))
	for i := range attrs {
		v := &attrs[i].Val
		if k, ok := KeyOf(attrs[i].Key); ok && k < foldedKeys {
			if f, ok := foldedKind(v.kind); ok {
				a = appendPayload(append(a, foldedBase+f*foldedKeys+byte(k)), v)
				continue
			}
		}
		a = appendKey(a, attrs[i].Key)
		a = appendPayload(append(a, v.kind), v)
	}
	return a
}

// The produce path's keys (the table's first foldedKeys) with an integer,
// a text or a boolean take one byte for the key and the value's kind
// together: foldedBase + the kind's index (foldedKind) · foldedKeys + the
// key's number. A traced produce's eight events hold about fifty such
// attributes: fifty bytes less to keep.
const (
	foldedKeys = 32
	foldedBase = 96
)

// The table's numbers stay below the folded bytes, which stay below the
// marks.
var (
	_ [foldedBase - len(keys)]struct{}
	_ [decisionKey - (foldedBase + 3*foldedKeys)]struct{}
)

// foldedKind is the index of a kind whose attributes of the produce
// path's keys are folded.
func foldedKind(kind byte) (byte, bool) {
	switch kind {
	case 'i':
		return 0, true
	case 's':
		return 1, true
	case 'b':
		return 2, true
	}
	return 0, false
}

// unfolded is the key and the value's kind a folded byte stands for.
var unfolded = [3]byte{'i', 's', 'b'}

// bound is at least the number of bytes Append writes for attrs.
func bound(attrs []Attr) int {
	n := 0
	for i := range attrs {
		n += len(attrs[i].Key) + len(attrs[i].Val.s) + 2*binary.MaxVarintLen64 + 2
	}
	return n
}

// appendKey appends key, by its number when it has one.
func appendKey(b []byte, key string) []byte {
	if k, ok := KeyOf(key); ok {
		return append(b, byte(k))
	}
	return append(appendLen(append(b, inlineKey), len(key)), key...)
}

// appendPayload appends v after its kind.
func appendPayload(b []byte, v *Value) []byte {
	switch v.kind {
	case 'i':
		return appendInt(b, v.i)
	case 'b':
		return append(b, byte(v.i))
	}
	return append(appendLen(b, len(v.s)), v.s...)
}

// appendInt appends v as a varint (zig-zag, as binary.AppendVarint), by
// wire's loop rather than a call, so that Builder.Int, which folds a key,
// still fits the compiler's inlining budget.
func appendInt(b []byte, v int64) []byte { return wire.AppendVarlong(b, v) }

// appendLen appends n as a uvarint.
func appendLen(b []byte, n int) []byte {
	if n < 0x80 {
		return append(b, byte(n))
	}
	return binary.AppendUvarint(b, uint64(n))
}

// at decodes the attribute that starts at a[i] and returns it with the
// index of the next one.
func (a attrBytes) at(i int) (Attr, int) {
	var key string
	var v Value
	switch k := a[i]; {
	case k >= foldedBase && k < foldedBase+3*foldedKeys:
		f := k - foldedBase
		key, v.kind = keys[f%foldedKeys], unfolded[f/foldedKeys]
		i++
	case k != inlineKey:
		key, v.kind = keys[k], a[i+1]
		i += 2
	default:
		kl, n := binary.Uvarint(a[i+1:])
		i += 1 + n
		key = a.str(i, int(kl))
		i += int(kl)
		v.kind = a[i]
		i++
	}
	switch v.kind {
	case 'i':
		if c := a[i]; c < 0x80 { // one byte, as most are
			v.i = int64(c>>1) ^ -int64(c&1)
			i++
		} else {
			var n int
			v.i, n = binary.Varint(a[i:])
			i += n
		}
	case 'b':
		v.i = int64(a[i])
		i++
	case 'r':
		// A produce request's batches, named by its sentence's arguments
		// (Builder.BatchRefs): read as the JSON list they stand for.
		v = Value{kind: 'j', s: a.batchRefs(i)}
	case 'A', 'B', 'C':
		// A name, by number (Builder.API, Addr, Conn): read as its text.
		kind := v.kind
		v.kind = 's'
		switch kind {
		case 'A':
			v.s = apis[a[i]%byte(len(apis))]
			i++
		case 'B':
			n, k := argInt(a[i:])
			v.s, i = brokerName(n), i+k
		default:
			n, k := argInt(a[i:])
			v.s = a.connName(a.start(), i-2, n)
			i += k
		}
	case 'p':
		// A decision's path, packed (Builder.Path): read as its text.
		p, n, _ := producerstate.UnpackPath(a[i:])
		v = Value{kind: 's', s: p.String()}
		i += n
	default:
		sl, n := binary.Uvarint(a[i:])
		i += n
		v.s = a.str(i, int(sl))
		i += int(sl)
	}
	return Attr{key, v}, i
}

// str is a[i:i+n] as a string sharing a's bytes, which never change.
func (a attrBytes) str(i, n int) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&a[i], n)
}

// Get returns the attribute named key.
func (a Attrs) Get(key string) (Value, bool) { return a.bytes().get(key) }

func (a attrBytes) get(key string) (Value, bool) {
	for i := a.start(); i < len(a) && a[i] != sentenceKey; {
		at, next := a.at(i)
		if at.Key == key {
			return at.Val, true
		}
		i = next
	}
	return Value{}, false
}

// All yields the attributes in order.
func (s Attrs) All() iter.Seq2[string, Value] {
	a := s.bytes()
	return func(yield func(string, Value) bool) {
		for i := a.start(); i < len(a) && a[i] != sentenceKey; {
			var at Attr
			at, i = a.at(i)
			if !yield(at.Key, at.Val) {
				return
			}
		}
	}
}

// Len is the number of attributes.
func (s Attrs) Len() int {
	a := s.bytes()
	n := 0
	for i := a.start(); i < len(a) && a[i] != sentenceKey; n++ {
		_, i = a.at(i)
	}
	return n
}

// Builder packs an event's attributes straight into a Slab's block, one
// key of the table at a time, as Append would pack them (the same bytes)
// without an Attr for each first: Slab.Begin starts one, Slab.Done hands
// its attributes out. Between the two, nothing else may take room from
// the slab: build the values first.
//
// Like append, each method returns the Builder, which the caller keeps
// (a = a.Int(...)): a slice used by value stays in registers from one
// attribute to the next, where a struct whose methods took its address
// was read from memory and written back at every attribute.
type Builder []byte

// Int appends an integer attribute.
func (b Builder) Int(k Key, v int64) Builder {
	if k < foldedKeys {
		b = append(b, foldedBase+byte(k))
	} else {
		b = append(b, byte(k), 'i')
	}
	return appendInt(b, v)
}

// Str appends a text attribute.
func (b Builder) Str(k Key, v string) Builder {
	if k < foldedKeys {
		b = append(b, foldedBase+foldedKeys+byte(k))
	} else {
		b = append(b, byte(k), 's')
	}
	return append(appendLen(b, len(v)), v...)
}

// Bool appends a boolean attribute.
func (b Builder) Bool(k Key, v bool) Builder {
	c := byte(0)
	if v {
		c = 1
	}
	if k < foldedKeys {
		return append(b, foldedBase+2*foldedKeys+byte(k), c)
	}
	return append(b, byte(k), 'b', c)
}

// JSON appends an attribute whose value is raw JSON (see JSON).
func (b Builder) JSON(k Key, raw string) Builder {
	return append(appendLen(append(b, byte(k), 'j'), len(raw)), raw...)
}

// JSONBytes is JSON for raw JSON built in a buffer of the caller's.
func (b Builder) JSONBytes(k Key, raw []byte) Builder {
	return append(appendLen(append(b, byte(k), 'j'), len(raw)), raw...)
}

// OpenJSON starts an attribute whose raw JSON the caller appends to the
// Builder it returns, then closes with CloseJSON: written in place, where
// JSONBytes copies it from a buffer the caller has to zero first.
func (b Builder) OpenJSON(k Key) Builder { return append(b, byte(k), 'j', 0) }

// CloseJSON ends the attribute OpenJSON started at open, the Builder's
// length then.
func (b Builder) CloseJSON(open int) Builder {
	start := open + 3
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n) // the length's one byte, as appendLen writes it
		return b
	}
	raw := append([]byte(nil), b[start:]...)
	return b[:open].JSONBytes(Key(b[open]), raw)
}

// BatchRefs appends the attribute that lists a produce request's batches
// as the client numbers them, [{"partition":"orders-0","batch":3}, ...],
// without a byte of its own: each batch's partition and id are the
// arguments of the SentenceSendProduce the attributes must end with.
func (b Builder) BatchRefs(k Key) Builder { return append(b, byte(k), 'r') }

// batchRefs is the list BatchRefs stands for, the attributes after it
// starting at a[i].
func (a attrBytes) batchRefs(i int) string {
	for i < len(a) && a[i] != sentenceKey {
		_, i = a.at(i)
	}
	if i+1 >= len(a) || Sentence(a[i+1]) != SentenceSendProduce {
		return "[]"
	}
	args := a[i+2:]
	_, n := argInt(args) // acks
	args = args[n:]
	b := []byte{'['}
	for len(args) > 0 {
		name, n := argStr(args)
		args = args[n:]
		id, n := argInt(args)
		args = args[n:]
		if len(args) < argHeaderLen {
			break
		}
		args = args[argHeaderLen:]
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(append(b, `{"partition":`...), name)
		b = append(AppendInt(append(b, `,"batch":`...), id), '}')
	}
	return string(append(b, ']'))
}

// Path appends a decision's path, packed: a byte a step instead of its
// text, which is what it reads as (Path.String).
func (b Builder) Path(k Key, p producerstate.Path) Builder {
	return Builder(p.AppendPacked(append(b, byte(k), 'p')))
}

// List appends a list of integers (see List).
func (b Builder) List(k Key, v []int64) Builder {
	var buf [64]byte
	l := append(buf[:0], '[')
	for i, x := range v {
		if i > 0 {
			l = append(l, ',')
		}
		l = strconv.AppendInt(l, x, 10)
	}
	l = append(l, ']')
	return append(appendLen(append(b, byte(k), 'l'), len(l)), l...)
}
