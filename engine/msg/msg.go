// Package msg defines the requests and responses that travel between
// actors in the world: producers, brokers and (as followers) replicas.
// Each travels as an explicit in-flight Message with an id, a sender, a
// receiver and a due time, so that faults can act on it.
package msg

import (
	"slices"
	"strconv"

	"github.com/eoslab/eoslab/engine/kerr"
)

// TP names a topic partition.
type TP struct {
	Topic     string
	Partition int
}

func (tp TP) String() string { return tp.Topic + "-" + strconv.Itoa(tp.Partition) }

// Addr is an actor: a broker (Broker > 0) or a client by name.
type Addr struct {
	Broker int
	Client string
}

// BrokerAddr and ClientAddr build addresses.
func BrokerAddr(id int) Addr      { return Addr{Broker: id} }
func ClientAddr(name string) Addr { return Addr{Client: name} }

func (a Addr) String() string {
	if a.Broker > 0 {
		if a.Broker < len(brokerNames) {
			return brokerNames[a.Broker]
		}
		return "broker " + strconv.Itoa(a.Broker)
	}
	return a.Client
}

// brokerNames are the names of the first brokers, made once.
var brokerNames = func() []string {
	names := make([]string, 32)
	for i := range names {
		names[i] = "broker " + strconv.Itoa(i)
	}
	return names
}()

// Body is a message payload.
type Body interface {
	// Name is the Kafka API the payload belongs to, e.g. "Produce".
	Name() string
	// IsResponse distinguishes answers from requests.
	IsResponse() bool
}

// Message is one in-flight item.
type Message struct {
	ID      int
	From    Addr
	To      Addr
	SentMs  int64
	Conn    int // the client's connection to the broker (a reconnect opens a new one)
	ReplyTo int // for a response: the request's id
	Body    Body
}

// InitProducerIDRequest asks for a producer id (and epoch). A transactional
// producer sends it to its transaction coordinator.
type InitProducerIDRequest struct {
	TransactionalID string
	TimeoutMs       int32
	ProducerID      int64 // KIP-360: the id and epoch the producer has, or -1
	Epoch           int16
}

// InitProducerIDResponse answers it.
type InitProducerIDResponse struct {
	Error      kerr.Code
	ProducerID int64
	Epoch      int16
}

// ProduceBatch is one partition's batch in a produce request.
type ProduceBatch struct {
	TP      TP
	Data    []byte // the encoded Record Batch v2, exactly as sent
	BatchID int    // the client's id for the batch (for display and faults)
	BaseSeq int32
	// Vouched: the engine's own producer encoded Data, and nothing has
	// written it since. What the leader's walk of the records would find
	// is known: the CRC the encoder computed holds, the records are
	// framed and in order, and maxTimestamp is the largest of theirs
	// (partition.Log.AppendAsLeaderTo). A batch from anywhere else (a
	// client of `eoslab serve`, an injected batch) is walked.
	Vouched bool
	// Owned: the request owns Data, which nothing reads once its broker
	// has read the request: the leader keeps Data itself as its stored
	// bytes, its offset and epoch written in, where it copies anyone
	// else's. (A copy of a world copies the Data of the requests it has in
	// flight: CopyReused.) The engine's own producer encodes each send's
	// bytes apart, and keeps none of them.
	Owned bool
}

// ProduceRequest carries at most one batch per partition (Produce v3+).
// (Its fields are in the order that packs it into 48 bytes, which a slab's
// chunk of 64 fills exactly: client.Scratch.)
type ProduceRequest struct {
	TransactionalID string
	Acks            int16
	TV2             bool // from a transaction version 2 client (Produce v12): the leader adds the partition
	TimeoutMs       int32
	Batches         []ProduceBatch
}

// ProduceResult is one partition's answer.
type ProduceResult struct {
	TP             TP
	BaseSeq        int32 // the base sequence of the batch answered (what faults select by)
	Error          kerr.Code
	BaseOffset     int64
	LogStartOffset int64
	Reason         string
}

