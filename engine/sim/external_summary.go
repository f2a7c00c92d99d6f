package sim

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// traceRefusal is a broker refusing a real client's batch on its first
// checks, appending nothing, as Kafka's ReplicaManager and
// UnifiedLog.analyzeAndValidateRecords do: the partition is not there, the
// batch is over message.max.bytes, its header is not a batch's. The answer
// then travels back as any other.
func (w *World) traceRefusal(broker int, client string, tp msg.TP, size int, code int16) {
	if !w.tracing() {
		return
	}
	why := ""
	switch code {
	case errMessageTooLarge:
		why = ": over message.max.bytes " + strconv.Itoa(MaxMessageBytes)
	case errUnknownTopicOrPartition:
		why = ": no such partition"
	}
	name := kerr.Code(code).Name()
	w.emit(trace.New("kafka.refuse", "broker "+strconv.Itoa(broker)+" refuses "+client+"'s batch for "+tp.String()+
		" ("+strconv.Itoa(size)+" bytes), appending nothing: "+name+why).
		With("broker", trace.Int(int64(broker))).With("client", trace.Str(client)).With("partition", trace.Str(tp.String())).
		With("error", trace.Str(name)).With("bytes", trace.Int(int64(size))))
}

// summarizeWire is the one-line content of a real client's request that
// the broker answers from the world's state, as the network panel and the
// trace show it: what a reader of Kafka's request log would look for
// first (the topics, the group and its generation, the partitions asked).
func summarizeWire(r wireRequest) string {
	if r.req == nil { // answered when it arrived; it waits its turn on the connection
		v := "v" + strconv.Itoa(int(r.prepared.GetVersion()))
		if code, ok := errorOf(r.prepared); ok && code != 0 {
			return v + ", answered " + kerr.Code(code).Name()
		}
		return v
	}
	v := "v" + strconv.Itoa(int(r.req.GetVersion()))
	switch q := r.req.(type) {
	case *kmsg.ApiVersionsRequest:
		if q.ClientSoftwareName != "" {
			return v + " from " + q.ClientSoftwareName + " " + q.ClientSoftwareVersion
		}
	case *kmsg.MetadataRequest:
		if q.Topics == nil {
			return v + " for every topic"
		}
		names := make([]string, 0, len(q.Topics))
		for _, t := range q.Topics {
			if t.Topic != nil {
				names = append(names, *t.Topic)
			}
		}
		s := v + " for " + strings.Join(names, ", ")
		if len(names) == 0 {
			s = v + " for the brokers only"
		}
		if q.AllowAutoTopicCreation && len(names) > 0 {
			s += " (auto-create allowed)"
		}
		return s
	case *kmsg.FindCoordinatorRequest:
		keys := q.CoordinatorKeys
		if len(keys) == 0 {
			keys = []string{q.CoordinatorKey}
		}
		kind := "group"
		if q.CoordinatorType == 1 {
			kind = "transaction"
		}
		return v + ", the " + kind + " coordinator of " + strings.Join(keys, ", ")
	case *kmsg.ListOffsetsRequest:
		var parts []string
		for _, t := range q.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, t.Topic+"-"+strconv.Itoa(int(p.Partition))+" "+offsetSpec(p.Timestamp))
			}
		}
		iso := ""
		if q.IsolationLevel == 1 {
			iso = " (read_committed)"
		}
		return v + " " + strings.Join(parts, ", ") + iso
	case *kmsg.CreateTopicsRequest:
		var names []string
		for _, t := range q.Topics {
			names = append(names, t.Topic+" ("+strconv.Itoa(int(t.NumPartitions))+" partitions)")
		}
		return v + " " + strings.Join(names, ", ")
	case *kmsg.JoinGroupRequest:
		member := q.MemberID
		if member == "" {
			member = "a new member"
		}
		return v + " group " + q.Group + ", " + member
	case *kmsg.SyncGroupRequest:
		return v + " group " + q.Group + " generation " + strconv.Itoa(int(q.Generation)) + ", " + q.MemberID
	case *kmsg.HeartbeatRequest:
		return v + " group " + q.Group + " generation " + strconv.Itoa(int(q.Generation)) + ", " + q.MemberID
	case *kmsg.LeaveGroupRequest:
		member := q.MemberID
		if len(q.Members) > 0 {
			member = q.Members[0].MemberID
		}
		return v + " group " + q.Group + ", " + member
	case *kmsg.OffsetCommitRequest:
		s := v + " group " + q.Group + " generation " + strconv.Itoa(int(q.Generation)) + ":"
		for _, t := range q.Topics {
			for _, p := range t.Partitions {
				s += " " + t.Topic + "-" + strconv.Itoa(int(p.Partition)) + "@" + strconv.FormatInt(p.Offset, 10)
			}
		}
		return s
	case *kmsg.OffsetFetchRequest:
		if len(q.Groups) > 0 {
			return v + " group " + q.Groups[0].Group
		}
		return v + " group " + q.Group
	case *kmsg.DescribeTransactionsRequest:
		return v + " " + strings.Join(q.TransactionalIDs, ", ")
	case *kmsg.DescribeGroupsRequest:
		return v + " group " + strings.Join(q.Groups, ", ")
	case *kmsg.DeleteGroupsRequest:
		return v + " group " + strings.Join(q.Groups, ", ")
	case *kmsg.OffsetDeleteRequest:
		s := v + " group " + q.Group + ":"
		for _, t := range q.Topics {
			for _, p := range t.Partitions {
				s += " " + t.Topic + "-" + strconv.Itoa(int(p.Partition))
			}
		}
		return s
	case *kmsg.ElectLeadersRequest:
		kind := "preferred"
		if q.Version >= 1 && q.ElectionType == electUnclean {
			kind = "unclean"
		}
		if q.Topics == nil {
			return v + " " + kind + ", every partition"
		}
		var parts []string
		for _, t := range q.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, t.Topic+"-"+strconv.Itoa(int(p)))
			}
		}
		return v + " " + kind + ", " + strings.Join(parts, ", ")
	case *kmsg.ListGroupsRequest:
		if len(q.StatesFilter) > 0 {
			return v + " in state " + strings.Join(q.StatesFilter, ", ")
		}
	case *kmsg.DescribeConfigsRequest:
		var res []string
		for _, r := range q.Resources {
			name := strings.ToLower(resourceTypeName(r.ResourceType)) + " " + strconv.Quote(r.ResourceName)
			if len(r.ConfigNames) > 0 {
				name += " (" + strings.Join(r.ConfigNames, ", ") + ")"
			}
			res = append(res, name)
		}
		return v + " " + strings.Join(res, ", ")
	}
	return v
}

