package record

// Field describes one header field, for the byte-by-byte walk in the UI and
// for inspect. Offsets and meanings follow DefaultRecordBatch.java.
type Field struct {
	Name       string
	Offset     int
	Size       int
	Type       string
	Meaning    string
	CRCCovered bool // inside CRC-32C coverage, bytes [21, end)
}

// End is the offset just past the field.
func (f Field) End() int { return f.Offset + f.Size }

// HeaderFields returns the 13 fields of the 61-byte header in byte order.
// It returns an array value, so callers cannot change the table.
func HeaderFields() [13]Field {
	return [13]Field{
		{"baseOffset", BaseOffsetOffset, 8, "int64", "offset of the first record; the producer writes 0 and the leader overwrites it", false},
		{"batchLength", BatchLengthOffset, 4, "int32", "bytes after this field (total size - 12)", false},
		{"partitionLeaderEpoch", PartitionLeaderEpochOffset, 4, "int32", "leader epoch stamped by the partition leader; producers send -1", false},
		{"magic", MagicOffset, 1, "int8", "format version, always 2 for this layout", false},
		{"crc", CRCOffset, 4, "uint32", "CRC-32C of bytes 21 to the end", false},
		{"attributes", AttributesOffset, 2, "int16", "compression (bits 0-2), timestamp type (3), transactional (4), control (5), delete horizon (6)", true},
		{"lastOffsetDelta", LastOffsetDeltaOffset, 4, "int32", "last offset - base offset; also last sequence - base sequence", true},
		{"baseTimestamp", BaseTimestampOffset, 8, "int64", "timestamp of the first record (ms)", true},
		{"maxTimestamp", MaxTimestampOffset, 8, "int64", "largest record timestamp, or the broker's append time", true},
		{"producerId", ProducerIDOffset, 8, "int64", "producer id (PID); -1 without idempotence", true},
		{"producerEpoch", ProducerEpochOffset, 2, "int16", "producer epoch, fences older instances; -1 without idempotence", true},
		{"baseSequence", BaseSequenceOffset, 4, "int32", "sequence number of the first record; -1 without idempotence and in markers", true},
		{"recordsCount", RecordsCountOffset, 4, "int32", "number of records in the batch", true},
	}
}

// FieldAt returns the header field that holds byte i, or false past the header.
func FieldAt(i int) (Field, bool) {
	for _, f := range HeaderFields() {
		if i >= f.Offset && i < f.End() {
			return f, true
		}
	}
	return Field{}, false
}
