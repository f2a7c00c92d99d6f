package partition

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/producerstate"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const ts = 1700000000000

func batch(pid int64, epoch int16, seq, count int32, txn bool) []byte {
	b := record.Batch{Header: record.Header{
		PartitionLeaderEpoch: -1, Magic: 2, LastOffsetDelta: count - 1, BaseTimestamp: ts, MaxTimestamp: ts,
		ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq, RecordsCount: count,
	}}
	if pid < 0 {
		b.ProducerEpoch, b.BaseSequence = -1, -1
	}
	if txn {
		b.Attributes = record.TransactionalFlag
	}
	for i := range count {
		b.Records = append(b.Records, record.Record{OffsetDelta: i, Value: fmt.Appendf(nil, "%d-%d", pid, seq+i)})
	}
	out, err := record.Encode(&b)
	if err != nil {
		panic(err)
	}
	return out
}

func mustAppend(t *testing.T, l *Log, data []byte) AppendResult {
	t.Helper()
	r := l.AppendAsLeader(data)
	if !r.Appended() {
		t.Fatalf("not appended: %v %s", r.Error, r.Reason)
	}
	return r
}

// The seeds' worked example on one leader: 0-3 at 900-903, 4-5 at 904-905,
// 9-11 refused as a gap, the retry of 4-5 a duplicate at 904, then 6-8 and 9-11.
func TestWorkedExampleOffsets(t *testing.T) {
	l := New("orders-1", Config{})
	for range 900 {
		mustAppend(t, l, batch(-1, -1, -1, 1, false)) // filler from a plain producer
	}
	if r := mustAppend(t, l, batch(5001, 0, 0, 4, false)); r.BaseOffset != 900 || r.LastOffset != 903 {
		t.Fatalf("first batch at %d-%d", r.BaseOffset, r.LastOffset)
	}
	mustAppend(t, l, batch(5001, 0, 4, 2, false))
	r := l.AppendAsLeader(batch(5001, 0, 9, 3, false))
	if r.Error != kerr.OutOfOrderSequenceNumber || r.BaseOffset != -1 || r.Decision.ExpectedSeq() != 6 {
		t.Fatalf("overtaking batch: %v base %d expected %d", r.Error, r.BaseOffset, r.Decision.ExpectedSeq())
	}
	r = l.AppendAsLeader(batch(5001, 0, 4, 2, false))
	if r.Error != kerr.None || r.Decision.Outcome != producerstate.Duplicate || r.BaseOffset != 904 || r.LastOffset != 905 {
		t.Fatalf("retry: %v %v %d-%d", r.Error, r.Decision.Outcome, r.BaseOffset, r.LastOffset)
	}
	if l.LogEndOffset() != 906 {
		t.Fatalf("duplicate was written: LEO %d", l.LogEndOffset())
	}
	if r := mustAppend(t, l, batch(5001, 0, 6, 3, false)); r.BaseOffset != 906 {
		t.Fatalf("6-8 at %d", r.BaseOffset)
	}
	if r := mustAppend(t, l, batch(5001, 0, 9, 3, false)); r.BaseOffset != 909 || r.LastOffset != 911 {
		t.Fatalf("9-11 at %d-%d", r.BaseOffset, r.LastOffset)
	}
}

// The leader changes bytes 0-7 and 12-15 only; the stored CRC stays valid.
func TestLeaderStampsOffsetAndEpochOnly(t *testing.T) {
	l := New("orders-0", Config{})
	l.SetLeaderEpoch(4)
	mustAppend(t, l, batch(7, 0, 0, 2, false))
	in := batch(7, 0, 2, 1, false)
	mustAppend(t, l, in)
	stored := l.Batches()[1].Bytes()
	for i := range in {
		changed := in[i] != stored[i]
		if changed && !(i < 8 || (i >= 12 && i < 16)) {
			t.Fatalf("byte %d changed", i)
		}
	}
	got, err := record.Decode(stored)
	if err != nil || got.BaseOffset != 2 || got.PartitionLeaderEpoch != 4 {
		t.Fatalf("stored batch: %v %+v", err, got.Header)
	}
}

