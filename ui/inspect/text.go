package inspect

import (
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// TextWriter prints batches field by field, aligned, with records below
// and a blank line between batches.
type TextWriter struct {
	o       out
	written bool
}

// NewTextWriter prints to w.
func NewTextWriter(w io.Writer) *TextWriter { return &TextWriter{o: out{w: w}} }

// Flush writes out the buffered output.
func (t *TextWriter) Flush() error { return t.o.flush() }

// Write prints one batch.
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
	plural := "s"
	if h.RecordsCount == 1 {
		plural = ""
	}
	o.buf = fmt.Appendf(o.buf, "batch at position %d: offsets %d-%d, %d record%s, %d bytes, %s\n",
		b.Position, h.BaseOffset, h.LastOffset(), h.RecordsCount, plural, h.Size(), kind)
	crc := fmt.Sprintf("0x%08x valid", h.CRC)
	if !b.CRCValid {
		crc = fmt.Sprintf("0x%08x INVALID (computed 0x%08x)", h.CRC, b.Computed)
	}
	attrs := fmt.Sprintf("0x%04x compression=%s timestampType=%s", uint16(h.Attributes), h.Attributes.Compression(), h.Attributes.TimestampType())
	if h.Attributes.Transactional() {
		attrs += " transactional"
	}
	if h.Attributes.Control() {
		attrs += " control"
	}
	seq := strconv.Itoa(int(h.BaseSequence))
	if h.BaseSequence >= 0 {
		seq += fmt.Sprintf(" (last %d)", h.LastSequence())
	}
	rows := [...][2]string{
		{"baseOffset", strconv.FormatInt(h.BaseOffset, 10)},
		{"batchLength", strconv.Itoa(int(h.BatchLength))},
		{"partitionLeaderEpoch", strconv.Itoa(int(h.PartitionLeaderEpoch))},
		{"magic", strconv.Itoa(int(h.Magic))},
		{"crc", crc},
		{"attributes", attrs},
		{"lastOffsetDelta", strconv.Itoa(int(h.LastOffsetDelta))},
		{"baseTimestamp", stamp(h.BaseTimestamp)},
		{"maxTimestamp", stamp(h.MaxTimestamp)},
		{"producerId", strconv.FormatInt(h.ProducerID, 10)},
		{"producerEpoch", strconv.Itoa(int(h.ProducerEpoch))},
		{"baseSequence", seq},
		{"recordsCount", strconv.Itoa(int(h.RecordsCount))},
	}
	for _, r := range rows {
		o.buf = fmt.Appendf(o.buf, "  %-21s %s\n", r[0], r[1])
	}
	if b.Err != nil {
		o.buf = fmt.Appendf(o.buf, "  error: %v\n", b.Err)
	}
	for i := range b.Records {
		r := &b.Records[i]
		off := h.BaseOffset + int64(r.OffsetDelta)
		if b.Marker != nil {
			o.buf = fmt.Appendf(o.buf, "  | offset %d  %s marker, coordinatorEpoch %d\n", off, b.Marker.Type, b.Marker.CoordinatorEpoch)
			continue
		}
		o.buf = fmt.Appendf(o.buf, "  | offset %d  timestamp %d  key ", off, h.RecordTimestamp(r.TimestampDelta))
		t.quote(r.Key)
		o.buf = append(o.buf, "  value "...)
		t.quote(r.Value)
		for j := range r.Headers {
			hd := &r.Headers[j]
			o.buf = append(o.buf, "  header "...)
			t.quote([]byte(hd.Key))
			o.buf = append(o.buf, '=')
			t.quote(hd.Value)
		}
		o.buf = append(o.buf, '\n')
		o.spill()
	}
	o.spill()
	return o.err
}

// quote shows bytes as a Go-quoted string, or as hex when they are not
// text, in pieces so that a huge value is never printed in one buffer.
func (t *TextWriter) quote(b []byte) {
	o := &t.o
	switch {
	case b == nil:
		o.buf = append(o.buf, "null"...)
	case utf8.Valid(b):
		o.buf = append(o.buf, '"')
		o.goText(b)
		o.buf = append(o.buf, '"')
	default:
		o.buf = append(o.buf, "0x"...)
		o.hex(b)
	}
}

func stamp(ms int64) string {
	if ms < 0 {
		return strconv.FormatInt(ms, 10)
	}
	return fmt.Sprintf("%d (%s)", ms, time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z"))
}

// appendGoQuoted appends valid UTF-8 s escaped as strconv.Quote escapes it,
// without the quotes, so that a value can be quoted piece by piece.
func appendGoQuoted(dst, s []byte) []byte {
	start := 0
	for i := 0; i < len(s); {
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