// ProduceResponse answers a produce request, partition by partition.
type ProduceResponse struct {
	Results []ProduceResult
}

// FetchRequest is a follower asking its leader for batches from FetchOffset.
type FetchRequest struct {
	ReplicaID   int
	TP          TP
	FetchOffset int64
}

// FetchResponse carries stored batches and the leader's high watermark.
type FetchResponse struct {
	TP            TP
	Error         kerr.Code
	HighWatermark int64
	LeaderEpoch   int32
	Batches       [][]byte
}

// The produce and fetch messages are sent by pointer, cut from slabs (a
// value boxed into a Body would be an allocation of its own): only the
// pointer is a Body, so that a value sent by mistake does not compile.
func (InitProducerIDRequest) Name() string  { return "InitProducerId" }
func (InitProducerIDResponse) Name() string { return "InitProducerId" }
func (*ProduceRequest) Name() string        { return "Produce" }
func (*ProduceResponse) Name() string       { return "Produce" }
func (*FetchRequest) Name() string          { return "Fetch" }
func (*FetchResponse) Name() string         { return "Fetch" }

func (InitProducerIDRequest) IsResponse() bool  { return false }
func (InitProducerIDResponse) IsResponse() bool { return true }
func (*ProduceRequest) IsResponse() bool        { return false }
func (*ProduceResponse) IsResponse() bool       { return true }
func (*FetchRequest) IsResponse() bool          { return false }
func (*FetchResponse) IsResponse() bool         { return true }

// Transactions (KIP-98, KIP-890) and consumers.

// AddPartitionsToTxnRequest adds partitions to a transaction (protocol v1).
type AddPartitionsToTxnRequest struct {
	TransactionalID string
	ProducerID      int64
	Epoch           int16
	Partitions      []TP
}

// AddPartitionsToTxnResponse answers it (one error for all partitions).
type AddPartitionsToTxnResponse struct{ Error kerr.Code }

// AddOffsetsToTxnRequest adds a group's offsets to a transaction (protocol v1).
type AddOffsetsToTxnRequest struct {
	TransactionalID string
	ProducerID      int64
	Epoch           int16
	Group           string
}

// AddOffsetsToTxnResponse answers it.
type AddOffsetsToTxnResponse struct{ Error kerr.Code }

// TxnOffsetCommitRequest writes a group's offsets inside a transaction; it
// goes to the group coordinator.
type TxnOffsetCommitRequest struct {
	TransactionalID string
	Group           string
	ProducerID      int64
	Epoch           int16
	Offsets         []Offset
	TV2             bool
	// The consumer's group metadata (KIP-447): its member id and the
	// generation it has, or "" and -1 from the groupId-only API; a static
	// member's group.instance.id ("" for none).
	MemberID        string
	GenerationID    int32
	GroupInstanceID string
}

// Offset is a consumer position to commit.
type Offset struct {
	TP     TP
	Offset int64
}

// TxnOffsetCommitResponse answers it.
type TxnOffsetCommitResponse struct{ Error kerr.Code }

// EndTxnRequest commits or aborts a transaction.
type EndTxnRequest struct {
	TransactionalID string
	ProducerID      int64
	Epoch           int16
	Commit          bool
	TV2             bool // EndTxn version 5 (KafkaApis: version > 4 is transaction version 2)
}

// EndTxnResponse answers it; under transaction version 2 it carries the
// producer id and the epoch to use from now on.
type EndTxnResponse struct {
	Error      kerr.Code
	ProducerID int64
	Epoch      int16
}

// WriteTxnMarkersRequest asks a partition leader to write markers.
type WriteTxnMarkersRequest struct {
	ProducerID       int64
	Epoch            int16
	Commit           bool
	CoordinatorEpoch int32
	Partitions       []TP
	TV2              bool
	TransactionalID  string // whose transaction (for the coordinator's bookkeeping)
}