func TestClientBatchValidation(t *testing.T) {
	good := batch(7, 0, 0, 2, false)
	edit := func(f func(b *record.Batch)) []byte {
		b, _ := record.Decode(good)
		f(&b)
		out, _ := record.Encode(&b)
		return out
	}
	corrupt := append([]byte(nil), good...)
	corrupt[len(corrupt)-1] ^= 0xff
	magic1 := append([]byte(nil), good...)
	magic1[16] = 1
	marker := record.NewMarker(7, 0, record.Marker{Type: record.ControlCommit}, ts)
	markerBytes, _ := record.Encode(&marker)
	codec := func(id byte, crc bool) []byte { // compression bits 0-2 of the attributes (byte 22)
		b := append([]byte(nil), good...)
		b[22] = b[22]&^7 | id
		if crc {
			binary.BigEndian.PutUint32(b[17:], record.ComputeCRC(b))
		}
		return b
	}
	resealed := func(b []byte, f func(b []byte)) []byte { // changed, with the CRC its bytes deserve
		b = append([]byte(nil), b...)
		f(b)
		binary.BigEndian.PutUint32(b[17:], record.ComputeCRC(b))
		return b
	}
	badRecord := resealed(good, func(b []byte) { b[record.HeaderSize] = 0x7e }) // the first record's length: 63 bytes
	gz := edit(func(b *record.Batch) { b.Attributes = b.Attributes.WithCompression(record.Gzip) })
	badStream := resealed(gz, func(b []byte) { b[record.HeaderSize] = 0 }) // gzip's magic number
	badCount := resealed(badStream, func(b []byte) { binary.BigEndian.PutUint32(b[57:], 5) })
	cases := []struct {
		name string
		in   []byte
		cfg  Config
		want kerr.Code
	}{
		// LogValidator reads the records after its checks of the batch:
		// records that do not parse are an InvalidRecordException, records
		// that do not decompress a KafkaException (no ApiException).
		{"a record that does not parse", badRecord, Config{}, kerr.InvalidRecord},
		{"records that do not decompress", badStream, Config{}, kerr.UnknownServerError},
		{"a count mismatch before records that do not decompress", badCount, Config{}, kerr.InvalidRecord},
		{"a crc mismatch before a count mismatch", append(badCount[:len(badCount)-1:len(badCount)-1], badCount[len(badCount)-1]^1), Config{}, kerr.CorruptMessage},
		{"base offset not 0", edit(func(b *record.Batch) { b.BaseOffset = 5 }), Config{}, kerr.InvalidRecord},
		{"crc mismatch", corrupt, Config{}, kerr.CorruptMessage},
		{"too large", good, Config{MaxMessageBytes: 64}, kerr.MessageTooLarge},
		{"count mismatch", edit(func(b *record.Batch) { b.LastOffsetDelta = 5 }), Config{}, kerr.InvalidRecord},
		{"control batch from a client", markerBytes, Config{}, kerr.InvalidRecord},
		{"producer id without a sequence", edit(func(b *record.Batch) { b.BaseSequence = -1 }), Config{}, kerr.InvalidRecord},
		{"magic 1", magic1, Config{}, kerr.InvalidRecord},
		{"truncated", good[:40], Config{}, kerr.CorruptMessage},
		{"two batches", append(append([]byte(nil), good...), good...), Config{}, kerr.InvalidRecord},
		// UnifiedLog.analyzeAndValidateRecords checks the CRC, then asks
		// CompressionType.forId, whose IllegalArgumentException is no
		// ApiException: ReplicaManager answers UNKNOWN_SERVER_ERROR.
		{"LogAppendTime and no timestamp", edit(func(b *record.Batch) { b.Attributes |= record.LogAppendTimeFlag; b.MaxTimestamp = -1 }), Config{}, kerr.InvalidTimestamp},
		{"codec 5", codec(5, true), Config{}, kerr.UnknownServerError},
		{"codec 7", codec(7, true), Config{}, kerr.UnknownServerError},
		{"codec 6 and a stale crc", codec(6, false), Config{}, kerr.CorruptMessage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := New("orders-0", c.cfg)
			r := l.AppendAsLeader(c.in)
			if r.Error != c.want || r.Explain(l.Name(), 0) == "" || l.LogEndOffset() != 0 {
				t.Fatalf("got %v (%q), LEO %d; want %v", r.Error, r.Reason, l.LogEndOffset(), c.want)
			}
		})
	}
}

