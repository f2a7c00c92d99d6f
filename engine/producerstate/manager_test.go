package producerstate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"testing"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/record"
)

func commitMarker(coordEpoch int32) record.Marker {
	return record.Marker{Type: record.ControlCommit, CoordinatorEpoch: coordEpoch}
}

func abortMarker(coordEpoch int32) record.Marker {
	return record.Marker{Type: record.ControlAbort, CoordinatorEpoch: coordEpoch}
}

func TestMarkerEpochRules(t *testing.T) {
	cases := []struct {
		name       string
		entryEpoch int16
		open       bool
		markEpoch  int16
		coordEpoch int32
		tv2        bool
		want       kerr.Code
	}{
		{"TV1 same epoch", 3, true, 3, 0, false, kerr.None},
		{"TV1 higher epoch (fence)", 3, true, 4, 0, false, kerr.None},
		{"TV1 lower epoch", 3, true, 2, 0, false, kerr.InvalidProducerEpoch},
		{"TV2 must be higher", 3, true, 3, 0, true, kerr.InvalidProducerEpoch},
		{"TV2 higher", 3, true, 4, 0, true, kerr.None},
		{"TV2 exact repeat with no open transaction (KAFKA-19999)", 3, false, 3, 0, true, kerr.None},
		{"older coordinator", 3, true, 3, -1, false, kerr.TransactionCoordinatorFenced},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New(Config{})
			m.AppendMarker(pid, c.entryEpoch, commitMarker(0), 10, 1000) // sets epoch and coordinator epoch 0
			if c.open {
				m.Append(txnData(c.entryEpoch, 0, 1), 11)
			}
			got := m.ValidateMarker(pid, c.markEpoch, c.coordEpoch, c.tv2, Coordinator)
			if got.Error != c.want {
				t.Fatalf("got %v, want %v (%s)", got.Error, c.want, got.Reason)
			}
			if rep := m.ValidateMarker(pid, c.markEpoch, c.coordEpoch, c.tv2, Replication); rep.Error != kerr.None {
				t.Fatalf("replication must only note violations, got %v", rep.Error)
			}
		})
	}
}

// A transaction holds the first unstable offset from its first batch until
// its marker is below the high watermark (kafka-facts §2.8, §6.2).
func TestTransactionsHoldTheFirstUnstableOffset(t *testing.T) {
	m := New(Config{})
	if _, ok := m.FirstUnstableOffset(); ok {
		t.Fatal("no transactions, yet an unstable offset")
	}
	m.Append(txnData(0, 0, 2), 10) // pid 5001 opens at 10
	other := Batch{ProducerID: 7, Epoch: 0, BaseSeq: 0, Transactional: true, MaxTimestamp: 1000}
	m.Append(other, 12) // pid 7 opens at 12
	if off, _ := m.FirstUnstableOffset(); off != 10 {
		t.Fatalf("first unstable %d, want 10", off)
	}
	done, ok := m.AppendMarker(pid, 0, abortMarker(0), 13, 1001)
	if !ok || done.FirstOffset != 10 || done.LastOffset != 13 || !done.Aborted {
		t.Fatalf("completed %+v %v", done, ok)
	}
	if lso := m.AbortedLSO(done); lso != 12 {
		t.Fatalf("index LSO %d, want 12 (pid 7's open transaction)", lso)
	}
	if off, _ := m.FirstUnstableOffset(); off != 10 {
		t.Fatalf("marker not replicated yet: first unstable %d, want 10", off)
	}
	m.OnHighWatermark(14)
	if off, _ := m.FirstUnstableOffset(); off != 12 {
		t.Fatalf("after HW 14: first unstable %d, want 12", off)
	}
	if _, ok := m.AppendMarker(99, 0, commitMarker(0), 15, 1002); ok {
		t.Fatal("a marker without an open transaction completed one")
	}
	e, _ := m.Lookup(pid)
	if e.InTransaction() || e.CoordinatorEpoch() != 0 || e.LastTimestamp() != 1001 {
		t.Fatalf("entry after marker %+v", e)
	}
}

func TestExpiry(t *testing.T) {
	m := New(Config{})
	m.Append(data(0, 0, 1), 0) // timestamp 1000
	open := txnData(0, 0, 1)
	open.ProducerID = 8
	m.Append(open, 1)
	if gone := m.RemoveExpired(1000 + DefaultExpirationMs - 1); len(gone) != 0 {
		t.Fatalf("expired too early: %v", gone)
	}
	if gone := m.RemoveExpired(1000 + DefaultExpirationMs); !slices.Equal(gone, []int64{pid}) {
		t.Fatalf("expired %v, want [%d] (the open transaction keeps pid 8)", gone, pid)
	}
	// Once forgotten, the producer is unknown and any sequence is accepted.
	if d := m.Validate(data(0, 42, 1), Client); d.Outcome != Append || d.Path.Result(CheckProducer) != Unknown {
		t.Fatalf("after expiry: %v", d.Path)
	}
}

