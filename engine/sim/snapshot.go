package sim

import (
	"iter"
	"slices"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/producerstate"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/trace"
)

// Snapshot is an immutable picture of the world after a step: what the UI
// renders, what lessons assert on, what `play --state json` prints.
type Snapshot struct {
	Step         int
	TimeMs       int64
	Seed         uint64
	Cluster      ClusterConfig
	Brokers      []BrokerView
	Partitions   []PartitionView
	Producers    []ProducerView
	InFlight     []MessageView
	Faults       []string
	Anomalies    []Anomaly
	Transactions []TxnView
	Consumers    []ConsumerView
	Groups       []GroupView
	Effects      []Effect
	Diagnoses    []Diagnosis   // every `diagnose` so far, judged
	Replay       *ReplayResult // what the last `replay` found, nil if none
	LastDecision *trace.Event  // the most recent produce.decision, if any
	Due          bool          // something is due: step would do something
}

// BrokerView is one broker.
type BrokerView struct {
	ID    int
	Alive bool
}

// PartitionView is one partition as its leader sees it, with its replicas.
type PartitionView struct {
	Name             string
	Topic            string
	Partition        int
	Leader           int // 0 when offline
	LeaderEpoch      int32
	Replicas         []int
	ISR              []int
	HighWatermark    int64
	LogStartOffset   int64
	LogEndOffset     int64
	LastStableOffset int64
	Batches          []StoredBatch
	Log              []RecordView
	Producers        []ProducerStateView
	Followers        []ReplicaView
	Snapshots        []int64
	AbortedTxns      []partition.AbortedTxn
	// Unreplicated are the completed transactions whose marker the leader
	// has written but the high watermark has not yet passed: they hold the
	// LSO as an open transaction does (ProducerStateManager.unreplicatedTxns).
	Unreplicated []producerstate.Txn
}

// StoredBatch is a batch as the leader stores it.
type StoredBatch struct {
	Header record.Header
	Bytes  []byte
}

// RecordView is one record of a log (control records included).
type RecordView struct {
	Offset        int64
	BatchBase     int64
	ProducerID    int64
	ProducerEpoch int16
	Sequence      int32
	Key, Value    []byte
	Transactional bool
	Control       bool
	ControlType   string
}

// ProducerStateView is the leader's memory of one producer.
type ProducerStateView struct {
	ProducerID       int64
	Epoch            int16
	LastSeq          int32
	LastOffset       int64
	LastTimestamp    int64
	CoordinatorEpoch int32
	TxnFirstOffset   int64 // -1 without an open transaction
	Batches          []WindowBatch
}

// WindowBatch is one of the (up to five) remembered batches.
type WindowBatch struct {
	FirstSeq, LastSeq       int32
	FirstOffset, LastOffset int64
}

// ReplicaView is one replica of a partition.
type ReplicaView struct {
	Broker        int
	Alive         bool
	Leader        bool
	InISR         bool
	LogEndOffset  int64
	HighWatermark int64
}

// ProducerView is one producer client.
type ProducerView struct {
	Name       string
	Mode       string
	ProducerID int64
	Epoch      int16
	FatalError string
	TxnState   string // the client's transaction state ("" unless transactional)
	Paused     bool
	Failed     bool // it could not start (a configuration error)
	Config     client.Config
	Partitions []client.PartitionView
	// Batches are the producer's oldest batches, oldest first, up to the
	// oldest one not done: they never change again, and every later
	// snapshot shares them, so that a snapshot costs the same at any
	// length of history. Recent are the batches from that one on (some
	// may be done after it). NumBatches, Batch and AllBatches see both
	// as one list.
	Batches []ClientBatchView
	Recent  []ClientBatchView
}

// NumBatches is how many batches the producer has made.
func (p *ProducerView) NumBatches() int { return len(p.Batches) + len(p.Recent) }

