package trace

import (
	"encoding/binary"
	"unsafe"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/producerstate"
	"github.com/eoslab/eoslab/engine/record"
)

// Sentence is a form of words an event's attributes fill in: an event
// whose attributes end with one (Builder.Say) keeps no text, and Text
// renders it when the event is read. The produce path's events say
// nothing their attributes do not already hold, but kept as text they
// were about 460 bytes of a traced produce's 1.7 KB, bytes a trace keeps
// for as long as the world does and the kernel has to hand out fresh
// pages for; built at every event, they were also a good part of what
// tracing cost. What the attributes do not hold travels after the
// Sentence as its arguments.
type Sentence byte

// The sentences, with what each says. {key} is the attribute's value.
const (
	// sentenceText is a text kept as it is, before the attributes.
	sentenceText Sentence = iota
	// SentenceSend (message.send): "{from} sends {api} #{message} to
	// {to}: ARG", "answers" for a response; the argument is the rest of
	// the sentence as text (the message's content).
	SentenceSend
	// SentenceDeliver (message.deliver): "{to} receives {api} #{message}
	// from {from}ARG"; the argument, a note, as text.
	SentenceDeliver
	// SentenceAppend (produce.decision, outcome append): "broker {broker}
	// appends pid {producer_id} epoch {producer_epoch} seq
	// {base_sequence}-{last_sequence} to {partition} at offsets
	// {base_offset}-LAST", or "a plain batch of {record_count} record(s)"
	// for a batch without a producer id; the argument, LAST-{base_offset}.
	SentenceAppend
	// SentenceHW (hw.advance): "broker {broker} advances the high
	// watermark of {partition} to {high_watermark} (ISR [ARGS])"; the
	// arguments, the ISR's brokers.
	SentenceHW
	// SentenceAck (producer.ack): "{producer} batch #{batch} acknowledged:
	// {partition} offsets {base_offset}-LAST", LAST from {record_count}; or,
	// with {base_offset} -1, "{producer} batch #{batch} counted as sent
	// (acks=0: no answer, no offsets)".
	SentenceAck
	// SentenceEnqueue (producer.enqueue): "{producer} enqueues batch
	// #{batch}: {record_count} record(s) for {partition} (serials
	// FIRST-LAST)"; the argument, FIRST.
	SentenceEnqueue
	// SentenceSendProduce (message.send of a produce request): as
	// SentenceSend, its content "acks=ACKS [BATCH; ...]" said from the
	// arguments: ACKS, then for each batch its partition (ArgStr), batch
	// id and the header's fields said (ArgHeader), said as "{partition}
	// batch #ID pid P epoch E seq F-L (N record(s))", without "pid ...
	// seq ..." for a producer id below 0.
	SentenceSendProduce
	// SentenceSendProduced (message.send of a produce response): as
	// SentenceSend, its content "RESULT; ..." said from the arguments: for
	// each result its partition (ArgStr), error code and base offset, said
	// as "{partition} ERROR base offset OFFSET" with the error's name.
	SentenceSendProduced
	sentences
)

// appendText starts attributes a with the text, if there is one.
func appendText(a []byte, text string) []byte {
	if text == "" {
		return a
	}
	return append(appendLen(append(a, sentenceKey, byte(sentenceText)), len(text)), text...)
}

// text is the text the attributes start with, if they do (after a
// decision).
func (a attrBytes) text() (string, bool) {
	d := a.decisionEnd()
	if len(a) < d+3 || a[d] != sentenceKey || a[d+1] != byte(sentenceText) {
		return "", false
	}
	n, k := binary.Uvarint(a[d+2:])
	return a.str(d+2+k, int(n)), true
}

// start is where the attributes proper start: after the decision and the
// text, if the attributes start with them.
func (a attrBytes) start() int {
	d := a.decisionEnd()
	if len(a) < d+3 || a[d] != sentenceKey || a[d+1] != byte(sentenceText) {
		return d
	}
	n, k := binary.Uvarint(a[d+2:])
	return d + 2 + k + int(n)
}

// decisionEnd is where a decision the attributes start with ends (0:
// none): decisionKey, the packed decision's length and its bytes.
func (a attrBytes) decisionEnd() int {
	if len(a) < 2 || a[0] != decisionKey {
		return 0
	}
	return 2 + int(a[1])
}

// decision is the decision the attributes start with, if they do.
func (a attrBytes) decision() (producerstate.Decision, bool) {
	end := a.decisionEnd()
	if end == 0 || end > len(a) {
		return producerstate.Decision{}, false
	}
	d, n, ok := producerstate.UnpackDecision(a[2:end])
	return d, ok && n == end-2
}

