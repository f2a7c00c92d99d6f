package record

// Check verifies the batch at the start of data as Decode does — its
// header, its size, its CRC, its records decompressed and framed — and
// returns its header and the error Decode would return for the same
// bytes, without building the records. A leader validating a producer's
// batch needs the verdict, not the keys and values: Kafka's LogValidator
// likewise reads a v2 batch it validates in place with
// skipKeyValueIterator, which walks each record's framing and skips its
// key and value.
//
// A well-formed batch is walked once, lengths and varints only; anything
// the walk cannot accept is decoded in full, so that the error (its type,
// offset and reason) is Decode's own. Compressed records are decompressed
// into the Decoder's buffer, the one Reuse decodes into: with Reuse, what
// the last Decode returned is valid until the next Decode or Check.
func (d *Decoder) Check(data []byte) (Header, error) {
	h, err := ParseHeader(data)
	if err != nil {
		return h, err
	}
	size := h.Size()
	if len(data) < size {
		return h, &TruncatedError{Need: size, Have: len(data)}
	}
	data = data[:size]
	if computed := ComputeCRC(data); computed != h.CRC {
		return h, &CRCError{Stored: h.CRC, Computed: computed}
	}
	area := data[HeaderSize:]
	if c := h.Attributes.Compression(); c != None {
		out, err := d.codecs.decompress(d.area, area, c)
		if cap(out) > cap(d.area) {
			d.area = out[:0]
		}
		if err != nil {
			return h, d.decodeRecords(area, &Batch{Header: h})
		}
		area = out
	}
	if n := int(h.RecordsCount); n < 0 || n > len(area)/minRecordSize || !walkRecords(area, n) {
		return h, d.decodeRecords(data[HeaderSize:], &Batch{Header: h})
	}
	return h, nil
}

// walkRecords reports whether area holds exactly n records that
// decodeRecord accepts: a length that fits, then inside it attributes, a
// timestamp delta, an offset delta, a nullable key and value, and headers
// with non-null keys, nothing left over.
func walkRecords(area []byte, n int) bool {
	off := 0
	for range n {
		length, ok := varintAt(area, &off)
		if !ok || length < 0 || int(length) > len(area)-off {
			return false
		}
		end := off + int(length)
		if !walkRecord(area[off:end]) {
			return false
		}
		off = end
	}
	return off == len(area)
}

// walkRecord reports whether body is one record's body as decodeRecord
// reads it.
func walkRecord(body []byte) bool {
	if len(body) < 1 {
		return false
	}
	// Attributes, then the timestamp and offset deltas.
	p := 1
	if !skipUvarint(body, &p, 10) || !skipUvarint(body, &p, 5) {
		return false
	}
	if !skipNullable(body, &p) || !skipNullable(body, &p) { // key, value
		return false
	}
	nh, ok := varintAt(body, &p)
	if !ok || nh < 0 || int(nh) > (len(body)-p)/2 {
		return false
	}
	for range nh {
		kl, ok := varintAt(body, &p)
		if !ok || kl < 0 || int(kl) > len(body)-p {
			return false
		}
		p += int(kl)
		if !skipNullable(body, &p) {
			return false
		}
	}
	return p == len(body)
}

// skipNullable steps over varint-length bytes, -1 being null.
func skipNullable(b []byte, p *int) bool {
	n, ok := varintAt(b, p)
	if !ok || n < -1 || int(n) > len(b)-*p {
		return false
	}
	if n > 0 {
		*p += int(n)
	}
	return true
}

// varintAt reads a zig-zag varint at *p as wire.Reader.Varint does (at most
// five bytes, the bits beyond 32 dropped).
func varintAt(b []byte, p *int) (int32, bool) {
	off := *p
	var u uint32
	if off < len(b) && b[off] < 0x80 {
		u = uint32(b[off])
		*p = off + 1
	} else {
		var v uint64
		if !uvarintAt(b, p, 5, &v) {
			return 0, false
		}
		u = uint32(v)
	}
	return int32(u>>1) ^ -int32(u&1), true
}

// skipUvarint steps over a base-128 varint of at most maxBytes bytes.
func skipUvarint(b []byte, p *int, maxBytes int) bool {
	if off := *p; off < len(b) && b[off] < 0x80 {
		*p = off + 1
		return true
	}
	var v uint64
	return uvarintAt(b, p, maxBytes, &v)
}

func uvarintAt(b []byte, p *int, maxBytes int, v *uint64) bool {
	off := *p
	var u uint64
	for i := range maxBytes {
		if off >= len(b) {
			return false
		}
		c := b[off]
		off++
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			*p, *v = off, u
			return true
		}
	}
	return false
}
