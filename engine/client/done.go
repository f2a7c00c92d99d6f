package client

import (
	"encoding/binary"

	"github.com/eoslab/eoslab/engine/internal/hist"
	"github.com/eoslab/eoslab/engine/internal/wire"
	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
)

// doneBatch is a batch that is done, in the compact form the producer
// keeps for the rest of its life: what a snapshot shows of it. It keeps
// no bytes (the producer keeps none: Batch.Bytes): those of its last send
// are its fields encoded again (fill), as the producer encoded them then.
type doneBatch struct {
	firstSerial int64
	baseOffset  int64
	pid         int64
	timestamp   int64
	tp          *msg.TP    // never changed once the batch is done: 8 bytes, not 24
	extra       *doneExtra // nil but for a key, a chosen value or a reset since its last send
	seq         int32
	count       int32
	sends       int32
	err         kerr.Code
	epoch       int16
	state       BatchState
	sent        bool // it was sent: it has bytes
}

// doneExtra is what few done batches keep besides: the key and the value
// the application chose, and the producer id, epoch and sequence of a
// batch whose sequence was reset after its last send (an epoch bump, a
// batch before it that failed), which its bytes were encoded with.
type doneExtra struct {
	key, value []byte
	sentPID    int64
	sentSeq    int32
	sentEpoch  int16
	explicit   bool
	reset      bool // sentPID, sentEpoch and sentSeq are set
}

// settled is what is kept of b once it is done: the entry, with no extra,
// and the extra if it has one (written into *x, which add copies; not
// pointed to, so that it stays on the caller's stack).
func (b *Batch) settled(x *doneExtra) (doneBatch, bool) {
	d := doneBatch{firstSerial: b.FirstSerial, baseOffset: b.BaseOffset, pid: b.PID, timestamp: b.Timestamp, tp: &b.ps.tp,
		seq: b.Seq, count: b.Count, sends: int32(b.Sends), err: b.Err, epoch: b.Epoch, state: b.State, sent: b.sent}
	reset := b.sent && (b.sentPID != b.PID || b.sentEpoch != b.Epoch || b.sentSeq != b.Seq)
	if b.Key != nil || b.Explicit || reset {
		*x = doneExtra{key: b.Key, value: b.Value, explicit: b.Explicit, reset: reset,
			sentPID: b.sentPID, sentSeq: b.sentSeq, sentEpoch: b.sentEpoch}
		return d, true
	}
	return d, false
}

// fill writes the batch d keeps, with this id, into the zero batch b,
// with the bytes of its last send encoded again by p (whose batch it is)
// when bytes is set.
func (d *doneBatch) fill(b *Batch, id int, p *Producer, bytes bool) {
	b.ID, b.TP, b.Count, b.FirstSerial = id, *d.tp, d.count, d.firstSerial
	b.PID, b.Epoch, b.Seq, b.Sends, b.State = d.pid, d.epoch, d.seq, int(d.sends), d.state
	b.BaseOffset, b.Err, b.Timestamp = d.baseOffset, d.err, d.timestamp
	b.sent, b.sentPID, b.sentEpoch, b.sentSeq = d.sent, d.pid, d.epoch, d.seq
	if x := d.extra; x != nil {
		b.Key, b.Value, b.Explicit = x.key, x.value, x.explicit
		if x.reset {
			b.sentPID, b.sentEpoch, b.sentSeq = x.sentPID, x.sentEpoch, x.sentSeq
		}
	}
	if bytes {
		b.Bytes = p.SentBytes(b)
	}
}

// doneList is the producer's settled batches: the first one on its own,
// the others in a doneLog made with the second. A quiet producer of a
// large world has made one batch, and pays for it a pointer and the
// entry, not a log's header.
type doneList struct {
	first *doneBatch
	more  *doneLog // the batches after the first (nil: none)
}

// Len is the number of entries.
func (l *doneList) Len() int {
	if l.more != nil {
		return 1 + l.more.n
	}
	if l.first != nil {
		return 1
	}
	return 0
}

// add appends d, with a copy of the extra x if d has one (settled).
func (l *doneList) add(d *doneBatch, x *doneExtra, hasExtra bool, sc *Scratch) {
	switch {
	case l.more != nil:
		l.more.append(d, x, hasExtra)
	case l.first == nil:
		l.first = sc.dones.New()
		*l.first = *d
		if hasExtra {
			c := *x
			l.first.extra = &c
		}
	default:
		l.more = &doneLog{end: doneMark{prev: *l.first}}
		l.more.append(d, x, hasExtra)
	}
}

// doneIter reads a list's entries in order from one (doneList.from).
type doneIter struct {
	l *doneList
	r doneReader
	j int
}

