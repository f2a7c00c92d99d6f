package trace

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/record"
)

// Each sentence renders the words its producer wrote before it was
// deferred (the transcripts' goldens hold them too), from the attributes
// and the arguments alone.
func TestSentences(t *testing.T) {
	send := func(b Builder, resp bool) Builder {
		return b.Int(KeyMessage, 13).Str(KeyAPI, "Produce").Bool(KeyResponse, resp).Str(KeyFrom, "p1").Str(KeyTo, "broker 1").
			Int(KeyDueMs, 14).Bool(KeyDelayed, false).Str(KeyConnection, "p1-broker 1 #1")
	}
	decision := func(b Builder, pid int64) Builder {
		return b.Int(KeyBroker, 2).Str(KeyPartition, "orders-1").Int(KeyProducerID, pid).Int(KeyProducerEpoch, 3).
			Int(KeyBaseSequence, 2147483646).Int(KeyLastSequence, 1).Int(KeyRecordCount, 4).Bool(KeyTransactional, false).
			Str(KeyOutcome, "append").Str(KeyError, "NONE").Int(KeyBaseOffset, 700)
	}
	for _, c := range []struct {
		name  string
		build func(Builder) Builder
		want  string
	}{
		{"send", func(b Builder) Builder {
			return send(b, false).Say(SentenceSend).ArgText("acks=-1 [orders-0 batch #6]")
		},
			"p1 sends Produce #13 to broker 1: acks=-1 [orders-0 batch #6]"},
		{"answer", func(b Builder) Builder { return send(b, true).Say(SentenceSend).ArgText("orders-0 NONE base offset 5") },
			"p1 answers Produce #13 to broker 1: orders-0 NONE base offset 5"},
		{"send a produce", func(b Builder) Builder {
			return send(b, false).Say(SentenceSendProduce).Arg(-1).
				ArgStr("orders-0").Arg(70000).ArgHeader(header(-1, -1, -1, 0, 1)).
				ArgStr("orders-1").Arg(6).ArgHeader(header(900000, 3, 2147483646, 2, 3))
		},
			"p1 sends Produce #13 to broker 1: acks=-1 [orders-0 batch #70000 (1 record); orders-1 batch #6 pid 900000 epoch 3 seq 2147483646-0 (3 records)]"},
		{"answer a produce", func(b Builder) Builder {
			return send(b, true).Say(SentenceSendProduced).ArgStr("orders-0").Arg(0).Arg(5).ArgStr("orders-1").Arg(19).Arg(-1)
		},
			"p1 answers Produce #13 to broker 1: orders-0 NONE base offset 5; orders-1 NOT_ENOUGH_REPLICAS base offset -1"},
		{"deliver", func(b Builder) Builder { return send(b, false).Say(SentenceDeliver) },
			"broker 1 receives Produce #13 from p1"},
		{"deliver with a note", func(b Builder) Builder { return send(b, false).Say(SentenceDeliver).ArgText(" (late)") },
			"broker 1 receives Produce #13 from p1 (late)"},
		{"append", func(b Builder) Builder { return decision(b, 9).Say(SentenceAppend).Arg(3) },
			"broker 2 appends pid 9 epoch 3 seq 2147483646-1 to orders-1 at offsets 700-703"},
		{"append, plain", func(b Builder) Builder { return decision(b, -1).Say(SentenceAppend).Arg(3) },
			"broker 2 appends a plain batch of 4 record(s) to orders-1 at offsets 700-703"},
		{"hw", func(b Builder) Builder {
			return b.Int(KeyBroker, 1).Str(KeyPartition, "orders-0").Int(KeyHighWatermark, 1_000_000).Int(KeyLastStableOffset, 6).
				Say(SentenceHW).Arg(1).Arg(200).Arg(3)
		}, "broker 1 advances the high watermark of orders-0 to 1000000 (ISR [1 200 3])"},
		{"hw, empty ISR", func(b Builder) Builder {
			return b.Int(KeyBroker, 1).Str(KeyPartition, "orders-0").Int(KeyHighWatermark, 6).Say(SentenceHW)
		}, "broker 1 advances the high watermark of orders-0 to 6 (ISR [])"},
		{"ack", func(b Builder) Builder {
			return b.Str(KeyProducer, "p1").Int(KeyBatch, 6).Str(KeyPartition, "orders-0").Int(KeyBaseSequence, 5).
				Int(KeyBaseOffset, 5).Int(KeyRecordCount, 3).Say(SentenceAck)
		}, "p1 batch #6 acknowledged: orders-0 offsets 5-7"},
		{"ack, acks=0", func(b Builder) Builder {
			return b.Str(KeyProducer, "p1").Int(KeyBatch, 6).Str(KeyPartition, "orders-0").Int(KeyBaseOffset, -1).
				Int(KeyRecordCount, 3).Say(SentenceAck)
		}, "p1 batch #6 counted as sent (acks=0: no answer, no offsets)"},
		{"enqueue", func(b Builder) Builder {
			return b.Str(KeyProducer, "p1").Int(KeyBatch, 6).Str(KeyPartition, "orders-0").Int(KeyRecordCount, 1).
				Say(SentenceEnqueue).Arg(5)
		}, "p1 enqueues batch #6: 1 record for orders-0 (serials 5-5)"},
		{"enqueue, many", func(b Builder) Builder {
			return b.Str(KeyProducer, "p1").Int(KeyBatch, 6).Str(KeyPartition, "orders-0").Int(KeyRecordCount, 300).
				Say(SentenceEnqueue).Arg(1 << 40)
		}, "p1 enqueues batch #6: 300 records for orders-0 (serials 1099511627776-1099511628075)"},
	} {
		var s Slab
		e := Event{Kind: "k", Attrs: s.Done(c.build(s.Begin(64)))}
		if got := e.Text(); got != c.want {
			t.Errorf("%s: got  %q\nwant %q", c.name, got, c.want)
		}
		if got := string(e.AppendText([]byte("> "))); got != "> "+c.want {
			t.Errorf("%s: AppendText %q", c.name, got)
		}
		if !strings.Contains(string(e.AppendJSON(nil)), `"text":"`+c.want+`"`) || !strings.HasSuffix(e.Describe(), "\t"+c.want) {
			t.Errorf("%s: JSON %s, text %q do not say it", c.name, e.AppendJSON(nil), e.Describe())
		}
	}
}

