package record

import (
	"encoding/binary"
	"errors"
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

// MaxBatchSize is the largest batch (LOG_OVERHEAD + batchLength) eoslab
// reads from a segment. Kafka itself bounds a batch only by the topic's
// max.message.bytes (1048588 by default, configurable up to 2^31-1), so a
// hostile or corrupt length field could otherwise ask for 2 GiB; 64 MiB is
// 64 times Kafka's default and the same bound as MaxRecordsSize, so no
// batch, compressed or not, makes eoslab hold more than 64 MiB of records.
const MaxBatchSize = 64 << 20

// BatchTooLargeError reports a batch header announcing more bytes than
// MaxBatchSize. Kafka's ByteBufferLogInputStream rejects a batch above its
// limit with CorruptRecordException ("Record size ... exceeds the largest
// allowable message size").
type BatchTooLargeError struct {
	BatchLength int32
	Limit       int
}

func (e *BatchTooLargeError) Error() string {
	return fmt.Sprintf("batchLength %d announces a %d-byte batch, beyond the largest eoslab reads (%d bytes): CorruptRecordException, record size exceeds the largest allowable message size",
		e.BatchLength, int64(e.BatchLength)+LogOverhead, e.Limit)
}

// upToMagic is how much of a batch the framing needs: like Kafka's
// FileLogInputStream, baseOffset, batchLength, partitionLeaderEpoch, magic.
const upToMagic = MagicOffset + 1

// frameSize checks the framing fields at the start of head (at least
// upToMagic bytes) and returns the batch's total size. Only the length is
// checked: a legacy or corrupt magic is Decode's to report, and the length
// still says where the next batch starts.
func frameSize(head []byte) (int, error) {
	length := int32(binary.BigEndian.Uint32(head[BatchLengthOffset:]))
	if length < HeaderSize-LogOverhead {
		return 0, &CorruptError{Offset: BatchLengthOffset, Reason: fmt.Sprintf("batchLength %d is below the minimum %d", length, HeaderSize-LogOverhead)}
	}
	if int64(length)+LogOverhead > MaxBatchSize {
		return 0, &BatchTooLargeError{BatchLength: length, Limit: MaxBatchSize}
	}
	return LogOverhead + int(length), nil
}

// Scanner walks the batches of a segment file (.log) held in memory, which
// Kafka stores back to back with no file header. It checks only the framing
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
	if len(rest) < upToMagic {
		s.err = &PositionError{int64(s.pos), &TruncatedError{Need: upToMagic, Have: len(rest)}}
		return 0, nil, false
	}
	size, err := frameSize(rest)
	if err != nil {
		s.err = &PositionError{int64(s.pos), err}
		return 0, nil, false
	}
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

// SegmentReader walks the batches of a segment read as a stream, so that a
// file of any size, a pipe that never ends or /dev/zero costs no more memory
// than its largest batch (at most MaxBatchSize). Its framing and errors are
// the Scanner's. The caller supplies the stream and should buffer it: from
// a bufio.Reader, a batch that fits its buffer is returned in place,
// without a copy.
type SegmentReader struct {
	r       io.Reader
	peek    peeker
	pending int // bytes of the last batch returned in place, still to discard
	pos     int64
	buf     []byte
	err     error
	done    bool
}

// peeker is what SegmentReader uses of a bufio.Reader.
type peeker interface {
	Peek(n int) ([]byte, error)
	Discard(n int) (int, error)
	Size() int
}

// NewSegmentReader reads a segment from r.
func NewSegmentReader(r io.Reader) *SegmentReader {
	s := &SegmentReader{r: r}
	if p, ok := r.(peeker); ok && p.Size() >= upToMagic {
		s.peek = p
	}
	return s
}

// readChunk is how far the buffer grows ahead of the bytes that have
// arrived, so that a length field announcing 64 MiB at the end of a short
// stream costs what the stream holds, not what the field claims.
const readChunk = 1 << 20

// Next returns the next batch and its position in the stream; false at the
// end or on a failure (see Err). The bytes belong to the reader and are
// overwritten by the following call.
func (s *SegmentReader) Next() (position int64, batch []byte, ok bool) {
	if s.err != nil || s.done {
		return 0, nil, false
	}
	if s.peek != nil {
		if batch, ok, inPlace := s.nextInPlace(); inPlace {
			return s.pos - int64(len(batch)), batch, ok
		}
	}
	if cap(s.buf) < upToMagic {
		s.buf = make([]byte, 0, 4096)
	}
	head := s.buf[:upToMagic]
	n, err := io.ReadFull(s.r, head)
	switch {
	case n == 0 && err == io.EOF:
		s.done = true
		return 0, nil, false
	case err != nil:
		s.fail(err, upToMagic, n)
		return 0, nil, false
	}
	size, err := frameSize(head)
	if err != nil {
		s.err = &PositionError{s.pos, err}
		return 0, nil, false
	}
	have := upToMagic
	for have < size {
		next := min(size, have+max(have, readChunk))
		if cap(s.buf) < next {
			grown := make([]byte, next)
			copy(grown, s.buf[:have])
			s.buf = grown
		}
		n, err := io.ReadFull(s.r, s.buf[have:next])
		have += n
		if err != nil {
			s.fail(err, size, have)
			return 0, nil, false
		}
	}
	position = s.pos
	s.pos += int64(size)
	return position, s.buf[:size], true
}

// nextInPlace returns the next batch from the peeker's buffer, or inPlace
// false when it does not fit there, the frame header having been left to
// read (Peek consumes nothing).
func (s *SegmentReader) nextInPlace() (batch []byte, ok, inPlace bool) {
	if s.pending > 0 {
		s.peek.Discard(s.pending) // cannot fail: the bytes are in the buffer
		s.pending = 0
	}
	head, err := s.peek.Peek(upToMagic)
	switch {
	case len(head) == 0 && err == io.EOF:
		s.done = true
		return nil, false, true
	case len(head) < upToMagic:
		s.fail(err, upToMagic, len(head))
		return nil, false, true
	}
	size, err := frameSize(head)
	if err != nil {
		s.err = &PositionError{s.pos, err}
		return nil, false, true
	}
	if size > s.peek.Size() {
		return nil, false, false
	}
	batch, err = s.peek.Peek(size)
	if len(batch) < size {
		s.fail(err, size, len(batch))
		return nil, false, true
	}
	s.pending = size
	s.pos += int64(size)
	return batch, true, true
}

// fail records a read error: the end of the stream inside a batch is a
// truncation, anything else the stream's own failure.
func (s *SegmentReader) fail(err error, need, have int) {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = &TruncatedError{Need: need, Have: have}
	}
	s.err = &PositionError{s.pos, err}
}

// Err is the failure that stopped the reader, or nil at a clean end.
func (s *SegmentReader) Err() error { return s.err }

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
