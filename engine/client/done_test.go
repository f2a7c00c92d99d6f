package client

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
)

// randomDone is a done batch that follows prev as a producer's next batch
// mostly does, or, now and then, differs from it in any field, by any
// amount.
func randomDone(rng *rand.Rand, prev doneBatch, tps []msg.TP) doneBatch {
	odd := func() bool { return rng.IntN(4) == 0 }
	big := func() int64 {
		switch rng.IntN(3) {
		case 0:
			return rng.Int64N(1 << 40)
		case 1:
			return -rng.Int64N(1 << 40)
		}
		return []int64{math.MaxInt64, math.MinInt64, -1, 0}[rng.IntN(4)]
	}
	d := prev
	d.tp = &tps[rng.IntN(len(tps))]
	if !odd() && prev.tp != nil {
		d.tp = prev.tp
	}
	d.count = 1 + rng.Int32N(5)
	d.firstSerial = prev.firstSerial + int64(prev.count)
	d.seq = prev.seq + prev.count
	d.baseOffset = prev.baseOffset + int64(prev.count)
	d.timestamp = prev.timestamp + rng.Int64N(3)
	d.sends, d.err, d.extra = 1, 0, nil
	d.state, d.sent = Acked, true
	if odd() {
		d.firstSerial = big()
	}
	if odd() {
		d.seq = int32(big())
	}
	if odd() {
		d.baseOffset = big()
	}
	if odd() {
		d.timestamp = big()
	}
	if odd() {
		d.pid, d.epoch = big(), int16(big())
	}
	if odd() {
		d.sends, d.err = rng.Int32N(4), kerr.Code(big())
	}
	if odd() {
		d.state = Acked + BatchState(rng.IntN(3))
		d.sent = rng.IntN(2) == 0
	}
	if odd() {
		d.extra = &doneExtra{key: []byte{byte(rng.IntN(256))}, explicit: rng.IntN(2) == 0}
		if rng.IntN(2) == 0 {
			d.extra.reset, d.extra.sentPID, d.extra.sentSeq, d.extra.sentEpoch = true, big(), int32(big()), int16(big())
		}
	}
	return d
}

// addDone adds d as settle does, its extra apart.
func addDone(l *doneList, d doneBatch, sc *Scratch) {
	var x doneExtra
	has := d.extra != nil
	if has {
		x = *d.extra
	}
	d.extra = nil
	l.add(&d, &x, has, sc)
}

// sameDone compares done batches by what they hold, not where.
func sameDone(a, b doneBatch) bool {
	if (a.extra == nil) != (b.extra == nil) || a.extra != nil && !reflect.DeepEqual(*a.extra, *b.extra) || *a.tp != *b.tp {
		return false
	}
	a.extra, b.extra, a.tp, b.tp = nil, nil, nil, nil
	return a == b
}

// The done list keeps every entry as it was appended, whatever it holds,
// read one at a time or in order from any entry; clones made at any
// length append without seeing each other's entries, and an entry keeps
// its ref, the same in a clone as in the list it shares it with, while
// those appended apart have refs apart.
func TestDoneListKeepsEntries(t *testing.T) {
	tps := []msg.TP{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}, {Topic: "audit", Partition: 63}}
	rng := rand.New(rand.NewPCG(7, 9))
	var sc Scratch
	for _, at := range []int{0, 1, 2, 3, 64, 65, 200, 1500} {
		var l doneList
		var want []doneBatch
		prev := doneBatch{count: 0}
		for range at {
			d := randomDone(rng, prev, tps)
			prev = d
			want = append(want, d)
			addDone(&l, d, &sc)
		}
		var refs []DoneRef
		for i := range at {
			refs = append(refs, l.ref(i))
		}
		c := l.Clone()
		cwant := append([]doneBatch(nil), want...)
		for range 300 {
			d := randomDone(rng, prev, tps)
			e := randomDone(rng, prev, tps)
			prev = d
			want, cwant = append(want, d), append(cwant, e)
			addDone(&l, d, &sc)
			addDone(&c, e, &sc)
		}
		for name, x := range map[string]struct {
			l    *doneList
			want []doneBatch
		}{"original": {&l, want}, "clone": {&c, cwant}} {
			if x.l.Len() != len(x.want) {
				t.Fatalf("at %d, %s: Len %d, want %d", at, name, x.l.Len(), len(x.want))
			}
			for i, w := range x.want {
				if got := x.l.at(i); !sameDone(got, w) {
					t.Fatalf("at %d, %s: entry %d is %+v, want %+v", at, name, i, got, w)
				}
			}
			from := rng.IntN(len(x.want))
			n := from
			for it := x.l.from(from); ; n++ {
				i, ref, d, ok := it.next()
				if !ok {
					break
				}
				if i != n || !sameDone(d, x.want[i]) || ref != x.l.ref(i) {
					t.Fatalf("at %d, %s: reading from %d gave entry %d (%+v), want %d (%+v)", at, name, from, i, d, n, x.want[n])
				}
			}
			if n != len(x.want) {
				t.Fatalf("at %d, %s: reading from %d stopped at %d of %d", at, name, from, n, len(x.want))
			}
		}
		for i, r := range refs {
			if l.ref(i) != r || c.ref(i) != r {
				t.Fatalf("at %d: entry %d, shared, has refs %v and %v, was %v", at, i, l.ref(i), c.ref(i), r)
			}
		}
		for i := at; i < l.Len(); i++ {
			if l.ref(i) == c.ref(i) {
				t.Fatalf("at %d: entry %d, appended apart, has one ref", at, i)
			}
		}
	}
}