// from returns an iterator at entry i.
func (l *doneList) from(i int) doneIter {
	it := doneIter{l: l, j: i}
	if l.more != nil && i < l.Len() {
		it.r = l.more.reader(max(0, i-1))
	}
	return it
}

// next returns the next entry, its index and where it is kept, if any.
func (it *doneIter) next() (int, DoneRef, doneBatch, bool) {
	j := it.j
	if j >= it.l.Len() {
		return 0, DoneRef{}, doneBatch{}, false
	}
	it.j++
	if j == 0 {
		return 0, DoneRef{first: it.l.first}, *it.l.first, true
	}
	return j, DoneRef{tok: it.l.more.tokenOf(j - 1), i: j}, it.r.next(), true
}

// at returns entry i.
func (l *doneList) at(i int) doneBatch {
	if i == 0 {
		return *l.first
	}
	r := l.more.reader(i - 1)
	return r.next()
}

// ref identifies entry i (DoneRef).
func (l *doneList) ref(i int) DoneRef {
	if i == 0 {
		return DoneRef{first: l.first}
	}
	return DoneRef{tok: l.more.tokenOf(i - 1), i: i}
}

// Clone returns a doneList sharing l's entries.
func (l *doneList) Clone() doneList {
	c := doneList{first: l.first}
	if l.more != nil {
		m := l.more.clone()
		c.more = &m
	}
	return c
}

// DoneRef identifies a settled batch by the run of appends that made it:
// producers share the entries of a history they share (a clone, a world
// rewound), so equal refs mean the same batch.
type DoneRef struct {
	first *doneBatch
	tok   *doneToken
	i     int
}

// doneToken names a run of appends to a doneLog: those of one log between
// two of its clones, so that two logs with a shared past name their own
// entries apart.
type doneToken struct{ _ byte }

// doneRun is a run of a log's entries, from entry from on, appended under
// one token.
type doneRun struct {
	from int
	tok  *doneToken
}

// doneLog is a producer's settled batches after the first, each encoded
// in a few bytes as it differs from the one before, in blocks that never
// move once written: a produce in a loop adds about 7 bytes, where a
// doneBatch took 72 with two pointers for the collector to follow. The
// partitions and the rare extras are kept apart, numbered.
//
// Entries never change once appended, so a clone shares them all, and the
// first append after it copies at most the open block. Reading is in
// order from an entry (reader); every doneMarkEvery-th entry's place is
// marked with the entry before it, so that a reader starts near any
// entry.
//
// An entry is a flags byte and zigzag varints, d against the entry
// before, p:
//
//	flags     sameTP | nextSerial | samePID | hasExtra | sent | plain | state (2 bits)
//	tp        !sameTP: its number in tps
//	serial    !nextSerial: d.firstSerial - p.firstSerial - p.count
//	pid       !samePID: pid, then epoch
//	extra     hasExtra: its number in extras
//	sends     !plain (1 send, no error): sends, then the error code
//	seq       d.seq - p.seq - p.count
//	offset    d.baseOffset - p.baseOffset - p.count
//	count     d.count
//	time      d.timestamp - p.timestamp
type doneLog struct {
	blocks hist.Blocks
	marks  hist.List[doneMark]
	tps    hist.List[msg.TP]
	extras hist.List[doneExtra]
	runs   []doneRun  // oldest first; the last is tok's, when tok is set
	tok    *doneToken // what this log's appends are named by (nil: a new one, since a clone)
	n      int
	end    doneMark // where the next entry goes and the entry before it
}

// doneMark is where a reader is: the entry's first byte and the entry
// before it, decoded.
type doneMark struct {
	off  int64 // the entry's place in blocks (hist.Blocks.At)
	prev doneBatch
}

const (
	doneMarkEvery = 64
	maxDoneEntry  = 1 + 11*binary.MaxVarintLen64

	doneSameTP     = 1 << 0
	doneNextSerial = 1 << 1
	doneSamePID    = 1 << 2
	doneHasExtra   = 1 << 3
	doneSent       = 1 << 4
	donePlain      = 1 << 5
	doneStateShift = 6
)

