package producerstate

import (
	"encoding/binary"
	"fmt"

	"github.com/eoslab/eoslab/engine/internal/wire"
	"github.com/eoslab/eoslab/engine/record"
)

// SnapshotVersion is the producer snapshot file version Kafka writes.
const SnapshotVersion = 1

const (
	snapshotHeaderSize = 10 // int16 version, uint32 crc, int32 entry count
	snapshotEntrySize  = 46
)

// SnapshotEntry is one producer in a snapshot file (ProducerSnapshot.json,
// version 1). Only the newest remembered batch of each producer is kept.
type SnapshotEntry struct {
	ProducerID            int64
	Epoch                 int16
	LastSeq               int32
	LastOffset            int64
	OffsetDelta           int32
	Timestamp             int64
	CoordinatorEpoch      int32
	CurrentTxnFirstOffset int64 // -1 when no transaction is open
}

// SnapshotError reports a snapshot file Kafka would refuse to load
// (CorruptSnapshotException); the broker then falls back to an older one.
type SnapshotError struct{ Reason string }

func (e *SnapshotError) Error() string { return "corrupt producer snapshot: " + e.Reason }

// Snapshot returns the state as snapshot entries, sorted by producer id
// (Kafka writes hash-map order; sorting makes the bytes deterministic).
func (m *Manager) Snapshot() []SnapshotEntry {
	out := make([]SnapshotEntry, 0, m.Len())
	for _, e := range m.Entries() {
		s := SnapshotEntry{
			ProducerID: e.producerID, Epoch: e.epoch, LastSeq: e.LastSeq(), LastOffset: e.LastOffset(),
			Timestamp: e.lastTimestamp, CoordinatorEpoch: e.coordinatorEpoch, CurrentTxnFirstOffset: -1,
		}
		if e.n > 0 {
			s.OffsetDelta = e.at(int(e.n) - 1).OffsetDelta
		}
		if e.txnOpen {
			s.CurrentTxnFirstOffset, _ = m.TxnFirstOffset(e.producerID)
		}
		out = append(out, s)
	}
	return out
}

// EncodeSnapshot writes entries in Kafka's snapshot file format: int16
// version, uint32 CRC-32C of everything from byte 6 on, int32 count, then
// 46 bytes per entry.
func EncodeSnapshot(entries []SnapshotEntry) []byte {
	b := make([]byte, 0, snapshotHeaderSize+snapshotEntrySize*len(entries))
	b = wire.AppendInt16(b, SnapshotVersion)
	b = append(b, 0, 0, 0, 0)
	b = wire.AppendInt32(b, int32(len(entries)))
	for _, s := range entries {
		b = wire.AppendInt64(b, s.ProducerID)
		b = wire.AppendInt16(b, s.Epoch)
		b = wire.AppendInt32(b, s.LastSeq)
		b = wire.AppendInt64(b, s.LastOffset)
		b = wire.AppendInt32(b, s.OffsetDelta)
		b = wire.AppendInt64(b, s.Timestamp)
		b = wire.AppendInt32(b, s.CoordinatorEpoch)
		b = wire.AppendInt64(b, s.CurrentTxnFirstOffset)
	}
	binary.BigEndian.PutUint32(b[2:], wire.CRC32C(b[6:]))
	return b
}

// DecodeSnapshot reads a snapshot file, checking version, CRC and size.
func DecodeSnapshot(data []byte) ([]SnapshotEntry, error) {
	if len(data) < snapshotHeaderSize {
		return nil, &SnapshotError{fmt.Sprintf("%d bytes, need at least %d", len(data), snapshotHeaderSize)}
	}
	r := wire.Reader{Src: data}
	if v := r.Int16(); v != SnapshotVersion {
		return nil, &SnapshotError{fmt.Sprintf("unknown file version %d", v)}
	}
	stored := uint32(r.Int32())
	if computed := wire.CRC32C(data[6:]); computed != stored {
		return nil, &SnapshotError{fmt.Sprintf("crc mismatch: stored 0x%08x, computed 0x%08x", stored, computed)}
	}
	n := r.Int32()
	if n < 0 || int64(n)*snapshotEntrySize != int64(r.Remaining()) {
		return nil, &SnapshotError{fmt.Sprintf("%d entries announced, %d bytes of entries present", n, r.Remaining())}
	}
	out := make([]SnapshotEntry, n)
	for i := range out {
		out[i] = SnapshotEntry{
			ProducerID: r.Int64(), Epoch: r.Int16(), LastSeq: r.Int32(), LastOffset: r.Int64(),
			OffsetDelta: r.Int32(), Timestamp: r.Int64(), CoordinatorEpoch: r.Int32(), CurrentTxnFirstOffset: r.Int64(),
		}
	}
	return out, r.Err()
}

// Load replaces the state with a snapshot taken at offset (exclusive end),
// skipping producers that have expired by now, as a restarting broker does.
// Each entry gets back only its newest batch: the window refills as the
// log after the snapshot is replayed.
func (m *Manager) Load(entries []SnapshotEntry, offset, now int64) {
	m.dense, m.sparse, m.inDense = nil, nil, 0
	m.ongoing, m.unreplicated = nil, nil
	for _, s := range entries {
		e := &Entry{producerID: s.ProducerID, epoch: s.Epoch, coordinatorEpoch: s.CoordinatorEpoch, lastTimestamp: s.Timestamp}
		if s.LastOffset >= 0 {
			e.push(BatchMeta{LastSeq: s.LastSeq, OffsetDelta: s.OffsetDelta, LastOffset: s.LastOffset, Timestamp: s.Timestamp})
		}
		if s.CurrentTxnFirstOffset >= 0 {
			e.txnOpen = true
		}
		if m.Expired(e, now) {
			continue
		}
		if m.get(s.ProducerID) != nil {
			m.remove(s.ProducerID) // a file naming a producer twice: the last one stands, as in a map
		}
		m.put(s.ProducerID, e)
		if e.txnOpen {
			m.ongoing = insertByFirstOffset(m.ongoing, Txn{ProducerID: s.ProducerID, FirstOffset: s.CurrentTxnFirstOffset, LastOffset: -1})
		}
	}
	m.mapEndOffset = offset
}

// Reset empties the state and starts it at offset (used when a replica
// truncates its log fully).
func (m *Manager) Reset(offset int64) {
	m.dense, m.sparse, m.inDense = nil, nil, 0
	m.ongoing, m.unreplicated = nil, nil
	m.mapEndOffset = offset
}

// ApplyStored replays one stored batch with replication origin, as a
// broker does when it rebuilds state from its log or a follower copies the
// leader. Batches without a producer id change nothing. A marker that
// completes a transaction returns it.
func (m *Manager) ApplyStored(b *record.Batch) (Txn, bool, error) {
	h := &b.Header
	switch {
	case !h.HasProducerID():
	case !h.Attributes.Control():
		m.Append(BatchOf(h), h.BaseOffset)
		return Txn{}, false, nil
	case len(b.Records) == 0:
		// An emptied control batch: the cleaner removed its transaction.
	default:
		mk, err := record.ParseMarker(b)
		if err != nil {
			return Txn{}, false, err
		}
		ts := h.RecordTimestamp(b.Records[0].TimestampDelta)
		t, done := m.AppendMarker(h.ProducerID, h.ProducerEpoch, mk, h.BaseOffset, ts)
		return t, done, nil
	}
	m.mapEndOffset = h.LastOffset() + 1
	return Txn{}, false, nil
}
