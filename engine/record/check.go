package record

import "encoding/binary"

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
	_, err = d.CheckParsed(&h, data)
	return h, err
}

// Walked is what CheckParsed reads of a good batch's records on its way.
type Walked struct {
	// InOrder reports whether the records' offset deltas are 0, 1, 2, …
	// (InOrder).
	InOrder bool
	// MaxTimestamp is the largest record timestamp (Header.RecordTimestamp),
	// -1 if none is larger: the maxTimestamp Kafka's LogValidator computes
	// while it walks a batch it keeps as it arrived (assignOffsetsNonCompressed,
	// validateMessagesAndAssignOffsetsCompressed start from
	// RecordBatch.NO_TIMESTAMP and keep any record.timestamp() above it).
	// In a LogAppendTime batch every record reads the batch's maxTimestamp;
	// otherwise a record's timestamp is baseTimestamp + its delta, with
	// Java's (and Go's) wrapping int64 addition.
	MaxTimestamp int64
}

// CheckParsed is Check for a caller that already holds h, what
// ParseHeader(data) returned without error: the header is not read again.
// It also reports what the walk reads of the records on its way (Walked);
// that is meaningful only when the error is nil.
func (d *Decoder) CheckParsed(h *Header, data []byte) (Walked, error) {
	size := h.Size()
	if len(data) < size {
		return Walked{}, &TruncatedError{Need: size, Have: len(data)}
	}
	data = data[:size]
	if computed := ComputeCRC(data); computed != h.CRC {
		return Walked{}, &CRCError{Stored: h.CRC, Computed: computed}
	}
	area := data[HeaderSize:]
	if c := h.Attributes.Compression(); c != None {
		out, err := d.codecs.decompress(d.area, area, c)
		if cap(out) > cap(d.area) {
			d.area = out[:0]
		}
		if err != nil {
			return d.checkDecoded(area, h)
		}
		area = out
	}
	n := int(h.RecordsCount)
	if n < 0 || n > len(area)/minRecordSize {
		return d.checkDecoded(data[HeaderSize:], h)
	}
	ok, inOrder, maxTS := walkRecords(area, n, h.BaseTimestamp)
	if !ok {
		return d.checkDecoded(data[HeaderSize:], h)
	}
	if h.Attributes.LogAppendTime() && n > 0 {
		maxTS = max(h.MaxTimestamp, -1)
	}
	return Walked{InOrder: inOrder, MaxTimestamp: maxTS}, nil
}

// checkDecoded is CheckParsed for what the walk does not accept: the
// records decoded in full, for Decode's error.
func (d *Decoder) checkDecoded(area []byte, h *Header) (Walked, error) {
	b := Batch{Header: *h}
	if err := d.decodeRecords(area, &b); err != nil {
		return Walked{}, err
	}
	return Walked{InOrder: InOrder(b.Records), MaxTimestamp: maxTimestamp(&b)}, nil
}

// maxTimestamp is the largest of -1 and b's record timestamps
// (Header.RecordTimestamp), as Walked.MaxTimestamp.
func maxTimestamp(b *Batch) int64 {
	maxTS := int64(-1)
	for i := range b.Records {
		maxTS = max(maxTS, b.RecordTimestamp(b.Records[i].TimestampDelta))
	}
	return maxTS
}

// InOrder reports whether each record's offset delta is its place in the
// batch: 0, 1, 2, …. A producer writes them so; the header's
// lastOffsetDelta and recordsCount say nothing about the records'.
func InOrder(records []Record) bool {
	for i := range records {
		if records[i].OffsetDelta != int32(i) {
			return false
		}
	}
	return true
}

