package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

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

var errTooLarge = fmt.Errorf("decompressed records exceed %d bytes", maxRecordsArea)

func (c *codecs) decompress(src []byte, kind Compression) ([]byte, error) {
	switch kind {
	case Gzip:
		r, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, err
		}
		return readLimited(r)
	case Snappy:
		return decodeSnappy(src)
	case LZ4:
		return readLimited(lz4.NewReader(bytes.NewReader(src)))
	case Zstd:
		if c.zdec == nil {
			dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxRecordsArea))
			if err != nil {
				return nil, err
			}
			c.zdec = dec
		}
		return c.zdec.DecodeAll(src, nil)
	}
	return nil, fmt.Errorf("unknown compression codec %d", kind)
}

func readLimited(r io.Reader) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, maxRecordsArea+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxRecordsArea {
		return nil, errTooLarge
	}
	return out, nil
}

func decodeSnappy(src []byte) ([]byte, error) {
	if !bytes.HasPrefix(src, xerialMagic) {
		return decodeSnappyBlock(nil, src)
	}
	if len(src) < 16 {
		return nil, errors.New("snappy: truncated xerial header")
	}
	var out []byte
	for rest := src[16:]; len(rest) > 0; {
		if len(rest) < 4 {
			return nil, errors.New("snappy: truncated chunk length")
		}
		n := int(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if n > len(rest) {
			return nil, errors.New("snappy: chunk longer than the data")
		}
		var err error
		if out, err = decodeSnappyBlock(out, rest[:n]); err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	return out, nil
}

func decodeSnappyBlock(dst, block []byte) ([]byte, error) {
	n, err := s2.DecodedLen(block)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	if len(dst)+n > maxRecordsArea {
		return nil, errTooLarge
	}
	out, err := s2.Decode(nil, block)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	return append(dst, out...), nil
}
