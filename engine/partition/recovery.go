package partition

import (
	"fmt"

	"github.com/eoslab/eoslab/engine/producerstate"
)

// maybeRoll starts a new segment when the active one cannot take size more
// bytes, and snapshots producer state at the new segment's base offset, as
// Kafka does on every roll.
func (l *Log) maybeRoll(size int) {
	// Small enough to be inlined into every append, which rolls rarely.
	if active := &l.active; active.Size != 0 && active.Size+int64(size) > int64(l.cfg.SegmentBytes) {
		l.roll()
	}
}

// roll starts a new segment at the log end.
func (l *Log) roll() {
	l.TakeSnapshot()
	n := l.batches.Len()
	l.segments = append(l.segments, l.active)
	l.active = Segment{BaseOffset: l.end, first: n, end: n}
}

// TakeSnapshot writes a producer-state snapshot at the current map end
// offset, unless one exists there already. Kafka does this on segment roll
// and on clean shutdown.
func (l *Log) TakeSnapshot() {
	off := l.state.MapEndOffset()
	if n := len(l.snapshots); n > 0 && l.snapshots[n-1].Offset >= off {
		return
	}
	l.snapshots = append(l.snapshots, Snapshot{Offset: off, Data: producerstate.EncodeSnapshot(l.state.Snapshot())})
}

// Recovery says how producer state was rebuilt.
type Recovery struct {
	SnapshotOffset int64 // offset of the snapshot loaded, -1 if none
	Replayed       int   // batches replayed after it
	Discarded      []int64
}

// Rebuild recomputes producer state from the newest usable snapshot and
// the log after it (UnifiedLog.rebuildProducerState): what a broker does
// when it restarts. Snapshots beyond the log end or not above the log start
// are dropped; a corrupt one is dropped and the next older one tried.
// Producers expired by now are not loaded.
func (l *Log) Rebuild(now int64) (Recovery, error) {
	rec := Recovery{SnapshotOffset: -1}
	var kept []Snapshot // a new list: the old one may be shared
	for _, s := range l.snapshots {
		if s.Offset > l.end || s.Offset <= l.start {
			rec.Discarded = append(rec.Discarded, s.Offset)
			continue
		}
		kept = append(kept, s)
	}
	l.snapshots = kept
	l.state.Reset(l.start)
	for len(l.snapshots) > 0 {
		s := l.snapshots[len(l.snapshots)-1]
		entries, err := producerstate.DecodeSnapshot(s.Data)
		if err == nil {
			l.state.Load(entries, s.Offset, now)
			rec.SnapshotOffset = s.Offset
			break
		}
		rec.Discarded = append(rec.Discarded, s.Offset)
		l.snapshots = l.snapshots[: len(l.snapshots)-1 : len(l.snapshots)-1]
	}
	from := l.state.MapEndOffset()
	l.aborted = trimAborted(l.aborted, from)
	var err error
	l.batches.All(0, func(_ int, b *Stored) bool {
		if b.BaseOffset() < from {
			return true
		}
		if e := l.dec.Decode(b.Bytes(), &l.scratch); e != nil {
			err = fmt.Errorf("%s: rebuild at offset %d: %w", l.name, b.BaseOffset(), e)
			return false
		}
		if err = l.replay(&l.scratch); err != nil {
			return false
		}
		rec.Replayed++
		return true
	})
	if err != nil {
		return rec, err
	}
	l.state.UpdateMapEndOffset(l.end)
	l.state.OnHighWatermark(l.hw)
	return rec, nil
}

// trimAborted drops index entries whose marker is at or after offset;
// replay writes them again.
func trimAborted(a []AbortedTxn, offset int64) []AbortedTxn {
	if len(a) == 0 || a[len(a)-1].LastOffset < offset {
		return a
	}
	var out []AbortedTxn // a new list: the old one may be shared
	for _, t := range a {
		if t.LastOffset < offset {
			out = append(out, t)
		}
	}
	return out
}

// TruncateTo removes every batch that ends at or after offset (batches
// are removed whole), as a follower does before following a new leader,
// then rebuilds producer state. It returns the new log end offset.
func (l *Log) TruncateTo(offset, now int64) (int64, error) {
	n := l.batches.Len()
	i := n
	for i > 0 && l.batches.Ptr(i-1).LastOffset() >= offset {
		i--
	}
	if i == n {
		return l.end, nil
	}
	l.end = l.batches.Ptr(i).BaseOffset()
	l.batches.Truncate(i)
	l.changed()
	l.truncations++
	for len(l.segments) > 0 && l.active.BaseOffset > l.end {
		l.active = l.segments[len(l.segments)-1]
		l.segments = l.segments[: len(l.segments)-1 : len(l.segments)-1]
	}
	seg := &l.active
	seg.end, seg.Size = i, 0
	l.batches.All(seg.first, func(_ int, b *Stored) bool {
		seg.Size += int64(len(b.Bytes()))
		return true
	})
	l.hw = min(l.hw, l.end)
	l.changed()
	_, err := l.Rebuild(now)
	return l.end, err
}