// walkRecords reports whether area holds exactly n records that
// decodeRecord accepts: a length that fits, then inside it attributes, a
// timestamp delta, an offset delta, a nullable key and value, and headers
// with non-null keys, nothing left over. If it does, inOrder reports
// whether the records' offset deltas are 0, 1, 2, … (InOrder), and maxTS
// is the largest of -1 and base + each record's timestamp delta (wrapping
// as Java's long addition does).
//
// It is written out in one loop, each varint read in place (one and two
// bytes inline, longer ones by a call), because calls are most of what a
// walk of small records costs.
func walkRecords(area []byte, n int, base int64) (ok, inOrder bool, maxTS int64) {
	done, p, odd, maxTS := walkPlain(area, n, base)
	ts := timestamps{base: base, max: maxTS} // the records walkPlain leaves
	var u uint64
	for i := done; i < n; i++ {
		if p < len(area) && area[p] < 0x80 {
			u, p = uint64(area[p]), p+1
		} else if p+1 < len(area) && area[p+1] < 0x80 {
			u, p = uint64(area[p]&0x7f)|uint64(area[p+1])<<7, p+2
		} else if u, p = uvarintSlow(area, p, 5); p < 0 {
			return false, false, 0
		}
		length := zigzag32(u)
		if length < 0 || int(length) > len(area)-p {
			return false, false, 0
		}
		r := area[:p+int(length)] // the record's body is r[p:]
		// Attributes, then the timestamp and offset deltas.
		if p++; p > len(r) {
			return false, false, 0
		}
		if p < len(r) && r[p] < 0x80 {
			u, p = uint64(r[p]), p+1
		} else if p+1 < len(r) && r[p+1] < 0x80 {
			u, p = uint64(r[p]&0x7f)|uint64(r[p+1])<<7, p+2
		} else if u, p = uvarintSlow(r, p, 10); p < 0 {
			return false, false, 0
		}
		ts.add(u)
		if p < len(r) && r[p] < 0x80 {
			u, p = uint64(r[p]), p+1
		} else if p+1 < len(r) && r[p+1] < 0x80 {
			u, p = uint64(r[p]&0x7f)|uint64(r[p+1])<<7, p+2
		} else if u, p = uvarintSlow(r, p, 5); p < 0 {
			return false, false, 0
		}
		if zigzag32(u) != int32(i) {
			odd = 1
		}
		// The key and the value: a length, -1 for null.
		for range 2 {
			if p < len(r) && r[p] < 0x80 {
				u, p = uint64(r[p]), p+1
			} else if p+1 < len(r) && r[p+1] < 0x80 {
				u, p = uint64(r[p]&0x7f)|uint64(r[p+1])<<7, p+2
			} else if u, p = uvarintSlow(r, p, 5); p < 0 {
				return false, false, 0
			}
			if l := zigzag32(u); l < -1 || int(l) > len(r)-p {
				return false, false, 0
			} else if l > 0 {
				p += int(l)
			}
		}
		if p < len(r) && r[p] < 0x80 {
			u, p = uint64(r[p]), p+1
		} else if p+1 < len(r) && r[p+1] < 0x80 {
			u, p = uint64(r[p]&0x7f)|uint64(r[p+1])<<7, p+2
		} else if u, p = uvarintSlow(r, p, 5); p < 0 {
			return false, false, 0
		}
		if nh := zigzag32(u); nh != 0 {
			if nh < 0 || int(nh) > (len(r)-p)/2 {
				return false, false, 0
			}
			if p = skipHeaders(r, p, int(nh)); p < 0 {
				return false, false, 0
			}
		}
		if p != len(r) {
			return false, false, 0
		}
	}
	return p == len(area), odd == 0, ts.max
}