// append adds d, whose state is done (Acked, Failed or Expired), with a
// copy of the extra x if it has one.
func (l *doneLog) append(d *doneBatch, x *doneExtra, hasExtra bool) {
	if uint(l.n)%doneMarkEvery == 0 {
		l.marks.Append(l.end)
	}
	if l.tok == nil {
		l.tok = &doneToken{}
		l.runs = append(l.runs, doneRun{l.n, l.tok})
	}
	p := &l.end.prev
	// Appended in the room just made (wire's varints, inlined), the flags
	// byte last.
	t := l.blocks.Room(maxDoneEntry, 2*maxDoneEntry)
	start := len(t)
	e := append(t, 0)
	flags := byte(d.state-Acked) << doneStateShift
	if *d.tp == *p.tp {
		flags |= doneSameTP
		d.tp = p.tp // the log's own, which a reader hands out
	} else {
		e = wire.AppendVarlong(e, int64(l.tpNumber(d)))
	}
	if d.firstSerial == p.firstSerial+int64(p.count) {
		flags |= doneNextSerial
	} else {
		e = wire.AppendVarlong(e, d.firstSerial-p.firstSerial-int64(p.count))
	}
	if d.pid == p.pid && d.epoch == p.epoch {
		flags |= doneSamePID
	} else {
		e = wire.AppendVarlong(wire.AppendVarlong(e, d.pid), int64(d.epoch))
	}
	if hasExtra {
		flags |= doneHasExtra
		e = wire.AppendVarlong(e, int64(l.extras.Len()))
		l.extras.Append(*x)
		d.extra = l.extras.Last()
	}
	if d.sent {
		flags |= doneSent
	}
	if d.sends == 1 && d.err == 0 {
		flags |= donePlain
	} else {
		e = wire.AppendVarlong(wire.AppendVarlong(e, int64(d.sends)), int64(d.err))
	}
	e = wire.AppendVarlong(e, int64(d.seq)-int64(p.seq)-int64(p.count))
	e = wire.AppendVarlong(e, d.baseOffset-p.baseOffset-int64(p.count))
	e = wire.AppendVarlong(e, int64(d.count))
	e = wire.AppendVarlong(e, d.timestamp-p.timestamp)
	e[start] = flags
	l.blocks.Keep(e)
	l.end.off = l.blocks.End()
	l.end.prev = *d
	l.n++
}

// tpNumber is d's partition's number in tps, numbered if it is new.
func (l *doneLog) tpNumber(d *doneBatch) int {
	for i := l.tps.Len() - 1; i >= 0; i-- { // a producer writes to 64 partitions at most
		if t := l.tps.Ptr(i); *t == *d.tp {
			d.tp = t
			return i
		}
	}
	l.tps.Append(*d.tp)
	d.tp = l.tps.Last()
	return l.tps.Len() - 1
}

// clone returns a log sharing l's entries. Its own appends are named by a
// token of their own.
func (l *doneLog) clone() doneLog {
	c := *l
	c.blocks, c.marks, c.tps, c.extras = l.blocks.Clone(), l.marks.Clone(), l.tps.Clone(), l.extras.Clone()
	c.runs, c.tok = l.runs[:len(l.runs):len(l.runs)], nil
	return c
}

// tokenOf is the token entry i was appended under.
func (l *doneLog) tokenOf(i int) *doneToken {
	j := len(l.runs) - 1 // a log has a run for each time it was cloned and appended to: few
	for j > 0 && l.runs[j].from > i {
		j--
	}
	return l.runs[j].tok
}

// doneReader reads a log's entries in order.
type doneReader struct {
	l  *doneLog
	at doneMark
}

// reader returns a reader at entry i (< l.n).
func (l *doneLog) reader(i int) doneReader {
	r := doneReader{l: l, at: l.marks.At(i / doneMarkEvery)}
	for range i % doneMarkEvery {
		r.next()
	}
	return r
}

// next decodes the entry at r and moves past it.
func (r *doneReader) next() doneBatch {
	blk, b, pos := r.l.blocks.At(r.at.off)
	e := blk[pos:]
	p := &r.at.prev
	flags := e[0]
	k := 1
	d := doneBatch{state: Acked + BatchState(flags>>doneStateShift), tp: p.tp, sends: 1, sent: flags&doneSent != 0}
	sv := func() int64 {
		if c := e[k]; c < 0x80 { // one byte, as most are: without binary.Varint's loop
			k++
			return int64(c>>1) ^ -int64(c&1)
		}
		v, n := binary.Varint(e[k:])
		k += n
		return v
	}
	if flags&doneSameTP == 0 {
		d.tp = r.l.tps.Ptr(int(sv()))
	}
	d.firstSerial = p.firstSerial + int64(p.count)
	if flags&doneNextSerial == 0 {
		d.firstSerial += sv()
	}
	d.pid, d.epoch = p.pid, p.epoch
	if flags&doneSamePID == 0 {
		d.pid = sv()
		d.epoch = int16(sv())
	}
	if flags&doneHasExtra != 0 {
		d.extra = r.l.extras.Ptr(int(sv()))
	}
	if flags&donePlain == 0 {
		d.sends = int32(sv())
		d.err = kerr.Code(sv())
	}
	d.seq = int32(int64(p.seq) + int64(p.count) + sv())
	d.baseOffset = p.baseOffset + int64(p.count) + sv()
	d.count = int32(sv())
	d.timestamp = p.timestamp + sv()
	r.at.off = hist.Offset(b, pos+k)
	r.at.prev = d
	return d
}
