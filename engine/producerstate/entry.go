package producerstate

import "github.com/eoslab/eoslab/engine/record"

// NumBatchesToRetain is how many batch summaries the broker remembers per
// producer and partition (ProducerStateEntry.NUM_BATCHES_TO_RETAIN).
const NumBatchesToRetain = 5

// NoEpoch is the epoch of an entry that has seen no batch or marker yet.
const NoEpoch = -1

// BatchMeta summarises one appended batch, stored as Kafka stores it
// (BatchMetadata): last sequence, last offset, their common delta and the
// batch's max timestamp. First sequence and first offset are derived.
type BatchMeta struct {
	LastSeq     int32
	OffsetDelta int32
	LastOffset  int64
	Timestamp   int64
}

// FirstSeq is the batch's base sequence (wrapping below 0 to MaxInt32).
func (m BatchMeta) FirstSeq() int32 { return record.DecrementSequence(m.LastSeq, m.OffsetDelta) }

// FirstOffset is the offset of the batch's first record.
func (m BatchMeta) FirstOffset() int64 { return m.LastOffset - int64(m.OffsetDelta) }

// Entry is what one partition remembers about one producer id. Its layout
// is kept to 64 bytes (a Go size class) with the oldest remembered batch
// inline and the four others apart, allocated with the second: most
// producers of a large world have written one batch to a partition, and a
// million of them fit the memory budget. The first offset of an open
// transaction lives in the Manager, which needs it sorted for the LSO
// anyway.
type Entry struct {
	producerID       int64
	lastTimestamp    int64
	first            BatchMeta                          // the oldest remembered batch
	more             *[NumBatchesToRetain - 1]BatchMeta // the others, oldest first (nil until a second one); never shared
	coordinatorEpoch int32
	epoch            int16
	n                uint8
	txnOpen          bool
}

// at is the i-th remembered batch, oldest first (i < NumBatchesToRetain;
// e.more is allocated for i > 0).
func (e *Entry) at(i int) *BatchMeta {
	if i == 0 {
		return &e.first
	}
	return &e.more[i-1]
}

// copied is a copy of e that shares nothing with it.
func (e *Entry) copied() Entry {
	c := *e
	if e.more != nil {
		more := *e.more
		c.more = &more
	}
	return c
}

// ProducerID is the producer this entry is about.
func (e *Entry) ProducerID() int64 { return e.producerID }

// Epoch is the last producer epoch seen on this partition (NoEpoch if none).
func (e *Entry) Epoch() int16 { return e.epoch }

// CoordinatorEpoch is the epoch of the last coordinator whose marker was written (-1 if none).
func (e *Entry) CoordinatorEpoch() int32 { return e.coordinatorEpoch }

// LastTimestamp is the max timestamp of the last data batch, or the last marker's timestamp.
func (e *Entry) LastTimestamp() int64 { return e.lastTimestamp }

// InTransaction reports whether the producer has an open transaction here.
func (e *Entry) InTransaction() bool { return e.txnOpen }

// Len is the number of remembered batches (0 to 5).
func (e *Entry) Len() int { return int(e.n) }

// Batch returns the i-th remembered batch, oldest first.
func (e *Entry) Batch(i int) BatchMeta {
	if i < 0 || i >= int(e.n) {
		panic("producerstate: batch index out of range")
	}
	return *e.at(i)
}

// Batches copies the remembered batches, oldest first.
func (e *Entry) Batches() []BatchMeta {
	if e.n == 0 {
		return nil
	}
	out := make([]BatchMeta, e.n)
	for i := range out {
		out[i] = *e.at(i)
	}
	return out
}

// LastSeq is the last sequence of the newest remembered batch, or -1.
func (e *Entry) LastSeq() int32 {
	switch e.n {
	case 0:
		return record.NoSequence
	case 1:
		return e.first.LastSeq
	}
	return e.more[e.n-2].LastSeq
}

// LastOffset is the last offset of the newest remembered batch, or -1.
func (e *Entry) LastOffset() int64 {
	if e.n == 0 {
		return -1
	}
	return e.at(int(e.n) - 1).LastOffset
}

// findDuplicate returns the index of the remembered batch with exactly this
// sequence range, or -1 (ProducerStateEntry.batchWithSequenceRange).
func (e *Entry) findDuplicate(firstSeq, lastSeq int32) int {
	if e.n == 0 {
		return -1
	}
	if e.first.LastSeq == lastSeq && e.first.FirstSeq() == firstSeq {
		return 0
	}
	if e.n > 1 {
		for i := range e.more[:e.n-1] {
			if m := &e.more[i]; m.LastSeq == lastSeq && m.FirstSeq() == firstSeq {
				return i + 1
			}
		}
	}
	return -1
}

// setEpoch switches to a new epoch, forgetting every remembered batch, as
// ProducerStateEntry.maybeUpdateProducerEpoch does.
func (e *Entry) setEpoch(epoch int16) {
	if e.epoch != epoch {
		e.epoch = epoch
		e.n = 0
	}
}

// push's copies are written for five batches retained.
var _ [0]struct{} = [NumBatchesToRetain - 5]struct{}{}

// push remembers a batch, dropping the oldest beyond five.
func (e *Entry) push(m BatchMeta) {
	if e.n == NumBatchesToRetain {
		// Four copies written out, each reading its slot before the next
		// overwrites it: a loop (or a call to memmove) cost twice as much.
		m := e.more
		e.first = m[0]
		m[0] = m[1]
		m[1] = m[2]
		m[2] = m[3]
		e.n--
	}
	if e.n > 0 && e.more == nil {
		e.more = new([NumBatchesToRetain - 1]BatchMeta)
	}
	*e.at(int(e.n)) = m
	e.n++
}
