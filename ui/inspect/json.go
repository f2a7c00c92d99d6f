package inspect

import (
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
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
	if p := b.Problem(); p != nil {
		return errors.Unwrap(p).Error()
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
	case len(b) <= piece:
		// Escaping finds invalid UTF-8 on its way: one pass, and on invalid
		// text the output goes back to the key's name for base64 instead.
		mark := len(o.buf)
		o.buf = append(o.buf, `":"`...)
		var valid bool
		if o.buf, valid = escapeJSON(o.buf, b, false); valid {
			o.buf = append(o.buf, '"')
			return
		}
		o.buf = append(o.buf[:mark], `_b64":"`...)
		o.base64(b)
		o.buf = append(o.buf, '"')
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
// multi-byte rune — and is 0 when none does. For a byte below 0x80,
// subtracting n sets its high bit exactly when it is below n; a byte equal
// to c is below 1 in x^c, and setting a bit first folds two characters into
// one test: b|4 is '&' for '"' and '&' alone, b|2 is '>' for '<' and '>'
// alone. A byte from 0x80 is flagged as it is and never borrows. Borrows
// from a flagged byte can flag bytes above it, never below, so the lowest
// flag is exact.
func specialBytes(x uint64) uint64 {
	const quoteAmp, angles, backslash = lows * '&', lows * '>', lows * '\\'
	y, z, w := x|lows*4^quoteAmp, x|lows*2^angles, x^backslash
	return (x | (x - lows*0x20) | (y - lows) | (z - lows) | (w - lows)) & highs
}

// appendJSONEscaped appends the inside of a JSON string for arbitrary bytes
// s: invalid UTF-8 becomes U+FFFD, U+2028 and U+2029 are escaped, as
// encoding/json does. Cutting s at the start of a rune (utf8Piece) and
// escaping the pieces one after the other gives the same bytes.
func appendJSONEscaped(dst, s []byte) []byte {
	dst, _ = escapeJSON(dst, s, true)
	return dst
}

// escapeJSON is appendJSONEscaped, also reporting whether s is valid UTF-8;
// unless lossy, it gives up at the first invalid byte (the caller writes
// base64 instead).
// It makes room for the worst case first (every byte becomes \u00XX or
// \ufffd: six), then copies 32 bytes at a time as it checks them, a copy
// that later writes may overwrite, so that text costs one load and one
// store per word, not a copy per run between escapes.
func escapeJSON(dst, s []byte, lossy bool) (_ []byte, valid bool) {
	valid = true
	dst = slices.Grow(dst, 6*len(s)+32)
	n := len(dst)
	out := dst[:cap(dst)]
	le := binary.LittleEndian
	for i := 0; i < len(s); {
		var c byte
		switch {
		case i+32 <= len(s):
			// Four words at once, their tests side by side: a run of plain
			// text goes 32 bytes a step, and the first byte to look at is
			// found from the masks.
			w0, w1, w2, w3 := le.Uint64(s[i:]), le.Uint64(s[i+8:]), le.Uint64(s[i+16:]), le.Uint64(s[i+24:])
			o := out[n : n+32]
			le.PutUint64(o, w0)
			le.PutUint64(o[8:], w1)
			le.PutUint64(o[16:], w2)
			le.PutUint64(o[24:], w3)
			m0, m1, m2, m3 := specialBytes(w0), specialBytes(w1), specialBytes(w2), specialBytes(w3)
			if m0|m1|m2|m3 == 0 {
				i, n = i+32, n+32
				continue
			}
			var k int
			switch {
			case m0 != 0:
				k = bits.TrailingZeros64(m0) >> 3
			case m1 != 0:
				k = 8 + bits.TrailingZeros64(m1)>>3
			case m2 != 0:
				k = 16 + bits.TrailingZeros64(m2)>>3
			default:
				k = 24 + bits.TrailingZeros64(m3)>>3
			}
			i, n = i+k, n+k
			c = s[i]
		case i+8 <= len(s):
			w := le.Uint64(s[i:])
			le.PutUint64(out[n:], w)
			m := specialBytes(w)
			if m == 0 {
				i, n = i+8, n+8
				continue
			}
			k := bits.TrailingZeros64(m) >> 3
			i, n = i+k, n+k
			c = s[i]
		default:
			if c = s[i]; c < utf8.RuneSelf && jsonSafe[c] {
				out[n] = c
				i, n = i+1, n+1
				continue
			}
		}
		if c < utf8.RuneSelf {
			switch c {
			case '\\', '"':
				out[n], out[n+1] = '\\', c
				n += 2
			case '\b', '\f', '\n', '\r', '\t':
				out[n], out[n+1] = '\\', shortEscape[c]
				n += 2
			default:
				copy(out[n:], []byte{'\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf]})
				n += 6
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if valid = false; !lossy {
				return out[:n], false
			}
			n += copy(out[n:], `\ufffd`)
		case r == '\u2028' || r == '\u2029':
			n += copy(out[n:], []byte{'\\', 'u', '2', '0', '2', hexDigits[r&0xf]})
		default:
			n += copy(out[n:], s[i:i+size])
		}
		i += size
	}
	return out[:n], valid
}

// shortEscape is the letter of the two-character escapes encoding/json uses.
var shortEscape = [utf8.RuneSelf]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}
