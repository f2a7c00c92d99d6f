package sim

import (
	"math"
	"slices"

	"github.com/eoslab/eoslab/engine/internal/hist"
)

// sourceIndex maps the bytes of every batch a producer sent to the
// records they hold (see source): the checker's map from batchKey to
// source, laid out so that it grows without random access. Batches with a
// producer id are found by producer id, then by base sequence; a chain per
// sequence holds every (crc, size) sent with it, newest first. Batches
// without one (plain producers) are in a map.
//
// Most producers of a large world have sent one batch, or batches with
// one sequence: the producer id then leads to the newest entry itself,
// which holds its sequence, and only a producer id that has sent two
// sequences gets a vector of them (a Vec of its own in bySeq). Producer
// ids are handed out in blocks from a start (the controller's), so they
// are found by their distance from the first one seen, in a vector; ids
// far from it (below it, or nearPIDs above) are in a map.
type sourceIndex struct {
	// By producer id: the newest entry + 1 while it sent one sequence,
	// else -(index into bySeq + 1); 0: none.
	near  hist.Vec[int32] // by producer id - base
	far   hist.Map[int64, int32]
	base  int64 // the first producer id set
	based bool
	bySeq []hist.Vec[int32] // per producer id, by sequence: the newest entry + 1 (0: none)
	// past is, by index in bySeq, one past the highest sequence set: a
	// vector reads 0 from there on, and a producer's next batch (most
	// batches sent) has the next sequence, so it is not looked up.
	past    []int64
	entries hist.List[sourceEntry]
	values  hist.Map[int32, int32] // by entry: a chosen value's number (entryValue)
	nexts   hist.Map[int32, int32] // by entry: the older entry of its sequence + 1 (entryNext)
	plain   hist.Map[batchKey, source]
	// recent holds the newest entry of a few (producer id, sequence)
	// pairs, by a hash of the pair: a batch is judged soon after it was
	// sent, and retried soon after, so most lookups find it here instead
	// of in the vectors. A pair's newest entry changes only when set
	// appends a newer one, which takes the slot.
	recent [recentSlots]recentHead
	// pids keeps the values of a few producer ids looked up lately, by
	// the id's low bits (v 0: none kept): a world's few busy producers
	// send again and again, and their ids are handed out one after the
	// other.
	pids [pidSlots]pidValue
}

const pidSlots = 4

type pidValue struct {
	pid int64
	v   int32
}

// recentSlots is how many pairs recent holds.
const (
	recentBits  = 5
	recentSlots = 1 << recentBits
)

type recentHead struct {
	pid  int64
	seq  int32
	head int32 // the newest entry + 1 (0: an empty slot)
}

// recentAt returns the slot of recent for the pair.
func (x *sourceIndex) recentAt(pid int64, seq int32) *recentHead {
	h := uint64(pid)*0x9e3779b97f4a7c15 ^ uint64(uint32(seq))*0xc2b2ae3d27d4eb4f
	return &x.recent[h>>(64-recentBits)]
}

// sourceEntry is one batch's bytes sent (their key but for the producer
// id, which finds the entry) and its source, in 24 bytes. The rare fields
// are kept apart, by the entry's index, each marked by a sign bit no
// sequence or size has: a chosen value's number (sourceIndex.values,
// entryValue in size) and the older entry of the same sequence, sent
// with other bytes (sourceIndex.nexts, entryNext in seq).
type sourceEntry struct {
	firstSerial int64
	crc         uint32
	size        int32
	seq         int32
	who         int32
}

const (
	entryValue = math.MinInt32 // in size
	entryNext  = math.MinInt32 // in seq
)

// sizeOf and seqOf are the entry's batch length and base sequence.
func (e *sourceEntry) sizeOf() int32 { return e.size &^ entryValue }
func (e *sourceEntry) seqOf() int32  { return e.seq &^ entryNext }

// src is entry i's source (e being entry i).
func (x *sourceIndex) src(i int32, e *sourceEntry) source {
	s := source{firstSerial: e.firstSerial, who: e.who, value: -1}
	if e.size&entryValue != 0 {
		s.value, _ = x.values.Get(i)
	}
	return s
}

// next is the older entry + 1 of entry i's sequence (0: none).
func (x *sourceIndex) next(i int32, e *sourceEntry) int32 {
	if e.seq&entryNext == 0 {
		return 0
	}
	n, _ := x.nexts.Get(i)
	return n
}

// head returns the newest entry + 1 sent by pid with sequence seq (0:
// none), given pids' value v for pid.
func (x *sourceIndex) head(v int32, seq int32) int32 {
	if v < 0 {
		return x.bySeq[-v-1].Get(int(seq))
	}
	if x.entries.Ptr(int(v-1)).seqOf() == seq {
		return v
	}
	return 0
}

