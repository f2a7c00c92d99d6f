// Package wire holds the primitive encodings of Kafka's log format:
// big-endian integers, zig-zag varints and a sticky reader, after the
// shape of franz-go's kbin (append encoders, a reader that fails once and
// is checked at the end).
package wire

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// castagnoli is Kafka's CRC-32C table; it is never written after init.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C returns the CRC-32C (Castagnoli) checksum of b.
func CRC32C(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// ErrShort reports that input ended before a value was complete.
var ErrShort = errors.New("input ends early")

// ErrVarint reports a varint longer than its type allows.
var ErrVarint = errors.New("varint too long")

// AppendInt16 appends v big-endian.
func AppendInt16(dst []byte, v int16) []byte { return binary.BigEndian.AppendUint16(dst, uint16(v)) }

// AppendInt32 appends v big-endian.
func AppendInt32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

// AppendInt64 appends v big-endian.
func AppendInt64(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }

// AppendVarint appends v zig-zag encoded in base-128 groups (Kafka's varint).
func AppendVarint(dst []byte, v int32) []byte {
	return appendUvarint(dst, uint64(uint32((v<<1)^(v>>31))))
}

// AppendVarlong appends v zig-zag encoded in base-128 groups (Kafka's varlong).
func AppendVarlong(dst []byte, v int64) []byte {
	return appendUvarint(dst, uint64((v<<1)^(v>>63)))
}

func appendUvarint(dst []byte, u uint64) []byte {
	for u >= 0x80 {
		dst = append(dst, byte(u)|0x80)
		u >>= 7
	}
	return append(dst, byte(u))
}

// VarintLen is the encoded size of v as a varint.
func VarintLen(v int32) int { return uvarintLen(uint64(uint32((v << 1) ^ (v >> 31)))) }

// VarlongLen is the encoded size of v as a varlong.
func VarlongLen(v int64) int { return uvarintLen(uint64((v << 1) ^ (v >> 63))) }

func uvarintLen(u uint64) int {
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// Reader decodes from Src. The first failure sticks: later reads return
// zero values and Err reports the first problem with its offset.
type Reader struct {
	Src []byte
	Off int
	err error
	at  int
}

// Err returns the first decoding failure, or nil.
func (r *Reader) Err() error { return r.err }

// FailedAt is the offset where the first failure happened.
func (r *Reader) FailedAt() int { return r.at }

// Remaining is the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.Src) - r.Off }

// Fail records err (if no failure is recorded yet) at the current offset.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err, r.at = err, r.Off
	}
}

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.Src)-r.Off < n {
		r.Fail(ErrShort)
		return nil
	}
	b := r.Src[r.Off : r.Off+n]
	r.Off += n
	return b
}

// Int8 reads one byte.
func (r *Reader) Int8() int8 {
	if b := r.take(1); b != nil {
		return int8(b[0])
	}
	return 0
}

// Int16 reads a big-endian int16.
func (r *Reader) Int16() int16 {
	if b := r.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

// Int32 reads a big-endian int32.
func (r *Reader) Int32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

// Int64 reads a big-endian int64.
func (r *Reader) Int64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// Bytes reads n raw bytes; the result aliases Src.
func (r *Reader) Bytes(n int) []byte { return r.take(n) }

func (r *Reader) uvarint(maxBytes int) uint64 {
	// One or two bytes is the usual case (the deltas, lengths and sizes of
	// a batch's records): read them without the loop.
	if off := r.Off; off+1 < len(r.Src) && r.err == nil {
		c := r.Src[off]
		if c < 0x80 {
			r.Off = off + 1
			return uint64(c)
		}
		if d := r.Src[off+1]; d < 0x80 {
			r.Off = off + 2
			return uint64(c&0x7f) | uint64(d)<<7
		}
	}
	return r.uvarintSlow(maxBytes)
}

func (r *Reader) uvarintSlow(maxBytes int) uint64 {
	if r.err != nil {
		return 0
	}
	var u uint64
	for i := 0; i < maxBytes; i++ {
		if r.Off >= len(r.Src) {
			r.Fail(ErrShort)
			return 0
		}
		c := r.Src[r.Off]
		r.Off++
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return u
		}
	}
	r.Fail(ErrVarint)
	return 0
}

// Varint reads a zig-zag varint (at most 5 bytes).
func (r *Reader) Varint() int32 {
	u := uint32(r.uvarint(5))
	return int32(u>>1) ^ -int32(u&1)
}

// Varlong reads a zig-zag varlong (at most 10 bytes).
func (r *Reader) Varlong() int64 {
	u := r.uvarint(10)
	return int64(u>>1) ^ -int64(u&1)
}

// NullableBytes reads a varint length and that many bytes; length -1 is
// null (nil), any other negative length is an error.
func (r *Reader) NullableBytes() []byte {
	n := r.Varint()
	if r.err != nil || n == -1 {
		return nil
	}
	if n < 0 {
		r.Fail(errors.New("negative length"))
		return nil
	}
	b := r.take(int(n))
	if b == nil {
		return nil
	}
	return b[:n:n]
}

// AppendNullableBytes appends a varint length (-1 for nil) and b.
func AppendNullableBytes(dst, b []byte) []byte {
	if b == nil {
		return AppendVarint(dst, -1)
	}
	return append(AppendVarint(dst, int32(len(b))), b...)
}

// NullableBytesLen is the encoded size of b as nullable varint bytes.
func NullableBytesLen(b []byte) int {
	if b == nil {
		return 1
	}
	return VarintLen(int32(len(b))) + len(b)
}
