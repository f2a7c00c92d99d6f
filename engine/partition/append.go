package partition

import (
	"errors"
	"fmt"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/producerstate"
	"github.com/eoslab/eoslab/engine/record"
)

// AppendResult is the leader's answer for one produced batch.
type AppendResult struct {
	Error  kerr.Code
	Reason string // why a batch was refused before the producer-state check

	// Decision is the producer-state verdict; Checked is false for batches
	// without a producer id (and for batches refused before that check).
	Decision producerstate.Decision
	Checked  bool

	// BaseOffset and LastOffset are the assigned offsets, the original ones
	// for a duplicate, -1 for a rejection.
	BaseOffset, LastOffset int64
	LogStartOffset         int64
}

// Explain is the sentence that goes with the result: why it was refused,
// or what the producer-state check found.
func (r *AppendResult) Explain(partition string, logEnd int64) string {
	if r.Reason == "" && r.Checked {
		return r.Decision.Explain(partition, logEnd)
	}
	return r.Reason
}

// Appended reports whether the batch was written (not a duplicate or rejection).
func (r *AppendResult) Appended() bool {
	return r.Error == kerr.None && (!r.Checked || r.Decision.Outcome == producerstate.Append)
}

// AppendAsLeader validates a client's batch in Kafka's order — structure,
// base offset 0, size, CRC, record consistency, then producer state — and
// appends it, stamping offset and leader epoch into bytes 0-15. A
// compressed batch whose records' offset deltas are not 0, 1, 2, … is
// rebuilt first, and the rebuilt batch is what the log stores (rebuild);
// any other batch whose timestamp type or maxTimestamp is not the one
// Kafka's leader writes has them corrected, with a new CRC
// (setMaxTimestamp).
func (l *Log) AppendAsLeader(data []byte) AppendResult {
	var res AppendResult
	l.AppendAsLeaderTo(data, false, false, &res)
	return res
}

// AppendAsLeaderTo is AppendAsLeader writing its result into *res, which
// must be the zero AppendResult: the leader's produce path keeps the
// result where it answers from, and a result returned by value (some 140
// bytes, a decision in it) was copied at every call on its way there.
// vouched is msg.ProduceBatch.Vouched: the records need not be walked;
// owned is msg.ProduceBatch.Owned: a batch kept as it came is data itself.
func (l *Log) AppendAsLeaderTo(data []byte, vouched, owned bool, res *AppendResult) {
	res.BaseOffset, res.LastOffset, res.LogStartOffset = -1, -1, l.start
	var h record.Header
	code, reason, change, maxTS := l.validateClientBatch(data, vouched, &h)
	switch {
	case code != kerr.None:
	case change == rebuildBatch:
		data, code, reason = l.rebuild(data, &h)
	case change == fixMaxTimestamp:
		data = l.setMaxTimestamp(data, &h, maxTS)
	}
	if code != kerr.None {
		res.Error, res.Reason = code, reason
		return
	}
	var pb producerstate.Batch
	if h.HasProducerID() {
		pb = producerstate.BatchOf(&h)
		d := &res.Decision
		l.state.ValidateTo(d, &pb, producerstate.Client)
		res.Checked = true
		switch d.Outcome {
		case producerstate.Duplicate:
			res.BaseOffset, res.LastOffset = d.Original.FirstOffset(), d.Original.LastOffset
			return
		case producerstate.Reject:
			res.Error = d.Error
			return
		}
	}
	res.BaseOffset = l.appendBytes(data, h.LastOffsetDelta, true, owned && change == keepBatch)
	res.LastOffset = res.BaseOffset + int64(h.LastOffsetDelta)
	if res.Checked {
		l.state.Append(pb, res.BaseOffset)
	} else {
		l.state.UpdateMapEndOffset(l.end)
	}
}

// change is what the leader does to a good client batch before it stores
// it.
type change uint8

const (
	keepBatch       change = iota // stored as it arrived
	fixMaxTimestamp               // its timestamp type and maxTimestamp set as Kafka's leader sets them (Log.setMaxTimestamp)
	rebuildBatch                  // rebuilt (Log.rebuild)
)

// logAppendTime is the topics' message.timestamp.type: the engine's topics
// are CreateTime, Kafka's default (a topic config asking for another is
// refused).
const logAppendTime = false

