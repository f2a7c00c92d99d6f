package batchbytes

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"github.com/eoslab/eoslab/engine/record"
)

// span is a run of bytes the cursor treats as one unit: a header field or
// one record (or the whole compressed record area).
type span struct {
	start, end int // [start, end)
	field      int // 0-12: header field; -1: a record; -2: compressed records
	record     int // index of the record for field == -1
}

// decoded is everything the panel derives from a batch's bytes, once.
type decoded struct {
	bytes   []byte
	hdr     record.Header
	hdrOK   bool
	batch   record.Batch
	spans   []span
	crcOK   bool
	crc     uint32 // computed
	marker  string // "COMMIT marker, coordinator epoch 7" for control batches
	problem string // why the bytes could not be fully decoded
}

func decode(b []byte) decoded {
	d := decoded{bytes: b}
	h, err := record.ParseHeader(b)
	if err != nil {
		d.problem = err.Error()
		if len(b) < record.HeaderSize {
			return d
		}
	}
	d.hdr, d.hdrOK = h, true
	for i, f := range record.HeaderFields() {
		d.spans = append(d.spans, span{start: f.Offset, end: f.End(), field: i})
	}
	end := min(h.Size(), len(b))
	if end > record.HeaderSize {
		d.crc = record.ComputeCRC(b[:end])
		d.crcOK = d.crc == h.CRC
	}
	if derr := (&record.Decoder{}).Decode(b, &d.batch); derr != nil && d.problem == "" {
		d.problem = derr.Error()
	}
	d.spans = append(d.spans, recordSpans(&d.batch, end)...)
	if h.Attributes.Control() {
		if mk, err := record.ParseMarker(&d.batch); err == nil {
			d.marker = fmt.Sprintf("%s marker, coordinator epoch %d", mk.Type, mk.CoordinatorEpoch)
		}
	}
	return d
}

// recordSpans finds each record's bytes by re-encoding the decoded
// records: uncompressed, the record area is exactly their concatenation.
// A compressed area (or one that does not add up) is one span.
func recordSpans(b *record.Batch, end int) []span {
	if end <= record.HeaderSize {
		return nil
	}
	whole := []span{{start: record.HeaderSize, end: end, field: -2}}
	if b.Attributes.Compression() != record.None {
		return whole
	}
	var out []span
	at := record.HeaderSize
	var buf []byte
	for i := range b.Records {
		buf = record.AppendRecord(buf[:0], &b.Records[i])
		out = append(out, span{start: at, end: at + len(buf), field: -1, record: i})
		at += len(buf)
	}
	if at != end {
		return whole
	}
	return out
}

// spanAt is the index of the span holding byte i.
func (d *decoded) spanAt(i int) int {
	for k, s := range d.spans {
		if i >= s.start && i < s.end {
			return k
		}
	}
	return -1
}

// value is the decoded value of header field i, as the detail line shows it.
func (d *decoded) value(i int) string {
	h := &d.hdr
	switch i {
	case 0:
		return strconv.FormatInt(h.BaseOffset, 10)
	case 1:
		return fmt.Sprintf("%d (the batch is %d bytes)", h.BatchLength, h.Size())
	case 2:
		if h.PartitionLeaderEpoch < 0 {
			return "-1 (not stamped: as the producer sent it)"
		}
		return strconv.Itoa(int(h.PartitionLeaderEpoch))
	case 3:
		return strconv.Itoa(int(h.Magic))
	case 4:
		if d.crcOK {
			return fmt.Sprintf("0x%08x ✓ matches bytes 21-%d", h.CRC, h.Size()-1)
		}
		return fmt.Sprintf("0x%08x ✗ bytes 21-%d give 0x%08x", h.CRC, h.Size()-1, d.crc)
	case 5:
		return attributes(h.Attributes)
	case 6:
		return strconv.Itoa(int(h.LastOffsetDelta))
	case 7:
		return stamp(h.BaseTimestamp)
	case 8:
		return stamp(h.MaxTimestamp)
	case 9:
		if h.ProducerID < 0 {
			return "-1 (no producer id: not idempotent)"
		}
		return strconv.FormatInt(h.ProducerID, 10)
	case 10:
		return strconv.Itoa(int(h.ProducerEpoch))
	case 11:
		if h.BaseSequence < 0 {
			return "-1 (no sequence)"
		}
		return fmt.Sprintf("%d (last %d)", h.BaseSequence, h.LastSequence())
	}
	return strconv.Itoa(int(h.RecordsCount))
}

