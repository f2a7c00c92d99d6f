package producerstate

import (
	"fmt"
	"math"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/record"
)

// Origin says who is appending, which decides how much is checked
// (ProducerAppendInfo, constructor Javadoc).
type Origin uint8

const (
	// Client appends (a producer's Produce request) get every check.
	Client Origin = iota
	// Replication appends (a follower copying the leader's log, or a broker
	// rebuilding state from its own log) are trusted: no duplicate or sequence
	// check, and a lower epoch is only noted.
	Replication
	// Coordinator appends (transaction markers) check epochs only.
	Coordinator
)

func (o Origin) String() string {
	return [...]string{"client", "replication", "coordinator"}[o]
}

// Batch is what producer-state validation reads from a data batch header.
// (The fields are ordered by size: 32 bytes, not 40.)
type Batch struct {
	ProducerID      int64
	MaxTimestamp    int64
	BaseSeq         int32
	LastOffsetDelta int32
	Epoch           int16
	Transactional   bool
}

// BatchOf extracts the fields validation needs from a batch header.
func BatchOf(h *record.Header) Batch {
	return Batch{
		ProducerID: h.ProducerID, Epoch: h.ProducerEpoch, BaseSeq: h.BaseSequence,
		LastOffsetDelta: h.LastOffsetDelta, MaxTimestamp: h.MaxTimestamp,
		Transactional: h.Attributes.Transactional(),
	}
}

// LastSeq is the batch's last sequence, wrapping at MaxInt32.
func (b Batch) LastSeq() int32 { return record.IncrementSequence(b.BaseSeq, b.LastOffsetDelta) }

// Check names one question the broker asks, in the order Kafka asks them
// (UnifiedLog.analyzeAndValidateProducerState, ProducerAppendInfo).
type Check uint8

const (
	CheckProducer    Check = iota + 1 // is there state for this producer id here?
	CheckDuplicate                    // same epoch and exactly the range of a remembered batch?
	CheckEpoch                        // batch epoch lower, equal or higher than the remembered one?
	CheckSequence                     // does the base sequence follow the last one?
	CheckTransaction                  // does the transactional bit fit an open transaction?
)

func (c Check) String() string {
	return [...]string{"", "producer", "duplicate", "epoch", "sequence", "transaction"}[c]
}

// Result is the answer one check gave.
type Result uint8

const (
	Known                 Result = iota + 1 // state exists for the producer id
	Unknown                                 // no state: a new or expired producer id
	DuplicateFound                          // a remembered batch has this exact range
	NotDuplicate                            // no remembered batch matches
	EpochLower                              // older epoch: a zombie or a stale retry
	EpochEqual                              // same epoch
	EpochHigher                             // a bumped epoch
	EpochFirst                              // no epoch remembered yet
	SeqAny                                  // no epoch remembered: any sequence may start
	SeqZeroForNewEpoch                      // a new epoch starting at 0
	SeqNonZeroForNewEpoch                   // a new epoch must start at 0, this one does not
	SeqNext                                 // exactly last+1 (with wraparound)
	SeqGap                                  // beyond last+1: batches are missing
	SeqOverlap                              // inside the remembered range but not an exact batch
	SeqBeforeWindow                         // older than the five remembered batches
	TxnBegins                               // first transactional batch: opens a transaction here
	TxnContinues                            // another batch of the open transaction
	TxnExpected                             // a plain batch while a transaction is open
)

var resultNames = [...]string{"", "known", "unknown", "duplicate", "not-duplicate",
	"epoch-lower", "epoch-equal", "epoch-higher", "epoch-first",
	"seq-any", "seq-zero-new-epoch", "seq-nonzero-new-epoch", "seq-next", "seq-gap",
	"seq-overlap", "seq-before-window", "txn-begins", "txn-continues", "txn-expected"}

func (r Result) String() string { return resultNames[r] }

// Step is one check and its answer.
type Step struct {
	Check  Check
	Result Result
}

// Path is the sequence of checks a decision went through, fixed-size so a
// decision allocates nothing.
type Path struct {
	steps [5]Step
	n     uint8
}

func (p *Path) add(c Check, r Result) {
	p.steps[p.n] = Step{c, r}
	p.n++
}

// Len is the number of steps taken.
func (p Path) Len() int { return int(p.n) }

// Step returns the i-th step.
func (p Path) Step(i int) Step { return p.steps[:p.n][i] }

// Steps copies the steps.
func (p Path) Steps() []Step { return append([]Step(nil), p.steps[:p.n]...) }

// Result returns the answer of check c on this path, or 0 if it did not run.
func (p Path) Result(c Check) Result {
	for _, s := range p.steps[:p.n] {
		if s.Check == c {
			return s.Result
		}
	}
	return 0
}

// AppendPacked appends the path as a trace keeps it: its length, then a
// byte a step (the check in the top three bits, the result below).
func (p Path) AppendPacked(b []byte) []byte {
	b = append(b, p.n)
	for _, s := range p.steps[:p.n] {
		b = append(b, byte(s.Check)<<5|byte(s.Result))
	}
	return b
}

