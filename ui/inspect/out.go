package inspect

import (
	"encoding/base64"
	"encoding/hex"
	"io"
	"unicode/utf8"
)

// flushAt is how much output is kept before it goes to the writer. Large
// keys and values are escaped in pieces, so a 60 MiB value costs about
// 128 KiB of output buffer, not a copy of its printed form.
const flushAt = 64 << 10

// piece is how much of a key or value is escaped at once: escaping at most
// sextuples it (a control byte in JSON is \u00XX), so a piece's output
// stays within flushAt.
const piece = flushAt / 8

// out is an append buffer in front of an io.Writer. After the first write
// error it keeps the error and drops what follows.
type out struct {
	w   io.Writer
	buf []byte
	err error
}

func (o *out) spill() {
	if len(o.buf) >= flushAt {
		o.flush()
	}
}

func (o *out) flush() error {
	if o.err == nil && len(o.buf) > 0 {
		_, o.err = o.w.Write(o.buf)
	}
	o.buf = o.buf[:0]
	return o.err
}

// utf8Piece is the length of the first piece of b to escape at once: at
// most piece bytes, cut where a rune starts. A rune has at most three
// continuation bytes, so if none of the last four bytes starts one, no
// valid rune spans the cut and any cut decodes as the whole would.
func utf8Piece(b []byte) int {
	if len(b) <= piece {
		return len(b)
	}
	for n := piece; n > piece-utf8.UTFMax; n-- {
		if utf8.RuneStart(b[n]) {
			return n
		}
	}
	return piece
}

// jsonText appends b escaped for a JSON string, piece by piece.
func (o *out) jsonText(b []byte) {
	for len(b) > 0 {
		n := utf8Piece(b)
		o.buf = appendJSONEscaped(o.buf, b[:n])
		b = b[n:]
		o.spill()
	}
}

// goText appends valid UTF-8 b escaped as strconv.Quote does, piece by piece.
func (o *out) goText(b []byte) {
	for len(b) > 0 {
		n := utf8Piece(b)
		o.buf = appendGoQuoted(o.buf, b[:n])
		b = b[n:]
		o.spill()
	}
}

// base64Piece is a multiple of 3, so pieces encode without padding between them.
const base64Piece = piece / 3 * 3

func (o *out) base64(b []byte) {
	for len(b) > 0 {
		n := min(len(b), base64Piece)
		o.buf = base64.StdEncoding.AppendEncode(o.buf, b[:n])
		b = b[n:]
		o.spill()
	}
}

func (o *out) hex(b []byte) {
	for len(b) > 0 {
		n := min(len(b), piece)
		o.buf = hex.AppendEncode(o.buf, b[:n])
		b = b[n:]
		o.spill()
	}
}