func attributes(a record.Attributes) string {
	s := fmt.Sprintf("0x%04x %s, %s", uint16(a), a.Compression(), a.TimestampType())
	if a.Transactional() {
		s += ", transactional"
	}
	if a.Control() {
		s += ", control"
	}
	return s
}

// stamp shows a record timestamp with its calendar time. The time is the
// batch's own data, not a clock reading.
func stamp(ms int64) string {
	return fmt.Sprintf("%d (%s)", ms, time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z"))
}

// recordText describes record i.
func (d *decoded) recordText(i int) string {
	if i >= len(d.batch.Records) {
		return ""
	}
	r := &d.batch.Records[i]
	if d.marker != "" {
		return "control record: " + d.marker
	}
	return fmt.Sprintf("offset %d · key %s · value %s", d.hdr.BaseOffset+int64(r.OffsetDelta), quote(r.Key), quote(r.Value))
}

func quote(b []byte) string {
	if b == nil {
		return "null"
	}
	if len(b) > 24 {
		return strconv.Quote(string(b[:24])) + "…"
	}
	return strconv.Quote(string(b))
}

// changedFields compares the bytes of the same batch before and after a
// step: only bytes outside the CRC can differ while the CRC holds, which
// is what a leader does when it assigns offsets and stamps its epoch.
// Different batches (another CRC) are not compared, unless stored says
// that cur is prev as the leader stored it: then a new CRC means the
// leader rewrote bytes the CRC covers (a wrong maxTimestamp) or rebuilt
// the batch (records whose offset deltas were out of order), as Kafka's
// LogValidator does, and recomputed says so.
func changedFields(prev, cur []byte, stored bool) (changed []bool, fields []string, recomputed bool) {
	if len(prev) < record.HeaderSize || len(cur) < record.HeaderSize {
		return nil, nil, false
	}
	crc := record.CRCOffset
	recomputed = binary.BigEndian.Uint32(prev[crc:]) != binary.BigEndian.Uint32(cur[crc:])
	switch {
	case !stored && (recomputed || len(prev) != len(cur)):
		return nil, nil, false
	case len(prev) != len(cur):
		return nil, []string{fmt.Sprintf("rebuilt by the leader, %d → %d bytes", len(prev), len(cur))}, true
	}
	changed = make([]bool, len(cur))
	any := false
	for i := range cur {
		if prev[i] != cur[i] {
			changed[i], any = true, true
		}
	}
	if !any {
		return nil, nil, false
	}
	hp, _ := record.ParseHeader(prev)
	hc, _ := record.ParseHeader(cur)
	if hp.BaseOffset != hc.BaseOffset {
		fields = append(fields, fmt.Sprintf("baseOffset %d→%d", hp.BaseOffset, hc.BaseOffset))
	}
	if hp.PartitionLeaderEpoch != hc.PartitionLeaderEpoch {
		fields = append(fields, fmt.Sprintf("partitionLeaderEpoch %d→%d", hp.PartitionLeaderEpoch, hc.PartitionLeaderEpoch))
	}
	if hp.Attributes != hc.Attributes {
		fields = append(fields, fmt.Sprintf("attributes 0x%04x→0x%04x", uint16(hp.Attributes), uint16(hc.Attributes)))
	}
	if hp.BaseTimestamp != hc.BaseTimestamp {
		fields = append(fields, fmt.Sprintf("baseTimestamp %d→%d", hp.BaseTimestamp, hc.BaseTimestamp))
	}
	if hp.MaxTimestamp != hc.MaxTimestamp {
		fields = append(fields, fmt.Sprintf("maxTimestamp %d→%d", hp.MaxTimestamp, hc.MaxTimestamp))
	}
	if recomputed {
		fields = append(fields, fmt.Sprintf("crc 0x%08x→0x%08x", hp.CRC, hc.CRC))
		if string(prev[record.HeaderSize:]) != string(cur[record.HeaderSize:]) {
			fields = append(fields, "records rewritten")
		}
	}
	return changed, fields, recomputed
}
