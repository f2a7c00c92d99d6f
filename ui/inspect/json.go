package inspect

import (
	"encoding/binary"
	"io"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/eoslab/eoslab/engine/record"
)

// JSONWriter prints one JSON object per batch (JSON Lines) with the keys
// documented in docs/inspect.md. It appends the bytes itself, field by
// field, rather than going through encoding/json: a batch is printed
// without building its decoded form as Go values, strings are escaped
// once, and nothing is allocated per record.
type JSONWriter struct {
	o    out
	file []byte // the file's name as a JSON string
}

// NewJSONWriter prints to w; every line names file in its "file" key.
func NewJSONWriter(w io.Writer, file string) *JSONWriter {
	return &JSONWriter{o: out{w: w}, file: appendJSONString(nil, []byte(file))}
}

// Flush writes out the buffered output.
func (j *JSONWriter) Flush() error { return j.o.flush() }

// Write prints one batch as one line.
func (j *JSONWriter) Write(b *Batch) error {
	o := &j.o
	h := &b.Header
	o.buf = append(o.buf, `{"file":`...)
	o.buf = append(o.buf, j.file...)
	o.int(`,"position":`, b.Position)
	o.int(`,"base_offset":`, h.BaseOffset)
	o.int(`,"last_offset":`, h.LastOffset())
	o.int(`,"batch_length":`, int64(h.BatchLength))
	o.int(`,"partition_leader_epoch":`, int64(h.PartitionLeaderEpoch))
	o.int(`,"magic":`, int64(h.Magic))
	o.int(`,"crc":`, int64(h.CRC))
	o.bool(`,"crc_valid":`, b.CRCValid)
	o.int(`,"attributes":`, int64(h.Attributes))
	o.buf = append(o.buf, `,"compression":`...)
	o.buf = appendJSONString(o.buf, []byte(h.Attributes.Compression().String()))
	o.buf = append(o.buf, `,"timestamp_type":`...)
	o.buf = appendJSONString(o.buf, []byte(h.Attributes.TimestampType()))
	o.bool(`,"transactional":`, h.Attributes.Transactional())
	o.bool(`,"control":`, h.Attributes.Control())
	o.int(`,"last_offset_delta":`, int64(h.LastOffsetDelta))
	o.int(`,"base_timestamp":`, h.BaseTimestamp)
	o.int(`,"max_timestamp":`, h.MaxTimestamp)
	o.int(`,"producer_id":`, h.ProducerID)
	o.int(`,"producer_epoch":`, int64(h.ProducerEpoch))
	o.int(`,"base_sequence":`, int64(h.BaseSequence))
	o.int(`,"last_sequence":`, int64(h.LastSequence()))
	o.int(`,"records_count":`, int64(h.RecordsCount))
	if b.Marker != nil {
		o.buf = append(o.buf, `,"control_type":`...)
		o.buf = appendJSONString(o.buf, []byte(b.Marker.Type.String()))
		o.int(`,"coordinator_epoch":`, int64(b.Marker.CoordinatorEpoch))
	}
	if p := problemText(b); p != "" {
		o.buf = append(o.buf, `,"error":`...)
		o.buf = appendJSONString(o.buf, []byte(p))
	}
	o.buf = append(o.buf, `,"records":[`...)
	for i := range b.Records {
		r := &b.Records[i]
		if i > 0 {
			o.buf = append(o.buf, ',')
		}
		o.int(`{"offset":`, h.BaseOffset+int64(r.OffsetDelta))
		o.int(`,"timestamp":`, h.RecordTimestamp(r.TimestampDelta))
		j.bytes(`,"key`, r.Key)
		j.bytes(`,"value`, r.Value)
		o.buf = append(o.buf, `,"headers":[`...)
		for k := range r.Headers {
			hd := &r.Headers[k]
			if k > 0 {
				o.buf = append(o.buf, ',')
			}
			// A header key is a Java String in Kafka, decoded from UTF-8 with
			// invalid bytes replaced, so it is always text, as encoding/json
			// writes a Go string.
			o.buf = append(o.buf, `{"key":"`...)
			o.jsonText([]byte(hd.Key))
			o.buf = append(o.buf, '"')
			j.bytes(`,"value`, hd.Value)
			o.buf = append(o.buf, '}')
		}
		o.buf = append(o.buf, "]}"...)
		o.spill()
	}
	o.buf = append(o.buf, "]}\n"...)
	o.spill()
	return o.err
}

