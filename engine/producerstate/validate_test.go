package producerstate

import (
	"math"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/kerr"
)

const pid = 5001

// data returns a data batch of count records starting at seq.
func data(epoch int16, seq int32, count int32) Batch {
	return Batch{ProducerID: pid, Epoch: epoch, BaseSeq: seq, LastOffsetDelta: count - 1, MaxTimestamp: 1000}
}

func txnData(epoch int16, seq int32, count int32) Batch {
	b := data(epoch, seq, count)
	b.Transactional = true
	return b
}

// history appends batches the way a leader would: offsets from 900 on.
func history(m *Manager, batches ...Batch) {
	off := int64(900)
	for _, b := range batches {
		if d := m.Validate(b, Client); d.Outcome != Append {
			panic("history batch not appended: " + d.Path.String())
		}
		m.Append(b, off)
		off += int64(b.LastOffsetDelta) + 1
	}
}

// Five batches of epoch 0: sequences 0-3, 4-5, 6-8, 9-11, 12-12 at offsets 900-912.
func fiveBatches() []Batch {
	return []Batch{data(0, 0, 4), data(0, 4, 2), data(0, 6, 3), data(0, 9, 3), data(0, 12, 1)}
}

func TestValidateDecisionTable(t *testing.T) {
	max := int32(math.MaxInt32)
	cases := []struct {
		name     string
		history  []Batch
		in       Batch
		origin   Origin
		outcome  Outcome
		err      kerr.Code
		path     string
		original [2]int64 // duplicate's first and last offset
	}{
		{name: "unknown producer starts at 0", in: data(0, 0, 4),
			outcome: Append, path: "producer=unknown epoch=epoch-first sequence=seq-any"},
		{name: "unknown producer accepted at any sequence (KIP-360)", in: data(3, 77, 1),
			outcome: Append, path: "producer=unknown epoch=epoch-first sequence=seq-any"},
		{name: "next sequence", history: fiveBatches()[:1], in: data(0, 4, 2),
			outcome: Append, path: "producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-next"},
		{name: "retry of the newest batch is a duplicate", history: fiveBatches(), in: data(0, 12, 1),
			outcome: Duplicate, path: "producer=known duplicate=duplicate", original: [2]int64{912, 912}},
		{name: "retry of the oldest remembered batch is a duplicate", history: fiveBatches(), in: data(0, 0, 4),
			outcome: Duplicate, path: "producer=known duplicate=duplicate", original: [2]int64{900, 903}},
		{name: "retry older than the five remembered batches", history: append(fiveBatches(), data(0, 13, 2)), in: data(0, 0, 4),
			outcome: Reject, err: kerr.OutOfOrderSequenceNumber, path: "producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-before-window"},
		{name: "same start, different length overlaps", history: fiveBatches(), in: data(0, 4, 3),
			outcome: Reject, err: kerr.OutOfOrderSequenceNumber, path: "producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-overlap"},
		{name: "gap", history: fiveBatches()[:2], in: data(0, 9, 3),
			outcome: Reject, err: kerr.OutOfOrderSequenceNumber, path: "producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-gap"},
		{name: "lower epoch is INVALID_PRODUCER_EPOCH, never PRODUCER_FENCED", history: []Batch{data(2, 0, 1)}, in: data(1, 1, 1),
			outcome: Reject, err: kerr.InvalidProducerEpoch, path: "producer=known duplicate=not-duplicate epoch=epoch-lower"},
		{name: "lower epoch with a remembered range is still fenced", history: []Batch{data(1, 0, 1)}, in: data(0, 0, 1),
			outcome: Reject, err: kerr.InvalidProducerEpoch, path: "producer=known duplicate=not-duplicate epoch=epoch-lower"},
		{name: "higher epoch at 0", history: fiveBatches(), in: data(1, 0, 2),
			outcome: Append, path: "producer=known duplicate=not-duplicate epoch=epoch-higher sequence=seq-zero-new-epoch"},
		{name: "higher epoch not at 0", history: fiveBatches(), in: data(1, 13, 1),
			outcome: Reject, err: kerr.OutOfOrderSequenceNumber, path: "producer=known duplicate=not-duplicate epoch=epoch-higher sequence=seq-nonzero-new-epoch"},
		{name: "wraps from MaxInt32 to 0", history: []Batch{data(0, max-2, 3)}, in: data(0, 0, 1),
			outcome: Append, path: "producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-next"},
		{name: "MaxInt32 itself is a valid sequence", history: []Batch{data(0, max-3, 3)}, in: data(0, max, 1),
			outcome: Append, path: "producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-next"},
		{name: "batch straddling the wrap is recognised as a duplicate", history: []Batch{data(0, max-1, 3)}, in: data(0, max-1, 3),
			outcome: Duplicate, path: "producer=known duplicate=duplicate", original: [2]int64{900, 902}},
		{name: "after the wrap, 1 is a gap", history: []Batch{data(0, max-1, 2)}, in: data(0, 1, 1),
			outcome: Reject, err: kerr.OutOfOrderSequenceNumber, path: "producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-gap"},
		{name: "transactional batch opens a transaction", in: txnData(0, 0, 2),
			outcome: Append, path: "producer=unknown epoch=epoch-first sequence=seq-any transaction=txn-begins"},
		{name: "next transactional batch continues it", history: []Batch{txnData(0, 0, 2)}, in: txnData(0, 2, 1),
			outcome: Append, path: "producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-next transaction=txn-continues"},
		{name: "plain batch inside an open transaction", history: []Batch{txnData(0, 0, 2)}, in: data(0, 2, 1),
			outcome: Reject, err: kerr.InvalidTxnState, path: "producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-next transaction=txn-expected"},
		{name: "replication trusts a lower epoch", history: []Batch{data(2, 0, 1)}, in: data(1, 9, 1), origin: Replication,
			outcome: Append, path: "producer=known epoch=epoch-lower"},
		{name: "replication skips the sequence check", history: fiveBatches(), in: data(0, 99, 1), origin: Replication,
			outcome: Append, path: "producer=known epoch=epoch-equal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New(Config{})
			history(m, c.history...)
			d := m.Validate(c.in, c.origin)
			if d.Outcome != c.outcome || d.Error != c.err || d.Path.String() != c.path {
				t.Fatalf("got %v %v [%s]\nwant %v %v [%s]", d.Outcome, d.Error.Name(), d.Path, c.outcome, c.err.Name(), c.path)
			}
			if c.outcome == Duplicate && (d.Original.FirstOffset() != c.original[0] || d.Original.LastOffset != c.original[1]) {
				t.Fatalf("duplicate of offsets %d-%d, want %d-%d", d.Original.FirstOffset(), d.Original.LastOffset, c.original[0], c.original[1])
			}
		})
	}
}