// nearPIDs is how many producer ids from base on are found in near.
const nearPIDs = 1 << 22

// pid returns the value for a producer id (0: none).
func (x *sourceIndex) pid(pid int64) int32 {
	p := &x.pids[uint64(pid)%pidSlots]
	if p.pid == pid && p.v != 0 {
		return p.v
	}
	var v int32
	if d := pid - x.base; x.based && d >= 0 && d < nearPIDs {
		v = x.near.Get(int(d))
	} else {
		v, _ = x.far.Get(pid)
	}
	if v != 0 {
		*p = pidValue{pid, v}
	}
	return v
}

func (x *sourceIndex) setPID(pid int64, v int32) {
	x.pids[uint64(pid)%pidSlots] = pidValue{pid, v}
	if !x.based {
		x.base, x.based = pid, true
	}
	if d := pid - x.base; d >= 0 && d < nearPIDs {
		x.near.Set(int(d), v)
		return
	}
	x.far.Set(pid, v)
}

func (x *sourceIndex) set(k batchKey, s source) {
	if k.pid < 0 || k.seq < 0 {
		x.plain.Set(k, s)
		return
	}
	r := x.recentAt(k.pid, k.seq)
	v := x.pid(k.pid)
	var head int32
	if v != 0 {
		switch {
		case r.pid == k.pid && r.seq == k.seq && r.head != 0:
			head = r.head
		case v < 0 && int64(k.seq) >= x.past[-v-1]:
			// a sequence past every one this producer id has sent: none
		default:
			head = x.head(v, k.seq)
		}
		if head > 0 {
			if e := x.entries.Ptr(int(head - 1)); e.crc == k.crc && e.sizeOf() == k.size && x.src(head-1, e) == s {
				*r = recentHead{pid: k.pid, seq: k.seq, head: head}
				return // sent again as it was (a retry): nothing new
			}
		}
		if v > 0 && head == 0 {
			// A second sequence: from now on the producer id's sequences
			// are in a vector.
			x.bySeq = append(x.bySeq, hist.Vec[int32]{})
			first := x.entries.Ptr(int(v - 1)).seqOf()
			x.bySeq[len(x.bySeq)-1].Set(int(first), v)
			x.past = append(x.past, int64(first)+1)
			v = -int32(len(x.bySeq))
			x.setPID(k.pid, v)
		}
	}
	e := sourceEntry{firstSerial: s.firstSerial, crc: k.crc, size: k.size, seq: k.seq, who: s.who}
	i := int32(x.entries.Len())
	if s.value >= 0 {
		e.size |= entryValue
		x.values.Set(i, s.value)
	}
	if head != 0 {
		e.seq |= entryNext
		x.nexts.Set(i, head)
	}
	x.entries.Append(e)
	n := i + 1
	if v < 0 {
		x.bySeq[-v-1].Set(int(k.seq), n)
		if p := &x.past[-v-1]; int64(k.seq) >= *p {
			*p = int64(k.seq) + 1
		}
	} else {
		x.setPID(k.pid, n)
	}
	*r = recentHead{pid: k.pid, seq: k.seq, head: n}
}

func (x *sourceIndex) get(k batchKey) (source, bool) {
	if k.pid < 0 || k.seq < 0 {
		return x.plain.Get(k)
	}
	r := x.recentAt(k.pid, k.seq)
	at := r.head
	if r.pid != k.pid || r.seq != k.seq || at == 0 {
		v := x.pid(k.pid)
		if v == 0 {
			return source{}, false
		}
		if at = x.head(v, k.seq); at > 0 {
			*r = recentHead{pid: k.pid, seq: k.seq, head: at}
		}
	}
	for at > 0 {
		e := x.entries.Ptr(int(at - 1))
		if e.crc == k.crc && e.sizeOf() == k.size {
			return x.src(at-1, e), true
		}
		at = x.next(at-1, e)
	}
	return source{}, false
}

// clone returns an index sharing x's entries.
func (x *sourceIndex) clone() sourceIndex {
	c := sourceIndex{near: x.near.Clone(), far: x.far.Clone(), base: x.base, based: x.based,
		entries: x.entries.Clone(), values: x.values.Clone(), nexts: x.nexts.Clone(), plain: x.plain.Clone(), bySeq: make([]hist.Vec[int32], len(x.bySeq)), past: slices.Clone(x.past),
		recent: x.recent, pids: x.pids}
	for i := range x.bySeq {
		c.bySeq[i] = x.bySeq[i].Clone()
	}
	return c
}