// A packed step's check fits three bits and its result five.
var (
	_ [7 - int(CheckTransaction)]struct{}
	_ [31 - int(TxnExpected)]struct{}
)

// UnpackPath reads a path AppendPacked wrote and returns it with the
// number of bytes read; ok is false if b does not hold one.
func UnpackPath(b []byte) (p Path, n int, ok bool) {
	if len(b) == 0 || int(b[0]) > len(p.steps) || len(b) < 1+int(b[0]) {
		return Path{}, 0, false
	}
	p.n = b[0]
	for i := range p.steps[:p.n] {
		p.steps[i] = Step{Check(b[1+i] >> 5), Result(b[1+i] & 0x1f)}
		if p.steps[i].Check > CheckTransaction || p.steps[i].Result > TxnExpected {
			return Path{}, 0, false
		}
	}
	return p, 1 + int(p.n), true
}

// String renders the path as "producer=known duplicate=not-duplicate ...".
func (p Path) String() string {
	var buf [160]byte // on the stack: the string is the one allocation
	b := buf[:0]
	for i, st := range p.steps[:p.n] {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(append(append(b, st.Check.String()...), '='), st.Result.String()...)
	}
	return string(b)
}

// Outcome is what the broker does with the batch.
type Outcome uint8

const (
	Append    Outcome = iota + 1 // write it
	Duplicate                    // write nothing, answer success with the original offsets
	Reject                       // write nothing, answer an error
)

func (o Outcome) String() string { return [...]string{"", "append", "duplicate", "reject"}[o] }

// Decision is the broker's verdict on one batch with the numbers it compared.
//
// A traced produce keeps one, so its fields are ordered by size: 88
// bytes, not 104.
type Decision struct {
	Batch Batch

	// For a duplicate: the remembered batch it matched (its offsets are the answer).
	Original BatchMeta

	// What the broker remembered when it decided.
	EntryLastSeq int32 // -1 when nothing is remembered
	WindowFirst  int32 // first sequence of the oldest remembered batch, -1 if none
	EntryEpoch   int16 // NoEpoch when unknown

	Error     kerr.Code // kerr.None unless Reject
	Path      Path
	Outcome   Outcome
	WindowLen uint8
	Match     int8 // index in the window, -1 if none
}

// ExpectedSeq is the base sequence the broker would have accepted with the
// same epoch: last+1, or 0 with nothing remembered.
func (d *Decision) ExpectedSeq() int32 {
	if d.EntryLastSeq < 0 {
		return 0
	}
	return record.IncrementSequence(d.EntryLastSeq, 1)
}

// BeginsTxn reports whether appending the batch opens a transaction here.
func (d *Decision) BeginsTxn() bool { return d.Path.Result(CheckTransaction) == TxnBegins }

// Validate decides what a partition leader does with a data batch, without
// changing anything. e is the remembered entry for the batch's producer id,
// nil if there is none. The checks and their order are Kafka's:
// duplicate (client only), epoch, sequence (client only), transaction.
func Validate(e *Entry, b Batch, origin Origin) (d Decision) {
	validateTo(&d, e, &b, origin)
	return d
}

// validateTo is Validate writing the decision into *d, which must be the
// zero Decision: a leader decides into the result it answers with, and a
// decision returned by value was copied twice on its way there.
func validateTo(d *Decision, e *Entry, b *Batch, origin Origin) {
	// Field by field: a composite literal is built in a temporary and
	// copied, which was a quarter of the work.
	d.Outcome, d.Batch, d.EntryEpoch, d.EntryLastSeq, d.WindowFirst, d.Match = Append, *b, NoEpoch, record.NoSequence, record.NoSequence, -1
	if e == nil {
		d.Path.add(CheckProducer, Unknown)
	} else {
		d.Path.add(CheckProducer, Known)
		d.EntryEpoch, d.EntryLastSeq, d.WindowLen = e.epoch, e.LastSeq(), e.n
		if e.n > 0 {
			d.WindowFirst = e.first.FirstSeq()
		}
		if origin == Client {
			if b.Epoch == e.epoch {
				if i := e.findDuplicate(b.BaseSeq, b.LastSeq()); i >= 0 {
					d.Path.add(CheckDuplicate, DuplicateFound)
					d.Outcome, d.Match, d.Original = Duplicate, int8(i), *e.at(i)
					return
				}
			}
			d.Path.add(CheckDuplicate, NotDuplicate)
		}
	}
	if !checkEpoch(d, origin) {
		return
	}
	if origin == Client && !checkSequence(d, e) {
		return
	}
	checkTransaction(d, e)
}

func reject(d *Decision, c Check, r Result, code kerr.Code) bool {
	d.Path.add(c, r)
	d.Outcome, d.Error = Reject, code
	return false
}

