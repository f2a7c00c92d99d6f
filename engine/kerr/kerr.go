// Package kerr holds Kafka's protocol error codes as comparable values.
//
// A broker or coordinator rejection is data, not a Go error: the engine
// returns a Code inside its decision and the UI, the trace and the lessons
// print its Name, exactly as Kafka spells it in Errors.java.
//
// Retriable follows the exception class Kafka maps the code to (a subclass
// of RetriableException or not): ConcurrentTransactionsException is one,
// as are UnstableOffsetCommitException and the InvalidMetadataException
// family (NETWORK_EXCEPTION, KAFKA_STORAGE_ERROR). The client's reaction is
// a separate matter, modelled in engine/client: the transaction manager
// retries what is retriable and turns some other codes into abortable or
// fatal errors.
package kerr

import (
	"fmt"
	"slices"
)

// Code is a Kafka protocol error code (int16 on the wire).
type Code int16

// The codes eoslab produces or reacts to. Names, numbers and retriability
// follow org.apache.kafka.common.protocol.Errors.
const (
	UnknownServerError                 Code = -1
	None                               Code = 0
	CorruptMessage                     Code = 2
	UnknownTopicOrPartition            Code = 3
	LeaderNotAvailable                 Code = 5
	NotLeaderOrFollower                Code = 6
	RequestTimedOut                    Code = 7
	MessageTooLarge                    Code = 10
	NetworkException                   Code = 13
	CoordinatorLoadInProgress          Code = 14
	CoordinatorNotAvailable            Code = 15
	NotCoordinator                     Code = 16
	InvalidTopic                       Code = 17
	NotEnoughReplicas                  Code = 19
	NotEnoughReplicasAfterAppend       Code = 20
	InvalidRequiredAcks                Code = 21
	IllegalGeneration                  Code = 22
	InconsistentGroupProtocol          Code = 23
	UnknownMemberID                    Code = 25
	RebalanceInProgress                Code = 27
	InvalidTimestamp                   Code = 32
	UnsupportedVersion                 Code = 35
	TopicAlreadyExists                 Code = 36
	InvalidPartitions                  Code = 37
	InvalidReplicationFactor           Code = 38
	InvalidReplicaAssignment           Code = 39
	InvalidConfig                      Code = 40
	InvalidRequest                     Code = 42
	PolicyViolation                    Code = 44
	OutOfOrderSequenceNumber           Code = 45
	DuplicateSequenceNumber            Code = 46
	InvalidProducerEpoch               Code = 47
	InvalidTxnState                    Code = 48
	InvalidProducerIDMapping           Code = 49
	InvalidTransactionTimeout          Code = 50
	ConcurrentTransactions             Code = 51
	TransactionCoordinatorFenced       Code = 52
	TransactionalIDAuthorizationFailed Code = 53
	KafkaStorageError                  Code = 56
	UnknownProducerID                  Code = 59
	NonEmptyGroup                      Code = 68
	GroupIDNotFound                    Code = 69
	MemberIDRequired                   Code = 79
	PreferredLeaderNotAvailable        Code = 80
	EligibleLeadersNotAvailable        Code = 83
	ElectionNotNeeded                  Code = 84
	FencedInstanceID                   Code = 82
	InvalidRecord                      Code = 87
	UnstableOffsetCommit               Code = 88
	ProducerFenced                     Code = 90
	UnknownTopicID                     Code = 100
	TransactionalIDNotFound            Code = 105
	TransactionAbortable               Code = 120
)

type info struct {
	name      string
	retriable bool
	desc      string
}