// validateClientBatch parses data's header into *h and checks the batch.
// For a good batch, c says whether the leader stores it as it arrived,
// rebuilds it (see rebuild) or sets its maxTimestamp to maxTS (see
// setMaxTimestamp).
func (l *Log) validateClientBatch(data []byte, vouched bool, h *record.Header) (code kerr.Code, reason string, c change, maxTS int64) {
	err := record.ParseHeaderTo(data, h)
	_, badMagic := err.(*record.MagicError) // ParseHeader's errors are not wrapped
	switch {
	case badMagic:
		return kerr.InvalidRecord, "produce requests carry record batch v2 only: " + err.Error(), keepBatch, 0
	case err != nil:
		return kerr.CorruptMessage, err.Error(), keepBatch, 0
	case len(data) < h.Size():
		return kerr.CorruptMessage, fmt.Sprintf("batch announces %d bytes, %d arrived", h.Size(), len(data)), keepBatch, 0
	case len(data) > h.Size():
		return kerr.InvalidRecord, "exactly one batch per partition is allowed", keepBatch, 0
	case h.BaseOffset != 0:
		return kerr.InvalidRecord, fmt.Sprintf("a client batch must have base offset 0, not %d", h.BaseOffset), keepBatch, 0
	case h.Size() > l.cfg.MaxMessageBytes:
		return kerr.MessageTooLarge, fmt.Sprintf("batch of %d bytes exceeds max.message.bytes %d", h.Size(), l.cfg.MaxMessageBytes), keepBatch, 0
	}
	// The records' framing is walked, not decoded (Decoder.Check: what
	// Decode would refuse, with Decode's error): the leader needs the
	// verdict, not the keys and values. The walk reads each record's
	// offset and timestamp deltas on its way. For a batch the engine's
	// own producer encoded, the walk's verdict is known (Vouched, and
	// TestEncodedBatchesWalkAsVouched): the same as the walk's, it is not
	// computed again.
	var walked record.Walked
	if vouched {
		walked = record.Walked{InOrder: true, MaxTimestamp: h.MaxTimestamp}
	} else {
		walked, err = l.dec.CheckParsed(h, data)
	}
	if err != nil {
		if code, reason, early := refusedBatch(err); early {
			return code, reason, keepBatch, 0
		}
	}
	switch {
	case h.RecordsCount <= 0 || h.LastOffsetDelta+1 != h.RecordsCount:
		return kerr.InvalidRecord, fmt.Sprintf("lastOffsetDelta %d does not match recordsCount %d", h.LastOffsetDelta, h.RecordsCount), keepBatch, 0
	case h.Attributes.Control():
		return kerr.InvalidRecord, "clients may not send control batches", keepBatch, 0
	case h.HasProducerID() && h.BaseSequence < 0:
		return kerr.InvalidRecord, fmt.Sprintf("producer id %d with base sequence %d", h.ProducerID, h.BaseSequence), keepBatch, 0
	case err != nil:
		// The records, which LogValidator reads only after the checks of
		// the batch above (validateBatch).
		code, reason, _ := refusedBatch(err)
		return code, reason, keepBatch, 0
	case !logAppendTime && h.Attributes.LogAppendTime() && h.MaxTimestamp == -1:
		// LogValidator.validateTimestamp, record by record: on a
		// CreateTime topic a record without a timestamp (-1) is let
		// through unless its batch says LogAppendTime, and every record of
		// such a batch reads the batch's maxTimestamp.
		return kerr.InvalidTimestamp, "a batch flagged LogAppendTime with maxTimestamp -1 on a CreateTime topic: producer should not set timestamp type to LogAppendTime", keepBatch, 0
	}
	switch {
	case !walked.InOrder && h.Attributes.Compression() != record.None:
		// Kafka's LogValidator.validateMessagesAndAssignOffsetsCompressed
		// compares each record's offset with the next inner offset (0, 1,
		// 2, …) and, at the first that differs, gives up assigning
		// offsets in place. Its uncompressed path
		// (assignOffsetsNonCompressed) does not look.
		return kerr.None, "", rebuildBatch, 0
	case h.Attributes.LogAppendTime() != logAppendTime || h.MaxTimestamp != walked.MaxTimestamp:
		// Both paths that keep the batch (assignOffsetsNonCompressed,
		// and validateMessagesAndAssignOffsetsCompressed assigning in
		// place) end with batch.setMaxTimestamp(timestampType,
		// maxTimestamp): the topic's timestamp type and the largest
		// record timestamp they walked (for a LogAppendTime topic, now),
		// which DefaultRecordBatch.setMaxTimestamp writes unless the
		// batch has both already.
		return kerr.None, "", fixMaxTimestamp, walked.MaxTimestamp
	}
	return kerr.None, "", keepBatch, 0
}