// walkPlain walks the records at the front of area, at most n, as long as
// each is what a producer writes most: every varint of one or two bytes
// (a delta's of up to three) and no headers. It returns how many it
// walked and where the next one starts; walkRecords goes on from there,
// and judges the first record that is not plain, whatever is wrong with
// it. It calls nothing, so that its loop keeps its values in registers,
// and reads each record at offsets that cannot be negative, so that a
// byte checked to be in the record is read with no other bounds check.
//
// A producer's records are framed alike, record after record: the same
// length, key and value lengths, deltas of the same sizes. A record framed
// as the last one walked in full (plainShape) is walked by comparing
// those bytes: what makes that record good makes it good.
//
// odd is 0 if each record walked has its place in the batch (0, 1, 2, …)
// as its offset delta, not 0 otherwise. A record walked in full has its
// delta compared with its place; a record framed alike has its delta's
// bytes compared with those of its place, along with its framing, so that
// one whose delta is not its place is walked in full.
//
// maxTS is the largest of -1 and base + each walked record's timestamp
// delta (walkRecords). A producer stamps its records with a clock in
// milliseconds: most have the timestamp delta of the record before. A
// record framed alike has its timestamp delta's bytes compared with the
// last ones read too: if they are the same, its timestamp is already
// counted; if not, its delta is read from the bytes just compared, and
// the records after it are compared with that one. A record walked in
// full has its delta read on the way.
func walkPlain(area []byte, n int, base int64) (done, next int, odd uint, maxTS int64) {
	start := len(area)
	ts := timestamps{base: base, max: -1}
	var t plainShape
	var deltas uint64 // with a shape, its deltas' bytes for the record at i (plainShape)
	for i := range n {
		if t.size != 0 && uint(len(area)) >= t.size {
			rec := area[:t.size]
			d, k, v := t.hsz+1, t.kpos, t.vpos
			if d+3 < uint(len(rec)) && k+1 < uint(len(rec)) && v+1 < uint(len(rec)) &&
				(uint16(rec[0])|uint16(rec[1])<<8)&t.headMask == t.head &&
				(uint16(rec[k])|uint16(rec[k+1])<<8)&t.kMask == t.k &&
				(uint16(rec[v])|uint16(rec[v+1])<<8)&t.vMask == t.v &&
				rec[len(rec)-1] == 0 {
				w := (uint32(rec[d]) | uint32(rec[d+1])<<8 | uint32(rec[d+2])<<16 | uint32(rec[d+3])<<24) & t.deltaMask
				if uint64(w) == deltas {
					deltas = (deltas + t.step) | t.cont
					area = area[len(rec):]
					continue
				} else if (uint64(w)^deltas)&^uint64(t.tsBits) == 0 {
					// Framed alike but for the timestamp delta's value:
					// it is read from the word, and the records after
					// are compared with it.
					u := w & t.tsBits
					ts.add(uint64(u&0x7f | u>>1&0x3f80 | u>>2&0x1fc000))
					deltas = (uint64(w) + t.step) | t.cont
					area = area[len(rec):]
					continue
				}
			}
		}
		var length, p uint
		switch {
		case len(area) > 0 && area[0] < 0x80:
			length, p = uint(area[0]), 1
		case len(area) > 1 && area[1] < 0x80:
			length, p = uint(area[0]&0x7f)|uint(area[1])<<7, 2
		default:
			return i, start - len(area), odd, ts.max
		}
		// A length of either sign is at most 14 bits: zigzag's sign is
		// its lowest bit.
		if length&1 != 0 || length/2 > uint(len(area))-p {
			return i, start - len(area), odd, ts.max
		}
		r := area[p : p+length/2]
		// Attributes, then the timestamp and offset deltas: any value of
		// at most three bytes.
		var q, u uint
		switch {
		case 1 < uint(len(r)) && r[1] < 0x80:
			u, q = uint(r[1]), 2
		case 2 < uint(len(r)) && r[2] < 0x80:
			u, q = uint(r[1]&0x7f)|uint(r[2])<<7, 3
		case 3 < uint(len(r)) && r[3] < 0x80:
			u, q = uint(r[1]&0x7f)|uint(r[2]&0x7f)<<7|uint(r[3])<<14, 4
		default:
			return i, start - len(area), odd, ts.max
		}
		ts.add(uint64(u))
		tsz := q - 1
		var o uint
		switch {
		case q < uint(len(r)) && r[q] < 0x80:
			o = uint(r[q])
			q++
		case q+1 < uint(len(r)) && r[q+1] < 0x80:
			o = uint(r[q]&0x7f) | uint(r[q+1])<<7
			q += 2
		case q+2 < uint(len(r)) && r[q+2] < 0x80:
			o = uint(r[q]&0x7f) | uint(r[q+1]&0x7f)<<7 | uint(r[q+2])<<14
			q += 3
		default:
			return i, start - len(area), odd, ts.max
		}
		odd |= o ^ 2*uint(i)
		dsz := q - 1
		// The key's and the value's lengths: -1 (1 in zigzag) for null,
		// or what fits; then the header count, 0.
		kpos := q
		var l uint
		if q < uint(len(r)) && r[q] < 0x80 {
			l, q = uint(r[q]), q+1
		} else if q+1 < uint(len(r)) && r[q+1] < 0x80 {
			l, q = uint(r[q]&0x7f)|uint(r[q+1])<<7, q+2
		} else {
			return i, start - len(area), odd, ts.max
		}
		ksz := q - kpos
		if l != 1 {
			if l&1 != 0 || l/2 > uint(len(r))-q {
				return i, start - len(area), odd, ts.max
			}
			q += l / 2
		}
		vpos := q
		if q < uint(len(r)) && r[q] < 0x80 {
			l, q = uint(r[q]), q+1
		} else if q+1 < uint(len(r)) && r[q+1] < 0x80 {
			l, q = uint(r[q]&0x7f)|uint(r[q+1])<<7, q+2
		} else {
			return i, start - len(area), odd, ts.max
		}
		vsz := q - vpos
		if l != 1 {
			if l&1 != 0 || l/2 > uint(len(r))-q {
				return i, start - len(area), odd, ts.max
			}
			q += l / 2
		}
		if q+1 != uint(len(r)) || r[q] != 0 {
			return i, start - len(area), odd, ts.max
		}
		// The record is good: its bytes give the next ones' shape, from
		// the second on (most batches of a lab hold a record or two, and
		// the first record's deltas are often shorter than the rest's).
		t.size = 0
		if dsz <= 4 && i > 0 && i+1 < n {
			cont := uint32(0x80808080) >> (32 - 8*dsz)
			t = plainShape{size: p + length/2, hsz: p, kpos: p + kpos, vpos: p + vpos,
				headMask: 0xffff >> (16 - 8*p), kMask: 0xffff >> (16 - 8*ksz), vMask: 0xffff >> (16 - 8*vsz),
				deltaMask: 0xffffffff >> (32 - 8*dsz), tsBits: 0x7f7f7f >> (24 - 8*tsz), step: 2 << (8 * tsz)}
			t.head = binary.LittleEndian.Uint16(area) & t.headMask
			word := binary.LittleEndian.Uint32(r[1:])
			t.cont = uint64(word & cont)
			t.k = binary.LittleEndian.Uint16(area[t.kpos:]) & t.kMask
			t.v = binary.LittleEndian.Uint16(area[t.vpos:]) & t.vMask
			deltas = t.cont | uint64(word&t.tsBits) | varintBits(2*uint64(i+1))<<(8*tsz) // the next record's
		}
		area = area[p+length/2:]
	}
	return n, start - len(area), odd, ts.max
}

