package sim

import "github.com/eoslab/eoslab/engine/internal/hist"

// sourceIndex maps the bytes of every batch a producer sent to the
// records they hold (see source): the checker's map from batchKey to
// source, laid out so that it grows without random access. Batches with a
// producer id are found by producer id, then by base sequence, which is
// dense; a chain per sequence holds every (crc, size) sent with it, newest
// first. Batches without one (plain producers) are in a map.
type sourceIndex struct {
	pids    hist.Map[int64, int32] // producer id -> index into bySeq
	bySeq   []seqHeads             // per producer id, by sequence: the newest entry + 1 (0: none)
	entries hist.List[sourceEntry]
	plain   hist.Map[batchKey, source]
}

// seqHeads maps a producer id's sequences to the newest entry sent with
// each + 1 (0: none). The first sequence set is kept inline, until
// another is: most producers of a large world have sent one batch.
type seqHeads struct {
	seq  int32
	head int32            // of seq; 0 once rest is used
	rest *hist.Vec[int32] // every sequence, once two were set (nil before)
}

func (h *seqHeads) get(seq int) int32 {
	switch {
	case h.head != 0:
		if seq == int(h.seq) {
			return h.head
		}
		return 0
	case h.rest == nil:
		return 0
	}
	return h.rest.Get(seq)
}

func (h *seqHeads) set(seq int, head int32) {
	if h.rest == nil && (h.head == 0 || seq == int(h.seq)) {
		h.seq, h.head = int32(seq), head
		return
	}
	if h.rest == nil {
		h.rest = &hist.Vec[int32]{}
		h.rest.Set(int(h.seq), h.head)
		h.head = 0
	}
	h.rest.Set(seq, head)
}

func (h *seqHeads) clone() seqHeads {
	d := *h
	d.rest = cloneVec(h.rest)
	return d
}

type sourceEntry struct {
	crc  uint32
	size int32
	src  source
	next int32 // the older entry of the same sequence + 1 (0: none)
}

func (x *sourceIndex) set(k batchKey, s source) {
	if k.pid < 0 || k.seq < 0 {
		x.plain.Set(k, s)
		return
	}
	i, ok := x.pids.Get(k.pid)
	if !ok {
		i = int32(len(x.bySeq))
		x.pids.Set(k.pid, i)
		x.bySeq = append(x.bySeq, seqHeads{})
	}
	head := x.bySeq[i].get(int(k.seq))
	if head > 0 {
		if e := x.entries.Ptr(int(head - 1)); e.crc == k.crc && e.size == k.size && e.src == s {
			return // sent again as it was (a retry): nothing new
		}
	}
	x.entries.Append(sourceEntry{crc: k.crc, size: k.size, src: s, next: head})
	x.bySeq[i].set(int(k.seq), int32(x.entries.Len()))
}

func (x *sourceIndex) get(k batchKey) (source, bool) {
	if k.pid < 0 || k.seq < 0 {
		return x.plain.Get(k)
	}
	i, ok := x.pids.Get(k.pid)
	if !ok {
		return source{}, false
	}
	for at := x.bySeq[i].get(int(k.seq)); at > 0; {
		e := x.entries.Ptr(int(at - 1))
		if e.crc == k.crc && e.size == k.size {
			return e.src, true
		}
		at = e.next
	}
	return source{}, false
}

// clone returns an index sharing x's entries.
func (x *sourceIndex) clone() sourceIndex {
	c := sourceIndex{pids: x.pids.Clone(), entries: x.entries.Clone(), plain: x.plain.Clone(), bySeq: make([]seqHeads, len(x.bySeq))}
	for i := range x.bySeq {
		c.bySeq[i] = x.bySeq[i].clone()
	}
	return c
}