// setMaxTimestamp returns a copy of data, a client batch that passed every
// check, with the timestamp type and maxTimestamp Kafka's leader writes
// into the batch it keeps (record.SetMaxTimestamp, as LogValidator calls
// DefaultRecordBatch.setMaxTimestamp): the topic's type, CreateTime, and
// maxTS, the largest record timestamp; the attributes as
// computeAttributes makes them and a new CRC. The client's bytes are left
// as they are. *h becomes the copy's header, which the producer-state
// check reads next (its maxTimestamp is the producer's last timestamp), as
// Kafka's analyzeAndValidateProducerState reads the validated batch.
func (l *Log) setMaxTimestamp(data []byte, h *record.Header, maxTS int64) []byte {
	out := append([]byte(nil), data...)
	record.SetMaxTimestamp(out, logAppendTime, maxTS)
	if err := record.ParseHeaderTo(out, h); err != nil {
		panic("a batch that parsed does not parse with a new maxTimestamp: " + err.Error())
	}
	return out
}

// rebuild replaces data, a compressed client batch that passed every check
// but whose records' offset deltas are not 0, 1, 2, …, with the batch
// Kafka's leader appends instead (LogValidator.buildRecordsAndAssignOffsets,
// record.Renumber): the records re-appended at consecutive offsets in a
// new batch of the same codec, producer id, epoch, base sequence and
// transactional bit, with a new CRC. *h becomes the new batch's header,
// which the producer-state check reads next, as Kafka's
// analyzeAndValidateProducerState reads the validated batch. As
// UnifiedLog.append does when the validator may have changed a batch's
// size, the new batch is held to max.message.bytes again.
func (l *Log) rebuild(data []byte, h *record.Header) ([]byte, kerr.Code, string) {
	b := &l.scratch
	if err := l.dec.Decode(data, b); err != nil { // it passed CheckParsed: this cannot fail
		return nil, kerr.CorruptMessage, err.Error()
	}
	if err := record.Renumber(b); err != nil {
		return nil, kerr.UnknownServerError, err.Error()
	}
	b.BaseOffset, b.PartitionLeaderEpoch = l.end, l.leaderEpoch
	out, err := record.Encode(b)
	if err != nil {
		return nil, kerr.UnknownServerError, fmt.Sprintf("rebuilding the batch: %v", err)
	}
	if len(out) > l.cfg.MaxMessageBytes {
		return nil, kerr.MessageTooLarge, fmt.Sprintf("the batch rebuilt at consecutive inner offsets is %d bytes, above max.message.bytes %d", len(out), l.cfg.MaxMessageBytes)
	}
	if err := record.ParseHeaderTo(out, h); err != nil {
		panic("a batch just encoded does not parse: " + err.Error())
	}
	return out, kerr.None, ""
}

// refusedBatch is the error a leader answers a batch Decoder.Check refused
// with, as Kafka's broker answers the exception it meets: early says that
// it meets it before LogValidator's checks of the batch (UnifiedLog's
// analyzeAndValidateRecords checks the CRC, then asks the codec). Apart
// from the rest: errors.As's targets escape, and a produce with nothing
// wrong must not allocate them.
func refusedBatch(err error) (code kerr.Code, reason string, early bool) {
	var (
		unknown *record.UnknownCompressionError
		corrupt *record.CorruptError
	)
	switch {
	case errors.As(err, &unknown):
		// CompressionType.forId throws an IllegalArgumentException, no
		// ApiException, which ReplicaManager.appendToLocalLog answers as
		// it does any Throwable.
		return kerr.UnknownServerError, err.Error(), true
	case errors.As(err, &corrupt) && corrupt.Stream:
		// DefaultRecordBatch's StreamRecordIterator turns the codec's
		// IOException into a KafkaException, no ApiException either.
		return kerr.UnknownServerError, err.Error(), false
	case errors.As(err, &corrupt):
		// DefaultRecord.readFrom and the batch's record iterator throw
		// InvalidRecordException: invalid record structure, a premature
		// end, records still remaining.
		return kerr.InvalidRecord, err.Error(), false
	}
	// The CRC (CorruptRecordException), or a record area over eoslab's own
	// limit on what it decompresses (record.MaxRecordsSize).
	var tooLarge *record.RecordsTooLargeError
	return kerr.CorruptMessage, err.Error(), !errors.As(err, &tooLarge)
}

// appendBytes stores data at the log end. A leader stamps its offset and
// epoch into a copy, or into data itself when they are its own (owned:
// msg.ProduceBatch.Owned); a follower keeps the leader's stored bytes
// themselves (AppendAsFollower).
// firstBatches is the room a log's first batch comes with: a log that
// gets one batch gets more (a lab schedule appends some ten to each).
const firstBatches = 8

