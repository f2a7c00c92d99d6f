// Package msg defines the requests and responses that travel between
// actors in the world: producers, brokers and (as followers) replicas.
// Each travels as an explicit in-flight Message with an id, a sender, a
// receiver and a due time, so that faults can act on it.
package msg

import (
	"fmt"

	"github.com/eoslab/eoslab/engine/kerr"
)

// TP names a topic partition.
type TP struct {
	Topic     string
	Partition int
}

func (tp TP) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

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
		return fmt.Sprintf("broker %d", a.Broker)
	}
	return a.Client
}

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

// InitProducerIDRequest asks for a producer id (and epoch).
type InitProducerIDRequest struct {
	TransactionalID string
	TimeoutMs       int32
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
}

// ProduceRequest carries at most one batch per partition (Produce v3+).
type ProduceRequest struct {
	Acks      int16
	TimeoutMs int32
	Batches   []ProduceBatch
}

// ProduceResult is one partition's answer.
type ProduceResult struct {
	TP             TP
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

func (InitProducerIDRequest) Name() string  { return "InitProducerId" }
func (InitProducerIDResponse) Name() string { return "InitProducerId" }
func (ProduceRequest) Name() string         { return "Produce" }
func (ProduceResponse) Name() string        { return "Produce" }
func (FetchRequest) Name() string           { return "Fetch" }
func (FetchResponse) Name() string          { return "Fetch" }

func (InitProducerIDRequest) IsResponse() bool  { return false }
func (InitProducerIDResponse) IsResponse() bool { return true }
func (ProduceRequest) IsResponse() bool         { return false }
func (ProduceResponse) IsResponse() bool        { return true }
func (FetchRequest) IsResponse() bool           { return false }
func (FetchResponse) IsResponse() bool          { return true }