// Segments roll at segment.bytes with a snapshot at each new base offset;
// the concatenated segment bytes read back with kmsg (Kafka's format).
func TestSegmentsAndSnapshots(t *testing.T) {
	one := len(batch(1, 0, 0, 1, false))
	l := New("orders-0", Config{SegmentBytes: 3 * one})
	for s := range int32(7) {
		mustAppend(t, l, batch(1, 0, s, 1, false))
	}
	segs := l.Segments()
	if len(segs) != 3 || segs[1].BaseOffset != 3 || segs[2].BaseOffset != 6 {
		t.Fatalf("segments %+v", segs)
	}
	snaps := l.Snapshots()
	if len(snaps) != 2 || snaps[0].Offset != 3 || snaps[1].Offset != 6 {
		t.Fatalf("snapshots at %v", snaps)
	}
	data := l.SegmentBytes(segs[1])
	for off := int64(3); len(data) > 0; off++ {
		var kb kmsg.RecordBatch
		if err := kb.ReadFrom(data); err != nil {
			t.Fatal(err)
		}
		if kb.FirstOffset != off {
			t.Fatalf("kmsg read offset %d, want %d", kb.FirstOffset, off)
		}
		data = data[12+int(kb.Length):]
	}
}

func TestTransactionsLSOAndAbortedIndex(t *testing.T) {
	l := New("orders-0", Config{})
	mustAppend(t, l, batch(1, 0, 0, 2, true))   // 0-1 txn of pid 1
	mustAppend(t, l, batch(-1, 0, 0, 1, false)) // 2 plain
	mustAppend(t, l, batch(2, 0, 0, 1, true))   // 3 txn of pid 2
	l.SetHighWatermark(l.LogEndOffset())
	if l.LastStableOffset() != 0 || l.HighWatermark() != 4 {
		t.Fatalf("LSO %d HW %d", l.LastStableOffset(), l.HighWatermark())
	}
	m := l.AppendMarker(1, 0, record.Marker{Type: record.ControlAbort, CoordinatorEpoch: 0}, false, ts+5)
	if m.Error != kerr.None || m.Offset != 4 || !m.Done {
		t.Fatalf("marker %+v", m)
	}
	if l.LastStableOffset() != 0 {
		t.Fatalf("marker above HW must still hold the LSO; got %d", l.LastStableOffset())
	}
	l.SetHighWatermark(l.LogEndOffset())
	if l.LastStableOffset() != 3 {
		t.Fatalf("LSO %d, want 3 (pid 2 still open)", l.LastStableOffset())
	}
	want := []AbortedTxn{{ProducerID: 1, FirstOffset: 0, LastOffset: 4, LastStableOffset: 3}}
	if got := l.AbortedTxns(); !slices.Equal(got, want) {
		t.Fatalf("aborted index %+v", got)
	}
	stored, err := record.Decode(l.Batches()[3].Bytes())
	mk, _ := record.ParseMarker(&stored)
	if err != nil || stored.Size() != 78 || mk.Type != record.ControlAbort {
		t.Fatalf("marker batch: %v size %d %v", err, stored.Size(), mk)
	}
	if r := l.AppendMarker(1, 0, record.Marker{Type: record.ControlCommit, CoordinatorEpoch: -5}, false, ts); r.Error != kerr.TransactionCoordinatorFenced {
		t.Fatalf("stale coordinator: %v", r.Error)
	}
}