// Decision starts the attributes with a produce.decision's decision,
// packed (Event.Decision unpacks it): it must come first, before the
// text. Every number of it is said by the event's attributes too, but
// not as the decision tree reads them.
func (b Builder) Decision(d *producerstate.Decision) Builder {
	b = append(b, decisionKey, 0)
	b = Builder(d.AppendPacked(b))
	b[1] = byte(len(b) - 2) // at most MaxPackedDecision, which a byte holds
	return b
}

// Text starts the attributes with the event's text, kept as it is (a
// sentence no form says): it must come first.
func (b Builder) Text(t []byte) Builder {
	return Builder(appendText(b, unsafe.String(unsafe.SliceData(t), len(t))))
}

// Say ends the attributes with sentence s: the arguments it takes follow
// (Arg, ArgText), and no attribute may (they would be read as arguments).
func (b Builder) Say(s Sentence) Builder { return append(b, sentenceKey, byte(s)) }

// Arg appends an integer argument of the sentence.
func (b Builder) Arg(v int64) Builder { return appendInt(b, v) }

// ArgStr appends a text argument of the sentence, with its length.
func (b Builder) ArgStr(s string) Builder { return append(appendLen(b, len(s)), s...) }

// ArgHeader appends the fields of a record batch's header (one that
// record.HeaderParses) a produce request's content says, as the header
// holds them: its last offset delta, then its producer id, epoch, base
// sequence and record count, which follow each other. Copied, they cost
// a fraction of the instructions of five varints.
func (b Builder) ArgHeader(data []byte) Builder {
	b = append(b, data[record.LastOffsetDeltaOffset:record.LastOffsetDeltaOffset+4]...)
	return append(b, data[record.ProducerIDOffset:record.HeaderSize]...)
}

// argHeaderLen is the length of ArgHeader's argument.
const argHeaderLen = 4 + record.HeaderSize - record.ProducerIDOffset

// ArgText appends the sentence's text argument, which runs to the end.
func (b Builder) ArgText(s string) Builder { return append(b, s...) }

// appendSentence appends the text of the sentence the attributes end
// with, if they do.
func (a attrBytes) appendSentence(b []byte) []byte {
	// The produce path's keys are the table's first: one pass finds them.
	var v [KeyLastStableOffset + 1]Value
	i := a.start()
	for i < len(a) && a[i] != sentenceKey {
		k := a[i]
		if k < foldedBase && i+1 < len(a) && (a[i+1] == 'r' || a[i+1] == 'C') {
			// Batch refs and a connection, which no sentence says: not
			// read (a connection's name would be built).
			i += 2
			if a[i-1] == 'C' {
				_, n := argInt(a[i:])
				i += n
			}
			continue
		}
		if k >= foldedBase && k < foldedBase+3*foldedKeys {
			k = (k - foldedBase) % foldedKeys
		}
		at, next := a.at(i)
		if k < byte(len(v)) {
			v[k] = at.Val
		}
		i = next
	}
	if i+1 >= len(a) || Sentence(a[i+1]) == sentenceText || Sentence(a[i+1]) >= sentences {
		return b
	}
	s, args := Sentence(a[i+1]), a[i+2:]
	str := func(k Key) string { return v[k].s }
	num := func(k Key) int64 { return v[k].i }
	switch s {
	case SentenceSend, SentenceSendProduce, SentenceSendProduced:
		b = append(b, str(KeyFrom)...)
		if v[KeyResponse].i == 1 {
			b = append(b, " answers "...)
		} else {
			b = append(b, " sends "...)
		}
		b = AppendInt(append(append(b, str(KeyAPI)...), " #"...), num(KeyMessage))
		b = append(append(append(b, " to "...), str(KeyTo)...), ": "...)
		switch s {
		case SentenceSendProduce:
			return appendProduceArgs(b, args)
		case SentenceSendProduced:
			return appendProducedArgs(b, args)
		}
		return append(b, args...)
	case SentenceDeliver:
		b = append(append(append(b, str(KeyTo)...), " receives "...), str(KeyAPI)...)
		b = AppendInt(append(b, " #"...), num(KeyMessage))
		return append(append(append(b, " from "...), str(KeyFrom)...), args...)
	case SentenceAppend:
		b = AppendInt(append(b, "broker "...), num(KeyBroker))
		if num(KeyProducerID) < 0 {
			b = AppendInt(append(b, " appends a plain batch of "...), num(KeyRecordCount))
			b = append(b, " record(s)"...)
		} else {
			b = AppendInt(append(b, " appends pid "...), num(KeyProducerID))
			b = AppendInt(append(b, " epoch "...), num(KeyProducerEpoch))
			b = AppendInt(append(b, " seq "...), num(KeyBaseSequence))
			b = AppendInt(append(b, '-'), num(KeyLastSequence))
		}
		last, _ := argInt(args)
		b = append(append(append(b, " to "...), str(KeyPartition)...), " at offsets "...)
		return AppendInt(append(AppendInt(b, num(KeyBaseOffset)), '-'), num(KeyBaseOffset)+last)
	case SentenceHW:
		b = AppendInt(append(b, "broker "...), num(KeyBroker))
		b = append(append(b, " advances the high watermark of "...), str(KeyPartition)...)
		b = append(AppendInt(append(b, " to "...), num(KeyHighWatermark)), " (ISR ["...)
		for j := 0; len(args) > 0; j++ {
			x, n := argInt(args)
			if j > 0 {
				b = append(b, ' ')
			}
			b, args = AppendInt(b, x), args[n:]
		}
		return append(b, "])"...)
	case SentenceAck:
		b = AppendInt(append(append(b, str(KeyProducer)...), " batch #"...), num(KeyBatch))
		base := num(KeyBaseOffset)
		if base < 0 {
			return append(b, " counted as sent (acks=0: no answer, no offsets)"...)
		}
		b = append(append(append(b, " acknowledged: "...), str(KeyPartition)...), " offsets "...)
		return AppendInt(append(AppendInt(b, base), '-'), base+num(KeyRecordCount)-1)
	case SentenceEnqueue:
		b = AppendInt(append(append(b, str(KeyProducer)...), " enqueues batch #"...), num(KeyBatch))
		n := num(KeyRecordCount)
		b = append(AppendInt(append(b, ": "...), n), " record"...)
		if n != 1 {
			b = append(b, 's')
		}
		first, _ := argInt(args)
		b = append(append(append(b, " for "...), str(KeyPartition)...), " (serials "...)
		return append(AppendInt(append(AppendInt(b, first), '-'), first+n-1), ')')
	}
	return b
}

