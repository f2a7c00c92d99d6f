package partition

import (
	"unsafe"

	"github.com/eoslab/eoslab/engine/internal/hist"
	"github.com/eoslab/eoslab/engine/producerstate"
	"github.com/eoslab/eoslab/engine/record"
)

// Defaults from Kafka's topic configuration.
const (
	DefaultSegmentBytes    = 1 << 30   // segment.bytes
	DefaultMaxMessageBytes = 1_048_588 // max.message.bytes
)

// Config holds the topic settings a partition log depends on.
type Config struct {
	SegmentBytes           int   // segment.bytes; 0 means the default
	MaxMessageBytes        int   // max.message.bytes; 0 means the default
	ProducerIDExpirationMs int64 // producer.id.expiration.ms; 0 means the default
}

func (c Config) withDefaults() Config {
	if c.SegmentBytes <= 0 {
		c.SegmentBytes = DefaultSegmentBytes
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	return c
}

// Stored is one batch in the log, with the bytes exactly as stored: base
// offset and partition leader epoch assigned, CRC untouched (a new CRC
// for a batch the leader rebuilt or whose timestamp type and maxTimestamp
// it set: AppendAsLeader). The bytes are all it keeps, and of them only
// where they start: every header field is in their first 61 bytes, their
// length is the header's (a stored batch is exactly one batch, whose
// header passed ParseHeader when it was appended), and stored bytes never
// change once appended. The log's list of batches holds one pointer a
// batch, 8 bytes where a slice took 24. A follower's bytes are its
// leader's (AppendAsFollower).
type Stored struct {
	first *byte
}

// storedOf is the Stored of a batch's bytes, exactly one batch long.
func storedOf(b []byte) Stored { return Stored{first: unsafe.SliceData(b)} }

// Bytes is the batch as stored, header and records (for reading only).
func (s *Stored) Bytes() []byte {
	return unsafe.Slice(s.first, record.LogOverhead+int(record.BatchLengthOf(s.head())))
}

// head is the batch's header.
func (s *Stored) head() []byte { return unsafe.Slice(s.first, record.HeaderSize) }

// Header is the batch's header, parsed from its bytes (which passed
// ParseHeader when they were appended).
func (s *Stored) Header() record.Header {
	h, _ := record.ParseHeader(s.Bytes())
	return h
}

// BaseOffset is the offset of the batch's first record.
func (s *Stored) BaseOffset() int64 { return record.BaseOffsetOf(s.head()) }

// LastOffset is the offset of the batch's last record.
func (s *Stored) LastOffset() int64 { return record.LastOffsetOf(s.head()) }

// Attributes is the batch's attribute flags.
func (s *Stored) Attributes() record.Attributes { return record.AttributesOf(s.head()) }

// ProducerID is the batch's producer id, -1 without one.
func (s *Stored) ProducerID() int64 { return record.ProducerIDOf(s.head()) }

// ProducerEpoch is the batch's producer epoch.
func (s *Stored) ProducerEpoch() int16 { return record.ProducerEpochOf(s.head()) }

// RecordsCount is the number of records in the batch.
func (s *Stored) RecordsCount() int32 { return record.RecordsCountOf(s.head()) }

// Segment is one segment file's worth of the log.
type Segment struct {
	BaseOffset int64
	Size       int64
	first, end int // index range of its batches
}

// Snapshot is a producer-state snapshot file written by the log.
type Snapshot struct {
	Offset int64  // the state reflects every offset below this
	Data   []byte // the file's bytes, in Kafka's format
}

// AbortedTxn is one entry of the transaction index (.txnindex).
type AbortedTxn struct {
	ProducerID       int64
	FirstOffset      int64
	LastOffset       int64 // the ABORT marker's offset
	LastStableOffset int64
}

// Log is one replica of one partition: batches, offsets, producer state.
// Not safe for concurrent use.
type Log struct {
	name        string
	cfg         Config
	batches     hist.List[Stored]
	segments    []Segment // the rolled segments; the active one is active
	active      Segment
	snapshots   []Snapshot   // ascending Offset; appended to, never changed in place
	aborted     []AbortedTxn // appended to, never changed in place
	state       *producerstate.Manager
	start       int64 // log start offset
	end         int64 // log end offset (LEO): the next offset to assign
	hw          int64 // high watermark
	leaderEpoch int32
	dec         record.Decoder
	scratch     record.Batch
	arena       hist.Arena // where stored bytes are cut from
	truncations int
	changes     *uint64 // counts every change of batches or high watermark (CountChangesIn); a copy starts without it
}

// New returns an empty log named like "orders-0". The log and its
// producer state are one allocation: a world makes a log for every
// replica it starts with.
func New(name string, cfg Config) *Log {
	cfg = cfg.withDefaults()
	ls := &struct {
		log   Log
		state producerstate.Manager
	}{
		log:   Log{name: name, cfg: cfg, dec: scratchDecoder()},
		state: producerstate.Make(producerstate.Config{ExpirationMs: cfg.ProducerIDExpirationMs}),
	}
	ls.log.state = &ls.state
	return &ls.log
}

// Name is the topic-partition, e.g. "orders-0".
func (l *Log) Name() string { return l.name }

// Config returns the log's settings with defaults filled in.
func (l *Log) Config() Config { return l.cfg }

// LogStartOffset is the first offset still in the log.
func (l *Log) LogStartOffset() int64 { return l.start }

// LogEndOffset (LEO) is the offset the next batch will get.
func (l *Log) LogEndOffset() int64 { return l.end }

// HighWatermark is the offset below which every record is replicated to the ISR.
func (l *Log) HighWatermark() int64 { return l.hw }

// LeaderEpoch is the leader epoch stamped on appends.
func (l *Log) LeaderEpoch() int32 { return l.leaderEpoch }

// SetLeaderEpoch sets the epoch stamped into batches appended from now on.
func (l *Log) SetLeaderEpoch(e int32) { l.leaderEpoch = e }

// State is the replica's producer state (read it; change it only through the log).
func (l *Log) State() *producerstate.Manager { return l.state }

// NumBatches is the number of stored batches.
func (l *Log) NumBatches() int { return l.batches.Len() }

// Batch returns the i-th stored batch (oldest first), for reading only.
func (l *Log) Batch(i int) *Stored { return l.batches.Ptr(i) }

// EachBatch calls f for every stored batch from index from on, oldest
// first, until f returns false. f must not modify the batch.
func (l *Log) EachBatch(from int, f func(i int, b *Stored) bool) { l.batches.All(from, f) }

// Batches returns a copy of the stored batches, oldest first.
func (l *Log) Batches() []Stored {
	out := make([]Stored, 0, l.batches.Len())
	l.batches.All(0, func(_ int, b *Stored) bool { out = append(out, *b); return true })
	return out
}

// Segments lists the segments, oldest first.
func (l *Log) Segments() []Segment { return append(append([]Segment(nil), l.segments...), l.active) }

// SegmentBytes returns the concatenated batches of a segment: the content
// of its Kafka .log file.
func (l *Log) SegmentBytes(s Segment) []byte {
	var out []byte
	l.batches.All(s.first, func(i int, b *Stored) bool {
		if i >= s.end {
			return false
		}
		out = append(out, b.Bytes()...)
		return true
	})
	return out
}

// Snapshots lists the producer-state snapshots written so far.
func (l *Log) Snapshots() []Snapshot { return append([]Snapshot(nil), l.snapshots...) }

// SnapshotsShared is Snapshots without the copy: the list is shared and
// never changes in place (the log appends, or starts a new list).
func (l *Log) SnapshotsShared() []Snapshot { return l.snapshots[:len(l.snapshots):len(l.snapshots)] }

// AbortedTxns is the transaction index: every aborted transaction, oldest first.
func (l *Log) AbortedTxns() []AbortedTxn { return append([]AbortedTxn(nil), l.aborted...) }

// AbortedShared is AbortedTxns without the copy: the list is shared and
// never changes in place (the log appends, or starts a new list).
func (l *Log) AbortedShared() []AbortedTxn { return l.aborted[:len(l.aborted):len(l.aborted)] }

// SetHighWatermark moves the high watermark forward (never back, never past
// the log end) and lets transactions whose markers are now replicated stop
// holding the LSO.
func (l *Log) SetHighWatermark(hw int64) {
	hw = min(hw, l.end)
	if hw > l.hw {
		l.hw = hw
		l.changed()
	}
	l.state.OnHighWatermark(l.hw)
}

// LastStableOffset is the first unstable offset if it is below the high
// watermark, else the high watermark.
func (l *Log) LastStableOffset() int64 {
	if fu, ok := l.state.FirstUnstableOffset(); ok && fu < l.hw {
		return fu
	}
	return l.hw
}

// BatchAt returns the index of the stored batch holding offset, or -1.
// The batch is the last one starting at or below offset. Fetches ask near
// the log end (followers a batch or a few behind, consumers catching up),
// so the last batch is tried first, and the search then steps back from
// the end, doubling its step, before it halves the range it found: a
// batch k from the end is found in about 2·log₂ k looks instead of log₂
// of the whole log's. The search reads base offsets only, one field of
// the stored bytes a look.
func (l *Log) BatchAt(offset int64) int {
	if offset >= l.end || l.batches.Len() == 0 {
		// No batch reaches the log end (the last one ends just below it):
		// the usual question of a follower that is caught up, answered
		// where BatchAt is inlined.
		return -1
	}
	return l.batchAt(offset)
}

// batchAt is BatchAt below the log end of a log with batches.
func (l *Log) batchAt(offset int64) int {
	n := l.batches.Len()
	if last := l.batches.Ptr(n - 1); last.BaseOffset() <= offset {
		if offset > last.LastOffset() {
			return -1
		}
		return n - 1
	}
	lo, hi := 0, n-1 // the first batch starting above offset is in [lo, hi]
	for step := 1; hi-step >= 0; step *= 2 {
		j := hi - step
		if l.batches.Ptr(j).BaseOffset() <= offset {
			lo = j + 1
			break
		}
		hi = j
	}
	for lo < hi {
		m := (lo + hi) / 2
		if l.batches.Ptr(m).BaseOffset() <= offset {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo > 0 && l.batches.Ptr(lo-1).LastOffset() >= offset {
		return lo - 1
	}
	return -1 // below the first batch
}

// NextExpiry is when RemoveExpiredProducers would next forget someone
// (record-timestamp clock), or math.MaxInt64.
func (l *Log) NextExpiry() int64 { return l.state.NextExpiry() }

// RemoveExpiredProducers forgets producers idle for producer.id.expiration.ms.
func (l *Log) RemoveExpiredProducers(now int64) []int64 { return l.state.RemoveExpired(now) }

// Clone returns a copy of the log that changes independently of l. The
// batches, snapshots and transaction index are shared, not copied: they
// only grow, and a truncation starts new lists.
func (l *Log) Clone() *Log {
	return &Log{
		name: l.name, cfg: l.cfg, batches: l.batches.Clone(),
		segments: l.segments[:len(l.segments):len(l.segments)], active: l.active,
		snapshots: l.snapshots[:len(l.snapshots):len(l.snapshots)], aborted: l.aborted[:len(l.aborted):len(l.aborted)],
		state: l.state.Clone(), start: l.start, end: l.end, hw: l.hw, leaderEpoch: l.leaderEpoch, truncations: l.truncations,
		dec: scratchDecoder(),
	}
}

// scratchDecoder decompresses every batch the log checks into one buffer
// of its own: what is decoded into scratch is read at once (validated, a
// marker replayed) and never kept, so a batch's records need no buffer of
// their own.
func scratchDecoder() record.Decoder { return record.Decoder{Reuse: true} }

// CountChangesIn makes the log add one to *n whenever its batches or its
// high watermark change: one counter for all of a broker's logs tells a
// reader whether any of them changed at all. A copy of the log (Clone)
// counts nowhere until it is given a counter of its own.
func (l *Log) CountChangesIn(n *uint64) { l.changes = n }

func (l *Log) changed() {
	if l.changes != nil {
		*l.changes++
	}
}

// Truncations counts the times batches were taken off the end of the log:
// a reader that cached what the log held can tell whether it still does.
func (l *Log) Truncations() int { return l.truncations }
