package record

import "fmt"

// NegativeTimestampError reports a record timestamp below zero other than
// -1 (no timestamp) met while a batch is rebuilt: Kafka's
// MemoryRecordsBuilder.appendWithOffset throws IllegalArgumentException,
// which is no ApiException, so a broker answers UNKNOWN_SERVER_ERROR.
// A batch appended as it arrived never reaches that check.
type NegativeTimestampError struct {
	Record    int
	Timestamp int64
}

func (e *NegativeTimestampError) Error() string {
	return fmt.Sprintf("Invalid negative timestamp %d (record %d; IllegalArgumentException from Kafka's MemoryRecordsBuilder.appendWithOffset while the batch is rebuilt; a broker answers UNKNOWN_SERVER_ERROR)",
		e.Timestamp, e.Record)
}

// Renumber turns b, a producer's batch as decoded, into the batch a Kafka
// leader writes in its place when it cannot keep the batch as it arrived:
// LogValidator.buildRecordsAndAssignOffsets, which
// validateMessagesAndAssignOffsetsCompressed calls when a compressed
// batch's inner offsets are not 0, 1, 2, … (InOrder). It builds a new
// batch with MemoryRecordsBuilder and appends every record with
// appendWithOffset at the next offset; so here:
//
//   - each record keeps its timestamp, key, value and headers; its offset
//     delta becomes its place and its attributes 0 (DefaultRecord.writeTo
//     writes no others);
//   - baseTimestamp is the first record's timestamp, each timestamp delta
//     is taken from it, and maxTimestamp is the largest timestamp, -1 if
//     none is larger (the builder starts from RecordBatch.NO_TIMESTAMP);
//   - the attributes keep the codec (compression.type=producer: the target
//     codec is the source's) and the transactional bit, with the topic's
//     timestamp type, CreateTime, and neither control nor delete horizon;
//   - producer id, epoch and base sequence stay; lastOffsetDelta is
//     recordsCount-1.
//
// Base offset and partition leader epoch are the caller's to set, as a
// leader stamps them on every batch. Encode the result for its bytes, a
// new CRC among them. A record timestamp below -1 fails as the builder
// fails (*NegativeTimestampError), and b is left as it was.
func Renumber(b *Batch) error {
	for i := range b.Records {
		if ts := b.RecordTimestamp(b.Records[i].TimestampDelta); ts < -1 {
			return &NegativeTimestampError{Record: i, Timestamp: ts}
		}
	}
	base, maxTS := int64(-1), int64(-1)
	for i := range b.Records {
		r := &b.Records[i]
		ts := b.RecordTimestamp(r.TimestampDelta)
		if i == 0 {
			base = ts
		}
		maxTS = max(maxTS, ts)
		r.TimestampDelta, r.OffsetDelta, r.Attributes = ts-base, int32(i), 0
	}
	attrs := Attributes(0).WithCompression(b.Attributes.Compression())
	if b.Attributes.Transactional() {
		attrs |= TransactionalFlag
	}
	n := int32(len(b.Records))
	b.Attributes, b.BaseTimestamp, b.MaxTimestamp = attrs, base, maxTS
	b.LastOffsetDelta, b.RecordsCount = n-1, n
	return nil
}
