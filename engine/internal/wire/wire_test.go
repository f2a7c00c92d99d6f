package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"testing"
)

// Zig-zag varints as Kafka writes them (ByteUtils.writeVarint/writeVarlong).
func TestVarintVectors(t *testing.T) {
	cases := []struct {
		v   int64
		hex string
	}{
		{0, "00"}, {-1, "01"}, {1, "02"}, {-2, "03"}, {63, "7e"}, {-64, "7f"}, {64, "8001"},
		{300, "d804"}, {math.MaxInt32, "feffffff0f"}, {math.MinInt32, "ffffffff0f"},
	}
	for _, c := range cases {
		got := hex.EncodeToString(AppendVarint(nil, int32(c.v)))
		if got != c.hex || VarintLen(int32(c.v)) != len(c.hex)/2 {
			t.Errorf("varint %d = %s, want %s", c.v, got, c.hex)
		}
		r := Reader{Src: AppendVarint(nil, int32(c.v))}
		if back := r.Varint(); int64(back) != c.v || r.Err() != nil || r.Remaining() != 0 {
			t.Errorf("read back %d: %d %v", c.v, back, r.Err())
		}
		// With a byte after it (the one- and two-byte fast paths read ahead).
		r = Reader{Src: append(AppendVarint(nil, int32(c.v)), 0x80)}
		if back := r.Varint(); int64(back) != c.v || r.Err() != nil || r.Remaining() != 1 {
			t.Errorf("read back %d followed by a byte: %d %v", c.v, back, r.Err())
		}
	}
	if got := hex.EncodeToString(AppendVarlong(nil, math.MinInt64)); got != "ffffffffffffffffff01" {
		t.Errorf("varlong min = %s", got)
	}
}

func TestReaderSticksAtFirstFailure(t *testing.T) {
	r := Reader{Src: []byte{0, 1, 2}}
	r.Int16()
	if r.Int32() != 0 || !errors.Is(r.Err(), ErrShort) || r.FailedAt() != 2 {
		t.Fatalf("err %v at %d", r.Err(), r.FailedAt())
	}
	if r.Int8() != 0 || r.FailedAt() != 2 {
		t.Fatal("a later read moved the failure")
	}
	over := Reader{Src: bytes.Repeat([]byte{0xff}, 6)}
	if over.Varint(); !errors.Is(over.Err(), ErrVarint) {
		t.Fatalf("6-byte varint: %v", over.Err())
	}
	neg := Reader{Src: AppendVarint(nil, -2)}
	if neg.NullableBytes(); neg.Err() == nil {
		t.Fatal("length -2 accepted")
	}
}

func FuzzReader(f *testing.F) {
	f.Add(AppendNullableBytes(AppendVarlong(AppendVarint(nil, -5), 1<<40), []byte("kafka")))
	f.Add([]byte{0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Reader{Src: data}
		a, b, c := r.Varint(), r.Varlong(), r.NullableBytes()
		if r.Err() != nil {
			if r.FailedAt() > len(data) {
				t.Fatalf("failure offset %d beyond input %d", r.FailedAt(), len(data))
			}
			return
		}
		// What was read re-encodes to the bytes consumed.
		enc := AppendNullableBytes(AppendVarlong(AppendVarint(nil, a), b), c)
		if !bytes.Equal(enc, data[:r.Off]) {
			// Non-minimal varints (e.g. 0x80 0x00) decode fine but re-encode shorter.
			r2 := Reader{Src: enc}
			if r2.Varint() != a || r2.Varlong() != b || !bytes.Equal(r2.NullableBytes(), c) {
				t.Fatalf("round trip changed values")
			}
		}
	})
}
