package record

import (
	"bytes"
	"math"
	"testing"
)

// TestShortRecordMatchesGeneral writes records on both sides of every
// bound of the short path (lengths 63 and 64, deltas -65 to 64, a body of
// 63 and 64 bytes, nil and empty keys and values, headers) with
// AppendRecord and the general encoder, after a prefix and into room that
// is short or holds stale bytes, and asks for the same bytes.
func TestShortRecordMatchesGeneral(t *testing.T) {
	var blobs [][]byte
	blobs = append(blobs, nil, []byte{})
	for _, n := range []int{1, 2, 28, 29, 57, 58, 62, 63, 64, 65, 200} {
		blobs = append(blobs, bytes.Repeat([]byte{byte(n)}, n))
	}
	deltas := []int64{0, 1, -1, 63, 64, -64, -65, 127, 1 << 20, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64}
	var recs []Record
	for _, k := range blobs {
		for _, v := range blobs {
			recs = append(recs, Record{Key: k, Value: v, Attributes: 5})
		}
	}
	for _, d := range deltas {
		recs = append(recs, Record{TimestampDelta: d, OffsetDelta: int32(d), Value: []byte("v")})
		recs = append(recs, Record{TimestampDelta: d, OffsetDelta: 3, Key: []byte("k")})
		recs = append(recs, Record{TimestampDelta: 2, OffsetDelta: int32(d)})
	}
	recs = append(recs, Record{Value: []byte("v"), Headers: []RecordHeader{{Key: "h", Value: []byte("x")}}})
	stale := bytes.Repeat([]byte{0xee}, 512)
	for i := range recs {
		r := &recs[i]
		want := appendRecordGeneral([]byte("pre"), r)
		for _, room := range [][]byte{[]byte("pre"), append(append(make([]byte, 0, 600), "pre"...), stale...)[:3]} {
			got := AppendRecord(room, r)
			if !bytes.Equal(got, want) {
				t.Fatalf("record %d (%+v):\n got %x\nwant %x", i, r, got, want)
			}
		}
	}
}

// TestAppendOverStaleRoom encodes batches into room whose bytes are not
// zero (a buffer used before) and into room too short for the header,
// and asks for the bytes of a fresh encoding.
func TestAppendOverStaleRoom(t *testing.T) {
	for _, b := range []Batch{idempotentBatch(), multiRecordBatch()} {
		want, err := Encode(&b)
		if err != nil {
			t.Fatal(err)
		}
		var e Encoder
		room := bytes.Repeat([]byte{0xff}, 300)
		got, err := e.Append(room[:2], &b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[2:], want) || !bytes.Equal(got[:2], []byte{0xff, 0xff}) {
			t.Fatalf("over stale room:\n got %x\nwant %x", got[2:], want)
		}
		got, err = e.Append(make([]byte, 5, 20), &b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[5:], want) {
			t.Fatalf("into short room:\n got %x\nwant %x", got[5:], want)
		}
	}
}
