package inspect

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var escapeSeeds = []string{
	"", "plain ascii text", `"quoted" and \back\slashed`, "<a href='x'>&amp;</a>",
	"\x00\x01\x07\b\t\n\v\f\r\x1b\x1f\x7f", "line\u2028sep\u2029", "héllo ✓ 🦀 \ufffd",
	"\xff\xfe", "\xe2\x80", "\xe2\x80\xa8\xe2\x80\xa9", "\xed\xa0\x80 surrogate", "\xf4\x90\x80\x80 beyond",
	"12345678\"12345678", "1234567\x80", strings.Repeat("ab\"", 40), strings.Repeat("é", 9),
}

// The hand-written escaper writes what encoding/json writes for a string
// of the same bytes: every ASCII byte, every multi-byte rune, invalid
// UTF-8, HTML characters and line separators, wherever they sit in the
// 8-byte words it steps through.
func FuzzJSONString(f *testing.F) {
	for _, s := range escapeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, _ := json.Marshal(string(b))
		if got := appendJSONString(nil, b); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", b, got, want)
		}
		// Escaped in two pieces, cut where a rune may start, it is the same.
		for cut := 1; cut < len(b) && cut < 12; cut++ {
			if !utf8.RuneStart(b[cut]) {
				continue
			}
			two := appendJSONEscaped([]byte{'"'}, b[:cut])
			two = append(appendJSONEscaped(two, b[cut:]), '"')
			if !bytes.Equal(two, want) {
				t.Fatalf("%q cut at %d:\n got %s\nwant %s", b, cut, two, want)
			}
		}
		if !json.Valid(want) {
			t.Fatal("encoding/json wrote invalid JSON")
		}
	})
}

// The text form quotes as strconv.Quote does, piece by piece.
func FuzzGoQuote(f *testing.F) {
	for _, s := range escapeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !utf8.Valid(b) {
			return // text shows it as hex instead
		}
		want := strconv.Quote(string(b))
		if got := `"` + string(appendGoQuoted(nil, b)) + `"`; got != want {
			t.Fatalf("%q:\n got %s\nwant %s", b, got, want)
		}
	})
}

// Values far larger than the output buffer are escaped in pieces: the
// output is the same as in one go, and the buffer never holds much more
// than a piece.
func TestLargeValuesAreWrittenInPieces(t *testing.T) {
	value := []byte(strings.Repeat("é\x00\"<", flushAt) + "\xff") // not UTF-8: base64
	text := []byte(strings.Repeat("é\x00\"<", flushAt))
	seg := kbatch(0, 0, -1, -1, -1, 0, krec{key: text, value: value, headers: nil})
	var w maxWrite
	jw := NewJSONWriter(&w, "f")
	if problems := render(t, jw, seg); len(problems) != 0 {
		t.Fatal(problems)
	}
	checkAgainstReference(t, seg, "f")
	if w.max > 2*flushAt || cap(jw.o.buf) > 4*flushAt {
		t.Fatalf("largest write %d bytes, buffer %d", w.max, cap(jw.o.buf))
	}
	var tw maxWrite
	tx := NewTextWriter(&tw)
	render(t, tx, seg)
	if tw.max > 2*flushAt || cap(tx.o.buf) > 4*flushAt {
		t.Fatalf("text: largest write %d bytes, buffer %d", tw.max, cap(tx.o.buf))
	}
	want := "key " + strconv.Quote(string(text)) + "  value 0x"
	if !strings.Contains(tw.String(), want) {
		t.Fatal("text quoting differs from strconv.Quote")
	}
}

type maxWrite struct {
	bytes.Buffer
	max int
}

func (w *maxWrite) Write(p []byte) (int, error) {
	w.max = max(w.max, len(p))
	return w.Buffer.Write(p)
}

// Writing a batch's JSON allocates nothing: it appends to one buffer.
func TestJSONWriteDoesNotAllocate(t *testing.T) {
	seg := sampleData(t)
	batches, _ := Read(seg)
	w := NewJSONWriter(io.Discard, sampleName)
	for i := range batches {
		w.Write(&batches[i])
	}
	if n := testing.AllocsPerRun(100, func() {
		for i := range batches {
			w.Write(&batches[i])
		}
		w.Flush()
	}); n != 0 {
		t.Fatalf("%.1f allocations for the sample's 7 batches", n)
	}
}
