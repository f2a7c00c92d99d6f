package record

import (
	"encoding/binary"
	"fmt"

	"github.com/eoslab/eoslab/engine/internal/wire"
)

// Byte offsets of the Record Batch v2 header fields (DefaultRecordBatch.java).
const (
	BaseOffsetOffset           = 0
	BatchLengthOffset          = 8
	PartitionLeaderEpochOffset = 12
	MagicOffset                = 16
	CRCOffset                  = 17
	AttributesOffset           = 21
	LastOffsetDeltaOffset      = 23
	BaseTimestampOffset        = 27
	MaxTimestampOffset         = 35
	ProducerIDOffset           = 43
	ProducerEpochOffset        = 51
	BaseSequenceOffset         = 53
	RecordsCountOffset         = 57

	// HeaderSize is RECORD_BATCH_OVERHEAD: the bytes before the first record.
	HeaderSize = 61
	// LogOverhead is baseOffset + batchLength: the bytes not counted by batchLength.
	LogOverhead = 12
	// Magic is the only batch format eoslab reads and writes.
	Magic = 2
	// NoSequence, NoProducerID, NoProducerEpoch and NoPartitionLeaderEpoch are
	// the -1 placeholders of a batch without idempotence or leader stamp.
	NoSequence             = -1
	NoProducerID           = -1
	NoProducerEpoch        = -1
	NoPartitionLeaderEpoch = -1
)

// Compression is the codec in attribute bits 0-2.
type Compression uint8

// Codecs Kafka defines for attribute bits 0-2.
const (
	None Compression = iota
	Gzip
	Snappy
	LZ4
	Zstd
)

var compressionNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

func (c Compression) String() string {
	if int(c) < len(compressionNames) {
		return compressionNames[c]
	}
	return fmt.Sprintf("unknown(%d)", uint8(c))
}

// ParseCompression maps a codec name (none, gzip, snappy, lz4, zstd) to its value.
func ParseCompression(s string) (Compression, bool) {
	for i, n := range compressionNames {
		if n == s {
			return Compression(i), true
		}
	}
	return 0, false
}

// Attributes is the int16 flag word at byte 21.
type Attributes int16

// Attribute bits (RecordBatch.java).
const (
	CompressionMask   Attributes = 0x07
	LogAppendTimeFlag Attributes = 0x08
	TransactionalFlag Attributes = 0x10
	ControlFlag       Attributes = 0x20
	DeleteHorizonFlag Attributes = 0x40
)

// Compression returns the codec bits.
func (a Attributes) Compression() Compression { return Compression(a & CompressionMask) }

// LogAppendTime reports whether timestamps are the broker's append time.
func (a Attributes) LogAppendTime() bool { return a&LogAppendTimeFlag != 0 }

// Transactional reports the transactional bit.
func (a Attributes) Transactional() bool { return a&TransactionalFlag != 0 }

// Control reports the control-batch bit (transaction markers).
func (a Attributes) Control() bool { return a&ControlFlag != 0 }

// DeleteHorizon reports whether baseTimestamp holds the cleaner's delete horizon.
func (a Attributes) DeleteHorizon() bool { return a&DeleteHorizonFlag != 0 }

// WithCompression returns a with its codec bits replaced.
func (a Attributes) WithCompression(c Compression) Attributes {
	return a&^CompressionMask | Attributes(c)&CompressionMask
}

// TimestampType is "CreateTime" or "LogAppendTime".
func (a Attributes) TimestampType() string {
	if a.LogAppendTime() {
		return "LogAppendTime"
	}
	return "CreateTime"
}

// RecordTimestamp is the timestamp of a record with the given delta: in a
// LogAppendTime batch every record reads the batch's maxTimestamp, the
// broker's append time (DefaultRecordBatch's record iterator passes it to
// DefaultRecord.readFrom); otherwise baseTimestamp + delta.
func (h *Header) RecordTimestamp(delta int64) int64 {
	if h.Attributes.LogAppendTime() {
		return h.MaxTimestamp
	}
	return h.BaseTimestamp + delta
}

// Header is the fixed 61-byte part of a Record Batch v2.
type Header struct {
	BaseOffset           int64
	BatchLength          int32
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32
	Attributes           Attributes
	LastOffsetDelta      int32
	BaseTimestamp        int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordsCount         int32
}

// Size is the batch's total size in bytes (LOG_OVERHEAD + batchLength).
func (h *Header) Size() int { return LogOverhead + int(h.BatchLength) }