// Batch is batch i of the producer, oldest first (its id is i+1 for a
// simulated producer).
func (p *ProducerView) Batch(i int) *ClientBatchView {
	if i < len(p.Batches) {
		return &p.Batches[i]
	}
	return &p.Recent[i-len(p.Batches)]
}

// AllBatches yields every batch of the producer, oldest first, with its index.
func (p *ProducerView) AllBatches() iter.Seq2[int, *ClientBatchView] {
	return func(yield func(int, *ClientBatchView) bool) {
		for i := range p.Batches {
			if !yield(i, &p.Batches[i]) {
				return
			}
		}
		for i := range p.Recent {
			if !yield(len(p.Batches)+i, &p.Recent[i]) {
				return
			}
		}
	}
}

// ClientBatchView is one batch as its producer tracks it.
type ClientBatchView struct {
	ID          int
	Partition   string
	BaseSeq     int32
	LastSeq     int32
	Count       int32
	FirstSerial int64
	State       string
	BaseOffset  int64
	Error       string
	Sends       int
	Bytes       []byte
}

// TxnView is one transactional id as its coordinator's durable state
// (__transaction_state) records it.
type TxnView struct {
	TransactionalID  string
	Coordinator      int   // the broker leading its __transaction_state partition
	CoordinatorEpoch int32 // that partition's leader epoch
	StatePartition   int
	ProducerID       int64
	Epoch            int16
	State            string
	Partitions       []string
	TimeoutMs        int32
	StartMs          int64
	PendingMarkers   []string // partitions whose marker is not acknowledged yet
}

// ConsumerView is one consumer.
type ConsumerView struct {
	Name      string
	Isolation string
	Group     string
	Positions []Position
	Read      []client.Read
}

// Position is a consumer's next offset in one partition.
type Position struct {
	Partition string
	Offset    int64
}

// GroupView is a consumer group's committed offsets and its members.
type GroupView struct {
	Group       string
	Coordinator int
	Committed   []Position
	Generation  int32    // the generation of the last rebalance (0: nobody ever joined)
	Members     []string // member ids, sorted
}

// MessageView is one message on the wire.
type MessageView struct {
	ID       int
	API      string
	Response bool
	From, To string
	SentMs   int64
	DueMs    int64
	Lost     bool
	Delayed  bool
	Summary  string
}

// Snapshot captures the world now.
func (w *World) Snapshot() *Snapshot {
	s := &Snapshot{Step: w.steps, TimeMs: w.now, Seed: w.seed, Cluster: w.cluster, Anomalies: w.check.sharedAnomalies(),
		Diagnoses: w.diagnoses[:len(w.diagnoses):len(w.diagnoses)], Replay: w.lastReplay} // append-only: shared
	for _, b := range w.brokers {
		s.Brokers = append(s.Brokers, BrokerView{ID: b.ID, Alive: b.Alive()})
	}
	for _, m := range w.parts {
		s.Partitions = append(s.Partitions, w.partitionView(m))
	}
	for _, e := range w.producers.all.all() {
		s.Producers = append(s.Producers, w.producerView(e.name))
	}
	w.txnViews(s)
	w.queue.each(func(it *item) {
		if it.kind != itemDeliver {
			return
		}
		f := &it.fl
		s.InFlight = append(s.InFlight, MessageView{ID: f.m.ID, API: f.m.Body.Name(), Response: f.m.Body.IsResponse(),
			From: f.m.From.String(), To: f.m.To.String(), SentMs: f.m.SentMs, DueMs: f.due, Lost: f.lost, Delayed: f.delayed, Summary: summarize(&f.m)})
	})
	slices.SortFunc(s.InFlight, func(a, b MessageView) int { return a.ID - b.ID })
	for _, f := range w.faults {
		s.Faults = append(s.Faults, f.describe())
	}
	if d := w.lastDecisionEvent(); d != nil {
		e := *d
		s.LastDecision = &e
	}
	s.Due = w.Due()
	w.externalViews(s)
	return s
}