func (l *Log) appendBytes(data []byte, lastOffsetDelta int32, leader, owned bool) int64 {
	l.maybeRoll(len(data))
	b, base := data[:len(data):len(data)], l.end
	if leader {
		if !owned {
			b = l.arena.Copy(data)
		}
		record.SetBaseOffset(b, base)
		record.SetPartitionLeaderEpoch(b, l.leaderEpoch)
	}
	if l.batches.Len() == 0 {
		l.batches.Reserve(firstBatches)
	}
	l.batches.Append(storedOf(b))
	l.active.Size += int64(len(b))
	l.active.end = l.batches.Len()
	l.end = base + int64(lastOffsetDelta) + 1
	l.changed()
	return base
}

// AppendAsFollower appends a batch fetched from the leader's log, bytes
// unchanged, and replays it into producer state with replication origin.
// Its base offset must be this replica's log end offset. The log keeps
// stored itself, not a copy, so it must never change: it is the leader's
// stored batch, and stored bytes are never written once appended (a
// truncation drops batches, never their bytes; the arena they are cut
// from only grows). A batch held by every replica is held once.
//
// Like Kafka's follower (UnifiedLog.analyzeAndValidateRecords, which calls
// ensureValid on each batch), it checks a data batch's CRC but does not
// decompress its records — only the leader validates them; the producer
// state needs the header alone. A marker's records are read.
func (l *Log) AppendAsFollower(stored []byte) error {
	h := &l.scratch.Header // parsed in place: replay reads the scratch batch
	err := record.ParseHeaderTo(stored, h)
	switch {
	case err != nil:
	case len(stored) < h.Size():
		err = &record.TruncatedError{Need: h.Size(), Have: len(stored)}
	case h.Attributes.Control():
		err = l.dec.Decode(stored, &l.scratch)
	case record.ComputeCRC(stored[:h.Size()]) != h.CRC:
		err = &record.CRCError{Stored: h.CRC, Computed: record.ComputeCRC(stored[:h.Size()])}
	default:
		l.scratch.Records = l.scratch.Records[:0]
	}
	if err != nil {
		return fmt.Errorf("%s: follower append: %w", l.name, err)
	}
	if h.BaseOffset != l.end {
		return fmt.Errorf("%s: follower append at offset %d, log end is %d", l.name, h.BaseOffset, l.end)
	}
	l.appendBytes(stored[:h.Size()], h.LastOffsetDelta, false, false)
	return l.replay(&l.scratch)
}

// replay applies a stored batch to producer state and keeps the
// transaction index, as followers and recovering brokers do.
func (l *Log) replay(b *record.Batch) error {
	t, done, err := l.state.ApplyStored(b)
	if err != nil {
		return fmt.Errorf("%s: offset %d: %w", l.name, b.BaseOffset, err)
	}
	if done && t.Aborted {
		l.aborted = append(l.aborted, AbortedTxn{t.ProducerID, t.FirstOffset, t.LastOffset, l.state.AbortedLSO(t)})
	}
	return nil
}

// MarkerResult is the leader's answer to writing one transaction marker.
type MarkerResult struct {
	Error     kerr.Code
	Reason    string
	Offset    int64 // where the control batch went, -1 if refused
	Completed producerstate.Txn
	Done      bool // a transaction open here was completed
}

// AppendMarker writes a COMMIT or ABORT control batch for producer pid, as
// a leader does on WriteTxnMarkers (coordinator origin, timestamp now).
// tv2 selects transaction version 2's stricter epoch rule.
func (l *Log) AppendMarker(pid int64, epoch int16, mk record.Marker, tv2 bool, now int64) MarkerResult {
	c := l.state.ValidateMarker(pid, epoch, mk.CoordinatorEpoch, tv2, producerstate.Coordinator)
	if c.Error != kerr.None {
		return MarkerResult{Error: c.Error, Offset: -1, Reason: fmt.Sprintf("%s: %s (marker epoch %d, producer epoch %d; coordinator epoch %d, known %d)",
			c.Error.Name(), c.Reason, epoch, c.EntryEpoch, mk.CoordinatorEpoch, c.EntryCoordEp)}
	}
	batch := record.NewMarker(pid, epoch, mk, now)
	data, err := record.Encode(&batch) // a marker is never compressed: the encoder keeps nothing between markers
	if err != nil {
		panic("encoding a marker cannot fail: " + err.Error())
	}
	h, _ := record.ParseHeader(data)
	off := l.appendBytes(data, h.LastOffsetDelta, true, false)
	res := MarkerResult{Offset: off}
	res.Completed, res.Done = l.state.AppendMarker(pid, epoch, mk, off, now)
	if res.Done && res.Completed.Aborted {
		l.aborted = append(l.aborted, AbortedTxn{pid, res.Completed.FirstOffset, off, l.state.AbortedLSO(res.Completed)})
	}
	return res
}