// summarizeWireResponse is the answer's verdict: its error codes, or NONE.
func summarizeWireResponse(r wireResponse) string {
	v := "v" + strconv.Itoa(int(r.resp.GetVersion()))
	switch a := r.resp.(type) {
	case *kmsg.FindCoordinatorResponse:
		if len(a.Coordinators) > 0 {
			c := a.Coordinators[0]
			if c.ErrorCode != 0 {
				return v + " " + kerr.Code(c.ErrorCode).Name()
			}
			return v + " NONE, broker " + strconv.Itoa(int(c.NodeID))
		}
		if a.ErrorCode != 0 {
			return v + " " + kerr.Code(a.ErrorCode).Name()
		}
		return v + " NONE, broker " + strconv.Itoa(int(a.NodeID))
	case *kmsg.JoinGroupResponse:
		if a.ErrorCode != 0 {
			return v + " " + kerr.Code(a.ErrorCode).Name()
		}
		return v + " NONE, generation " + strconv.Itoa(int(a.Generation)) + ", member " + a.MemberID
	case *kmsg.ListOffsetsResponse:
		var parts []string
		for _, t := range a.Topics {
			for _, p := range t.Partitions {
				s := t.Topic + "-" + strconv.Itoa(int(p.Partition)) + " "
				if p.ErrorCode != 0 {
					s += kerr.Code(p.ErrorCode).Name()
				} else {
					s += "offset " + strconv.FormatInt(p.Offset, 10)
				}
				parts = append(parts, s)
			}
		}
		return v + " " + strings.Join(parts, ", ")
	case *kmsg.DescribeGroupsResponse:
		var gs []string
		for _, g := range a.Groups {
			if g.ErrorCode != 0 {
				gs = append(gs, g.Group+" "+kerr.Code(g.ErrorCode).Name())
				continue
			}
			gs = append(gs, g.Group+" "+g.State+", "+strconv.Itoa(len(g.Members))+" member(s)")
		}
		return v + " " + strings.Join(gs, "; ")
	case *kmsg.ListGroupsResponse:
		if a.ErrorCode == 0 {
			return v + " NONE, " + strconv.Itoa(len(a.Groups)) + " group(s)"
		}
	}
	if code, ok := errorOf(r.resp); ok {
		return v + " " + kerr.Code(code).Name()
	}
	return v
}