// argInt reads an integer argument (appendInt's varint) and its length.
func argInt(a attrBytes) (int64, int) {
	if len(a) == 0 {
		return 0, 0
	}
	if c := a[0]; c < 0x80 {
		return int64(c>>1) ^ -int64(c&1), 1
	}
	v, n := binary.Varint(a)
	return v, max(n, 1)
}

// argStr reads a text argument (Builder.ArgStr) and its length.
func argStr(a attrBytes) (string, int) {
	n, k := binary.Uvarint(a)
	if k <= 0 || uint64(len(a)-k) < n {
		return "", len(a)
	}
	return a.str(k, int(n)), k + int(n)
}

// appendProduceArgs says a produce request's content (SentenceSendProduce).
func appendProduceArgs(b []byte, args attrBytes) []byte {
	acks, n := argInt(args)
	args = args[n:]
	b = append(AppendInt(append(b, "acks="...), acks), " ["...)
	for i := 0; len(args) > 0; i++ {
		if i > 0 {
			b = append(b, "; "...)
		}
		var f [6]int64 // batch id, producer id, epoch, first and last sequence, record count
		name, n := argStr(args)
		args = args[n:]
		f[0], n = argInt(args)
		args = args[n:]
		if len(args) < argHeaderLen {
			break
		}
		h := record.Header{
			LastOffsetDelta: int32(binary.BigEndian.Uint32(args)),
			ProducerID:      int64(binary.BigEndian.Uint64(args[4:])),
			ProducerEpoch:   int16(binary.BigEndian.Uint16(args[12:])),
			BaseSequence:    int32(binary.BigEndian.Uint32(args[14:])),
			RecordsCount:    int32(binary.BigEndian.Uint32(args[18:])),
		}
		args = args[argHeaderLen:]
		f[1], f[2], f[3], f[4], f[5] = h.ProducerID, int64(h.ProducerEpoch), int64(h.BaseSequence), int64(h.LastSequence()), int64(h.RecordsCount)
		b = AppendInt(append(append(b, name...), " batch #"...), f[0])
		if f[1] >= 0 {
			b = AppendInt(append(b, " pid "...), f[1])
			b = AppendInt(append(b, " epoch "...), f[2])
			b = AppendInt(append(b, " seq "...), f[3])
			b = AppendInt(append(b, '-'), f[4])
		}
		b = append(AppendInt(append(b, " ("...), f[5]), " record"...)
		if f[5] != 1 {
			b = append(b, 's')
		}
		b = append(b, ')')
	}
	return append(b, ']')
}

// appendProducedArgs says a produce response's content
// (SentenceSendProduced).
func appendProducedArgs(b []byte, args attrBytes) []byte {
	for i := 0; len(args) > 0; i++ {
		if i > 0 {
			b = append(b, "; "...)
		}
		name, n := argStr(args)
		args = args[n:]
		code, n := argInt(args)
		args = args[n:]
		base, n := argInt(args)
		args = args[n:]
		b = append(append(append(b, name...), ' '), kerr.Code(code).Name()...)
		b = AppendInt(append(b, " base offset "...), base)
	}
	return b
}
