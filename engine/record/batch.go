package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/eoslab/eoslab/engine/internal/wire"
)

// RecordHeader is one key/value header of a record. The key is never null.
type RecordHeader struct {
	Key   string
	Value []byte // nil is a null value
}

// Record is one record inside a batch (DefaultRecord.java). A nil Key or
// Value is null on the wire; an empty non-nil slice is zero bytes.
type Record struct {
	Attributes     int8
	TimestampDelta int64
	OffsetDelta    int32
	Key            []byte
	Value          []byte
	Headers        []RecordHeader
}

// Batch is a decoded Record Batch v2.
type Batch struct {
	Header
	Records []Record
}

// minRecordSize is the smallest possible encoded record: a one-byte length
// and six one-byte fields (attributes, timestamp delta, offset delta, null
// key, null value, zero headers).
const minRecordSize = 7

// maxRecordsArea bounds decompressed record data, so that a hostile or
// corrupt batch cannot make the decoder allocate without limit (see
// MaxRecordsSize).
const maxRecordsArea = 64 << 20

func recordBodySize(r *Record) int {
	n := 1 + wire.VarlongLen(r.TimestampDelta) + wire.VarintLen(r.OffsetDelta) +
		wire.NullableBytesLen(r.Key) + wire.NullableBytesLen(r.Value) +
		wire.VarintLen(int32(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		n += wire.VarintLen(int32(len(h.Key))) + len(h.Key) + wire.NullableBytesLen(h.Value)
	}
	return n
}

// AppendRecord appends one encoded record to dst.
func AppendRecord(dst []byte, r *Record) []byte {
	if out, ok := appendShortRecord(dst, r); ok {
		return out
	}
	return appendRecordGeneral(dst, r)
}

// appendRecordGeneral is AppendRecord without its short path: each field
// appended with its own encoder, the length computed field by field. It
// writes any record, so it is also what the short path is checked against.
func appendRecordGeneral(dst []byte, r *Record) []byte {
	dst = wire.AppendVarint(dst, int32(recordBodySize(r)))
	dst = append(dst, byte(r.Attributes))
	dst = wire.AppendVarlong(dst, r.TimestampDelta)
	dst = wire.AppendVarint(dst, r.OffsetDelta)
	dst = wire.AppendNullableBytes(dst, r.Key)
	dst = wire.AppendNullableBytes(dst, r.Value)
	dst = wire.AppendVarint(dst, int32(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		dst = wire.AppendVarint(dst, int32(len(h.Key)))
		dst = append(dst, h.Key...)
		dst = wire.AppendNullableBytes(dst, h.Value)
	}
	return dst
}

// appendShortRecord is AppendRecord for the record nearly every producer
// sends: no headers, a key and a value under 64 bytes, and deltas in
// [-64, 64), whose varints are each one byte. Their size is known at
// once, so the record is written by index into room grown once, instead
// of through a size computation and an append per field. It reports
// false, appending nothing, for any other record.
func appendShortRecord(dst []byte, r *Record) ([]byte, bool) {
	key, val := r.Key, r.Value
	if len(r.Headers) != 0 || len(key) >= 64 || len(val) >= 64 ||
		uint64(r.TimestampDelta+64) >= 128 || uint32(r.OffsetDelta+64) >= 128 {
		return dst, false
	}
	body := 6 + len(key) + len(val) // attributes, two deltas, two lengths, no headers
	p := len(dst)
	if cap(dst)-p < 2+body {
		dst = slices.Grow(dst, 2+body)
	}
	// The length's varint: a body under 2·64+6 bytes, a zig-zag under 2^14.
	if z := uint(body) << 1; body < 64 {
		dst = dst[:p+1+body]
		dst[p] = byte(z)
		p++
	} else {
		dst = dst[:p+2+body]
		dst[p], dst[p+1] = byte(z)|0x80, byte(z>>7)
		p += 2
	}
	// Attributes, the two deltas' zig-zag bytes and the key's length in
	// one store.
	binary.BigEndian.PutUint32(dst[p:], uint32(uint8(r.Attributes))<<24|
		uint32(uint8(r.TimestampDelta<<1^r.TimestampDelta>>63))<<16|
		uint32(uint8(r.OffsetDelta<<1^r.OffsetDelta>>31))<<8|
		uint32(nullableLen(key)))
	p += 4
	if len(key) > 0 {
		p += copy(dst[p:], key)
	}
	dst[p] = nullableLen(val)
	p++
	if len(val) > 0 {
		p += copy(dst[p:], val)
	}
	dst[p] = 0 // the header count
	return dst, true
}

// nullableLen is the one-byte varint length of b, shorter than 64 bytes:
// -1 for a null one.
func nullableLen(b []byte) byte {
	if b == nil {
		return 1 // zig-zag of -1
	}
	return byte(len(b) << 1)
}

// Encoder turns batches into bytes. The zero value is ready to use; it keeps
// its compressors and scratch space between calls. Not safe for concurrent use.
type Encoder struct {
	codecs  codecs
	scratch []byte
}

// Append encodes b after dst and returns the extended slice. batchLength
// and the CRC are computed; every other header field is written as given
// (magic is always 2), so callers can build exactly the batch they mean,
// including inconsistent ones a broker must refuse.
func (e *Encoder) Append(dst []byte, b *Batch) ([]byte, error) {
	start := len(dst)
	// The header is written over these bytes once the records are in, so
	// room the caller reserved is taken as it is rather than zeroed first.
	if cap(dst)-start >= HeaderSize {
		dst = dst[:start+HeaderSize]
	} else {
		dst = append(dst, make([]byte, HeaderSize)...)
	}
	if c := b.Attributes.Compression(); c == None {
		for i := range b.Records {
			var ok bool
			if dst, ok = appendShortRecord(dst, &b.Records[i]); !ok {
				dst = AppendRecord(dst, &b.Records[i])
			}
		}
	} else {
		e.scratch = e.scratch[:0]
		for i := range b.Records {
			e.scratch = AppendRecord(e.scratch, &b.Records[i])
		}
		var err error
		if dst, err = e.codecs.compress(dst, e.scratch, c); err != nil {
			return dst[:start], err
		}
	}
	out := dst[start:]
	putHeader(out, &b.Header, int32(len(out)-LogOverhead))
	binary.BigEndian.PutUint32(out[CRCOffset:], ComputeCRC(out))
	return dst, nil
}

// Encode is a convenience for a one-off encoding with a fresh Encoder.
func Encode(b *Batch) ([]byte, error) {
	var e Encoder
	return e.Append(nil, b)
}

// Decoder turns bytes into batches. The zero value is ready to use; it keeps
// its decompressors between calls. Not safe for concurrent use.
type Decoder struct {
	// Reuse decompresses every compressed batch into one buffer that the
	// next Decode overwrites, rather than a fresh one each time, for a
	// reader that is done with a batch before it decodes the next (inspect
	// streaming a segment): memory stays at the largest batch and the
	// garbage collector has nothing to do.
	Reuse bool

	codecs codecs
	area   []byte // what Reuse decodes into, and Check always
}

// Decode parses the batch at the start of data into b, reusing b's record
// and header slices; b.Header is filled whenever the header parses, even if
// the records do not. Keys and values alias data (or, for a compressed
// batch, a fresh buffer; with Reuse, the Decoder's buffer, valid until the
// next Decode or Check). On a CRC mismatch b is still filled as far as the bytes
// allow and the returned error is a *CRCError; other failures are
// *TruncatedError, *MagicError, *CorruptError, *UnknownCompressionError
// (attribute bits 0-2 are 5, 6 or 7) or *RecordsTooLargeError.
func (d *Decoder) Decode(data []byte, b *Batch) error {
	h, err := ParseHeader(data)
	b.Header = h
	b.Records = b.Records[:0]
	if err != nil {
		return err
	}
	size := h.Size()
	if len(data) < size {
		return &TruncatedError{Need: size, Have: len(data)}
	}
	data = data[:size]
	var crcErr error
	if computed := ComputeCRC(data); computed != h.CRC {
		crcErr = &CRCError{Stored: h.CRC, Computed: computed}
	}
	if err := d.decodeRecords(data[HeaderSize:], b); err != nil && crcErr == nil {
		return err
	}
	return crcErr
}

func (d *Decoder) decodeRecords(area []byte, b *Batch) error {
	if c := b.Attributes.Compression(); c != None {
		var dst []byte
		if d.Reuse {
			dst = d.area
		}
		out, err := d.codecs.decompress(dst, area, c)
		if d.Reuse && cap(out) > cap(d.area) {
			d.area = out[:0]
		}
		if err != nil {
			return decompressError(c, err)
		}
		area = out
	}
	n := int(b.RecordsCount)
	if n < 0 || n > len(area)/minRecordSize {
		return &CorruptError{Offset: RecordsCountOffset, Reason: fmt.Sprintf("recordsCount %d does not fit in %d bytes of records", b.RecordsCount, len(area))}
	}
	if cap(b.Records) < n {
		b.Records = make([]Record, n)
	}
	b.Records = b.Records[:n]
	r := wire.Reader{Src: area}
	for i := range b.Records {
		if err := decodeRecord(&r, &b.Records[i]); err != nil {
			b.Records = b.Records[:i]
			return &CorruptError{Offset: HeaderSize + r.FailedAt(), Reason: fmt.Sprintf("record %d: %v", i, err)}
		}
	}
	if r.Remaining() != 0 {
		return &CorruptError{Offset: HeaderSize + r.Off, Reason: fmt.Sprintf("%d bytes after the last of %d records", r.Remaining(), n)}
	}
	return nil
}

// decompressError keeps eoslab's limit and Kafka's unknown codec as they
// are and calls anything else a codec failed on corrupt data.
func decompressError(c Compression, err error) error {
	var unknown *UnknownCompressionError
	var tooLarge *RecordsTooLargeError
	if errors.As(err, &unknown) || errors.As(err, &tooLarge) {
		return err
	}
	return &CorruptError{Offset: HeaderSize, Reason: fmt.Sprintf("%s records: %v", c, err), Stream: true}
}

func decodeRecord(r *wire.Reader, rec *Record) error {
	length := r.Varint()
	if r.Err() == nil && length < 0 {
		r.Fail(fmt.Errorf("negative record length %d", length))
	}
	body := wire.Reader{Src: r.Bytes(int(length))}
	if r.Err() != nil {
		return r.Err()
	}
	base := r.Off - int(length)
	rec.Attributes = body.Int8()
	rec.TimestampDelta = body.Varlong()
	rec.OffsetDelta = body.Varint()
	rec.Key = body.NullableBytes()
	rec.Value = body.NullableBytes()
	nh := body.Varint()
	if body.Err() == nil && (nh < 0 || int(nh) > body.Remaining()/2) {
		body.Fail(fmt.Errorf("header count %d does not fit the record", nh))
	}
	rec.Headers = rec.Headers[:0]
	for i := int32(0); i < nh && body.Err() == nil; i++ {
		kl := body.Varint()
		if body.Err() == nil && kl < 0 {
			body.Fail(fmt.Errorf("header %d has a null key", i))
		}
		k := body.Bytes(int(kl))
		v := body.NullableBytes()
		rec.Headers = append(rec.Headers, RecordHeader{Key: string(k), Value: v})
	}
	if body.Err() == nil && body.Remaining() != 0 {
		body.Fail(fmt.Errorf("%d bytes left inside the record", body.Remaining()))
	}
	if body.Err() != nil {
		r.Off = base + body.FailedAt()
		r.Fail(body.Err())
		return body.Err()
	}
	return nil
}

// Decode is a convenience for a one-off decoding with a fresh Decoder.
func Decode(data []byte) (Batch, error) {
	var d Decoder
	var b Batch
	err := d.Decode(data, &b)
	return b, err
}
