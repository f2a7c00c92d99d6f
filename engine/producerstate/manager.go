package producerstate

import (
	"math"
	"slices"

	"github.com/eoslab/eoslab/engine/internal/slab"
	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/record"
)

// DefaultExpirationMs is producer.id.expiration.ms: one day.
const DefaultExpirationMs = 86_400_000

// Config holds the broker settings producer state depends on.
type Config struct {
	// ExpirationMs is producer.id.expiration.ms; 0 means the default.
	ExpirationMs int64
}

// Txn is a transaction of one producer on this partition.
type Txn struct {
	ProducerID  int64
	FirstOffset int64
	LastOffset  int64 // the marker's offset once completed, else -1
	Aborted     bool
}

// Manager is one partition replica's producer state
// (ProducerStateManager): an entry per producer id, the open transactions
// sorted by first offset, and the completed ones whose markers are not yet
// below the high watermark. Not safe for concurrent use.
//
// Producer ids are handed out densely from a small start, so the entries
// are mostly found by id in a slice (dense), which a large world's
// replica reaches in one memory access where a map of a million entries
// takes two or three; ids far from those (a forged id, a cluster whose ids
// start high) are kept in a map (sparse) until the slice reaches them.
// Nothing observable depends on the order the entries are visited in.
type Manager struct {
	expirationMs int64
	dense        []*Entry         // the entry of id i at i, nil if none; no id below its length is in sparse
	sparse       map[int64]*Entry // the entries of the other ids
	inDense      int              // the entries in dense
	// New entries are cut from chunks: a large world's replica makes one
	// for each of its producers, which are made, and go quiet, together.
	cut          slab.Packed[Entry]
	ongoing      []Txn // sorted by FirstOffset
	unreplicated []Txn // completed, marker at or above the high watermark; sorted by FirstOffset
	mapEndOffset int64 // every offset below this is reflected
}

// New returns an empty Manager.
func New(cfg Config) *Manager {
	m := Make(cfg)
	return &m
}

// Make returns an empty Manager as a value, for a holder that keeps it in
// its own allocation (a partition log). Its entries' slice and map are
// made on the first entry that needs them: most replicas of a short run
// never see a producer id.
func Make(cfg Config) Manager {
	if cfg.ExpirationMs <= 0 {
		cfg.ExpirationMs = DefaultExpirationMs
	}
	return Manager{expirationMs: cfg.ExpirationMs}
}

// ExpirationMs is the configured producer.id.expiration.ms.
func (m *Manager) ExpirationMs() int64 { return m.expirationMs }

// Len is the number of producer ids remembered.
func (m *Manager) Len() int { return m.inDense + len(m.sparse) }

// MapEndOffset is the offset up to which (exclusive) the state reflects the log.
func (m *Manager) MapEndOffset() int64 { return m.mapEndOffset }

// UpdateMapEndOffset records that the log up to offset (exclusive) is
// reflected, after an append that carried no producer id.
func (m *Manager) UpdateMapEndOffset(offset int64) { m.mapEndOffset = offset }

// Lookup returns a copy of the entry for pid.
func (m *Manager) Lookup(pid int64) (Entry, bool) {
	if e := m.get(pid); e != nil {
		return e.copied(), true
	}
	return Entry{}, false
}

// get is the entry of pid, or nil.
func (m *Manager) get(pid int64) *Entry {
	if uint64(pid) < uint64(len(m.dense)) {
		return m.dense[pid]
	}
	return m.sparse[pid]
}

// denseReach bounds the ids the dense slice grows to take: at most a few
// times as many slots as entries, so that ids spread thin (a replica that
// sees one producer of many, or ids starting high) cost no more than a map.
func denseReach(entries int) int64 { return 8 * (int64(entries) + 1) }

// put makes e the entry of pid, which has none.
func (m *Manager) put(pid int64, e *Entry) {
	if uint64(pid) >= uint64(len(m.dense)) && pid >= 0 && pid < denseReach(m.Len()) {
		m.growDense(pid)
	}
	if uint64(pid) < uint64(len(m.dense)) {
		m.dense[pid] = e
		m.inDense++
		return
	}
	if m.sparse == nil {
		m.sparse = make(map[int64]*Entry)
	}
	m.sparse[pid] = e
}

// growDense makes the dense slice long enough for pid, at least doubling
// it, and moves into it the entries of the map it now covers.
func (m *Manager) growDense(pid int64) {
	d := make([]*Entry, max(pid+1, 2*int64(len(m.dense)), 8))
	copy(d, m.dense)
	m.dense = d
	for id, e := range m.sparse {
		if id >= 0 && id < int64(len(d)) {
			d[id] = e
			m.inDense++
			delete(m.sparse, id)
		}
	}
}

// remove forgets the entry of pid, which has one.
func (m *Manager) remove(pid int64) {
	if uint64(pid) < uint64(len(m.dense)) {
		m.dense[pid] = nil
		m.inDense--
		return
	}
	delete(m.sparse, pid)
}