// A follower that copies every batch ends with the leader's producer state,
// five-batch window included, and keeps the leader's stored bytes, not a
// copy of them, cut to the batch so that nothing can append into them.
func TestFollowerMirrorsLeader(t *testing.T) {
	leader, follower := New("orders-0", Config{}), New("orders-0", Config{})
	rng := rand.New(rand.NewPCG(1, 2))
	drive(t, leader, rng, 300)
	for _, b := range leader.Batches() {
		if err := follower.AppendAsFollower(b.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	assertSameState(t, leader.State(), follower.State(), 5)
	for i := range leader.NumBatches() {
		if l, f := leader.Batch(i).Bytes(), follower.Batch(i).Bytes(); &l[0] != &f[0] || cap(f) != len(f) {
			t.Fatalf("batch %d: the follower holds other bytes or room after them", i)
		}
	}
	if !slices.Equal(leader.AbortedTxns(), follower.AbortedTxns()) {
		t.Fatal("aborted index differs")
	}
	if err := follower.AppendAsFollower(leader.Batches()[0].Bytes()); err == nil {
		t.Fatal("follower accepted a batch at the wrong offset")
	}
}

// drive appends n random batches from a few producers (some transactional,
// with markers) and some rejected ones, through the leader path.
func drive(t *testing.T, l *Log, rng *rand.Rand, n int) {
	next := map[int64]int32{}
	open := map[int64]bool{}
	for range n {
		pid := int64(rng.IntN(6))
		switch {
		case pid >= 4 && open[pid] && rng.IntN(3) == 0:
			typ := record.ControlType(rng.IntN(2))
			if r := l.AppendMarker(pid, 0, record.Marker{Type: typ}, false, ts); r.Error != kerr.None {
				t.Fatal(r.Reason)
			}
			open[pid] = false
		case rng.IntN(10) == 0:
			// A gap: rejected, unless the producer is still unknown here.
			if r := l.AppendAsLeader(batch(pid, 0, next[pid]+3, 1, pid >= 4)); r.Appended() {
				next[pid] += 4
				open[pid] = pid >= 4
			}
		default:
			count := int32(1 + rng.IntN(3))
			mustAppend(t, l, batch(pid, 0, next[pid], count, pid >= 4))
			next[pid] += count
			open[pid] = pid >= 4
		}
	}
	l.SetHighWatermark(l.LogEndOffset())
}

// assertSameState compares entries; window must match in its newest k batches.
func assertSameState(t *testing.T, want, got *producerstate.Manager, k int) {
	t.Helper()
	we, ge := want.Entries(), got.Entries()
	if len(we) != len(ge) {
		t.Fatalf("%d producers, want %d", len(ge), len(we))
	}
	for i := range we {
		w, g := we[i], ge[i]
		if w.ProducerID() != g.ProducerID() || w.Epoch() != g.Epoch() || w.LastSeq() != g.LastSeq() ||
			w.LastOffset() != g.LastOffset() || w.LastTimestamp() != g.LastTimestamp() ||
			w.CoordinatorEpoch() != g.CoordinatorEpoch() || w.InTransaction() != g.InTransaction() {
			t.Fatalf("producer %d differs:\nwant %+v\n got %+v", w.ProducerID(), w, g)
		}
		wb, gb := w.Batches(), g.Batches()
		n := min(k, len(wb))
		if len(gb) < n || !slices.Equal(wb[len(wb)-n:], gb[len(gb)-n:]) {
			t.Fatalf("producer %d window\nwant %+v\n got %+v", w.ProducerID(), wb, gb)
		}
	}
	if !slices.Equal(want.OngoingTxns(), got.OngoingTxns()) {
		t.Fatalf("open transactions differ: %v vs %v", want.OngoingTxns(), got.OngoingTxns())
	}
}

// Rebuilding from the log alone gives exactly the live state. Rebuilding
// from a snapshot plus the tail gives the live state with each window
// reduced to the snapshot's newest batch plus what the tail replays — the
// rule Kafka's snapshot format implies — and equal whenever the tail holds
// at least four batches of that producer.
func TestRebuildEqualsLive(t *testing.T) {
	fromSnapshot, shortened := 0, 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		one := len(batch(1, 0, 0, 2, false))
		l := New("orders-0", Config{SegmentBytes: one * (2 + rng.IntN(30))})
		drive(t, l, rng, 200)
		liveEntries := l.State().Entries()
		liveTxns := l.State().OngoingTxns()
		liveLSO, liveAborted := l.LastStableOffset(), l.AbortedTxns()

		rec, err := l.Rebuild(ts)
		if err != nil {
			t.Fatal(err)
		}
		tail := tailCounts(l, rec.SnapshotOffset)
		got := l.State().Entries()
		if len(got) != len(liveEntries) {
			t.Fatalf("seed %d: %d producers after rebuild, want %d", seed, len(got), len(liveEntries))
		}
		for i, w := range liveEntries {
			g := got[i]
			k := len(w.Batches())
			if rec.SnapshotOffset >= 0 {
				k = min(k, tail[w.ProducerID()]+1)
				if k < len(w.Batches()) {
					shortened++
				}
			}
			wb := w.Batches()
			if g.Epoch() != w.Epoch() || g.LastSeq() != w.LastSeq() || g.InTransaction() != w.InTransaction() ||
				!slices.Equal(g.Batches(), wb[len(wb)-k:]) {
				t.Fatalf("seed %d producer %d (snapshot %d, tail %d)\nwant %+v\n got %+v", seed, w.ProducerID(), rec.SnapshotOffset, tail[w.ProducerID()], wb, g.Batches())
			}
		}
		if rec.SnapshotOffset >= 0 {
			fromSnapshot++
		}
		if !slices.Equal(l.State().OngoingTxns(), liveTxns) || l.LastStableOffset() != liveLSO || !slices.Equal(l.AbortedTxns(), liveAborted) {
			t.Fatalf("seed %d: transactions, LSO or index differ after rebuild", seed)
		}
	}
	if fromSnapshot == 0 || shortened == 0 {
		t.Fatalf("the seeds never exercised a snapshot (%d) or a shortened window (%d)", fromSnapshot, shortened)
	}
	// With no snapshot at all, everything is replayed: identical windows.
	l := New("orders-0", Config{})
	drive(t, l, rand.New(rand.NewPCG(9, 9)), 300)
	before := l.State().Entries()
	if _, err := l.Rebuild(ts); err != nil {
		t.Fatal(err)
	}
	after := l.State().Entries()
	for i := range before {
		if !slices.Equal(before[i].Batches(), after[i].Batches()) {
			t.Fatalf("producer %d window differs after full replay", before[i].ProducerID())
		}
	}
}

func tailCounts(l *Log, from int64) map[int64]int {
	n := map[int64]int{}
	for _, b := range l.Batches() {
		if h := b.Header(); h.BaseOffset >= from && h.HasProducerID() && !h.Attributes.Control() {
			n[h.ProducerID]++
		}
	}
	return n
}

// A clean shutdown snapshots at the log end: after restart each producer
// remembers only its newest batch, so an older retry is out of order.
func TestCleanRestartKeepsOnlyNewestBatch(t *testing.T) {
	l := New("orders-0", Config{})
	for s := range int32(5) {
		mustAppend(t, l, batch(5001, 0, s, 1, false))
	}
	l.TakeSnapshot()
	if _, err := l.Rebuild(ts); err != nil {
		t.Fatal(err)
	}
	if r := l.AppendAsLeader(batch(5001, 0, 4, 1, false)); r.Decision.Outcome != producerstate.Duplicate || r.BaseOffset != 4 {
		t.Fatalf("newest retry: %v %v", r.Decision.Outcome, r.Error)
	}
	if r := l.AppendAsLeader(batch(5001, 0, 3, 1, false)); r.Error != kerr.OutOfOrderSequenceNumber {
		t.Fatalf("older retry: %v", r.Error)
	}
}

func TestCorruptSnapshotFallsBack(t *testing.T) {
	one := len(batch(1, 0, 0, 1, false))
	l := New("orders-0", Config{SegmentBytes: 2 * one})
	for s := range int32(6) {
		mustAppend(t, l, batch(1, 0, s, 1, false))
	}
	l.snapshots[len(l.snapshots)-1].Data[8] ^= 1
	rec, err := l.Rebuild(ts)
	if err != nil || rec.SnapshotOffset != 2 || len(rec.Discarded) != 1 || rec.Discarded[0] != 4 {
		t.Fatalf("recovery %+v %v", rec, err)
	}
	if e, _ := l.State().Lookup(1); e.LastSeq() != 5 {
		t.Fatalf("last seq %d after fallback", e.LastSeq())
	}
}

func TestTruncateTo(t *testing.T) {
	l := New("orders-0", Config{})
	mustAppend(t, l, batch(1, 0, 0, 2, false)) // 0-1
	mustAppend(t, l, batch(1, 0, 2, 2, false)) // 2-3
	mustAppend(t, l, batch(1, 0, 4, 1, false)) // 4
	l.SetHighWatermark(5)
	end, err := l.TruncateTo(2, ts)
	if err != nil || end != 2 || l.HighWatermark() != 2 || len(l.Batches()) != 1 {
		t.Fatalf("end %d hw %d batches %d err %v", end, l.HighWatermark(), len(l.Batches()), err)
	}
	if e, _ := l.State().Lookup(1); e.LastSeq() != 1 || e.Len() != 1 {
		t.Fatalf("state after truncation: last seq %d, %d batches", e.LastSeq(), e.Len())
	}
	if !bytes.Equal(l.SegmentBytes(l.Segments()[0]), l.Batches()[0].Bytes()) {
		t.Fatal("segment content not truncated")
	}
	if r := mustAppend(t, l, batch(1, 0, 2, 1, false)); r.BaseOffset != 2 {
		t.Fatalf("append after truncation at %d", r.BaseOffset)
	}
}

// TestCountChangesIn: every change of the batches or the high watermark
// counts, nothing else does, and a copy counts nowhere until given a
// counter (the checker's pass skips a step on an unchanged count).
func TestCountChangesIn(t *testing.T) {
	var n uint64
	l := New("orders-0", Config{})
	l.CountChangesIn(&n)
	want := uint64(0)
	step := func(what string, f func(), changes bool) {
		t.Helper()
		f()
		if changes {
			want++
		}
		if n < want || (!changes && n != want) {
			t.Fatalf("%s: count %d, want %d", what, n, want)
		}
		want = n
	}
	step("append", func() { mustAppend(t, l, batch(1, 0, 0, 2, false)) }, true)
	step("append", func() { mustAppend(t, l, batch(1, 0, 2, 2, false)) }, true)
	step("high watermark", func() { l.SetHighWatermark(2) }, true)
	step("the same high watermark", func() { l.SetHighWatermark(2) }, false)
	step("a snapshot", func() { l.TakeSnapshot() }, false)
	step("truncation", func() {
		if _, err := l.TruncateTo(2, ts); err != nil {
			t.Fatal(err)
		}
	}, true)
	step("truncation past the end", func() { l.TruncateTo(10, ts) }, false)
	c := l.Clone()
	step("an append to a copy", func() { mustAppend(t, c, batch(1, 0, 2, 1, false)) }, false)
	var m uint64
	c.CountChangesIn(&m)
	mustAppend(t, c, batch(1, 0, 3, 1, false))
	if m != 1 || n != want {
		t.Fatalf("the copy's own counter %d (want 1), the original's %d (want %d)", m, n, want)
	}
}

// BatchAt finds the batch holding each offset, as a scan of the batches
// would, for logs of every length up to 20 batches of 1 to 3 records:
// before the first batch, inside each, at each edge and past the end.
func TestBatchAt(t *testing.T) {
	l := New("orders-0", Config{})
	for n := range 21 {
		if got := l.BatchAt(-1); got != -1 {
			t.Fatalf("%d batches: offset -1 in batch %d", n, got)
		}
		for off := int64(0); off <= l.LogEndOffset()+1; off++ {
			want := -1
			for i := range l.NumBatches() {
				if b := l.Batch(i); b.BaseOffset() <= off && off <= b.LastOffset() {
					want = i
				}
			}
			if got := l.BatchAt(off); got != want {
				t.Fatalf("%d batches: offset %d in batch %d, want %d", n, off, got, want)
			}
		}
		mustAppend(t, l, batch(-1, -1, -1, int32(1+n%3), false))
	}
}

// BatchAt finds every offset of a log longer than a chunk of its batch
// list, searched back from the end at every distance.
func TestBatchAtLongLog(t *testing.T) {
	l := New("orders-0", Config{})
	var first []int64 // each batch's base offset
	for n := range 300 {
		first = append(first, l.LogEndOffset())
		mustAppend(t, l, batch(-1, -1, -1, int32(1+n%3), false))
	}
	for i, base := range first {
		for off := base; off <= l.Batch(i).LastOffset(); off++ {
			if got := l.BatchAt(off); got != i {
				t.Fatalf("offset %d in batch %d, want %d", off, got, i)
			}
		}
	}
	if got := l.BatchAt(l.LogEndOffset()); got != -1 {
		t.Fatalf("the log end in batch %d", got)
	}
}

// A good batch's checks allocate nothing: the leader validates every
// batch of every produce (an escaping errors.As target once allocated on
// each).
func TestValidationAllocatesNothing(t *testing.T) {
	l := New("orders-0", Config{})
	// Not LZ4: its reader takes buffers from a sync.Pool, which the race
	// detector (go test -race, the README's command) empties at random.
	for _, c := range []record.Compression{record.None, record.Gzip, record.Snappy, record.Zstd} {
		b, _ := record.Decode(batch(7, 0, 0, 3, false))
		b.Attributes = b.Attributes.WithCompression(c)
		data, err := record.Encode(&b)
		if err != nil {
			t.Fatal(err)
		}
		var h record.Header
		l.validateClientBatch(data, false, &h) // the codec's first use may allocate
		if n := testing.AllocsPerRun(50, func() {
			if code, reason, _, _ := l.validateClientBatch(data, false, &h); code != kerr.None {
				t.Fatalf("%v: %v %s", c, code, reason)
			}
		}); n != 0 {
			t.Fatalf("%v: %.1f allocations a batch", c, n)
		}
	}
}