// table is read-only after package initialisation.
var table = map[Code]info{
	UnknownServerError:                 {"UNKNOWN_SERVER_ERROR", false, "The server experienced an unexpected error when processing the request."},
	None:                               {"NONE", false, "Success."},
	CorruptMessage:                     {"CORRUPT_MESSAGE", true, "The batch failed its CRC check or is otherwise corrupt."},
	UnknownTopicOrPartition:            {"UNKNOWN_TOPIC_OR_PARTITION", true, "This broker does not host the topic or partition."},
	LeaderNotAvailable:                 {"LEADER_NOT_AVAILABLE", true, "The partition has no leader right now (an election, or a topic just created)."},
	InvalidTopic:                       {"INVALID_TOPIC_EXCEPTION", false, "The topic name is not valid."},
	RebalanceInProgress:                {"REBALANCE_IN_PROGRESS", false, "The group is rebalancing: the member must rejoin."},
	UnsupportedVersion:                 {"UNSUPPORTED_VERSION", false, "The broker does not serve this version of the request."},
	TopicAlreadyExists:                 {"TOPIC_ALREADY_EXISTS", false, "A topic of that name exists."},
	InvalidPartitions:                  {"INVALID_PARTITIONS", false, "The number of partitions is not valid."},
	InvalidReplicationFactor:           {"INVALID_REPLICATION_FACTOR", false, "The replication factor is not valid."},
	InvalidReplicaAssignment:           {"INVALID_REPLICA_ASSIGNMENT", false, "The replica assignment is not valid."},
	InvalidConfig:                      {"INVALID_CONFIG", false, "A configuration in the request is not valid."},
	PolicyViolation:                    {"POLICY_VIOLATION", false, "The request breaks a policy the broker enforces."},
	MemberIDRequired:                   {"MEMBER_ID_REQUIRED", false, "A new member must rejoin with the member id the coordinator just gave it (KIP-394)."},
	PreferredLeaderNotAvailable:        {"PREFERRED_LEADER_NOT_AVAILABLE", true, "The preferred leader was not available."},
	EligibleLeadersNotAvailable:        {"ELIGIBLE_LEADERS_NOT_AVAILABLE", true, "Eligible topic partition leaders are not available."},
	ElectionNotNeeded:                  {"ELECTION_NOT_NEEDED", true, "Leader election not needed for topic partition."},
	UnknownTopicID:                     {"UNKNOWN_TOPIC_ID", true, "This broker knows no topic with that id."},
	NotLeaderOrFollower:                {"NOT_LEADER_OR_FOLLOWER", true, "This broker is not the leader (or a follower) for the partition."},
	RequestTimedOut:                    {"REQUEST_TIMED_OUT", true, "The request timed out before the required replicas acknowledged it."},
	MessageTooLarge:                    {"MESSAGE_TOO_LARGE", false, "The batch is larger than the partition accepts."},
	NetworkException:                   {"NETWORK_EXCEPTION", true, "The connection closed before the response arrived (a disconnect or a request timeout)."},
	CoordinatorLoadInProgress:          {"COORDINATOR_LOAD_IN_PROGRESS", true, "The coordinator is loading and cannot answer yet."},
	CoordinatorNotAvailable:            {"COORDINATOR_NOT_AVAILABLE", true, "The coordinator is not available."},
	NotCoordinator:                     {"NOT_COORDINATOR", true, "This broker is not the coordinator for the key."},
	NotEnoughReplicas:                  {"NOT_ENOUGH_REPLICAS", true, "Fewer in-sync replicas than min.insync.replicas; nothing was appended."},
	NotEnoughReplicasAfterAppend:       {"NOT_ENOUGH_REPLICAS_AFTER_APPEND", true, "Appended, but the in-sync replicas fell below min.insync.replicas."},
	InvalidRequiredAcks:                {"INVALID_REQUIRED_ACKS", false, "acks must be -1, 0 or 1."},
	IllegalGeneration:                  {"ILLEGAL_GENERATION", false, "The group generation in the request is not the group's current one."},
	UnknownMemberID:                    {"UNKNOWN_MEMBER_ID", false, "The member id is not in the group's current generation."},
	InconsistentGroupProtocol:          {"INCONSISTENT_GROUP_PROTOCOL", false, "The member's protocol type or protocols are not the group's."},
	FencedInstanceID:                   {"FENCED_INSTANCE_ID", false, "A newer member with the same group.instance.id has taken the static member's place."},
	InvalidTimestamp:                   {"INVALID_TIMESTAMP", false, "A record timestamp is out of the accepted range."},
	InvalidRequest:                     {"INVALID_REQUEST", false, "The request is malformed."},
	OutOfOrderSequenceNumber:           {"OUT_OF_ORDER_SEQUENCE_NUMBER", false, "The broker received an out of order sequence number."},
	DuplicateSequenceNumber:            {"DUPLICATE_SEQUENCE_NUMBER", false, "The broker received a duplicate sequence number (not sent by brokers since 2.0)."},
	InvalidProducerEpoch:               {"INVALID_PRODUCER_EPOCH", false, "The producer's epoch is older than the one the broker knows."},
	InvalidTxnState:                    {"INVALID_TXN_STATE", false, "The request is not valid in the transaction's current state."},
	InvalidProducerIDMapping:           {"INVALID_PRODUCER_ID_MAPPING", false, "The producer id does not belong to the transactional id."},
	InvalidTransactionTimeout:          {"INVALID_TRANSACTION_TIMEOUT", false, "The transaction timeout is above transaction.max.timeout.ms or not positive."},
	ConcurrentTransactions:             {"CONCURRENT_TRANSACTIONS", true, "The coordinator is still completing an earlier transition for this id."},
	TransactionCoordinatorFenced:       {"TRANSACTION_COORDINATOR_FENCED", false, "A newer coordinator has taken over this transactional id."},
	TransactionalIDAuthorizationFailed: {"TRANSACTIONAL_ID_AUTHORIZATION_FAILED", false, "Not authorized to use this transactional id."},
	KafkaStorageError:                  {"KAFKA_STORAGE_ERROR", true, "The leader's log directory failed."},
	UnknownProducerID:                  {"UNKNOWN_PRODUCER_ID", false, "The broker has no state for this producer id (brokers 1.0-2.4 only)."},
	NonEmptyGroup:                      {"NON_EMPTY_GROUP", false, "The group has members: only an empty group can be deleted."},
	GroupIDNotFound:                    {"GROUP_ID_NOT_FOUND", false, "The group does not exist."},
	InvalidRecord:                      {"INVALID_RECORD", false, "The batch breaks a broker-side validation rule."},
	UnstableOffsetCommit:               {"UNSTABLE_OFFSET_COMMIT", true, "Offsets of the group are pending in an open transaction."},
	ProducerFenced:                     {"PRODUCER_FENCED", false, "A newer producer with the same transactional id has fenced this one."},
	TransactionalIDNotFound:            {"TRANSACTIONAL_ID_NOT_FOUND", false, "The transactional id is not known."},
	TransactionAbortable:               {"TRANSACTION_ABORTABLE", false, "The transaction must be aborted by the client."},
}