// checkEpoch is ProducerAppendInfo.checkProducerEpoch for data batches.
func checkEpoch(d *Decision, origin Origin) bool {
	switch {
	case d.EntryEpoch == NoEpoch && d.Batch.Epoch != NoEpoch:
		d.Path.add(CheckEpoch, EpochFirst)
	case d.Batch.Epoch < d.EntryEpoch:
		if origin == Replication {
			d.Path.add(CheckEpoch, EpochLower) // followers only log it
			return true
		}
		// Never PRODUCER_FENCED here: since 2.7 the produce path answers 47.
		return reject(d, CheckEpoch, EpochLower, kerr.InvalidProducerEpoch)
	case d.Batch.Epoch == d.EntryEpoch:
		d.Path.add(CheckEpoch, EpochEqual)
	default:
		d.Path.add(CheckEpoch, EpochHigher)
	}
	return true
}

// checkSequence is ProducerAppendInfo.checkSequence (without the KIP-890
// verification entry, which transactions add).
func checkSequence(d *Decision, e *Entry) bool {
	f := d.Batch.BaseSeq
	switch {
	case d.EntryEpoch == NoEpoch:
		d.Path.add(CheckSequence, SeqAny)
	case d.Batch.Epoch != d.EntryEpoch:
		if f != 0 {
			return reject(d, CheckSequence, SeqNonZeroForNewEpoch, kerr.OutOfOrderSequenceNumber)
		}
		d.Path.add(CheckSequence, SeqZeroForNewEpoch)
	case record.InSequence(d.EntryLastSeq, f):
		d.Path.add(CheckSequence, SeqNext)
	default:
		return reject(d, CheckSequence, classify(d, e), kerr.OutOfOrderSequenceNumber)
	}
	return true
}

// classify names why an out-of-order sequence is out of order, for the
// learner; Kafka answers all three with OUT_OF_ORDER_SEQUENCE_NUMBER.
func classify(d *Decision, e *Entry) Result {
	f := d.Batch.BaseSeq
	if seqDistance(d.ExpectedSeq(), f) < 1<<30 {
		return SeqGap
	}
	if e != nil && e.n > 0 && seqDistance(d.WindowFirst, f) <= seqDistance(d.WindowFirst, d.EntryLastSeq) {
		return SeqOverlap
	}
	return SeqBeforeWindow
}

// seqDistance counts forward steps from a to b in the sequence space 0..MaxInt32.
func seqDistance(a, b int32) int64 {
	const space = int64(math.MaxInt32) + 1
	return ((int64(b)-int64(a))%space + space) % space
}

// checkTransaction is the tail of ProducerAppendInfo.appendDataBatch.
func checkTransaction(d *Decision, e *Entry) {
	open := e != nil && e.txnOpen
	switch {
	case open && !d.Batch.Transactional:
		reject(d, CheckTransaction, TxnExpected, kerr.InvalidTxnState)
	case !open && d.Batch.Transactional:
		d.Path.add(CheckTransaction, TxnBegins)
	case open:
		d.Path.add(CheckTransaction, TxnContinues)
	}
}

// Explain renders the decision as a sentence quoting the numbers compared,
// in the spirit of Kafka's exception messages. partition and offset place
// it (offset is where the batch was, or would have been, appended).
func (d *Decision) Explain(partition string, offset int64) string {
	b := d.Batch
	switch {
	case d.Outcome == Duplicate:
		return fmt.Sprintf("producer %d epoch %d: sequences %d-%d were already written to %s at offsets %d-%d; nothing appended, the original offsets are returned",
			b.ProducerID, b.Epoch, b.BaseSeq, b.LastSeq(), partition, d.Original.FirstOffset(), d.Original.LastOffset)
	case d.Outcome == Append:
		return fmt.Sprintf("producer %d epoch %d: sequences %d-%d appended to %s at offset %d (%s)",
			b.ProducerID, b.Epoch, b.BaseSeq, b.LastSeq(), partition, offset, d.Path.Result(CheckSequence))
	}
	switch d.Path.Step(d.Path.Len() - 1).Result {
	case EpochLower:
		return fmt.Sprintf("%s: producer %d at offset %d in %s has epoch %d, which is smaller than the last seen epoch %d",
			d.Error.Name(), b.ProducerID, offset, partition, b.Epoch, d.EntryEpoch)
	case SeqNonZeroForNewEpoch:
		return fmt.Sprintf("%s: producer %d at offset %d in %s starts new epoch %d (current %d) at sequence %d; a new epoch must start at 0",
			d.Error.Name(), b.ProducerID, offset, partition, b.Epoch, d.EntryEpoch, b.BaseSeq)
	case TxnExpected:
		return fmt.Sprintf("%s: producer %d has a transaction open on %s but sent a non-transactional batch at offset %d",
			d.Error.Name(), b.ProducerID, partition, offset)
	}
	return fmt.Sprintf("%s: producer %d at offset %d in %s: %d (incoming sequence), %d (current end sequence), expected %d (%s)",
		d.Error.Name(), b.ProducerID, offset, partition, b.BaseSeq, d.EntryLastSeq, d.ExpectedSeq(), d.Path.Result(CheckSequence))
}