// A sentence and its arguments are not attributes: no reader of the
// attributes meets them, whatever bytes the arguments hold.
func TestSentenceHidden(t *testing.T) {
	var s Slab
	plain := s.Done(s.Begin(32).Str(KeyProducer, "p1").Int(KeyBatch, 6))
	said := s.Done(s.Begin(32).Str(KeyProducer, "p1").Int(KeyBatch, 6).Say(SentenceEnqueue).Arg(-1).ArgText("\xff\xfe\x00 i"))
	if said.Len() != plain.Len() || said.Len() != 2 {
		t.Fatalf("Len %d, want %d", said.Len(), plain.Len())
	}
	var keys []string
	for k := range said.All() {
		keys = append(keys, k)
	}
	if strings.Join(keys, ",") != "producer,batch" {
		t.Fatalf("All yields %v", keys)
	}
	if _, ok := said.Get("serials"); ok {
		t.Fatal("Get found an argument")
	}
	a, b := Event{Kind: "k", Attrs: plain}, Event{Kind: "k", Attrs: said}
	a.SetText("x")
	b.SetText("x") // a text set wins over the sentence
	if string(a.AppendJSON(nil)) != string(b.AppendJSON(nil)) {
		t.Fatalf("JSON differs:\n%s\n%s", a.AppendJSON(nil), b.AppendJSON(nil))
	}
	if (&Event{Attrs: plain}).Text() != "" {
		t.Fatal("an event with neither text nor sentence says something")
	}
	// A text kept first, whatever its bytes, is no attribute either, and
	// an event with one and a Sentence says the text.
	odd := "\xfe\x00\xfe" + strings.Repeat("é", 100)
	c := Event{Kind: "k", Attrs: said}
	c.SetText(odd)
	if c.Text() != odd || string(c.AppendText(nil)) != odd || c.Attrs.Len() != 2 || c.Str("producer") != "p1" || len(said) != len(plain)+8 {
		t.Fatalf("text %q, %d attributes, producer %q", c.Text(), c.Attrs.Len(), c.Str("producer"))
	}
	n := New("k", odd).With("producer", Str("p1")).With("batch", Int(6))
	if n.Text() != odd || !reflect.DeepEqual(n.Attrs[n.Attrs.bytes().start():], plain) {
		t.Fatalf("New: text %q, attributes % x", n.Text(), n.Attrs)
	}
	n.SetText("again")
	if n.Text() != "again" || n.Attrs.Len() != 2 {
		t.Fatalf("SetText: text %q, %d attributes", n.Text(), n.Attrs.Len())
	}
}

