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
	bySeq   []hist.Vec[int32]      // per producer id, by sequence: the newest entry + 1 (0: none)
	entries hist.List[sourceEntry]
	plain   hist.Map[batchKey, source]
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
		x.bySeq = append(x.bySeq, hist.Vec[int32]{})
	}
	head := x.bySeq[i].Get(int(k.seq))
	if head > 0 {
		if e := x.entries.Ptr(int(head - 1)); e.crc == k.crc && e.size == k.size && e.src == s {
			return // sent again as it was (a retry): nothing new
		}
	}
	x.entries.Append(sourceEntry{crc: k.crc, size: k.size, src: s, next: head})
	x.bySeq[i].Set(int(k.seq), int32(x.entries.Len()))
}

func (x *sourceIndex) get(k batchKey) (source, bool) {
	if k.pid < 0 || k.seq < 0 {
		return x.plain.Get(k)
	}
	i, ok := x.pids.Get(k.pid)
	if !ok {
		return source{}, false
	}
	for at := x.bySeq[i].Get(int(k.seq)); at > 0; {
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
	c := sourceIndex{pids: x.pids.Clone(), entries: x.entries.Clone(), plain: x.plain.Clone(), bySeq: make([]hist.Vec[int32], len(x.bySeq))}
	for i := range x.bySeq {
		c.bySeq[i] = x.bySeq[i].Clone()
	}
	return c
}
