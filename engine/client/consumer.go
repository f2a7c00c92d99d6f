package client

import (
	"fmt"
	"slices"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/trace"
)

// ConsumerEnv is what a consumer sees of the world.
type ConsumerEnv interface {
	Now() int64
	Leader(tp msg.TP) (broker int, ok bool)
	Send(to int, body msg.Body) int
	Tracing() bool
	Emit(e trace.Event)
}

// Read is one record a consumer handed to its application.
type Read struct {
	TP            msg.TP
	Offset        int64
	Key, Value    []byte
	ProducerID    int64
	ProducerEpoch int16
	Transactional bool
}

// Consumer reads partitions with an isolation level. Filtering aborted
// transactions and control records happens here, on the client, as in
// Kafka (CompletedFetch): the broker sends them and says which are aborted.
type Consumer struct {
	name          string
	readCommitted bool
	tps           []msg.TP
	group         string
	maxPoll       int  // max.poll.records
	needOffsets   bool // positions must come from the group's committed offsets first
	positions     map[msg.TP]int64
	read          []Read
	fetching      map[int]fetch // request id -> the fetch
	// Group membership (consumer.groupMetadata()): the member id and
	// generation of its last rebalance ("" and -1 before its first poll
	// joins), and when the application last polled, against
	// max.poll.interval.ms.
	memberID        string
	generation      int32
	lastPollMs      int64
	maxPollInterval int64
	joins           int // member ids handed out so far
	dec             record.Decoder
	batch           record.Batch
}

// NewConsumer starts a consumer at the group's committed offsets (or the
// beginning: auto.offset.reset=earliest).
// maxPoll 0 means Kafka's default max.poll.records.
func NewConsumer(name string, readCommitted bool, tps []msg.TP, group string, committed map[msg.TP]int64, maxPoll int) *Consumer {
	if maxPoll <= 0 {
		maxPoll = DefaultMaxPollRecords
	}
	c := &Consumer{name: name, readCommitted: readCommitted, tps: slices.Clone(tps), group: group, maxPoll: maxPoll,
		positions: map[msg.TP]int64{}, fetching: map[int]fetch{}, generation: -1, maxPollInterval: DefaultMaxPollIntervalMs}
	for _, tp := range tps {
		c.positions[tp] = committed[tp]
	}
	c.needOffsets = group != ""
	return c
}

// NeedsOffsets reports whether the consumer still has to fetch its group's
// committed offsets before it can read.
func (c *Consumer) NeedsOffsets() bool { return c.needOffsets }

// SetOffsets takes the group's committed offsets (an OffsetFetch answer);
// partitions without one start at the beginning.
func (c *Consumer) SetOffsets(committed map[msg.TP]int64) {
	for _, tp := range c.tps {
		c.Seek(tp, committed[tp])
	}
	c.needOffsets = false
}

// fetch is a fetch request on its way.
type fetch struct {
	tp     msg.TP
	sentMs int64
	broker int
}

// FetchTimeoutMs is how long a consumer waits for a fetch answer before it
// gives up on it and fetches again (request.timeout.ms).
const FetchTimeoutMs = 30000

// DefaultMaxPollRecords is Kafka's max.poll.records.
const DefaultMaxPollRecords = 500

// DefaultMaxPollIntervalMs is Kafka's max.poll.interval.ms: a consumer whose
// application has not polled for that long leaves its group (the heartbeat
// thread sends LeaveGroup, AbstractCoordinator.HeartbeatThread).
const DefaultMaxPollIntervalMs = 300_000

// SetMaxPollInterval sets max.poll.interval.ms (0 keeps Kafka's default).
func (c *Consumer) SetMaxPollInterval(ms int64) {
	if ms > 0 {
		c.maxPollInterval = ms
	}
}

// GroupMetadata is consumer.groupMetadata(): the member id and generation
// the consumer last joined with ("" and -1 when it has not).
func (c *Consumer) GroupMetadata() (string, int32) { return c.memberID, c.generation }

// Joined records the consumer's membership after a rebalance, and that its
// positions must come from the group's committed offsets when it (re)joins.
func (c *Consumer) Joined(member string, generation int32, fetchOffsets bool) {
	c.memberID, c.generation = member, generation
	if fetchOffsets {
		c.needOffsets = true
	}
}