// header is a record batch's header with the fields a produce request's
// content says (SentenceSendProduce).
func header(pid int64, epoch int16, seq, lastDelta, count int32) []byte {
	b := make([]byte, record.HeaderSize)
	binary.BigEndian.PutUint32(b[record.LastOffsetDeltaOffset:], uint32(lastDelta))
	binary.BigEndian.PutUint64(b[record.ProducerIDOffset:], uint64(pid))
	binary.BigEndian.PutUint16(b[record.ProducerEpochOffset:], uint16(epoch))
	binary.BigEndian.PutUint32(b[record.BaseSequenceOffset:], uint32(seq))
	binary.BigEndian.PutUint32(b[record.RecordsCountOffset:], uint32(count))
	return b
}

// A produce request's batch refs (BatchRefs) read as the JSON list an
// attribute written out would hold, from the sentence's arguments, and
// the event reads as it would with that attribute: the same JSON, the
// same text.
func TestBatchRefsReadAsTheirList(t *testing.T) {
	head := func(b Builder) Builder {
		return b.Int(KeyMessage, 13).Str(KeyAPI, "Produce").Bool(KeyResponse, false).Str(KeyFrom, "p1").Str(KeyTo, "broker 1").
			Int(KeyDueMs, 14).Bool(KeyDelayed, false).Str(KeyConnection, "p1-broker 1 #1")
	}
	content := func(b Builder) Builder {
		return b.Say(SentenceSendProduce).Arg(-1).
			ArgStr("orders-0").Arg(70000).ArgHeader(header(-1, -1, -1, 0, 1)).
			ArgStr(`odd"topic-1`).Arg(6).ArgHeader(header(900000, 3, 2147483646, 2, 3))
	}
	list := `[{"partition":"orders-0","batch":70000},{"partition":"odd\"topic-1","batch":6}]`
	refs := Event{Kind: "message.send", Attrs: Attrs(content(head(nil).BatchRefs(KeyBatches)))}
	written := Event{Kind: "message.send", Attrs: Attrs(content(head(nil).JSON(KeyBatches, list)))}
	if v, ok := refs.Attrs.Get("batches"); !ok || v.String() != list {
		t.Fatalf("batches read as %q, want %q", v.String(), list)
	}
	if refs.Attrs.Len() != written.Attrs.Len() || refs.Text() != written.Text() ||
		string(refs.AppendJSON(nil)) != string(written.AppendJSON(nil)) {
		t.Fatalf("read as\n%s\n%s\nwant\n%s\n%s", refs.AppendJSON(nil), refs.Text(), written.AppendJSON(nil), written.Text())
	}
	if len(refs.Attrs) >= len(written.Attrs)-len(list) {
		t.Fatalf("batch refs take %d bytes, the list written out %d", len(refs.Attrs), len(written.Attrs))
	}
	// Without the produce sentence, there is nothing to name.
	if v, _ := Attrs(head(nil).BatchRefs(KeyBatches).Say(SentenceSend).ArgText("acks=1")).Get("batches"); v.String() != "[]" {
		t.Fatalf("batches without their sentence read as %q", v.String())
	}
}
