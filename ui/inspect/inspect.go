// Package inspect prints the batches of Kafka segment files, as text for
// people and as JSON Lines for scripts (the `eoslab inspect` command).
package inspect

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/eoslab/eoslab/engine/record"
)

// Batch is one decoded batch of a segment file with what inspect knows about it.
type Batch struct {
	Position int64
	record.Batch
	CRCValid bool
	Computed uint32
	Marker   *record.Marker
	Err      error // a decoding problem other than the CRC (the batch is still shown)
}

// Read decodes every batch of a segment file. Batches whose CRC does not
// match are still returned (CRCValid false). A framing failure stops the
// scan; it comes back as the error, after everything readable before it.
func Read(data []byte) ([]Batch, error) {
	var out []Batch
	var dec record.Decoder
	s := record.NewScanner(data)
	for pos, raw, ok := s.Next(); ok; pos, raw, ok = s.Next() {
		b := Batch{Position: pos}
		err := dec.Decode(raw, &b.Batch)
		b.Records = append([]record.Record(nil), b.Records...) // the decoder reuses its slice
		b.Computed = record.ComputeCRC(raw)
		b.CRCValid = b.Computed == b.CRC
		if ce := (*record.CRCError)(nil); err != nil && !errors.As(err, &ce) {
			b.Err = &record.PositionError{Position: pos, Err: err}
		}
		if b.Attributes.Control() && len(b.Records) == 1 {
			if mk, err := record.ParseMarker(&b.Batch); err == nil {
				b.Marker = &mk
			}
		}
		out = append(out, b)
	}
	return out, s.Err()
}

// Problems lists every batch-level problem: CRC mismatches and undecodable batches.
func Problems(batches []Batch) []error {
	var errs []error
	for _, b := range batches {
		switch {
		case !b.CRCValid:
			errs = append(errs, &record.PositionError{Position: b.Position, Err: &record.CRCError{Stored: b.CRC, Computed: b.Computed}})
		case b.Err != nil:
			errs = append(errs, b.Err)
		}
	}
	return errs
}