// LastOffset is the offset of the batch's last record.
func (h *Header) LastOffset() int64 { return h.BaseOffset + int64(h.LastOffsetDelta) }

// HasProducerID reports whether the batch carries a producer id (idempotent or transactional).
func (h *Header) HasProducerID() bool { return h.ProducerID >= 0 }

// LastSequence is the sequence of the last record, wrapping at MaxInt32,
// or -1 when the batch has no sequence.
func (h *Header) LastSequence() int32 {
	if h.BaseSequence == NoSequence {
		return NoSequence
	}
	return IncrementSequence(h.BaseSequence, h.LastOffsetDelta)
}

// appendHeader writes h with the given batchLength and crc.
func appendHeader(dst []byte, h *Header, batchLength int32, crc uint32) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, HeaderSize)...)
	putHeader(dst[n:], h, batchLength)
	binary.BigEndian.PutUint32(dst[n+CRCOffset:], crc)
	return dst
}

// putHeader writes h with the given batchLength over the first HeaderSize
// bytes of b, every byte but the CRC's, each field stored at its offset
// (one bounds check for them all) rather than appended.
func putHeader(b []byte, h *Header, batchLength int32) {
	b = b[:HeaderSize]
	be := binary.BigEndian
	be.PutUint64(b[BaseOffsetOffset:], uint64(h.BaseOffset))
	be.PutUint32(b[BatchLengthOffset:], uint32(batchLength))
	be.PutUint32(b[PartitionLeaderEpochOffset:], uint32(h.PartitionLeaderEpoch))
	b[MagicOffset] = Magic
	be.PutUint16(b[AttributesOffset:], uint16(h.Attributes))
	be.PutUint32(b[LastOffsetDeltaOffset:], uint32(h.LastOffsetDelta))
	be.PutUint64(b[BaseTimestampOffset:], uint64(h.BaseTimestamp))
	be.PutUint64(b[MaxTimestampOffset:], uint64(h.MaxTimestamp))
	be.PutUint64(b[ProducerIDOffset:], uint64(h.ProducerID))
	be.PutUint16(b[ProducerEpochOffset:], uint16(h.ProducerEpoch))
	be.PutUint32(b[BaseSequenceOffset:], uint32(h.BaseSequence))
	be.PutUint32(b[RecordsCountOffset:], uint32(h.RecordsCount))
}

// ParseHeader reads the 61-byte header at the start of b without checking
// the CRC or the records. b may be longer than the header.
func ParseHeader(b []byte) (Header, error) {
	var h Header
	err := ParseHeaderTo(b, &h)
	return h, err
}

// ParseHeaderTo is ParseHeader writing the header into *h (the zero Header
// if b is too short to hold one), for a caller that keeps it in place — a
// log's scratch batch, the header it validates — instead of copying it out
// of a result.
func ParseHeaderTo(b []byte, h *Header) error {
	if len(b) < HeaderSize {
		*h = Header{}
		return &TruncatedError{Need: HeaderSize, Have: len(b)}
	}
	// Field by field (every field of Header is written): a composite
	// literal is built in a temporary, zeroed first, and then copied.
	be := binary.BigEndian
	b = b[:HeaderSize]
	h.BaseOffset = int64(be.Uint64(b[BaseOffsetOffset:]))
	h.BatchLength = int32(be.Uint32(b[BatchLengthOffset:]))
	h.PartitionLeaderEpoch = int32(be.Uint32(b[PartitionLeaderEpochOffset:]))
	h.Magic = int8(b[MagicOffset])
	h.CRC = be.Uint32(b[CRCOffset:])
	h.Attributes = Attributes(be.Uint16(b[AttributesOffset:]))
	h.LastOffsetDelta = int32(be.Uint32(b[LastOffsetDeltaOffset:]))
	h.BaseTimestamp = int64(be.Uint64(b[BaseTimestampOffset:]))
	h.MaxTimestamp = int64(be.Uint64(b[MaxTimestampOffset:]))
	h.ProducerID = int64(be.Uint64(b[ProducerIDOffset:]))
	h.ProducerEpoch = int16(be.Uint16(b[ProducerEpochOffset:]))
	h.BaseSequence = int32(be.Uint32(b[BaseSequenceOffset:]))
	h.RecordsCount = int32(be.Uint32(b[RecordsCountOffset:]))
	if h.Magic != Magic {
		return &MagicError{Magic: h.Magic}
	}
	if h.BatchLength < HeaderSize-LogOverhead {
		return &CorruptError{Offset: BatchLengthOffset, Reason: fmt.Sprintf("batchLength %d is below the minimum %d", h.BatchLength, HeaderSize-LogOverhead)}
	}
	return nil
}