// varintBits is x, below 2³⁵, in the bits of its varint's bytes read as
// a little-endian word, each byte's high bit left 0: seven bits a byte.
// With the high bits set where a varint's continuation bits are, adding 2
// carries from byte to byte through them, and only they need setting
// again; a carry out of the last byte sets its high bit, or a bit past it.
func varintBits(x uint64) uint64 {
	return x&0x7f | x<<1&(0x7f<<8) | x<<2&(0x7f<<16) | x<<3&(0x7f<<24) | x<<4&(0x7f<<32)
}

// plainShape is the framing of a plain record (walkPlain), by offset from
// its start: the record is size bytes; its length varint, of hsz bytes,
// is head; its key's and value's length varints, at kpos and vpos, are k
// and v. The masks keep the bytes each covers. Its deltas, after the
// attributes, are read as one little-endian word, of which deltaMask
// keeps their bytes: the high bits cont, the same in every record of the
// shape; the timestamp delta's other bits, tsBits; and the offset
// delta's, which for the record at place i are 2i's varintBits. step adds
// 1 to that offset delta. A size of 0 is no shape.
type plainShape struct {
	size, hsz, kpos, vpos uint
	head, k, v            uint16
	headMask, kMask       uint16
	vMask                 uint16
	deltaMask, tsBits     uint32
	cont, step            uint64
}

// skipHeaders steps over n record headers at p in r (a non-null key, a
// nullable value), returning -1 if they do not fit.
func skipHeaders(r []byte, p, n int) int {
	for range n {
		u, q := uvarintSlow(r, p, 5)
		if kl := zigzag32(u); q < 0 || kl < 0 || int(kl) > len(r)-q {
			return -1
		}
		u, q = uvarintSlow(r, q+int(zigzag32(u)), 5)
		if l := zigzag32(u); q < 0 || l < -1 || int(l) > len(r)-q {
			return -1
		}
		p = q + max(int(zigzag32(u)), 0)
	}
	return p
}

// zigzag32 is wire.Reader.Varint's decoding: the bits beyond 32 dropped.
func zigzag32(u uint64) int32 { return int32(uint32(u)>>1) ^ -int32(uint32(u)&1) }

// uvarintSlow reads a base-128 varint of at most maxBytes bytes at p and
// returns it with the offset after it, -1 if there is none.
func uvarintSlow(b []byte, p, maxBytes int) (uint64, int) {
	if p < 0 {
		return 0, -1
	}
	var u uint64
	for i := range maxBytes {
		if p >= len(b) {
			return 0, -1
		}
		c := b[p]
		p++
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return u, p
		}
	}
	return 0, -1
}

// timestamps keeps the largest of -1 and base + each timestamp delta the
// walk reads, adding as Java's long addition does (wrapping). It is a
// struct with a method so that walkPlain's loop, whose values fill the
// registers, reads it only where it changes, at a record with a timestamp
// delta of its own: the compiler keeps it on the stack (a base and a max
// of their own cost the loop of records framed alike spills and reloads,
// some four instructions a record, with Go 1.26).
type timestamps struct{ base, max int64 }

// add counts the record whose timestamp delta is u in zig-zag, as
// wire.Reader.Varlong reads it.
func (m *timestamps) add(u uint64) {
	m.max = max(m.max, m.base+(int64(u>>1)^-int64(u&1)))
}
