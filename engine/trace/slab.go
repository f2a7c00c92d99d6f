package trace

import (
	"strconv"
	"unsafe"

	"github.com/eoslab/eoslab/engine/internal/prefault"
)

// slabText is the size of a Slab's first block: a few hundred events'
// worth. A slab that fills it is a long trace's, and takes blocks of
// slabLong from then on, whose pages it asks for at once (prefault):
// one request for a long block costs less than the faults of its pages
// when they are new, and little against the many events it holds when
// they are not.
const (
	slabText = 16 << 10
	slabLong = 256 << 10
)

// Slab is where the hottest events (those of the produce path) take their
// room, so that a traced step allocates once every few hundred events
// instead of several times an event: their packed attributes (which hold
// or say their texts, and a decision's decision) are cut from shared
// blocks, and partition names are made once. Nothing handed out is ever written again,
// or shared between two events. The blocks hold no pointers, so the
// collector does not scan them.
//
// A Slab belongs to one world: a copy of the world starts with a new one
// (two worlds cutting room from one block would write over each other's
// bytes); what the old one handed out stays valid.
type Slab struct {
	text   []byte
	names  map[string][]string // partition names by topic, by partition
	topic  string              // the topic last asked for, and its names
	tnames []string
	tpart  int // 1 + the partition last asked for, and its name
	tname  string
	qname  string // the partition name last quoted, and its quoted text
	qtext  string
	begun  int   // len(text) at the last Begin, and text's array then:
	block  *byte // Done finds the slab as Begin left it, or panics
}

// Attrs returns attrs packed in the slab (see Attrs), for an event's
// Attrs: the slab's bytes, never written again (Attrs.Append copies).
func (s *Slab) Attrs(attrs ...Attr) Attrs {
	n := bound(attrs)
	if n > slabText/4 {
		return Attrs("").Append(attrs...)
	}
	b := s.Begin(n)
	return s.Done(Builder(appendAttrs(b, attrs)))
}

// Begin starts building an event's attributes in the slab, with room for
// about n bytes of them (a Builder that needs more moves them out of the
// slab, to a block of their own).
func (s *Slab) Begin(n int) Builder {
	s.room(min(max(n, 1), slabText/4))
	i := len(s.text)
	s.begun, s.block = i, unsafe.SliceData(s.text)
	return Builder(s.text[i:i:cap(s.text)])
}

// Done returns the attributes b built since Begin, for the event's Attrs:
// the slab's bytes, handed out and never written again (Attrs.Append
// copies them).
func (s *Slab) Done(b Builder) Attrs {
	if len(s.text) != s.begun || unsafe.SliceData(s.text) != s.block {
		panic("trace: a slab was used while attributes were being built in it")
	}
	n := len(b)
	if n > 0 && cap(b) == cap(s.text)-s.begun {
		// Still in the block's free room: those bytes are handed out now.
		s.text = s.text[:s.begun+n]
	}
	return attrsOf(b[:n:n])
}

// room makes room for n more bytes in the block.
func (s *Slab) room(n int) {
	if cap(s.text)-len(s.text) < n { // the test inlined into Begin, the new block made apart
		s.newBlock()
	}
}

// newBlock starts the slab's next block.
func (s *Slab) newBlock() {
	if s.text == nil {
		s.text = make([]byte, 0, slabText)
		return
	}
	s.text = make([]byte, 0, slabLong)
	prefault.Slice(s.text)
}

// Partition returns topic-partition's name (msg.TP's String), made once.
func (s *Slab) Partition(topic string, partition int) string {
	// Most calls: a produce path names one partition again and again.
	if partition+1 == s.tpart && topic == s.topic {
		return s.tname
	}
	return s.partition(topic, partition)
}

// partition is Partition past the name asked for last.
func (s *Slab) partition(topic string, partition int) string {
	if partition < 0 || partition >= 1<<12 {
		return topic + "-" + strconv.Itoa(partition)
	}
	// The topic's bytes are mostly the very ones asked for last: comparing
	// their address first saves a call to compare them.
	same := len(topic) == len(s.topic) && (unsafe.StringData(topic) == unsafe.StringData(s.topic) || topic == s.topic)
	if same && partition < len(s.tnames) && s.tnames[partition] != "" {
		s.topic, s.tpart, s.tname = topic, partition+1, s.tnames[partition]
		return s.tname
	}
	names := s.names[topic]
	if partition < len(names) && names[partition] != "" {
		s.topic, s.tnames, s.tpart, s.tname = topic, names, partition+1, names[partition]
		return names[partition]
	}
	if s.names == nil {
		s.names = map[string][]string{}
	}
	if partition >= len(names) {
		names = append(names, make([]string, partition+1-len(names))...)
		s.names[topic] = names
	}
	names[partition] = topic + "-" + strconv.Itoa(partition)
	s.topic, s.tnames, s.tpart, s.tname = topic, names, partition+1, names[partition]
	return names[partition]
}

// QuotedPartition is Partition's name quoted, as strconv.Quote quotes it,
// for a JSON attribute: made again only when the name is not the one
// asked for last, where quoting it each time looked at every byte.
func (s *Slab) QuotedPartition(topic string, partition int) string {
	name := s.Partition(topic, partition)
	if s.qtext == "" || len(name) != len(s.qname) || unsafe.StringData(name) != unsafe.StringData(s.qname) && name != s.qname {
		s.qname, s.qtext = name, strconv.Quote(name)
	}
	return s.qtext
}
