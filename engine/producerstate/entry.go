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
// is kept to 144 bytes (a Go size class) so that a million producers fit
// the memory budget; the first offset of an open transaction lives in the
// Manager, which needs it sorted for the LSO anyway.
type Entry struct {
	producerID       int64
	lastTimestamp    int64
	batches          [NumBatchesToRetain]BatchMeta // oldest first
	coordinatorEpoch int32
	epoch            int16
	n                uint8
	txnOpen          bool
}

func newEntry(pid int64) *Entry {
	return &Entry{producerID: pid, epoch: NoEpoch, coordinatorEpoch: -1, lastTimestamp: -1}
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
func (e *Entry) Batch(i int) BatchMeta { return e.batches[:e.n][i] }

// Batches copies the remembered batches, oldest first.
func (e *Entry) Batches() []BatchMeta { return append([]BatchMeta(nil), e.batches[:e.n]...) }

// LastSeq is the last sequence of the newest remembered batch, or -1.
func (e *Entry) LastSeq() int32 {
	if e.n == 0 {
		return record.NoSequence
	}
	return e.batches[e.n-1].LastSeq
}

// LastOffset is the last offset of the newest remembered batch, or -1.
func (e *Entry) LastOffset() int64 {
	if e.n == 0 {
		return -1
	}
	return e.batches[e.n-1].LastOffset
}

// findDuplicate returns the index of the remembered batch with exactly this
// sequence range, or -1 (ProducerStateEntry.batchWithSequenceRange).
func (e *Entry) findDuplicate(firstSeq, lastSeq int32) int {
	for i := 0; i < int(e.n); i++ {
		if m := &e.batches[i]; m.LastSeq == lastSeq && m.FirstSeq() == firstSeq {
			return i
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

// push remembers a batch, dropping the oldest beyond five.
func (e *Entry) push(m BatchMeta) {
	if e.n == NumBatchesToRetain {
		copy(e.batches[:], e.batches[1:])
		e.n--
	}
	e.batches[e.n] = m
	e.n++
}