func TestSnapshotFormat(t *testing.T) {
	m := New(Config{})
	history(m, fiveBatches()...)
	b := txnData(2, 0, 3)
	b.ProducerID = 42
	m.Append(b, 913)
	enc := EncodeSnapshot(m.Snapshot())
	if len(enc) != 10+2*46 {
		t.Fatalf("size %d", len(enc))
	}
	be := binary.BigEndian
	if be.Uint16(enc) != 1 || be.Uint32(enc[6:]) != 2 || be.Uint64(enc[10:]) != 42 || be.Uint64(enc[56:]) != pid {
		t.Fatalf("layout: version, count or sort order wrong: %x", enc[:20])
	}
	// Entry for pid 42: epoch 2, last seq 2, last offset 915, delta 2, ts 1000, coord -1, txn first 913.
	want := []byte{0, 0, 0, 0, 0, 0, 0, 42, 0, 2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 3, 0x93, 0, 0, 0, 2,
		0, 0, 0, 0, 0, 0, 3, 0xe8, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 3, 0x91}
	if !bytes.Equal(enc[10:56], want) {
		t.Fatalf("entry bytes\n got %x\nwant %x", enc[10:56], want)
	}
	got, err := DecodeSnapshot(enc)
	if err != nil || !slices.Equal(got, m.Snapshot()) {
		t.Fatalf("round trip: %v\n%+v", err, got)
	}
	enc[len(enc)-1] ^= 1
	var se *SnapshotError
	if _, err := DecodeSnapshot(enc); !errors.As(err, &se) {
		t.Fatalf("corrupt snapshot accepted: %v", err)
	}
}

// Loading a snapshot keeps one batch per producer (as Kafka does), skips
// expired producers and restores open transactions.
func TestLoadSnapshot(t *testing.T) {
	m := New(Config{})
	history(m, fiveBatches()...)
	b := txnData(0, 0, 1)
	b.ProducerID = 9
	m.Append(b, 913)
	snap := m.Snapshot()

	r := New(Config{})
	r.Load(snap, 914, 2000)
	e, ok := r.Lookup(pid)
	if !ok || e.Len() != 1 || e.LastSeq() != 12 || e.LastOffset() != 912 {
		t.Fatalf("loaded entry %+v", e)
	}
	if off, ok := r.TxnFirstOffset(9); !ok || off != 913 {
		t.Fatalf("open transaction not restored: %d %v", off, ok)
	}
	// The newest batch is still recognised as a duplicate; older ones are not.
	if d := r.Validate(data(0, 12, 1), Client); d.Outcome != Duplicate {
		t.Fatalf("newest batch after reload: %v", d.Path)
	}
	if d := r.Validate(data(0, 9, 3), Client); d.Error != kerr.OutOfOrderSequenceNumber {
		t.Fatalf("older batch after reload: %v", d.Path)
	}
	r.Load(snap, 914, 1000+DefaultExpirationMs)
	if _, ok := r.Lookup(pid); ok || r.Len() != 1 {
		t.Fatalf("expired producer loaded; %d entries", r.Len())
	}
}

func FuzzDecodeSnapshot(f *testing.F) {
	m := New(Config{})
	history(m, fiveBatches()...)
	f.Add(EncodeSnapshot(m.Snapshot()))
	f.Add(EncodeSnapshot(nil))
	f.Add([]byte{0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := DecodeSnapshot(data)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeSnapshot(entries), data) {
			t.Fatal("a valid snapshot re-encodes differently")
		}
	})
}

// Bytes per entry with 1 M producers, each with five remembered batches.
// The budget (DESIGN.md) is 200 bytes.
func TestMemoryPerEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates about 200 MB")
	}
	const producers = 1_000_000
	perEntry := measureEntryBytes(producers)
	t.Logf("%.1f bytes per producer-state entry (%d producers, 5 batches each)", perEntry, producers)
	if perEntry > 200 {
		t.Fatalf("%.1f bytes per entry, budget 200", perEntry)
	}
}

func measureEntryBytes(producers int) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := New(Config{})
	off := int64(0)
	for p := range producers {
		for s := range int32(5) {
			m.Append(Batch{ProducerID: int64(p), BaseSeq: s, MaxTimestamp: 1}, off)
			off++
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if m.Len() != producers {
		panic("lost producers")
	}
	e := m.get(0)
	if e.Len() != 5 {
		panic("window not full")
	}
	runtime.KeepAlive(m)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(producers)
}

func BenchmarkEntryMemory(b *testing.B) {
	for b.Loop() {
		b.ReportMetric(measureEntryBytes(1_000_000), "B/entry")
	}
}