// An entry that follows the one before as a producer's next batch does
// takes a few bytes.
func TestDoneLogEntriesAreSmall(t *testing.T) {
	tp := msg.TP{Topic: "orders"}
	var l doneList
	var sc Scratch
	d := doneBatch{tp: &tp, count: 1, sends: 1, state: Acked, sent: true}
	for i := range 10_000 {
		e := d
		e.firstSerial, e.seq, e.baseOffset, e.timestamp = int64(i), int32(i), int64(i), int64(i)
		addDone(&l, e, &sc)
	}
	m := l.more
	if per := float64(m.blocks.Bytes()) / float64(m.n); per > 7 { // sealed blocks counted whole
		t.Fatalf("%.1f bytes an entry, want at most 7", per)
	}
}

// A done batch's bytes read back are those of its last send: its fields
// encoded again, whatever the producer's kind, key and value, with the
// producer id, epoch and sequence of that send when a reset changed them
// since; none if it was never sent.
func TestDoneBatchBytesAreTheLastSend(t *testing.T) {
	tp := msg.TP{Topic: "orders", Partition: 2}
	tests := []struct {
		name     string
		cfg      Config
		key      []byte
		value    []byte
		sent     bool
		resetPID int64 // after the send, as bumpEpoch does (0: none)
	}{
		{name: "idempotent", cfg: Config{Idempotent: true}, sent: true},
		{name: "plain", cfg: Config{}, sent: true},
		{name: "transactional, key and value", cfg: Config{Idempotent: true, TransactionalID: "t"}, key: []byte("k"), value: []byte("v"), sent: true},
		{name: "never sent", cfg: Config{Idempotent: true}},
		{name: "reset after its last send", cfg: Config{Idempotent: true}, sent: true, resetPID: 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Producer{name: "p1", cfg: &tt.cfg}
			ps := &partitionState{tp: tp}
			b := &Batch{TP: tp, Count: 3, FirstSerial: 40, Key: tt.key, Value: tt.value, Explicit: tt.value != nil,
				Timestamp: 1_700_000_000_123, PID: 4, Epoch: 2, Seq: 17, State: Acked, Sends: 1, ps: ps}
			var sc Scratch
			var want []byte
			if tt.sent {
				want = append([]byte(nil), p.encodeSend(b, &sc)...)
			}
			if tt.resetPID != 0 {
				b.PID, b.Epoch, b.Seq, b.seqReset = tt.resetPID, 0, 0, true
			}
			var l doneList
			for i := range 3 { // the first entry is kept apart; read back the third, from the log
				var x doneExtra
				d, extra := b.settled(&x)
				d.firstSerial -= 3 * int64(2-i)
				l.add(&d, &x, extra, &sc)
			}
			d := l.at(2)
			var got Batch
			d.fill(&got, 3, p, true)
			if !bytes.Equal(got.Bytes, want) || (got.Bytes == nil) != (want == nil) {
				t.Fatalf("bytes read back\n%x\nwant\n%x", got.Bytes, want)
			}
			if got.PID != b.PID || got.Seq != b.Seq || !bytes.Equal(got.Key, tt.key) {
				t.Fatalf("fields read back pid %d seq %d key %q, want %d %d %q", got.PID, got.Seq, got.Key, b.PID, b.Seq, tt.key)
			}
		})
	}
}

// Any entries the fuzzer makes, each field taken from its bytes, read
// back as they were appended, one at a time and in order.
func FuzzDoneLog(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 2, 3, 3, 3, 5, 1, 1, 9, 4, 4, 4, 4}, uint8(1))
	f.Add([]byte{255, 255, 255, 255, 255, 255, 255, 127, 6, 128, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, uint8(2))
	// Three entries: partitions, producer ids, epochs, states and extras change.
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 13, 14, 15,
		1, 9, 8, 200, 6, 5, 4, 3, 2, 1, 2, 1, 4, 7, 8, 9,
		2, 64, 3, 7, 1, 9, 1, 9, 1, 9, 0, 3, 5, 1, 0, 1}, uint8(1))
	tps := []msg.TP{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}, {Topic: "t", Partition: 63}}
	f.Fuzz(func(t *testing.T, data []byte, seed uint8) {
		var l doneList
		var sc Scratch
		var want []doneBatch
		word := func(i int) int64 { return int64(binary.LittleEndian.Uint64(data[i : i+8])) }
		for len(data) >= 16 {
			d := doneBatch{tp: &tps[int(data[0])%len(tps)], firstSerial: word(0) >> (data[1] % 64),
				baseOffset: word(8) >> (data[2] % 64), pid: int64(int8(data[3])), epoch: int16(data[4]),
				seq: int32(word(4)), count: 1 + int32(data[5]%8), sends: int32(data[6] % 3), err: kerr.Code(int8(data[7])),
				timestamp: word(2) >> (data[9] % 64), state: Acked + BatchState(data[10]%3), sent: data[11]%2 == 0}
			if data[12]%4 == 0 {
				d.extra = &doneExtra{key: data[13:14], explicit: data[14]%2 == 0, reset: data[15]%2 == 0, sentPID: int64(seed)}
			}
			addDone(&l, d, &sc)
			want = append(want, d)
			data = data[16:]
		}
		for i, w := range want {
			if got := l.at(i); !sameDone(got, w) {
				t.Fatalf("entry %d is %+v, want %+v", i, got, w)
			}
		}
		it := l.from(int(seed) % (len(want) + 1))
		for j := int(seed) % (len(want) + 1); j < len(want); j++ {
			i, _, d, ok := it.next()
			if !ok || i != j || !sameDone(d, want[j]) {
				t.Fatalf("reading in order gave entry %d (%v) %+v, want %d %+v", i, ok, d, j, want[j])
			}
		}
	})
}