// offsetSpec names ListOffsets' special timestamps as Kafka's
// ListOffsetsRequest does (EARLIEST_TIMESTAMP -2, LATEST_TIMESTAMP -1, ...).
func offsetSpec(ts int64) string {
	switch ts {
	case -1:
		return "latest"
	case -2:
		return "earliest"
	case -3:
		return "max timestamp"
	case -4:
		return "earliest local"
	case -5:
		return "latest tiered"
	}
	return "at timestamp " + strconv.FormatInt(ts, 10)
}

// errorOf returns a response's first non-zero error code — the top-level
// one, else the first of its topics' or partitions' — and whether the
// response has error codes at all.
func errorOf(resp kmsg.Response) (int16, bool) {
	switch a := resp.(type) {
	case *kmsg.ApiVersionsResponse:
		return a.ErrorCode, true
	case *kmsg.SyncGroupResponse:
		return a.ErrorCode, true
	case *kmsg.HeartbeatResponse:
		return a.ErrorCode, true
	case *kmsg.LeaveGroupResponse:
		return a.ErrorCode, true
	case *kmsg.JoinGroupResponse:
		return a.ErrorCode, true
	case *kmsg.InitProducerIDResponse:
		return a.ErrorCode, true
	case *kmsg.EndTxnResponse:
		return a.ErrorCode, true
	case *kmsg.AddOffsetsToTxnResponse:
		return a.ErrorCode, true
	case *kmsg.ListTransactionsResponse:
		return a.ErrorCode, true
	case *kmsg.FindCoordinatorResponse:
		if a.ErrorCode != 0 || len(a.Coordinators) == 0 {
			return a.ErrorCode, true
		}
		return a.Coordinators[0].ErrorCode, true
	case *kmsg.MetadataResponse:
		for _, t := range a.Topics {
			if t.ErrorCode != 0 {
				return t.ErrorCode, true
			}
		}
		return 0, true
	case *kmsg.CreateTopicsResponse:
		for _, t := range a.Topics {
			if t.ErrorCode != 0 {
				return t.ErrorCode, true
			}
		}
		return 0, true
	case *kmsg.OffsetCommitResponse:
		for _, t := range a.Topics {
			for _, p := range t.Partitions {
				if p.ErrorCode != 0 {
					return p.ErrorCode, true
				}
			}
		}
		return 0, true
	case *kmsg.OffsetFetchResponse:
		if a.ErrorCode != 0 {
			return a.ErrorCode, true
		}
		for _, g := range a.Groups {
			if g.ErrorCode != 0 {
				return g.ErrorCode, true
			}
		}
		return 0, true
	case *kmsg.DescribeTransactionsResponse:
		for _, s := range a.TransactionStates {
			if s.ErrorCode != 0 {
				return s.ErrorCode, true
			}
		}
		return 0, true
	case *kmsg.DescribeProducersResponse:
		for _, t := range a.Topics {
			for _, p := range t.Partitions {
				if p.ErrorCode != 0 {
					return p.ErrorCode, true
				}
			}
		}
		return 0, true
	case *kmsg.ProduceResponse:
		for _, t := range a.Topics {
			for _, p := range t.Partitions {
				if p.ErrorCode != 0 {
					return p.ErrorCode, true
				}
			}
		}
		return 0, true
	case *kmsg.FetchResponse:
		if a.ErrorCode != 0 {
			return a.ErrorCode, true
		}
		for _, t := range a.Topics {
			for _, p := range t.Partitions {
				if p.ErrorCode != 0 {
					return p.ErrorCode, true
				}
			}
		}
		return 0, true
	case *kmsg.ListGroupsResponse, *kmsg.DescribeGroupsResponse, *kmsg.DeleteGroupsResponse, *kmsg.OffsetDeleteResponse,
		*kmsg.DescribeConfigsResponse, *kmsg.ElectLeadersResponse:
		// Admin answers, rare on the wire: the first non-zero ErrorCode
		// found walking the answer, its own before its entries'.
		return firstErrorCode(reflect.ValueOf(resp)), true
	}
	return 0, false
}

// firstErrorCode is the first non-zero ErrorCode field of v, a struct's own
// before those of the structs in its slices, depth first; 0 if none.
func firstErrorCode(v reflect.Value) int16 {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			return firstErrorCode(v.Elem())
		}
	case reflect.Struct:
		if f := v.FieldByName("ErrorCode"); f.IsValid() && f.Kind() == reflect.Int16 && f.Int() != 0 {
			return int16(f.Int())
		}
		for i := range v.NumField() {
			if f := v.Field(i); f.Kind() == reflect.Slice {
				if code := firstErrorCode(f); code != 0 {
					return code
				}
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if code := firstErrorCode(v.Index(i)); code != 0 {
				return code
			}
		}
	}
	return 0
}