// problemText is the batch's problem without its position, which the line
// already has.
func problemText(b *Batch) string {
	switch {
	case !b.CRCValid:
		return (&record.CRCError{Stored: b.CRC, Computed: b.Computed}).Error()
	case b.Err != nil:
		return b.Err.Error()
	}
	return ""
}

// bytes appends `,"name":` with b as text (valid UTF-8), `,"name_b64":` with
// b in standard base64 (anything else), or null. prefix is `,"name`.
func (j *JSONWriter) bytes(prefix string, b []byte) {
	o := &j.o
	o.buf = append(o.buf, prefix...)
	switch {
	case b == nil:
		o.buf = append(o.buf, `":null`...)
	case utf8.Valid(b):
		o.buf = append(o.buf, `":"`...)
		o.jsonText(b)
		o.buf = append(o.buf, '"')
	default:
		o.buf = append(o.buf, `_b64":"`...)
		o.base64(b)
		o.buf = append(o.buf, '"')
	}
}

func (o *out) int(key string, v int64) {
	o.buf = strconv.AppendInt(append(o.buf, key...), v, 10)
}

func (o *out) bool(key string, v bool) {
	o.buf = strconv.AppendBool(append(o.buf, key...), v)
}

// appendJSONString appends s as a JSON string, exactly as encoding/json
// writes string(s).
func appendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	dst = appendJSONEscaped(dst, s)
	return append(dst, '"')
}

// jsonSafe marks the ASCII bytes encoding/json writes as they are: not
// control characters, not '"' or '\\', and not '<', '>' or '&', which it
// escapes so that JSON can sit inside HTML. Keeping its escaping keeps
// eoslab's output what it was when encoding/json wrote it.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

// Word-at-a-time masks: every byte 0x01, every byte 0x80.
const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specialBytes has the high bit set in the lowest byte of x that needs a
// look — a control character, '"', '\\', '<', '>', '&', or a byte of a
// multi-byte rune — and is 0 when none does. (x - lows*n) & ^x & highs
// flags the bytes of x below n; a byte equal to c is below 1 in x^c, and
// setting a bit first folds two characters into one test: b|4 is '&' for
// '"' and '&' alone, b|2 is '>' for '<' and '>' alone. The borrow can flag
// bytes above a flagged one, never below, so the lowest flag is exact.
func specialBytes(x uint64) uint64 {
	const quoteAmp, angles, backslash = lows * '&', lows * '>', lows * '\\'
	y, z, w := x|lows*4^quoteAmp, x|lows*2^angles, x^backslash
	m := (x - lows*0x20) & ^x
	m |= (y - lows) & ^y
	m |= (z - lows) & ^z
	m |= (w - lows) & ^w
	return (m | x) & highs
}

// appendJSONEscaped appends the inside of a JSON string for arbitrary bytes
// s: invalid UTF-8 becomes U+FFFD, U+2028 and U+2029 are escaped, as
// encoding/json does. Cutting s at the start of a rune (utf8Piece) and
// escaping the pieces one after the other gives the same bytes.
func appendJSONEscaped(dst, s []byte) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if i+8 <= len(s) {
			// Text is mostly runs that need nothing: step over them 8 bytes
			// at a time, and straight to the first byte that needs a look.
			m := specialBytes(binary.LittleEndian.Uint64(s[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
			c = s[i]
		} else if c < utf8.RuneSelf && jsonSafe[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + size
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			start = i + size
		}
		i += size
	}
	return append(dst, s[start:]...)
}