// Same epoch with nothing remembered (e.g. only a marker survived): only 0 is next.
func TestEqualEpochEmptyWindowNeedsZero(t *testing.T) {
	m := New(Config{})
	m.AppendMarker(pid, 1, commitMarker(0), 900, 1000)
	if d := m.Validate(data(1, 5, 1), Client); d.Error != kerr.OutOfOrderSequenceNumber || d.ExpectedSeq() != 0 {
		t.Fatalf("seq 5: %v expected %d", d.Error, d.ExpectedSeq())
	}
	if d := m.Validate(data(1, 0, 1), Client); d.Outcome != Append {
		t.Fatalf("seq 0: %v", d.Path)
	}
}

func TestWindowKeepsFiveAndEpochBumpClearsIt(t *testing.T) {
	m := New(Config{})
	history(m, append(fiveBatches(), data(0, 13, 2))...)
	e, _ := m.Lookup(pid)
	if e.Len() != 5 || e.Batch(0).FirstSeq() != 4 || e.LastSeq() != 14 || e.LastOffset() != 914 {
		t.Fatalf("window %+v", e.Batches())
	}
	m.Append(data(1, 0, 1), 915)
	e, _ = m.Lookup(pid)
	if e.Len() != 1 || e.Epoch() != 1 {
		t.Fatalf("after bump: epoch %d, %d batches", e.Epoch(), e.Len())
	}
}

func TestExplainQuotesTheNumbers(t *testing.T) {
	m := New(Config{})
	history(m, fiveBatches()[:2]...)
	d := m.Validate(data(0, 9, 3), Client)
	got := d.Explain("orders-1", 906)
	for _, want := range []string{"OUT_OF_ORDER_SEQUENCE_NUMBER", "5001", "orders-1", "906", "9 (incoming sequence)", "5 (current end sequence)", "expected 6"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	dup := m.Validate(data(0, 4, 2), Client)
	if got := dup.Explain("orders-1", 906); !strings.Contains(got, "offsets 904-905") {
		t.Errorf("duplicate explanation %q", got)
	}
}

func BenchmarkValidate(b *testing.B) {
	m := New(Config{})
	history(m, fiveBatches()...)
	e := m.get(pid)
	next := data(0, 13, 1)
	b.ReportAllocs()
	var d Decision
	for b.Loop() {
		d = Validate(e, next, Client)
	}
	if d.Outcome != Append {
		b.Fatal(d.Path.String())
	}
}

// A packed path unpacks to itself, and bytes that are not one are refused.
func TestPackedPath(t *testing.T) {
	m := New(Config{})
	first := m.Validate(Batch{ProducerID: 1}, 0)
	m.Append(Batch{ProducerID: 1}, 0)
	for _, p := range []Path{{}, first.Path, m.Validate(Batch{ProducerID: 1, BaseSeq: 5}, 0).Path,
		m.Validate(Batch{ProducerID: 1, Epoch: 1, BaseSeq: 3, Transactional: true}, 0).Path} {
		b := p.AppendPacked([]byte{9})[1:]
		got, n, ok := UnpackPath(b)
		if !ok || got != p || n != len(b) || n != 1+p.Len() {
			t.Fatalf("%v: unpacked %v, %d of %d bytes, %v", p, got, n, len(b), ok)
		}
	}
	for _, b := range [][]byte{nil, {6, 0, 0, 0, 0, 0, 0}, {2, 1<<5 | 1}, {1, 6 << 5}, {1, 1<<5 | 19}} {
		if _, _, ok := UnpackPath(b); ok {
			t.Fatalf("% x unpacked", b)
		}
	}
}