// each calls f with every entry, in no particular order.
func (m *Manager) each(f func(pid int64, e *Entry)) {
	for pid, e := range m.dense {
		if e != nil {
			f(int64(pid), e)
		}
	}
	for pid, e := range m.sparse {
		f(pid, e)
	}
}

// Entries returns copies of every entry, sorted by producer id.
func (m *Manager) Entries() []Entry {
	out := make([]Entry, 0, m.Len())
	m.each(func(_ int64, e *Entry) { out = append(out, e.copied()) })
	slices.SortFunc(out, func(a, b Entry) int { return cmpInt64(a.producerID, b.producerID) })
	return out
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Validate decides on a data batch against the current state; it changes nothing.
func (m *Manager) Validate(b Batch, origin Origin) Decision {
	return Validate(m.get(b.ProducerID), b, origin)
}

// ValidateTo is Validate writing the decision into *d, which must be the
// zero Decision: for a caller that keeps it in a result of its own.
func (m *Manager) ValidateTo(d *Decision, b *Batch, origin Origin) {
	validateTo(d, m.get(b.ProducerID), b, origin)
}

// Append records a data batch written at firstOffset. The caller has
// validated it (or trusts it, for replication and rebuilds).
func (m *Manager) Append(b Batch, firstOffset int64) {
	e := m.entry(b.ProducerID)
	e.setEpoch(b.Epoch)
	last := firstOffset + int64(b.LastOffsetDelta)
	e.push(BatchMeta{LastSeq: b.LastSeq(), OffsetDelta: b.LastOffsetDelta, LastOffset: last, Timestamp: b.MaxTimestamp})
	e.lastTimestamp = b.MaxTimestamp
	if b.Transactional && !e.txnOpen {
		e.txnOpen = true
		m.ongoing = insertByFirstOffset(m.ongoing, Txn{ProducerID: b.ProducerID, FirstOffset: firstOffset, LastOffset: -1})
	}
	m.mapEndOffset = last + 1
}

func (m *Manager) entry(pid int64) *Entry {
	e := m.get(pid)
	if e == nil {
		e = m.cut.New()
		*e = Entry{producerID: pid, epoch: NoEpoch, coordinatorEpoch: -1, lastTimestamp: -1}
		m.put(pid, e)
	}
	return e
}

func insertByFirstOffset(txns []Txn, t Txn) []Txn {
	i, _ := slices.BinarySearchFunc(txns, t.FirstOffset, func(x Txn, off int64) int { return cmpInt64(x.FirstOffset, off) })
	return slices.Insert(txns, i, t)
}

// MarkerCheck is the outcome of validating a transaction marker.
type MarkerCheck struct {
	Error        kerr.Code
	EntryEpoch   int16
	EntryCoordEp int32
	Reason       string
}

// ValidateMarker checks a COMMIT/ABORT marker for pid as the partition
// leader does (ProducerAppendInfo.appendEndTxnMarker): the producer epoch
// (>= for transaction versions 0-1; > for version 2, except an exact repeat
// when no transaction is open), then the coordinator epoch. Replication
// origin only notes violations.
func (m *Manager) ValidateMarker(pid int64, epoch int16, coordinatorEpoch int32, tv2 bool, origin Origin) MarkerCheck {
	c := MarkerCheck{EntryEpoch: NoEpoch, EntryCoordEp: -1}
	e := m.get(pid)
	if e != nil {
		c.EntryEpoch, c.EntryCoordEp = e.epoch, e.coordinatorEpoch
	}
	if origin == Replication {
		return c
	}
	open := e != nil && e.txnOpen
	badEpoch := epoch < c.EntryEpoch
	if tv2 {
		badEpoch = epoch <= c.EntryEpoch && !(epoch == c.EntryEpoch && !open)
	}
	switch {
	case badEpoch:
		c.Error, c.Reason = kerr.InvalidProducerEpoch, "marker epoch is below the producer's epoch on this partition"
	case coordinatorEpoch < c.EntryCoordEp:
		c.Error, c.Reason = kerr.TransactionCoordinatorFenced, "marker comes from an older coordinator"
	}
	return c
}

// AppendMarker applies a marker written at offset. If the producer had a
// transaction open here, it is completed and returned; it keeps holding the
// LSO back until the high watermark passes the marker.
func (m *Manager) AppendMarker(pid int64, epoch int16, mk record.Marker, offset, timestamp int64) (Txn, bool) {
	e := m.entry(pid)
	var done Txn
	completed := false
	if e.txnOpen {
		i := slices.IndexFunc(m.ongoing, func(t Txn) bool { return t.ProducerID == pid })
		done = m.ongoing[i]
		m.ongoing = slices.Delete(m.ongoing, i, i+1)
		done.LastOffset, done.Aborted = offset, mk.Type == record.ControlAbort
		m.unreplicated = insertByFirstOffset(m.unreplicated, done)
		completed = true
	}
	e.setEpoch(epoch)
	e.coordinatorEpoch = mk.CoordinatorEpoch
	e.lastTimestamp = timestamp
	e.txnOpen = false
	m.mapEndOffset = offset + 1
	return done, completed
}

// OngoingTxns copies the open transactions, oldest first.
func (m *Manager) OngoingTxns() []Txn { return slices.Clone(m.ongoing) }

// UnreplicatedTxns copies the completed transactions whose marker is not
// yet below the high watermark, oldest first: they hold the LSO back too.
func (m *Manager) UnreplicatedTxns() []Txn { return slices.Clone(m.unreplicated) }

// TxnFirstOffset is the first offset of pid's open transaction here.
func (m *Manager) TxnFirstOffset(pid int64) (int64, bool) {
	for _, t := range m.ongoing {
		if t.ProducerID == pid {
			return t.FirstOffset, true
		}
	}
	return -1, false
}

// FirstUnstableOffset is the earliest offset whose outcome is undecided or
// whose marker is not yet replicated, if any.
func (m *Manager) FirstUnstableOffset() (int64, bool) {
	off, ok := int64(0), false
	if len(m.ongoing) > 0 {
		off, ok = m.ongoing[0].FirstOffset, true
	}
	if len(m.unreplicated) > 0 && (!ok || m.unreplicated[0].FirstOffset < off) {
		off, ok = m.unreplicated[0].FirstOffset, true
	}
	return off, ok
}

// OnHighWatermark forgets completed transactions whose marker is now below hw.
// The log calls it on every high watermark update, almost always with no
// completed transaction waiting: that case stays a length check, inlined
// into the caller.
func (m *Manager) OnHighWatermark(hw int64) {
	if len(m.unreplicated) > 0 {
		m.forgetReplicated(hw)
	}
}

func (m *Manager) forgetReplicated(hw int64) {
	m.unreplicated = slices.DeleteFunc(m.unreplicated, func(t Txn) bool { return t.LastOffset < hw })
}

// AbortedLSO is the last stable offset recorded with an aborted
// transaction in the transaction index: the first offset of the oldest open
// transaction of another producer, else the marker offset + 1.
func (m *Manager) AbortedLSO(t Txn) int64 {
	for _, o := range m.ongoing {
		if o.ProducerID != t.ProducerID {
			return o.FirstOffset
		}
	}
	return t.LastOffset + 1
}

// Expired reports whether e would be removed at time now (ms): no open
// transaction and idle for at least producer.id.expiration.ms, measured
// from its last timestamp (the client's clock, as in Kafka).
func (m *Manager) Expired(e *Entry, now int64) bool {
	return !e.txnOpen && now-e.lastTimestamp >= m.expirationMs
}

// NextExpiry is the earliest time (the entries' clock, ms) at which
// RemoveExpired would drop someone, or math.MaxInt64 if nobody can expire
// before something else happens (an entry with an open transaction cannot).
func (m *Manager) NextExpiry() int64 {
	next := int64(math.MaxInt64)
	m.each(func(_ int64, e *Entry) {
		if !e.txnOpen {
			next = min(next, e.lastTimestamp+m.expirationMs)
		}
	})
	return next
}

// RemoveExpired drops every expired producer and returns their ids, sorted.
func (m *Manager) RemoveExpired(now int64) []int64 {
	var gone []int64
	m.each(func(pid int64, e *Entry) {
		if m.Expired(e, now) {
			gone = append(gone, pid)
		}
	})
	slices.Sort(gone)
	for _, pid := range gone {
		m.remove(pid)
	}
	return gone
}

// Clone returns a copy of the state that changes independently of m.
func (m *Manager) Clone() *Manager {
	c := &Manager{expirationMs: m.expirationMs, inDense: m.inDense,
		ongoing: slices.Clone(m.ongoing), unreplicated: slices.Clone(m.unreplicated), mapEndOffset: m.mapEndOffset}
	// One allocation for all the entries, one for all their other batches.
	copies := make([]Entry, 0, m.Len())
	more := 0
	m.each(func(_ int64, e *Entry) {
		if e.more != nil {
			more++
		}
	})
	mores := make([][NumBatchesToRetain - 1]BatchMeta, 0, more)
	copied := func(e *Entry) *Entry {
		copies = append(copies, *e)
		d := &copies[len(copies)-1]
		if e.more != nil {
			mores = append(mores, *e.more)
			d.more = &mores[len(mores)-1]
		}
		return d
	}
	if m.dense != nil {
		c.dense = make([]*Entry, len(m.dense))
		for pid, e := range m.dense {
			if e != nil {
				c.dense[pid] = copied(e)
			}
		}
	}
	if len(m.sparse) > 0 {
		c.sparse = make(map[int64]*Entry, len(m.sparse))
		for pid, e := range m.sparse {
			c.sparse[pid] = copied(e)
		}
	}
	return c
}