// MarkerResult is one partition's answer to a marker write.
type MarkerResult struct {
	TP    TP
	Error kerr.Code
}

// WriteTxnMarkersResponse answers it, partition by partition.
type WriteTxnMarkersResponse struct {
	TransactionalID string
	ProducerID      int64
	Results         []MarkerResult
}

// ConsumerFetchRequest is a consumer reading a partition from an offset.
type ConsumerFetchRequest struct {
	TP            TP
	Offset        int64
	ReadCommitted bool
}

// AbortedTxn is an entry of a read_committed fetch's aborted list.
type AbortedTxn struct {
	ProducerID  int64
	FirstOffset int64
}

// ConsumerFetchResponse carries batches up to the high watermark
// (read_uncommitted) or the last stable offset (read_committed), with the
// aborted transactions a read_committed reader must skip.
type ConsumerFetchResponse struct {
	TP               TP
	Error            kerr.Code
	HighWatermark    int64
	LastStableOffset int64
	Batches          [][]byte
	Aborted          []AbortedTxn
}

func (AddPartitionsToTxnRequest) Name() string  { return "AddPartitionsToTxn" }
func (AddPartitionsToTxnResponse) Name() string { return "AddPartitionsToTxn" }
func (AddOffsetsToTxnRequest) Name() string     { return "AddOffsetsToTxn" }
func (AddOffsetsToTxnResponse) Name() string    { return "AddOffsetsToTxn" }
func (TxnOffsetCommitRequest) Name() string     { return "TxnOffsetCommit" }
func (TxnOffsetCommitResponse) Name() string    { return "TxnOffsetCommit" }
func (EndTxnRequest) Name() string              { return "EndTxn" }
func (EndTxnResponse) Name() string             { return "EndTxn" }
func (WriteTxnMarkersRequest) Name() string     { return "WriteTxnMarkers" }
func (WriteTxnMarkersResponse) Name() string    { return "WriteTxnMarkers" }
func (ConsumerFetchRequest) Name() string       { return "Fetch" }
func (ConsumerFetchResponse) Name() string      { return "Fetch" }

func (AddPartitionsToTxnRequest) IsResponse() bool  { return false }
func (AddPartitionsToTxnResponse) IsResponse() bool { return true }
func (AddOffsetsToTxnRequest) IsResponse() bool     { return false }
func (AddOffsetsToTxnResponse) IsResponse() bool    { return true }
func (TxnOffsetCommitRequest) IsResponse() bool     { return false }
func (TxnOffsetCommitResponse) IsResponse() bool    { return true }
func (EndTxnRequest) IsResponse() bool              { return false }
func (EndTxnResponse) IsResponse() bool             { return true }
func (WriteTxnMarkersRequest) IsResponse() bool     { return false }
func (WriteTxnMarkersResponse) IsResponse() bool    { return true }
func (ConsumerFetchRequest) IsResponse() bool       { return false }
func (ConsumerFetchResponse) IsResponse() bool      { return true }

// CopyReused returns body for another world to own. The bodies of the
// produce and replication paths are sent by pointer and reused by their
// world once read, so each world holds its own copy of those in flight or
// waiting to be sent; any other body is never changed once sent and is
// returned as it is, to be shared.
func CopyReused(body Body) Body {
	switch b := body.(type) {
	case *FetchRequest:
		n := *b
		return &n
	case *FetchResponse:
		n := *b
		n.Batches = slices.Clone(b.Batches)
		return &n
	case *ProduceRequest:
		n := *b
		n.Batches = slices.Clone(b.Batches)
		for i := range n.Batches {
			if pb := &n.Batches[i]; pb.Owned {
				pb.Data = slices.Clone(pb.Data) // the leader of either world writes into its own
			}
		}
		return &n
	case *ProduceResponse:
		n := *b
		n.Results = slices.Clone(b.Results)
		return &n
	}
	return body
}