// NewMemberID is the member id of the consumer's next join, NAME-N: in
// Kafka's classic protocol every JoinGroup without one gets a fresh id.
func (c *Consumer) NewMemberID() string {
	c.joins++
	return fmt.Sprintf("%s-%d", c.name, c.joins)
}

// LeftGroup forgets the membership: the next poll joins again.
func (c *Consumer) LeftGroup() { c.memberID, c.generation = "", -1 }

// PollDeadline is when the consumer leaves its group unless the
// application polls before: the last poll plus max.poll.interval.ms.
func (c *Consumer) PollDeadline() int64 { return c.lastPollMs + c.maxPollInterval }

// MaxPollInterval is max.poll.interval.ms.
func (c *Consumer) MaxPollInterval() int64 { return c.maxPollInterval }

// MarkPoll records that the application called poll now.
func (c *Consumer) MarkPoll(now int64) { c.lastPollMs = now }

// Name, Group, ReadCommitted, Partitions describe the consumer.
func (c *Consumer) Name() string         { return c.name }
func (c *Consumer) Group() string        { return c.group }
func (c *Consumer) ReadCommitted() bool  { return c.readCommitted }
func (c *Consumer) Partitions() []msg.TP { return slices.Clone(c.tps) }

// Isolation is "read_committed" or "read_uncommitted".
func (c *Consumer) Isolation() string {
	if c.readCommitted {
		return "read_committed"
	}
	return "read_uncommitted"
}

// Position is the next offset the consumer will read from tp.
func (c *Consumer) Position(tp msg.TP) int64 { return c.positions[tp] }

// Records returns everything the consumer has read, in order.
func (c *Consumer) Records() []Read { return c.read }

// Seek moves the position of tp (KafkaConsumer.seek). A fetch in flight
// for tp from another offset is forgotten: its answer no longer matches the
// position (Kafka's FetchCollector discards such a stale fetch).
func (c *Consumer) Seek(tp msg.TP, offset int64) {
	if c.positions[tp] == offset {
		return
	}
	c.positions[tp] = offset
	for id, f := range c.fetching {
		if f.tp == tp {
			delete(c.fetching, id)
		}
	}
}

// Restart is a new instance of the consumer application: it starts at the
// committed offsets (the beginning where none is committed) and forgets
// the old instance's fetches; what the old one read stays in Records.
func (c *Consumer) Restart(committed map[msg.TP]int64) {
	c.SetOffsets(committed)
	c.needOffsets = c.group != ""
	clear(c.fetching)
	c.LeftGroup()
}

// Poll fetches once from every partition that has no fetch in flight.
func (c *Consumer) Poll(env ConsumerEnv) bool {
	sent := false
	for id, f := range c.fetching {
		if env.Now()-f.sentMs >= FetchTimeoutMs {
			delete(c.fetching, id) // no answer in time: the broker or the network lost it
		}
	}
	for _, tp := range c.tps {
		if slices.Contains(c.inFlight(), tp) {
			continue
		}
		leader, ok := env.Leader(tp)
		if !ok {
			continue
		}
		id := env.Send(leader, msg.ConsumerFetchRequest{TP: tp, Offset: c.positions[tp], ReadCommitted: c.readCommitted})
		c.fetching[id] = fetch{tp: tp, sentMs: env.Now(), broker: leader}
		sent = true
	}
	return sent
}

// Disconnect forgets the fetches in flight to a broker whose connection
// closed: their answers will not come.
func (c *Consumer) Disconnect(broker int) {
	for id, f := range c.fetching {
		if f.broker == broker {
			delete(c.fetching, id)
		}
	}
}

func (c *Consumer) inFlight() []msg.TP {
	out := make([]msg.TP, 0, len(c.fetching))
	for _, f := range c.fetching {
		out = append(out, f.tp)
	}
	return out
}

// OnResponse takes a fetch answer. It returns false for an answer the
// consumer no longer waits for.
func (c *Consumer) OnResponse(m *msg.Message, env ConsumerEnv) bool {
	f, ok := c.fetching[m.ReplyTo]
	tp := f.tp
	resp, isFetch := m.Body.(msg.ConsumerFetchResponse)
	if !ok || !isFetch {
		return false
	}
	delete(c.fetching, m.ReplyTo)
	var returned []int64
	if resp.Error == kerr.None {
		returned = c.consume(tp, resp)
	}
	if env.Tracing() {
		env.Emit(c.fetchEvent(tp, resp, returned))
	}
	return true
}

