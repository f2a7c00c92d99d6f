package inspect

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

// TextWriter prints batches field by field, aligned, with records below
// and a blank line between batches.
type TextWriter struct {
	o       out
	written bool
	// The last timestamp's time, as stamp wrote it.
	stamped   bool
	stampMs   int64
	stampText []byte
}

// NewTextWriter prints to w.
func NewTextWriter(w io.Writer) *TextWriter { return &TextWriter{o: out{w: w}} }

// Flush writes out the buffered output.
func (t *TextWriter) Flush() error { return t.o.flush() }

// Write prints one batch. It appends to the output buffer field by field
// (no fmt), so that text costs about what JSON does.
func (t *TextWriter) Write(b *Batch) error {
	o := &t.o
	if t.written {
		o.buf = append(o.buf, '\n')
	}
	t.written = true
	h := &b.Header
	var kind string
	switch {
	case h.Attributes.Control():
		kind = "control"
	case h.Attributes.Transactional():
		kind = "transactional"
	case h.HasProducerID():
		kind = "idempotent"
	default:
		kind = "plain"
	}
	buf := append(o.buf, "batch at position "...)
	buf = strconv.AppendInt(buf, b.Position, 10)
	buf = append(buf, ": offsets "...)
	buf = strconv.AppendInt(buf, h.BaseOffset, 10)
	buf = append(buf, '-')
	buf = strconv.AppendInt(buf, h.LastOffset(), 10)
	buf = append(buf, ", "...)
	buf = strconv.AppendInt(buf, int64(h.RecordsCount), 10)
	buf = append(buf, " record"...)
	if h.RecordsCount != 1 {
		buf = append(buf, 's')
	}
	buf = append(buf, ", "...)
	buf = strconv.AppendInt(buf, int64(h.Size()), 10)
	buf = append(buf, " bytes, "...)
	buf = append(append(buf, kind...), '\n')

	buf = row(buf, "baseOffset")
	buf = append(strconv.AppendInt(buf, h.BaseOffset, 10), '\n')
	buf = row(buf, "batchLength")
	buf = append(strconv.AppendInt(buf, int64(h.BatchLength), 10), '\n')
	buf = row(buf, "partitionLeaderEpoch")
	buf = append(strconv.AppendInt(buf, int64(h.PartitionLeaderEpoch), 10), '\n')
	buf = row(buf, "magic")
	buf = append(strconv.AppendInt(buf, int64(h.Magic), 10), '\n')
	buf = row(buf, "crc")
	buf = appendHex(buf, uint64(h.CRC), 8)
	if b.CRCValid {
		buf = append(buf, " valid"...)
	} else {
		buf = append(buf, " INVALID (computed "...)
		buf = append(appendHex(buf, uint64(b.Computed), 8), ')')
	}
	buf = append(buf, '\n')
	buf = row(buf, "attributes")
	buf = appendHex(buf, uint64(uint16(h.Attributes)), 4)
	buf = append(buf, " compression="...)
	buf = append(buf, h.Attributes.Compression().String()...)
	buf = append(buf, " timestampType="...)
	buf = append(buf, h.Attributes.TimestampType()...)
	if h.Attributes.Transactional() {
		buf = append(buf, " transactional"...)
	}
	if h.Attributes.Control() {
		buf = append(buf, " control"...)
	}
	buf = append(buf, '\n')
	buf = row(buf, "lastOffsetDelta")
	buf = append(strconv.AppendInt(buf, int64(h.LastOffsetDelta), 10), '\n')
	buf = row(buf, "baseTimestamp")
	buf = append(t.stamp(buf, h.BaseTimestamp), '\n')
	buf = row(buf, "maxTimestamp")
	buf = append(t.stamp(buf, h.MaxTimestamp), '\n')
	buf = row(buf, "producerId")
	buf = append(strconv.AppendInt(buf, h.ProducerID, 10), '\n')
	buf = row(buf, "producerEpoch")
	buf = append(strconv.AppendInt(buf, int64(h.ProducerEpoch), 10), '\n')
	buf = row(buf, "baseSequence")
	buf = strconv.AppendInt(buf, int64(h.BaseSequence), 10)
	if h.BaseSequence >= 0 {
		buf = append(buf, " (last "...)
		buf = append(strconv.AppendInt(buf, int64(h.LastSequence()), 10), ')')
	}
	buf = append(buf, '\n')
	buf = row(buf, "recordsCount")
	buf = append(strconv.AppendInt(buf, int64(h.RecordsCount), 10), '\n')
	o.buf = buf
	if b.Err != nil {
		o.buf = fmt.Appendf(o.buf, "  error: %v\n", b.Err)
	}
	for i := range b.Records {
		r := &b.Records[i]
		off := h.BaseOffset + int64(r.OffsetDelta)
		buf := append(o.buf, "  | offset "...)
		buf = strconv.AppendInt(buf, off, 10)
		if b.Marker != nil {
			buf = append(buf, "  "...)
			buf = append(buf, b.Marker.Type.String()...)
			buf = append(buf, " marker, coordinatorEpoch "...)
			o.buf = append(strconv.AppendInt(buf, int64(b.Marker.CoordinatorEpoch), 10), '\n')
			continue
		}
		buf = append(buf, "  timestamp "...)
		buf = strconv.AppendInt(buf, h.RecordTimestamp(r.TimestampDelta), 10)
		o.buf = append(buf, "  key "...)
		t.quote(r.Key)
		o.buf = append(o.buf, "  value "...)
		t.quote(r.Value)
		for j := range r.Headers {
			hd := &r.Headers[j]
			o.buf = append(o.buf, "  header "...)
			t.quoteString(hd.Key)
			o.buf = append(o.buf, '=')
			t.quote(hd.Value)
		}
		o.buf = append(o.buf, '\n')
		o.spill()
	}
	o.spill()
	return o.err
}