func (w *World) partitionView(m *partMeta) PartitionView {
	v := PartitionView{Name: m.tp.String(), Topic: m.tp.Topic, Partition: m.tp.Partition, Leader: m.leader,
		LeaderEpoch: m.epoch, Replicas: slices.Clone(m.replicas), ISR: slices.Clone(m.isr)}
	lead := m.leader
	if lead == 0 {
		lead = m.replicas[0] // offline: show the first replica's log
	}
	log := w.brokers[lead-1].Replica(m.tp).Log
	v.HighWatermark, v.LogStartOffset, v.LogEndOffset, v.LastStableOffset = log.HighWatermark(), log.LogStartOffset(), log.LogEndOffset(), log.LastStableOffset()
	v.Batches, v.Log = w.logViewsOf(lead, m.tp.Partition, log)
	for _, e := range log.State().Entries() {
		pv := ProducerStateView{ProducerID: e.ProducerID(), Epoch: e.Epoch(), LastSeq: e.LastSeq(), LastOffset: e.LastOffset(),
			LastTimestamp: e.LastTimestamp(), CoordinatorEpoch: e.CoordinatorEpoch(), TxnFirstOffset: -1}
		if off, ok := log.State().TxnFirstOffset(e.ProducerID()); ok {
			pv.TxnFirstOffset = off
		}
		for _, bm := range e.Batches() {
			pv.Batches = append(pv.Batches, WindowBatch{bm.FirstSeq(), bm.LastSeq, bm.FirstOffset(), bm.LastOffset})
		}
		v.Producers = append(v.Producers, pv)
	}
	v.Unreplicated = log.State().UnreplicatedTxns()
	for _, id := range m.replicas {
		br := w.brokers[id-1]
		rl := br.Replica(m.tp).Log
		v.Followers = append(v.Followers, ReplicaView{Broker: id, Alive: br.Alive(), Leader: id == m.leader,
			InISR: slices.Contains(m.isr, id), LogEndOffset: rl.LogEndOffset(), HighWatermark: rl.HighWatermark()})
	}
	for _, sn := range log.SnapshotsShared() {
		v.Snapshots = append(v.Snapshots, sn.Offset)
	}
	if a := log.AbortedShared(); len(a) > 0 {
		v.AbortedTxns = a // shared: the log never changes it in place
	}
	return v
}

func appendRecordViews(out []RecordView, b *record.Batch) []RecordView {
	h := &b.Header
	var ctl string
	if h.Attributes.Control() {
		if mk, err := record.ParseMarker(b); err == nil {
			ctl = mk.Type.String()
		}
	}
	for _, r := range b.Records {
		seq := int32(-1)
		if h.BaseSequence >= 0 {
			seq = record.IncrementSequence(h.BaseSequence, r.OffsetDelta)
		}
		out = append(out, RecordView{Offset: h.BaseOffset + int64(r.OffsetDelta), BatchBase: h.BaseOffset,
			ProducerID: h.ProducerID, ProducerEpoch: h.ProducerEpoch, Sequence: seq, Key: r.Key, Value: r.Value,
			Transactional: h.Attributes.Transactional(), Control: h.Attributes.Control(), ControlType: ctl})
	}
	return out
}

func (w *World) producerView(name string) ProducerView {
	s := w.producers.get(name)
	v := ProducerView{Name: name, Paused: s.paused, Failed: s.removed, ProducerID: -1, Epoch: -1}
	if s.p == nil || s.removed {
		return v
	}
	p := s.p
	v.Mode, v.ProducerID, v.Epoch, v.FatalError, v.Config, v.Partitions = p.ModeName(), p.ProducerID(), p.Epoch(), p.Fatal(), p.Config(), p.Partitions()
	if v.Config.TransactionalID != "" {
		v.TxnState = p.TxnState().String()
	}
	v.Batches, v.Recent = w.batchViewsOf(name, p)
	return v
}