// Accept is the client-side filter for a consumer the engine does not run
// (a real client of eoslab serve): the broker's answer to its fetch from
// offset from, filtered as the client library does, with the records it
// hands its application kept in Records (the newest keep of them).
func (c *Consumer) Accept(tp msg.TP, from int64, resp msg.ConsumerFetchResponse, keep int) {
	c.positions[tp] = from
	c.consume(tp, resp)
	if n := len(c.read); n > keep {
		c.read = slices.Clone(c.read[n-keep:])
	}
}

// consume applies Kafka's client-side filter (CompletedFetch) and returns
// the offsets handed to the application.
func (c *Consumer) consume(tp msg.TP, resp msg.ConsumerFetchResponse) []int64 {
	aborted := slices.Clone(resp.Aborted)
	slices.SortFunc(aborted, func(a, b msg.AbortedTxn) int { return int(a.FirstOffset - b.FirstOffset) })
	abortedPIDs := map[int64]bool{}
	var returned []int64
	for _, data := range resp.Batches {
		if c.dec.Decode(data, &c.batch) != nil {
			break
		}
		h := &c.batch.Header
		if h.LastOffset() < c.positions[tp] {
			continue
		}
		next := h.LastOffset() + 1
		if c.readCommitted && h.HasProducerID() {
			for len(aborted) > 0 && aborted[0].FirstOffset <= h.LastOffset() {
				abortedPIDs[aborted[0].ProducerID] = true
				aborted = aborted[1:]
			}
		}
		switch {
		case h.Attributes.Control():
			if mk, err := record.ParseMarker(&c.batch); err == nil && mk.Type == record.ControlAbort {
				delete(abortedPIDs, h.ProducerID)
			}
		case c.readCommitted && h.Attributes.Transactional() && abortedPIDs[h.ProducerID]:
			// Skipped: an aborted transaction's batch.
		default:
			for _, r := range c.batch.Records {
				off := h.BaseOffset + int64(r.OffsetDelta)
				if off < c.positions[tp] {
					continue
				}
				if len(returned) == c.maxPoll {
					// The rest waits for the next poll (Kafka keeps it
					// buffered; here it is fetched again).
					return returned
				}
				c.read = append(c.read, Read{TP: tp, Offset: off, Key: slices.Clone(r.Key), Value: slices.Clone(r.Value),
					ProducerID: h.ProducerID, ProducerEpoch: h.ProducerEpoch, Transactional: h.Attributes.Transactional()})
				returned = append(returned, off)
				c.positions[tp] = off + 1
			}
		}
		c.positions[tp] = next
	}
	return returned
}

func (c *Consumer) fetchEvent(tp msg.TP, resp msg.ConsumerFetchResponse, returned []int64) trace.Event {
	var aborted string
	for i, a := range resp.Aborted {
		if i > 0 {
			aborted += ","
		}
		aborted += fmt.Sprintf(`{"producer_id":%d,"first_offset":%d}`, a.ProducerID, a.FirstOffset)
	}
	text := fmt.Sprintf("%s (%s) reads %s: %d record(s) %v; high watermark %d, last stable offset %d, now at %d",
		c.name, c.Isolation(), tp, len(returned), returned, resp.HighWatermark, resp.LastStableOffset, c.positions[tp])
	if resp.Error != kerr.None {
		text = fmt.Sprintf("%s cannot read %s: %s", c.name, tp, resp.Error.Name())
	}
	if returned == nil {
		returned = []int64{}
	}
	return trace.New("fetch", text).
		With("consumer", trace.Str(c.name)).With("partition", trace.Str(tp.String())).
		With("isolation", trace.Str(c.Isolation())).With("offsets", trace.List(returned)).
		With("lso", trace.Int(resp.LastStableOffset)).With("high_watermark", trace.Int(resp.HighWatermark)).
		With("error", trace.Str(resp.Error.Name())).
		With("aborted", trace.JSON("["+aborted+"]"))
}
