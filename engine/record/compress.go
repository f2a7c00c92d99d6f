package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// xerialMagic opens snappy data framed the way the Java client's
// snappy-java SnappyOutputStream writes it; raw snappy blocks have no header.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// xerialBlock is snappy-java's default chunk size.
const xerialBlock = 32 << 10

// codecs holds compressors and decompressors, created on first use and
// reused. Each runs single-threaded, so no goroutines start on our behalf.
type codecs struct {
	zenc *zstd.Encoder
	zdec *zstd.Decoder
	gz   *gzip.Reader
	lz   *lz4.Reader
	src  bytes.Reader
}

func (c *codecs) compress(dst, src []byte, kind Compression) ([]byte, error) {
	switch kind {
	case Gzip:
		buf := bytes.NewBuffer(dst)
		w := gzip.NewWriter(buf)
		if _, err := w.Write(src); err != nil {
			return dst, err
		}
		if err := w.Close(); err != nil {
			return dst, err
		}
		return buf.Bytes(), nil
	case Snappy:
		return appendXerial(dst, src), nil
	case LZ4:
		buf := bytes.NewBuffer(dst)
		w := lz4.NewWriter(buf)
		if _, err := w.Write(src); err != nil {
			return dst, err
		}
		if err := w.Close(); err != nil {
			return dst, err
		}
		return buf.Bytes(), nil
	case Zstd:
		if c.zenc == nil {
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
			if err != nil {
				return dst, err
			}
			c.zenc = enc
		}
		return c.zenc.EncodeAll(src, dst), nil
	}
	return dst, fmt.Errorf("unknown compression codec %d", kind)
}

// appendXerial writes snappy-java's framing: magic, version 1, compatible
// version 1, then (length, raw snappy block) chunks.
func appendXerial(dst, src []byte) []byte {
	dst = append(dst, xerialMagic...)
	dst = binary.BigEndian.AppendUint32(dst, 1)
	dst = binary.BigEndian.AppendUint32(dst, 1)
	for len(src) > 0 {
		n := min(len(src), xerialBlock)
		block := s2.EncodeSnappy(nil, src[:n])
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(block)))
		dst = append(dst, block...)
		src = src[n:]
	}
	return dst
}

// decompress appends the decompressed form of src to dst[:0], never
// holding more than maxRecordsArea bytes: beyond that it stops and reports
// a *RecordsTooLargeError instead of allocating what the data asks for.
func (c *codecs) decompress(dst, src []byte, kind Compression) ([]byte, error) {
	dst = dst[:0]
	switch kind {
	case Gzip:
		reused := c.gz != nil
		out, err := c.gunzip(dst, src)
		if err != nil && reused {
			// A reader reset from an earlier stream can fail a corrupt one
			// with another error than a new reader does (its decoder keeps
			// tables from before). What a batch is told must not depend on
			// the batches read before it, so it is a new reader's verdict.
			c.gz = nil
			return c.gunzip(dst, src)
		}
		return out, err
	case Snappy:
		return decodeSnappy(dst, src)
	case LZ4:
		c.src.Reset(src)
		if c.lz == nil {
			c.lz = lz4.NewReader(&c.src)
		} else {
			c.lz.Reset(&c.src)
		}
		return readLimited(dst, c.lz, kind)
	case Zstd:
		if c.zdec == nil {
			dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxRecordsArea))
			if err != nil {
				return dst, err
			}
			c.zdec = dec
		}
		out, err := c.zdec.DecodeAll(src, dst)
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			return dst, &RecordsTooLargeError{Codec: kind, Limit: maxRecordsArea}
		}
		return out, err
	}
	return dst, &UnknownCompressionError{ID: kind}
}

// gunzip decompresses src with the reader kept, or a new one.
func (c *codecs) gunzip(dst, src []byte) ([]byte, error) {
	c.src.Reset(src)
	if c.gz == nil {
		r, err := gzip.NewReader(&c.src)
		if err != nil {
			return dst, err
		}
		c.gz = r
	} else if err := c.gz.Reset(&c.src); err != nil {
		return dst, err
	}
	return readLimited(dst, c.gz, Gzip)
}

// readLimited reads r to its end into dst, growing dst no further than
// maxRecordsArea+1 bytes: one byte more than the limit tells an area of
// exactly the limit from a larger one.
func readLimited(dst []byte, r io.Reader, kind Compression) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			if len(dst) > maxRecordsArea {
				return dst[:0], &RecordsTooLargeError{Codec: kind, Limit: maxRecordsArea}
			}
			dst = slices.Grow(dst, min(max(len(dst), 64<<10), maxRecordsArea+1-len(dst)))
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			if len(dst) > maxRecordsArea {
				return dst[:0], &RecordsTooLargeError{Codec: kind, Limit: maxRecordsArea}
			}
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

func decodeSnappy(dst, src []byte) ([]byte, error) {
	if !bytes.HasPrefix(src, xerialMagic) {
		return decodeSnappyBlock(dst, src)
	}
	if len(src) < 16 {
		return dst, errors.New("snappy: truncated xerial header")
	}
	// Every chunk announces its decoded length: add them up first, so that
	// the output is checked against the limit and allocated once.
	total := 0
	for rest := src[16:]; len(rest) > 0; {
		if len(rest) < 4 {
			return dst, errors.New("snappy: truncated chunk length")
		}
		n := int(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if n > len(rest) {
			return dst, errors.New("snappy: chunk longer than the data")
		}
		size, err := s2.DecodedLen(rest[:n])
		if err != nil {
			return dst, fmt.Errorf("snappy: %w", err)
		}
		if total += size; total > maxRecordsArea {
			return dst, &RecordsTooLargeError{Codec: Snappy, Limit: maxRecordsArea}
		}
		rest = rest[n:]
	}
	dst = slices.Grow(dst, total)
	for rest := src[16:]; len(rest) > 0; {
		n := int(binary.BigEndian.Uint32(rest))
		var err error
		if dst, err = decodeSnappyBlock(dst, rest[4:4+n]); err != nil {
			return dst, err
		}
		rest = rest[4+n:]
	}
	return dst, nil
}

// decodeSnappyBlock appends one raw snappy block to dst, checking the
// length the block announces before making room for it.
func decodeSnappyBlock(dst, block []byte) ([]byte, error) {
	n, err := s2.DecodedLen(block)
	if err != nil {
		return dst, fmt.Errorf("snappy: %w", err)
	}
	if len(dst)+n > maxRecordsArea {
		return dst, &RecordsTooLargeError{Codec: Snappy, Limit: maxRecordsArea}
	}
	dst = slices.Grow(dst, n)
	if _, err := s2.Decode(dst[len(dst):len(dst)+n], block); err != nil {
		return dst, fmt.Errorf("snappy: %w", err)
	}
	return dst[:len(dst)+n], nil
}
