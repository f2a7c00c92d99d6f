// Package inspect prints the batches of Kafka segment files, as text for
// people and as JSON Lines for scripts (the `eoslab inspect` command).
//
// A segment is read as a stream, one batch at a time: Reader decodes a
// batch, a TextWriter or JSONWriter prints it, and the next batch reuses
// the memory. Nothing holds a whole file, so memory stays at the largest
// batch (record.MaxBatchSize and record.MaxRecordsSize bound it).
package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/eoslab/eoslab/engine/record"
)

// Batch is one decoded batch of a segment file with what inspect knows about it.
type Batch struct {
	Position int64
	record.Batch
	CRCValid bool
	Computed uint32
	Marker   *record.Marker
	// Err is the batch's problem other than its CRC: a decoding failure,
	// an unknown codec, records beyond the decompression limit, or a
	// control batch that is not one control record. The batch is still shown.
	Err error

	marker record.Marker // what Marker points to, so a batch costs no allocation
}

// Problem is what inspect reports about the batch, with its position: the
// CRC mismatch first (a corrupt batch explains any other failure), else Err.
func (b *Batch) Problem() error {
	switch {
	case !b.CRCValid:
		return &record.PositionError{Position: b.Position, Err: &record.CRCError{Stored: b.CRC, Computed: b.Computed}}
	case b.Err != nil:
		return &record.PositionError{Position: b.Position, Err: b.Err}
	}
	return nil
}

// Reader decodes the batches of one segment as they arrive from a stream.
type Reader struct {
	seg   *record.SegmentReader
	dec   record.Decoder
	batch Batch
}

// NewReader reads a segment from r, which should be buffered (bufio.Reader).
func NewReader(r io.Reader) *Reader {
	rd := &Reader{seg: record.NewSegmentReader(r)}
	rd.dec.Reuse = true
	return rd
}

// Next decodes the next batch. The batch, its records and their bytes are
// the Reader's and are overwritten by the following call. False at the end
// of the stream or when its framing fails (see Err).
func (r *Reader) Next() (*Batch, bool) {
	pos, raw, ok := r.seg.Next()
	if !ok {
		return nil, false
	}
	decode(&r.dec, pos, raw, &r.batch)
	return &r.batch, true
}

// Err is the failure that stopped the reader (a truncated or corrupt
// frame, a batch beyond record.MaxBatchSize, a read error), or nil at a
// clean end. Everything before it has been returned by Next.
func (r *Reader) Err() error { return r.seg.Err() }

// isCRCError is apart from decode so that its target is allocated only
// when there is an error to look at.
func isCRCError(err error) bool {
	var ce *record.CRCError
	return errors.As(err, &ce)
}

func decode(dec *record.Decoder, pos int64, raw []byte, b *Batch) {
	b.Position = pos
	b.Marker = nil
	b.Err = nil
	err := dec.Decode(raw, &b.Batch)
	b.Computed = b.CRC // Decode has checked it
	if err != nil {
		b.Computed = record.ComputeCRC(raw)
		if !isCRCError(err) {
			b.Err = err
		}
	}
	b.CRCValid = b.Computed == b.CRC
	if b.Err == nil && b.Attributes.Control() {
		b.Err = checkControl(b)
	}
}

// checkControl holds a control batch to Kafka's shape: the partition
// leader writes exactly one control record in it
// (MemoryRecords.withEndTransactionMarker), and every reader looks at the
// first record only (ProducerAppendInfo.append, CompletedFetch), so any
// further record would be silently ignored by Kafka. An empty control
// batch is Kafka's too: the log cleaner keeps a marker's batch without its
// record once the transaction is cleaned ("an empty control batch means
// the entire transaction has been cleaned from the log").
func checkControl(b *Batch) error {
	switch n := len(b.Records); {
	case n == 0:
		return nil
	case n > 1:
		return fmt.Errorf("control batch holds %d records: Kafka writes exactly one control record per control batch and reads only the first", n)
	}
	mk, err := record.ParseMarker(&b.Batch)
	if err != nil {
		return fmt.Errorf("invalid control record (InvalidRecordException in Kafka's ControlRecordType.parse / EndTransactionMarker.deserialize): %w", err)
	}
	b.marker = mk
	b.Marker = &b.marker
	return nil
}

// Read decodes every batch of a segment held in memory, each one kept (the
// interactive inspector browses them). Batches whose CRC does not match
// are still returned (CRCValid false). A framing failure stops the scan; it
// comes back as the error, after everything readable before it.
func Read(data []byte) ([]Batch, error) {
	var out []Batch
	var dec record.Decoder // fresh buffers: every batch outlives the next
	r := record.NewSegmentReader(bytes.NewReader(data))
	for pos, raw, ok := r.Next(); ok; pos, raw, ok = r.Next() {
		var b Batch
		decode(&dec, pos, raw, &b)
		if b.Marker != nil {
			mk := *b.Marker
			b.Marker = &mk
		}
		// The segment reader's bytes and the decoder's slices are reused by
		// the next batch; uncompressed keys and values alias raw.
		b.Records = slices.Clone(b.Records)
		for i := range b.Records {
			rec := &b.Records[i]
			rec.Key, rec.Value = clone(rec.Key), clone(rec.Value)
			rec.Headers = slices.Clone(rec.Headers)
			for j := range rec.Headers {
				rec.Headers[j].Value = clone(rec.Headers[j].Value)
			}
		}
		out = append(out, b)
	}
	return out, r.Err()
}

// clone copies b, keeping nil (a null key or value) apart from empty.
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// Problems lists every batch-level problem: CRC mismatches, undecodable
// batches, unknown codecs, control batches that are not one control record.
func Problems(batches []Batch) []error {
	var errs []error
	for i := range batches {
		if p := batches[i].Problem(); p != nil {
			errs = append(errs, p)
		}
	}
	return errs
}

// BatchWriter prints batches one at a time; Flush writes out what it buffers.
type BatchWriter interface {
	Write(b *Batch) error
	Flush() error
}

// Copy prints every batch of a segment read from r with w, calling problem
// for each batch's problem and for the failure that stops the reader, after
// w has flushed what comes before it, so that on a terminal each message
// follows its batch. drained, if not nil, reports whether the input has
// nothing more buffered: then w is flushed too, so that a slow pipe shows
// each batch as it arrives rather than when 64 KiB of output have piled up.
// Copy returns the error of writing the output.
func Copy(w BatchWriter, r io.Reader, drained func() bool, problem func(error)) error {
	rd := NewReader(r)
	for {
		b, ok := rd.Next()
		if !ok {
			break
		}
		if err := w.Write(b); err != nil {
			return err
		}
		if p := b.Problem(); p != nil {
			if err := w.Flush(); err != nil {
				return err
			}
			problem(p)
		} else if drained != nil && drained() {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := rd.Err(); err != nil {
		problem(err)
	}
	return nil
}