// WriteText prints batches field by field, aligned, with records below.
func WriteText(w io.Writer, batches []Batch) error {
	var sb strings.Builder
	for i, b := range batches {
		if i > 0 {
			sb.WriteByte('\n')
		}
		writeBatchText(&sb, &b)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func writeBatchText(sb *strings.Builder, b *Batch) {
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
	fmt.Fprintf(sb, "batch at position %d: offsets %d-%d, %d record%s, %d bytes, %s\n",
		b.Position, h.BaseOffset, h.LastOffset(), h.RecordsCount, plural, h.Size(), kind)
	crc := fmt.Sprintf("0x%08x valid", h.CRC)
	if !b.CRCValid {
		crc = fmt.Sprintf("0x%08x INVALID (computed 0x%08x)", h.CRC, b.Computed)
	}
	flags := []string{"compression=" + h.Attributes.Compression().String(), "timestampType=" + h.Attributes.TimestampType()}
	if h.Attributes.Transactional() {
		flags = append(flags, "transactional")
	}
	if h.Attributes.Control() {
		flags = append(flags, "control")
	}
	seq := fmt.Sprint(h.BaseSequence)
	if h.BaseSequence >= 0 {
		seq += fmt.Sprintf(" (last %d)", h.LastSequence())
	}
	rows := [][2]string{
		{"baseOffset", fmt.Sprint(h.BaseOffset)},
		{"batchLength", fmt.Sprint(h.BatchLength)},
		{"partitionLeaderEpoch", fmt.Sprint(h.PartitionLeaderEpoch)},
		{"magic", fmt.Sprint(h.Magic)},
		{"crc", crc},
		{"attributes", fmt.Sprintf("0x%04x %s", uint16(h.Attributes), strings.Join(flags, " "))},
		{"lastOffsetDelta", fmt.Sprint(h.LastOffsetDelta)},
		{"baseTimestamp", stamp(h.BaseTimestamp)},
		{"maxTimestamp", stamp(h.MaxTimestamp)},
		{"producerId", fmt.Sprint(h.ProducerID)},
		{"producerEpoch", fmt.Sprint(h.ProducerEpoch)},
		{"baseSequence", seq},
		{"recordsCount", fmt.Sprint(h.RecordsCount)},
	}
	for _, r := range rows {
		fmt.Fprintf(sb, "  %-21s %s\n", r[0], r[1])
	}
	if b.Err != nil {
		fmt.Fprintf(sb, "  error: %v\n", b.Err)
	}
	for _, r := range b.Records {
		off := h.BaseOffset + int64(r.OffsetDelta)
		if b.Marker != nil {
			fmt.Fprintf(sb, "  | offset %d  %s marker, coordinatorEpoch %d\n", off, b.Marker.Type, b.Marker.CoordinatorEpoch)
			continue
		}
		fmt.Fprintf(sb, "  | offset %d  timestamp %d  key %s  value %s", off, h.RecordTimestamp(r.TimestampDelta), quote(r.Key), quote(r.Value))
		for _, hd := range r.Headers {
			fmt.Fprintf(sb, "  header %s=%s", quote([]byte(hd.Key)), quote(hd.Value))
		}
		sb.WriteByte('\n')
	}
}

func stamp(ms int64) string {
	if ms < 0 {
		return fmt.Sprint(ms)
	}
	return fmt.Sprintf("%d (%s)", ms, time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z"))
}

// quote shows bytes as a quoted string, or as hex when they are not text.
func quote(b []byte) string {
	switch {
	case b == nil:
		return "null"
	case utf8.Valid(b):
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("0x%x", b)
}

// WriteJSON prints one JSON object per batch (JSON Lines) with the keys
// documented in docs/inspect.md.
func WriteJSON(w io.Writer, batches []Batch) error {
	for i := range batches {
		line, err := json.Marshal(batchJSON(&batches[i]))
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func batchJSON(b *Batch) object {
	h := &b.Header
	o := object{
		{"position", b.Position}, {"base_offset", h.BaseOffset}, {"last_offset", h.LastOffset()},
		{"batch_length", h.BatchLength}, {"partition_leader_epoch", h.PartitionLeaderEpoch}, {"magic", h.Magic},
		{"crc", h.CRC}, {"crc_valid", b.CRCValid}, {"attributes", h.Attributes},
		{"compression", h.Attributes.Compression().String()}, {"timestamp_type", h.Attributes.TimestampType()},
		{"transactional", h.Attributes.Transactional()}, {"control", h.Attributes.Control()},
		{"last_offset_delta", h.LastOffsetDelta}, {"base_timestamp", h.BaseTimestamp}, {"max_timestamp", h.MaxTimestamp},
		{"producer_id", h.ProducerID}, {"producer_epoch", h.ProducerEpoch}, {"base_sequence", h.BaseSequence},
		{"last_sequence", h.LastSequence()}, {"records_count", h.RecordsCount},
	}
	if b.Marker != nil {
		o = append(o, field{"control_type", b.Marker.Type.String()}, field{"coordinator_epoch", b.Marker.CoordinatorEpoch})
	}
	recs := make([]object, 0, len(b.Records))
	for _, r := range b.Records {
		ro := object{{"offset", h.BaseOffset + int64(r.OffsetDelta)}, {"timestamp", h.RecordTimestamp(r.TimestampDelta)}}
		ro = appendBytes(ro, "key", r.Key)
		ro = appendBytes(ro, "value", r.Value)
		headers := make([]object, 0, len(r.Headers))
		for _, hd := range r.Headers {
			headers = append(headers, appendBytes(object{{"key", hd.Key}}, "value", hd.Value))
		}
		recs = append(recs, append(ro, field{"headers", headers}))
	}
	return append(o, field{"records", recs})
}

// appendBytes adds name as text (valid UTF-8), name_b64 (anything else) or null.
func appendBytes(o object, name string, b []byte) object {
	switch {
	case b == nil:
		return append(o, field{name, nil})
	case utf8.Valid(b):
		return append(o, field{name, string(b)})
	}
	return append(o, field{name + "_b64", base64.StdEncoding.EncodeToString(b)})
}

type field struct {
	key   string
	value any
}

// object is a JSON object that keeps its keys in order.
type object []field

func (o object) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(f.key)
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, k...), ':'), v...)
	}
	return append(buf, '}'), nil
}
