package record

import (
	"encoding/binary"
	"fmt"
	"io"
)

// SegmentFileName is Kafka's name for the log segment whose first offset is
// baseOffset: the offset zero-padded to 20 digits, then ".log".
func SegmentFileName(baseOffset int64) string { return fmt.Sprintf("%020d.log", baseOffset) }

// SnapshotFileName is Kafka's name for a producer-state snapshot that
// reflects every offset below offset.
func SnapshotFileName(offset int64) string { return fmt.Sprintf("%020d.snapshot", offset) }

// PositionError places a failure at a byte position of a segment file.
type PositionError struct {
	Position int64
	Err      error
}

func (e *PositionError) Error() string {
	return fmt.Sprintf("at file position %d: %v", e.Position, e.Err)
}
func (e *PositionError) Unwrap() error { return e.Err }

// Scanner walks the batches of a segment file (.log), which Kafka stores
// back to back with no file header. It checks only the framing
// (baseOffset + batchLength); Decode checks each batch's content.
type Scanner struct {
	data []byte
	pos  int
	err  error
}

// NewScanner scans the segment bytes in data.
func NewScanner(data []byte) *Scanner { return &Scanner{data: data} }

// Next returns the next batch and its file position; false at the end or on
// a framing failure (see Err).
func (s *Scanner) Next() (position int64, batch []byte, ok bool) {
	if s.err != nil || s.pos == len(s.data) {
		return 0, nil, false
	}
	rest := s.data[s.pos:]
	// Like Kafka's FileLogInputStream: the framing needs the bytes up to and
	// including magic; a batch size below the smallest legal record is corrupt.
	const upToMagic = MagicOffset + 1
	if len(rest) < upToMagic {
		s.err = &PositionError{int64(s.pos), &TruncatedError{Need: upToMagic, Have: len(rest)}}
		return 0, nil, false
	}
	length := int32(binary.BigEndian.Uint32(rest[BatchLengthOffset:]))
	if length < HeaderSize-LogOverhead {
		s.err = &PositionError{int64(s.pos), &CorruptError{Offset: BatchLengthOffset, Reason: fmt.Sprintf("batchLength %d is below the minimum %d", length, HeaderSize-LogOverhead)}}
		return 0, nil, false
	}
	size := LogOverhead + int(length)
	if len(rest) < size {
		s.err = &PositionError{int64(s.pos), &TruncatedError{Need: size, Have: len(rest)}}
		return 0, nil, false
	}
	position = int64(s.pos)
	s.pos += size
	return position, rest[:size], true
}

// Err is the framing failure that stopped the scan, or nil at a clean end.
func (s *Scanner) Err() error { return s.err }

// WriteSegment writes encoded batches back to back, which is the whole
// format of a Kafka .log segment file.
func WriteSegment(w io.Writer, batches ...[]byte) error {
	for _, b := range batches {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
