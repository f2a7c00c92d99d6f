// Package txn holds the transaction coordinator's model: which coordinator
// owns a transactional id, the transaction states with the transitions
// Kafka allows between them, and the metadata the coordinator writes to
// its log (__transaction_state). The coordinator's request handling lives
// with the brokers that host it (engine/broker).
//
// Faithful to (shared/docs/kafka-facts.md §5): partitionFor with Java's
// String.hashCode and Utils.abs over 50 partitions; the eight states and
// their allowed previous states (TransactionState.java), including
// transaction version 2's extra ways into PrepareAbort; epoch exhaustion
// at 32766; the default timeouts.
//
// Simplified: __transaction_state is not a replicated partition here; its
// records are kept by the world as a durable log per partition, which a new
// coordinator reads after a failover.
package txn

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf16"

	"github.com/eoslab/eoslab/engine/msg"
)

// Defaults from the broker and producer configuration.
const (
	NumPartitions             = 50      // transaction.state.log.num.partitions (and offsets.topic.num.partitions)
	DefaultTimeoutMs          = 60_000  // transaction.timeout.ms
	MaxTimeoutMs              = 900_000 // transaction.max.timeout.ms
	AbortScanIntervalMs       = 10_000  // transaction.abort.timed.out.transaction.cleanup.interval.ms
	ExhaustedEpoch      int16 = math.MaxInt16 - 1
	StateTopic                = "__transaction_state"
	OffsetsTopic              = "__consumer_offsets"
)

// JavaHash is Java's String.hashCode over UTF-16 code units.
func JavaHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// PartitionFor is the __transaction_state (or __consumer_offsets)
// partition for a key: Utils.abs(hashCode) % n, with abs(MinInt32) = 0.
func PartitionFor(key string, n int) int {
	h := JavaHash(key)
	if h == math.MinInt32 {
		return 0
	}
	if h < 0 {
		h = -h
	}
	return int(h) % n
}

// OffsetsPartition is the __consumer_offsets partition of a consumer group.
func OffsetsPartition(group string) msg.TP {
	return msg.TP{Topic: OffsetsTopic, Partition: PartitionFor(group, NumPartitions)}
}

// State is a transaction's state in the coordinator (TransactionState.java).
type State uint8

const (
	// Empty: no transaction yet, or the previous one is complete and the id idle.
	Empty State = iota
	// Ongoing: partitions have been added; data may be written.
	Ongoing
	// PrepareCommit: the commit decision is durable; markers are being written.
	PrepareCommit
	// PrepareAbort: the abort decision is durable; markers are being written.
	PrepareAbort
	// CompleteCommit: every partition has its COMMIT marker.
	CompleteCommit
	// CompleteAbort: every partition has its ABORT marker.
	CompleteAbort
	// Dead: the transactional id expired and was removed.
	Dead
	// PrepareEpochFence: a new producer instance fenced the old one; the
	// coordinator aborts the old transaction (never written as such: folded
	// into PrepareAbort).
	PrepareEpochFence
)

var stateNames = [...]string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

func (s State) String() string { return stateNames[s] }

// States lists every state in Kafka's id order.
func States() []State {
	return []State{Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence}
}

// validPrevious is TransactionState's table: the states each state may be
// entered from.
var validPrevious = map[State][]State{
	Empty:             {Empty, CompleteCommit, CompleteAbort},
	Ongoing:           {Ongoing, Empty, CompleteCommit, CompleteAbort},
	PrepareCommit:     {Ongoing},
	PrepareAbort:      {Ongoing, PrepareEpochFence},
	CompleteCommit:    {PrepareCommit},
	CompleteAbort:     {PrepareAbort},
	Dead:              {Empty, CompleteAbort, CompleteCommit},
	PrepareEpochFence: {Ongoing},
}

// ValidTransition reports whether Kafka allows from → to. Under
// transaction version 2 an abort may also start from Empty or a Complete
// state (the epoch is bumped at every end).
func ValidTransition(from, to State, tv2 bool) bool {
	if slices.Contains(validPrevious[to], from) {
		return true
	}
	return tv2 && to == PrepareAbort && (from == Empty || from == CompleteCommit || from == CompleteAbort)
}

// Metadata is what the coordinator knows of one transactional id; each
// change is written to __transaction_state before it takes effect.
type Metadata struct {
	TransactionalID string
	ProducerID      int64
	PrevProducerID  int64
	Epoch           int16
	LastEpoch       int16 // the epoch before the last bump (for retried requests)
	TimeoutMs       int32
	State           State
	Partitions      []msg.TP // in the transaction, sorted
	StartMs         int64    // when the first partition was added
	UpdateMs        int64
	// ClientTV2: the transaction's client speaks transaction version 2
	// (TransactionMetadata.clientTransactionVersion): its partitions joined
	// through the leaders, its EndTxn is version 5. The coordinator ends
	// the transaction by that version, whatever the cluster's level is now.
	ClientTV2 bool
}

// HasPartition reports whether tp is part of the transaction.
func (m *Metadata) HasPartition(tp msg.TP) bool { return slices.Contains(m.Partitions, tp) }

// AddPartitions adds partitions, keeping the list sorted, and reports
// whether any was new.
func (m *Metadata) AddPartitions(tps []msg.TP) bool {
	added := false
	for _, tp := range tps {
		if !m.HasPartition(tp) {
			m.Partitions = append(m.Partitions, tp)
			added = true
		}
	}
	slices.SortFunc(m.Partitions, func(a, b msg.TP) int {
		if a.Topic != b.Topic {
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		}
		return a.Partition - b.Partition
	})
	return added
}

// Transition moves to state to, or panics: a coordinator that tries an
// illegal transition has a bug (Kafka throws IllegalStateException).
func (m *Metadata) Transition(to State, tv2 bool, now int64) {
	if !ValidTransition(m.State, to, tv2) {
		panic(fmt.Sprintf("transactional id %s: illegal transition %s -> %s", m.TransactionalID, m.State, to))
	}
	m.State, m.UpdateMs = to, now
}

// Clone copies the metadata (the partition list included).
func (m Metadata) Clone() Metadata {
	m.Partitions = slices.Clone(m.Partitions)
	return m
}