// HeaderParses reports whether ParseHeader(b) returns no error, without
// building the header: for a caller that reads a few fields with the
// functions below.
func HeaderParses(b []byte) bool {
	return len(b) >= HeaderSize && int8(b[MagicOffset]) == Magic &&
		int32(binary.BigEndian.Uint32(b[BatchLengthOffset:])) >= HeaderSize-LogOverhead
}

// The fields of a batch's header that are read most, each read from an
// encoded batch b (at least HeaderSize bytes, as ParseHeader needs) without
// parsing the rest: a log keeps its batches as bytes only and asks them.

// BaseOffsetOf is the header's baseOffset.
func BaseOffsetOf(b []byte) int64 { return int64(binary.BigEndian.Uint64(b[BaseOffsetOffset:])) }

// LastOffsetOf is the offset of the batch's last record (Header.LastOffset).
func LastOffsetOf(b []byte) int64 {
	return BaseOffsetOf(b) + int64(int32(binary.BigEndian.Uint32(b[LastOffsetDeltaOffset:])))
}

// AttributesOf is the header's attributes.
func AttributesOf(b []byte) Attributes {
	return Attributes(binary.BigEndian.Uint16(b[AttributesOffset:]))
}

// BatchLengthOf is the header's batchLength.
func BatchLengthOf(b []byte) int32 { return int32(binary.BigEndian.Uint32(b[BatchLengthOffset:])) }

// CRCOf is the header's crc.
func CRCOf(b []byte) uint32 { return binary.BigEndian.Uint32(b[CRCOffset:]) }

// BaseSequenceOf is the header's baseSequence.
func BaseSequenceOf(b []byte) int32 { return int32(binary.BigEndian.Uint32(b[BaseSequenceOffset:])) }

// ProducerIDOf is the header's producerId.
func ProducerIDOf(b []byte) int64 { return int64(binary.BigEndian.Uint64(b[ProducerIDOffset:])) }

// ProducerEpochOf is the header's producerEpoch.
func ProducerEpochOf(b []byte) int16 { return int16(binary.BigEndian.Uint16(b[ProducerEpochOffset:])) }

// RecordsCountOf is the header's recordsCount.
func RecordsCountOf(b []byte) int32 { return int32(binary.BigEndian.Uint32(b[RecordsCountOffset:])) }

// SetBaseOffset rewrites bytes 0-7 in place. The CRC stays valid because it
// does not cover them: this is how a leader assigns offsets cheaply.
func SetBaseOffset(b []byte, offset int64) {
	binary.BigEndian.PutUint64(b[BaseOffsetOffset:], uint64(offset))
}

// SetPartitionLeaderEpoch rewrites bytes 12-15 in place; the CRC stays valid.
func SetPartitionLeaderEpoch(b []byte, epoch int32) {
	binary.BigEndian.PutUint32(b[PartitionLeaderEpochOffset:], uint32(epoch))
}

// SetMaxTimestamp is Kafka's DefaultRecordBatch.setMaxTimestamp on b, one
// encoded batch and nothing after it: if b's timestamp type (LogAppendTime
// or not) and maxTimestamp are already these, it changes nothing;
// otherwise it writes the attributes computeAttributes makes of b's codec,
// transactional, control and delete-horizon bits and the timestamp type
// (any other bit of b's is not kept), writes maxTimestamp and computes the
// CRC again. It reports whether b changed.
func SetMaxTimestamp(b []byte, logAppendTime bool, maxTimestamp int64) bool {
	a := AttributesOf(b)
	if a.LogAppendTime() == logAppendTime && int64(binary.BigEndian.Uint64(b[MaxTimestampOffset:])) == maxTimestamp {
		return false
	}
	a &= CompressionMask | TransactionalFlag | ControlFlag | DeleteHorizonFlag
	if logAppendTime {
		a |= LogAppendTimeFlag
	}
	binary.BigEndian.PutUint16(b[AttributesOffset:], uint16(a))
	binary.BigEndian.PutUint64(b[MaxTimestampOffset:], uint64(maxTimestamp))
	binary.BigEndian.PutUint32(b[CRCOffset:], ComputeCRC(b))
	return true
}

// ComputeCRC is the CRC-32C of bytes [21, end) of an encoded batch.
func ComputeCRC(batch []byte) uint32 { return wire.CRC32C(batch[AttributesOffset:]) }