// rowWidth is the width of the field names' column.
const rowWidth = 21

// row starts a header row: two spaces, the name left-aligned in its column
// and a space.
func row(buf []byte, name string) []byte {
	buf = append(buf, "  "...)
	buf = append(buf, name...)
	for n := len(name); n < rowWidth; n++ {
		buf = append(buf, ' ')
	}
	return append(buf, ' ')
}

// appendHex appends 0x and v in lower-case hex, zero-padded to digits.
func appendHex(buf []byte, v uint64, digits int) []byte {
	buf = append(buf, '0', 'x')
	for i := digits - 1; i >= 0; i-- {
		buf = append(buf, hexDigits[v>>(4*i)&0xf])
	}
	return buf
}

// quote shows bytes as a Go-quoted string, or as hex when they are not
// text, in pieces so that a huge value is never printed in one buffer.
func (t *TextWriter) quote(b []byte) {
	if b == nil {
		t.o.buf = append(t.o.buf, "null"...)
		return
	}
	t.quoteText(b)
}

// quoteString quotes a header's key as quote does its bytes (a key is
// never null).
func (t *TextWriter) quoteString(s string) {
	t.quoteText(unsafe.Slice(unsafe.StringData(s), len(s)))
}

func (t *TextWriter) quoteText(b []byte) {
	o := &t.o
	switch {
	case utf8.Valid(b):
		o.buf = append(o.buf, '"')
		o.goText(b)
		o.buf = append(o.buf, '"')
	default:
		o.buf = append(o.buf, "0x"...)
		o.hex(b)
	}
}

// stamp appends a timestamp and, unless it is negative, its UTC time. The
// last one written is kept: a batch's timestamps, and those of batches
// written together, are often the same.
func (t *TextWriter) stamp(buf []byte, ms int64) []byte {
	buf = strconv.AppendInt(buf, ms, 10)
	if ms < 0 {
		return buf
	}
	if !t.stamped || t.stampMs != ms {
		t.stampText = time.UnixMilli(ms).UTC().AppendFormat(t.stampText[:0], "2006-01-02T15:04:05.000Z")
		t.stamped, t.stampMs = true, ms
	}
	buf = append(buf, " ("...)
	return append(append(buf, t.stampText...), ')')
}

// appendGoQuoted appends valid UTF-8 s escaped as strconv.Quote escapes it,
// without the quotes, so that a value can be quoted piece by piece.
func appendGoQuoted(dst, s []byte) []byte {
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			// A word at a time over bytes that are printed as they are.
			m := goSpecialBytes(binary.LittleEndian.Uint64(s[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= ' ' && c != 0x7f && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\a':
				dst = append(dst, `\a`...)
			case '\b':
				dst = append(dst, `\b`...)
			case '\f':
				dst = append(dst, `\f`...)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			case '\v':
				dst = append(dst, `\v`...)
			default:
				dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if !strconv.IsPrint(r) {
			dst = append(dst, s[start:i]...)
			// Quoting one rune escapes it as Quote would; only its quotes differ.
			var q [16]byte
			esc := strconv.AppendQuoteRune(q[:0], r)
			dst = append(dst, esc[1:len(esc)-1]...)
			start = i + size
		}
		i += size
	}
	return append(dst, s[start:]...)
}

const hexDigits = "0123456789abcdef"

// goSpecialBytes has the high bit set in the lowest byte of x that
// strconv.Quote does not copy as it is — a control character, '"', '\\',
// DEL, or a byte of a multi-byte rune — and is 0 when there is none (as
// specialBytes does for JSON: a byte equal to c is below 1 in x^c, a byte
// from 0x80 is flagged as it is, borrows only flag bytes above a flagged one).
func goSpecialBytes(x uint64) uint64 {
	const quote, backslash, del = lows * '"', lows * '\\', lows * 0x7f
	return (x | (x - lows*0x20) | (x ^ quote - lows) | (x ^ backslash - lows) | (x ^ del - lows)) & highs
}
