package sim

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka's wire protocol, for the real clients of `eoslab serve`. Every
// request and response is encoded and decoded by franz-go's kmsg; this
// file only reads the request header, which kmsg leaves to its callers,
// and says which versions the served cluster speaks.

// APIRange is one API the served cluster answers, with the versions it
// accepts (ApiVersions advertises exactly these).
type APIRange struct {
	Key      int16
	Name     string
	Min, Max int16
}

// ServedAPIs are the APIs and versions `eoslab serve` speaks: the ranges
// current franz-go (kgo) and librdkafka negotiate, without the versions
// that need what the engine does not model (topic ids in Fetch v13+ and
// Produce v13+, transaction version 2 in Produce v12, EndTxn v5,
// TxnOffsetCommit v4 and AddPartitionsToTxn v4+ — a cluster served with
// transaction version 1, so clients add partitions explicitly).
var ServedAPIs = []APIRange{
	{0, "Produce", 3, 11},
	{1, "Fetch", 4, 12},
	{2, "ListOffsets", 1, 7},
	{3, "Metadata", 1, 12},
	{8, "OffsetCommit", 2, 8},
	{9, "OffsetFetch", 1, 8},
	{10, "FindCoordinator", 0, 4},
	{11, "JoinGroup", 0, 9},
	{12, "Heartbeat", 0, 4},
	{13, "LeaveGroup", 0, 5},
	{14, "SyncGroup", 0, 5},
	{15, "DescribeGroups", 0, 5},
	{16, "ListGroups", 0, 5},
	{18, "ApiVersions", 0, 3},
	{19, "CreateTopics", 2, 7},
	{22, "InitProducerId", 0, 4},
	{24, "AddPartitionsToTxn", 0, 3},
	{25, "AddOffsetsToTxn", 0, 3},
	{26, "EndTxn", 0, 4},
	{28, "TxnOffsetCommit", 0, 3},
	{32, "DescribeConfigs", 0, 4},
	{37, "CreatePartitions", 0, 3},
	{42, "DeleteGroups", 0, 2},
	{43, "ElectLeaders", 0, 2},
	{47, "OffsetDelete", 0, 0},
	{61, "DescribeProducers", 0, 0},
	{65, "DescribeTransactions", 0, 0},
	{66, "ListTransactions", 0, 1},
}

// servedRange returns the versions the cluster accepts for key.
func servedRange(key int16) (APIRange, bool) {
	for _, r := range ServedAPIs {
		if r.Key == key {
			return r, true
		}
	}
	return APIRange{}, false
}

// APIName is Kafka's name of an API key (InitProducerId, not kmsg's
// InitProducerID): what an `arrive` line calls the request.
func APIName(key int16) string {
	if r, ok := servedRange(key); ok {
		return r.Name
	}
	return kmsg.NameForKey(key)
}

// RequestHeader is the header of a request (v1, or v2 for flexible versions).
type RequestHeader struct {
	Key           int16
	Version       int16
	CorrelationID int32
	ClientID      string // "" for a null client id, as Kafka treats it
}

// ErrMalformed reports a request that cannot be decoded.
var ErrMalformed = errors.New("malformed request")

// DecodeRequest reads one request — header and body, the frame without
// its 4-byte size — with kmsg. A request for an API or a version the
// cluster does not serve is returned with unsupported set (and req nil
// when kmsg cannot decode that version): it is answered with
// UNSUPPORTED_VERSION. A request that cannot be read is an error wrapping
// ErrMalformed, saying why.
func DecodeRequest(data []byte) (h RequestHeader, req kmsg.Request, unsupported bool, err error) {
	if len(data) < 8 {
		return h, nil, false, fmt.Errorf("%w: %d bytes is shorter than a request header", ErrMalformed, len(data))
	}
	h.Key = int16(binary.BigEndian.Uint16(data[0:]))
	h.Version = int16(binary.BigEndian.Uint16(data[2:]))
	h.CorrelationID = int32(binary.BigEndian.Uint32(data[4:]))
	if h.Key == 7 && h.Version == 0 {
		// ControlledShutdown v0 has the only v0 request header: no client
		// id (Kafka's RequestHeader). It is not served.
		return h, nil, true, nil
	}
	if len(data) < 10 {
		return h, nil, false, fmt.Errorf("%w: %d bytes is shorter than a request header", ErrMalformed, len(data))
	}
	n := int16(binary.BigEndian.Uint16(data[8:]))
	rest := data[10:]
	if n >= 0 {
		if int(n) > len(rest) {
			return h, nil, false, fmt.Errorf("%w: the client id's length %d runs past the request", ErrMalformed, n)
		}
		h.ClientID, rest = string(rest[:n]), rest[n:]
	} else if n != -1 {
		return h, nil, false, fmt.Errorf("%w: client id length %d", ErrMalformed, n)
	}
	req = kmsg.RequestForKey(h.Key)
	r, served := servedRange(h.Key)
	if req == nil || !served || h.Version < r.Min || h.Version > r.Max {
		if req == nil || h.Version < 0 || h.Version > req.MaxVersion() {
			return h, nil, true, nil
		}
		// kmsg knows the version: the answer can be encoded in it, naming
		// the partitions asked for when the body reads.
		req.SetVersion(h.Version)
		body := rest
		if req.IsFlexible() {
			if body, err = skipTags(rest); err != nil {
				return h, req, true, nil
			}
		}
		if req.ReadFrom(body) != nil {
			req = kmsg.RequestForKey(h.Key)
			req.SetVersion(h.Version)
		}
		return h, req, true, nil
	}
	req.SetVersion(h.Version)
	if req.IsFlexible() {
		if rest, err = skipTags(rest); err != nil {
			return h, nil, false, err
		}
	}
	if err := req.ReadFrom(rest); err != nil {
		return h, nil, false, fmt.Errorf("%w: %s v%d: %v", ErrMalformed, kmsg.NameForKey(h.Key), h.Version, err)
	}
	return h, req, false, nil
}

// skipTags skips the tagged fields of a flexible request header (KIP-482).
func skipTags(b []byte) ([]byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, fmt.Errorf("%w: bad tagged fields in the request header", ErrMalformed)
	}
	b = b[k:]
	for range n {
		_, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, fmt.Errorf("%w: bad tag in the request header", ErrMalformed)
		}
		b = b[k:]
		size, k := binary.Uvarint(b)
		if k <= 0 || size > uint64(len(b)-k) {
			return nil, fmt.Errorf("%w: a tagged field runs past the request", ErrMalformed)
		}
		b = b[k+int(size):]
	}
	return b, nil
}

// AppendResponse encodes a response frame: the 4-byte size, the
// correlation id, the response header's tagged fields when the response is
// flexible (never for ApiVersions, whose header stays v0 so that any
// client can read it), and the body.
func AppendResponse(dst []byte, corr int32, resp kmsg.Response) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(corr))
	if resp.IsFlexible() && resp.Key() != 18 {
		dst = append(dst, 0)
	}
	dst = resp.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}