// byCode is table by code + 1 (UNKNOWN_SERVER_ERROR is -1; an unknown code
// has no name), read-only: a traced produce names two or three codes, and
// an index is cheaper than a map's hash.
var byCode = func() []info {
	t := make([]info, slices.Max(All())+2)
	for c, i := range table {
		t[c+1] = i
	}
	return t
}()

func (c Code) info() (info, bool) {
	if i := int(c) + 1; uint(i) < uint(len(byCode)) && byCode[i].name != "" {
		return byCode[i], true
	}
	return info{}, false
}

// Name is Kafka's spelling of the error, e.g. OUT_OF_ORDER_SEQUENCE_NUMBER.
func (c Code) Name() string {
	// The name alone, not the whole info copied out: every traced produce
	// asks for a name or two.
	if i := int(c) + 1; uint(i) < uint(len(byCode)) && byCode[i].name != "" {
		return byCode[i].name
	}
	return fmt.Sprintf("UNKNOWN_ERROR_%d", int16(c))
}

// Retriable reports whether Kafka's client treats the error as retriable.
func (c Code) Retriable() bool { i, _ := c.info(); return i.retriable }

// Description is a one-line explanation for narration and help.
func (c Code) Description() string { i, _ := c.info(); return i.desc }

// String returns "NAME (code)", e.g. "INVALID_PRODUCER_EPOCH (47)".
func (c Code) String() string { return fmt.Sprintf("%s (%d)", c.Name(), int16(c)) }

// Parse finds a code by its Kafka name.
func Parse(name string) (Code, bool) {
	c, ok := byName[name]
	return c, ok
}

// byName is table by name (names are unique: TestNamesUnique), read-only
// after package initialisation: every `fail request` parses its error.
var byName = func() map[string]Code {
	m := make(map[string]Code, len(table))
	for c, i := range table {
		m[i.name] = c
	}
	return m
}()

// All returns every known code, in ascending numeric order.
func All() []Code {
	out := make([]Code, 0, len(table))
	for c := range table {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
