package script

import (
	"fmt"
	"math"
	"strconv"
)

// Limit is the range one number of the language may take. Every number a
// script gives is checked against its limit when the script is parsed,
// so that a typo such as `send p1 orders-0 2147483647` is a parse error
// with its position instead of a lab that runs out of memory.
type Limit struct {
	What     string // as docs/commands.md writes it: "send COUNT", "cluster brokers="
	Min, Max int64
	Why      string // why the bound is where it is, said when it is exceeded
	Duration bool   // Min and Max are milliseconds, written as durations
}

// limitID names a row of limitTable.
type limitID int

const (
	limSendCount limitID = iota
	limInjectCount
	limInjectPID
	limInjectEpoch
	limSeq
	limStep
	limAdvance
	limBrokers
	limPartitions
	limRF
	limMinInsync
	limTxnVersion
	limSegmentBytes
	limProducerIDStart
	limTxnMaxTimeout
	limBrokerLatency
	limBrokerID
	limMaxPoll
	limStartOffset
	limMaxPollInterval
	limConn
	limAtMs
	limOffset
	numLimits
)

// maxRecords bounds the records of one batch. Kafka refuses a batch
// larger than max.message.bytes (1 MiB by default); 10000 small records
// stay well under it, and a lab never needs more to show anything.
const maxRecords = 10000

// maxBrokers bounds the cluster: a lab's panels show every broker, and
// more than nine neither fit nor teach anything the ninth does not.
const maxBrokers = 9

// limitTable is every bounded number of the language, in one place:
// the parser checks against it, docs/commands.md lists it (a test keeps
// the two the same) and Limits hands it to whoever needs it.
var limitTable = [numLimits]Limit{
	limSendCount:   {What: "send COUNT", Min: 1, Max: maxRecords, Why: "one batch, which must stay well under Kafka's 1 MiB max.message.bytes"},
	limInjectCount: {What: "inject count=", Min: 1, Max: maxRecords, Why: "one batch, which must stay well under Kafka's 1 MiB max.message.bytes"},
	// pid, epoch and seq are as wide as their fields of the batch header.
	limInjectPID:   {What: "inject pid=", Min: 0, Max: math.MaxInt64, Why: "the batch header's int64 producerId"},
	limInjectEpoch: {What: "inject epoch=", Min: 0, Max: math.MaxInt16, Why: "the batch header's int16 producerEpoch"},
	limSeq:         {What: "seq=", Min: 0, Max: math.MaxInt32, Why: "the batch header's int32 baseSequence"},
	limStep:        {What: "step N", Min: 1, Max: 1_000_000, Why: "a million events per command"},
	limAdvance:     {What: "advance DURATION", Min: 1, Max: 100 * 365 * 24 * 3600 * 1000, Why: "100 years of logical time", Duration: true},
	limBrokers:     {What: "cluster brokers=", Min: 1, Max: maxBrokers, Why: "every broker must fit on the lab's screen"},
	limPartitions:  {What: "cluster partitions=", Min: 1, Max: 64, Why: "every partition must fit on the lab's screen"},
	limRF:          {What: "cluster rf=", Min: 1, Max: maxBrokers, Why: "one replica per broker, and at most 9 brokers"},
	limMinInsync:   {What: "cluster min.insync=", Min: 1, Max: maxBrokers, Why: "it counts replicas, at most 9"},
	limTxnVersion:  {What: "cluster transaction.version=", Min: 1, Max: 2, Why: "Kafka has two transaction protocols"},
	// Kafka's own lower bound (before 4.0) is 14, the smallest legacy
	// record; lessons roll segments at a few hundred bytes on purpose.
	limSegmentBytes:    {What: "cluster segment.bytes=", Min: 14, Max: 1 << 30, Why: "Kafka's default, 1 GiB, is more than a lab fills"},
	limProducerIDStart: {What: "cluster producer.id.start=", Min: 1, Max: math.MaxInt32, Why: "well inside Kafka's int64 producer ids"},
	limTxnMaxTimeout:   {What: "cluster transaction.max.timeout.ms=", Min: 1, Max: math.MaxInt32, Why: "the broker's int config, at least 1 as Kafka requires"},
	limBrokerLatency:   {What: "cluster broker.latency.ms=", Min: 0, Max: 1000, Why: "a second between two brokers is already a network in trouble"},
	limBrokerID:        {What: "broker ID", Min: 1, Max: maxBrokers, Why: "a cluster has at most 9 brokers, numbered from 1"},
	limMaxPollInterval: {What: "consumer max.poll.interval.ms=", Min: 1, Max: math.MaxInt32, Why: "the consumer's int setting"},
	limStartOffset:     {What: "transactions abort start-offset=", Min: 0, Max: math.MaxInt64, Why: "an int64 offset"},
	limMaxPoll:         {What: "consumer max.poll.records=", Min: 1, Max: maxRecords, Why: "as many records as one batch may hold"},
	limConn:            {What: "arrive CONN", Min: 1, Max: math.MaxInt32, Why: "eoslab serve numbers its connections with an int32"},
	limAtMs:            {What: "arrive at=", Min: 0, Max: 100 * 365 * 24 * 3600 * 1000, Why: "100 years of logical time, in milliseconds"},
	limOffset:          {What: "diagnose OFFSET", Min: 0, Max: math.MaxInt64, Why: "an int64 offset, as in the batch header"},
}

// Limits lists every bounded number of the language, for documentation.
func Limits() []Limit { return limitTable[:] }

// Format renders a bound as a script writes it: a duration for
// durations, a decimal number otherwise.
func (l Limit) Format(n int64) string {
	if l.Duration {
		return formatDuration(n)
	}
	return strconv.FormatInt(n, 10)
}

// check says why n is out of l's range, or "" when it is in it. The
// value is quoted as the user wrote it (text): a number too large for
// int64 is still echoed, not some rounding of it.
func (l Limit) check(name string, n int64, text string) string {
	switch {
	case n > l.Max:
		return fmt.Sprintf("%s must be at most %s (%s), got %s", name, l.Format(l.Max), l.Why, Quote(text))
	case n < l.Min && l.Duration:
		return fmt.Sprintf("%s must be greater than zero, got %s", name, Quote(text))
	case n < l.Min && l.Min == 1:
		return fmt.Sprintf("%s must be a positive integer, got %s", name, Quote(text))
	case n < l.Min:
		return fmt.Sprintf("%s must be at least %s, got %s", name, l.Format(l.Min), Quote(text))
	}
	return ""
}
