package sim

import (
	"crypto/sha256"
	"reflect"
	"slices"

	"github.com/eoslab/eoslab/engine/broker"
	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/txn"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The Kafka requests a broker answers from the world's state when it
// reads them: cluster metadata, coordinators, offsets, consumer groups
// (external_group.go), and the describe APIs. Where the protocol asks for
// something the engine does not model (topic configs, racks, cluster id),
// the answer is what Kafka's defaults would give.

// Wire error codes: kerr's codes (Kafka's names and numbers) as the int16
// of kmsg's ErrorCode fields.
const (
	errNone                     = int16(kerr.None)
	errLeaderNotAvailable       = int16(kerr.LeaderNotAvailable)
	errNotLeaderOrFollower      = int16(kerr.NotLeaderOrFollower)
	errCoordNotAvailable        = int16(kerr.CoordinatorNotAvailable)
	errNotCoordinator           = int16(kerr.NotCoordinator)
	errIllegalGeneration        = int16(kerr.IllegalGeneration)
	errInconsistentProtocol     = int16(kerr.InconsistentGroupProtocol)
	errUnknownMemberID          = int16(kerr.UnknownMemberID)
	errRebalanceInProgress      = int16(kerr.RebalanceInProgress)
	errTopicAlreadyExists       = int16(kerr.TopicAlreadyExists)
	errInvalidPartitions        = int16(kerr.InvalidPartitions)
	errInvalidRequest           = int16(kerr.InvalidRequest)
	errPolicyViolation          = int16(kerr.PolicyViolation)
	errMemberIDRequired         = int16(kerr.MemberIDRequired)
	errFencedInstanceID         = int16(kerr.FencedInstanceID)
	errUnstableOffsetCommit     = int16(kerr.UnstableOffsetCommit)
	errUnknownTopicID           = int16(kerr.UnknownTopicID)
	errUnknownTopicOrPartition  = int16(kerr.UnknownTopicOrPartition)
	errCorruptMessage           = int16(kerr.CorruptMessage)
	errMessageTooLarge          = int16(kerr.MessageTooLarge)
	errUnsupportedVersion       = int16(kerr.UnsupportedVersion)
	errInvalidRecord            = int16(kerr.InvalidRecord)
	errInvalidTopic             = int16(kerr.InvalidTopic)
	errInvalidReplicationFactor = int16(kerr.InvalidReplicationFactor)
	errInvalidReplicaAssignment = int16(kerr.InvalidReplicaAssignment)
	errInvalidConfig            = int16(kerr.InvalidConfig)
)

// ClusterID is what Metadata names the served cluster.
const ClusterID = "eoslab"

// TopicID is the topic's id (Metadata v10+): a fixed hash of its name, so
// that a replayed world names it the same.
func TopicID(topic string) [16]byte {
	sum := sha256.Sum256([]byte("eoslab topic " + topic))
	var id [16]byte
	copy(id[:], sum[:16])
	return id
}

// answerKafka is the answer to a Kafka request the broker reads, or nil
// when the answer waits (a JoinGroup or SyncGroup parked until the
// group's rebalance gets that far: external_group.go sends it then).
func (w *World) answerKafka(broker int, m *msg.Message, r wireRequest) kmsg.Response {
	switch q := r.req.(type) {
	case *kmsg.ApiVersionsRequest:
		return apiVersions(q.Version, errNone)
	case *kmsg.MetadataRequest:
		return w.metadata(q)
	case *kmsg.FindCoordinatorRequest:
		return w.findCoordinator(q)
	case *kmsg.ListOffsetsRequest:
		return w.listOffsets(broker, q)
	case *kmsg.CreateTopicsRequest:
		return w.createTopics(q)
	case *kmsg.CreatePartitionsRequest:
		return w.createPartitions(q)
	case *kmsg.ElectLeadersRequest:
		return w.electLeaders(q)
	case *kmsg.OffsetCommitRequest:
		return w.offsetCommit(broker, q)
	case *kmsg.OffsetFetchRequest:
		return w.offsetFetch(broker, q)
	case *kmsg.JoinGroupRequest:
		if resp := w.joinGroup(broker, r.client, q, held{from: m.To, to: m.From, conn: m.Conn, id: m.ID, req: q}); resp != nil {
			return resp
		}
		return nil // a typed nil would not be nil
	case *kmsg.SyncGroupRequest:
		if resp := w.syncGroup(broker, q, held{from: m.To, to: m.From, conn: m.Conn, id: m.ID, req: q}); resp != nil {
			return resp
		}
		return nil
	case *kmsg.HeartbeatRequest:
		return w.heartbeat(broker, q)
	case *kmsg.LeaveGroupRequest:
		return w.leaveGroup(broker, q)
	case *kmsg.DescribeGroupsRequest:
		return w.describeGroups(broker, q)
	case *kmsg.ListGroupsRequest:
		return w.listGroups(broker, q)
	case *kmsg.DeleteGroupsRequest:
		return w.deleteGroups(broker, q)
	case *kmsg.OffsetDeleteRequest:
		return w.offsetDelete(broker, q)
	case *kmsg.DescribeConfigsRequest:
		return w.describeConfigs(broker, q)
	case *kmsg.DescribeProducersRequest:
		return w.answerDescribeProducers(broker, q)
	case *kmsg.DescribeTransactionsRequest:
		return w.describeTransactions(broker, q)
	case *kmsg.ListTransactionsRequest:
		return w.listTransactions(broker, q)
	}
	return unsupportedResponse(RequestHeader{Key: r.req.Key(), Version: r.req.GetVersion()}, r.req)
}

// apiVersions lists ServedAPIs. No finalized features: the served
// cluster speaks transaction version 1.
func apiVersions(version int16, code int16) *kmsg.ApiVersionsResponse {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version, resp.ErrorCode = version, code
	for _, a := range ServedAPIs {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = a.Key, a.Min, a.Max
		resp.ApiKeys = append(resp.ApiKeys, k)
	}
	return resp
}

// unsupportedResponse answers a request for an API or version the
// cluster does not serve with UNSUPPORTED_VERSION, never by dropping the
// connection. ApiVersions is answered at version 0 with the versions
// served, as Kafka does, so the client can pick one.
func unsupportedResponse(h RequestHeader, req kmsg.Request) kmsg.Response {
	if h.Key == 18 || req == nil {
		return apiVersions(0, errUnsupportedVersion)
	}
	resp := req.ResponseKind()
	resp.SetVersion(h.Version)
	switch q := req.(type) {
	case *kmsg.ProduceRequest:
		r := resp.(*kmsg.ProduceResponse)
		for _, t := range q.Topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition, rp.BaseOffset, rp.LogAppendTime, rp.LogStartOffset = p.Partition, -1, -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			r.Topics = append(r.Topics, rt)
		}
	case *kmsg.FetchRequest:
		r := resp.(*kmsg.FetchResponse)
		for _, t := range q.Topics {
			rt := kmsg.NewFetchResponseTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rp := kmsg.NewFetchResponseTopicPartition()
				rp.Partition, rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset, rp.RecordBatches = p.Partition, -1, -1, -1, []byte{}
				rt.Partitions = append(rt.Partitions, rp)
			}
			r.Topics = append(r.Topics, rt)
		}
	case *kmsg.ListOffsetsRequest:
		r := resp.(*kmsg.ListOffsetsResponse)
		for _, t := range q.Topics {
			rt := kmsg.NewListOffsetsResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewListOffsetsResponseTopicPartition()
				rp.Partition, rp.Timestamp, rp.Offset = p.Partition, -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			r.Topics = append(r.Topics, rt)
		}
	}
	setErrorCodes(reflect.ValueOf(resp), errUnsupportedVersion)
	return resp
}

// setErrorCodes sets every ErrorCode field of a response, top level and
// nested, so that a response to an unsupported request says so wherever
// the client looks.
func setErrorCodes(v reflect.Value, code int16) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			setErrorCodes(v.Elem(), code)
		}
	case reflect.Struct:
		if f := v.FieldByName("ErrorCode"); f.IsValid() && f.Kind() == reflect.Int16 && f.CanSet() {
			f.SetInt(int64(code))
		}
		for i := range v.NumField() {
			if f := v.Field(i); f.Kind() == reflect.Slice {
				for j := range f.Len() {
					setErrorCodes(f.Index(j), code)
				}
			}
		}
	}
}

func int32s(xs []int) []int32 {
	out := make([]int32, len(xs))
	for i, x := range xs {
		out[i] = int32(x)
	}
	return out
}

// metadata lists the live brokers (host and port are filled in by eoslab
// serve, which knows where each listens) and the topic with its real
// leaders, so a failover moves real clients as in Kafka.
func (w *World) metadata(q *kmsg.MetadataRequest) *kmsg.MetadataResponse {
	resp := q.ResponseKind().(*kmsg.MetadataResponse)
	cid := ClusterID
	resp.ClusterID, resp.ControllerID = &cid, -1
	for _, b := range w.brokers {
		if !b.Alive() {
			continue
		}
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID = int32(b.ID)
		resp.Brokers = append(resp.Brokers, mb)
		if resp.ControllerID < 0 {
			resp.ControllerID = int32(b.ID)
		}
	}
	var topics []string
	if q.Topics == nil {
		topics = w.topicNames() // every topic: none is created
	}
	allowCreate := q.Version < 4 || q.AllowAutoTopicCreation // implicit before v4
	for _, t := range q.Topics {
		name := ""
		switch {
		case t.Topic != nil:
			name = *t.Topic
		case t.TopicID != [16]byte{}: // v12+: by id
			if name = w.topicByID(t.TopicID); name == "" {
				mt := kmsg.NewMetadataResponseTopic()
				mt.TopicID, mt.ErrorCode = t.TopicID, errUnknownTopicID
				resp.Topics = append(resp.Topics, mt)
				continue
			}
		}
		if name != "" && !slices.Contains(topics, name) { // a set, as Kafka reads it
			topics = append(topics, name)
		}
	}
	for _, name := range topics {
		mt := kmsg.NewMetadataResponseTopic()
		n := name
		mt.Topic = &n
		parts := w.topicPartitions(name)
		if len(parts) == 0 {
			// auto.create.topics.enable is true, as Kafka's default.
			switch {
			case allowCreate:
				mt.ErrorCode = w.autoCreate(name)
			case invalidTopic(name) != nil:
				mt.ErrorCode = errInvalidTopic
			default:
				mt.ErrorCode = errUnknownTopicOrPartition
			}
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		mt.TopicID = TopicID(name)
		for _, m := range parts {
			p := kmsg.NewMetadataResponseTopicPartition()
			p.Partition, p.Leader, p.LeaderEpoch = int32(m.tp.Partition), int32(m.leader), m.epoch
			if m.leader == 0 {
				p.Leader, p.ErrorCode = -1, errLeaderNotAvailable
			}
			p.Replicas, p.ISR = int32s(m.replicas), int32s(m.isr)
			for _, id := range m.replicas {
				if !w.brokers[id-1].Alive() {
					p.OfflineReplicas = append(p.OfflineReplicas, int32(id))
				}
			}
			mt.Partitions = append(mt.Partitions, p)
		}
		resp.Topics = append(resp.Topics, mt)
	}
	return resp
}

// coordinatorOf is the broker that coordinates a group (key type 0) or a
// transactional id (1): the leader of its internal partition.
func (w *World) coordinatorOf(key string, keyType int8) (int, bool) {
	tp := txn.OffsetsPartition(key)
	if keyType == 1 {
		tp = stateTP(key)
	}
	m := w.internalLeader(tp)
	return m.leader, w.brokers[m.leader-1].Alive()
}

func (w *World) findCoordinator(q *kmsg.FindCoordinatorRequest) *kmsg.FindCoordinatorResponse {
	resp := q.ResponseKind().(*kmsg.FindCoordinatorResponse)
	keys := q.CoordinatorKeys
	if q.Version < 4 {
		keys = []string{q.CoordinatorKey}
	}
	for _, k := range keys {
		c := kmsg.NewFindCoordinatorResponseCoordinator()
		c.Key, c.NodeID = k, -1
		if q.CoordinatorType != 0 && q.CoordinatorType != 1 {
			c.ErrorCode = errInvalidRequest
		} else if id, ok := w.coordinatorOf(k, q.CoordinatorType); ok {
			c.NodeID = int32(id)
		} else {
			c.ErrorCode = errCoordNotAvailable
		}
		resp.Coordinators = append(resp.Coordinators, c)
	}
	if q.Version < 4 && len(resp.Coordinators) == 1 {
		c := resp.Coordinators[0]
		resp.ErrorCode, resp.NodeID, resp.Coordinators = c.ErrorCode, c.NodeID, nil
	}
	return resp
}

// listOffsets answers earliest (-2), latest (-1: the high watermark, or
// the last stable offset for read_committed) and, for a timestamp, the
// first offset of the first batch whose newest timestamp is at or after
// it (Kafka looks it up in the time index; here the batches are scanned).
func (w *World) listOffsets(broker int, q *kmsg.ListOffsetsRequest) *kmsg.ListOffsetsResponse {
	resp := q.ResponseKind().(*kmsg.ListOffsetsResponse)
	for _, t := range q.Topics {
		rt := kmsg.NewListOffsetsResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewListOffsetsResponseTopicPartition()
			rp.Partition, rp.Timestamp, rp.Offset, rp.LeaderEpoch = p.Partition, -1, -1, -1
			m := w.meta(msg.TP{Topic: t.Topic, Partition: int(p.Partition)})
			switch {
			case m == nil:
				rp.ErrorCode = errUnknownTopicOrPartition
			case m.leader != broker:
				rp.ErrorCode = errNotLeaderOrFollower
			default:
				log := w.leaderLog(m)
				rp.LeaderEpoch = m.epoch
				switch p.Timestamp {
				case -2:
					rp.Offset = log.LogStartOffset()
				case -1:
					rp.Offset = log.HighWatermark()
					if q.IsolationLevel == 1 {
						rp.Offset = log.LastStableOffset()
					}
				default:
					rp.Offset = log.HighWatermark()
					for i := range log.NumBatches() {
						h := log.Batch(i).Header()
						if h.MaxTimestamp >= p.Timestamp && h.BaseOffset < log.HighWatermark() {
							rp.Offset, rp.Timestamp = h.BaseOffset, h.MaxTimestamp
							break
						}
					}
				}
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// offsetFetch answers committed offsets (-1 for none). With
// require_stable (KIP-447) a partition whose offsets an open transaction
// holds is UNSTABLE_OFFSET_COMMIT.
func (w *World) offsetFetch(broker int, q *kmsg.OffsetFetchRequest) *kmsg.OffsetFetchResponse {
	resp := q.ResponseKind().(*kmsg.OffsetFetchResponse)
	type groupReq struct {
		group  string
		topics map[string][]int32
		all    bool
	}
	var reqs []groupReq
	if q.Version >= 8 {
		for _, g := range q.Groups {
			gr := groupReq{group: g.Group, topics: map[string][]int32{}, all: g.Topics == nil}
			for _, t := range g.Topics {
				gr.topics[t.Topic] = t.Partitions
			}
			reqs = append(reqs, gr)
		}
	} else {
		gr := groupReq{group: q.Group, topics: map[string][]int32{}, all: q.Topics == nil}
		for _, t := range q.Topics {
			gr.topics[t.Topic] = t.Partitions
		}
		reqs = append(reqs, gr)
	}
	for _, gr := range reqs {
		rg := kmsg.NewOffsetFetchResponseGroup()
		rg.Group = gr.group
		rg.ErrorCode = w.groupCoordinator(broker, gr.group)
		offs := w.tx.groups[gr.group]
		if gr.all && offs != nil {
			for tp := range offs.Committed {
				gr.topics[tp.Topic] = append(gr.topics[tp.Topic], int32(tp.Partition))
			}
		}
		names := make([]string, 0, len(gr.topics))
		for t := range gr.topics {
			names = append(names, t)
		}
		slices.Sort(names)
		for _, t := range names {
			rt := kmsg.NewOffsetFetchResponseGroupTopic()
			rt.Topic = t
			parts := slices.Clone(gr.topics[t])
			slices.Sort(parts)
			for _, p := range parts {
				rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				rp.Partition, rp.Offset, rp.LeaderEpoch = p, -1, -1
				tp := msg.TP{Topic: t, Partition: int(p)}
				if offs != nil && rg.ErrorCode == errNone {
					if o, ok := offs.Committed[tp]; ok {
						rp.Offset = o
					}
					if q.RequireStable && pendingFor(offs, tp) {
						rp.ErrorCode = errUnstableOffsetCommit
					}
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			rg.Topics = append(rg.Topics, rt)
		}
		resp.Groups = append(resp.Groups, rg)
	}
	if q.Version < 8 && len(resp.Groups) == 1 {
		g := resp.Groups[0]
		resp.ErrorCode = g.ErrorCode
		for _, t := range g.Topics {
			rt := kmsg.NewOffsetFetchResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewOffsetFetchResponseTopicPartition()
				rp.Partition, rp.Offset, rp.LeaderEpoch, rp.ErrorCode = p.Partition, p.Offset, p.LeaderEpoch, p.ErrorCode
				if g.ErrorCode != errNone {
					rp.ErrorCode = g.ErrorCode
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		resp.Groups = nil
	}
	return resp
}

func pendingFor(g *broker.GroupOffsets, tp msg.TP) bool {
	for _, offs := range g.Pending {
		for _, o := range offs {
			if o.TP == tp {
				return true
			}
		}
	}
	return false
}

// answerDescribeProducers lists the leader's memory of each producer.
func (w *World) answerDescribeProducers(broker int, q *kmsg.DescribeProducersRequest) *kmsg.DescribeProducersResponse {
	resp := q.ResponseKind().(*kmsg.DescribeProducersResponse)
	for _, t := range q.Topics {
		rt := kmsg.NewDescribeProducersResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewDescribeProducersResponseTopicPartition()
			rp.Partition = p
			m := w.meta(msg.TP{Topic: t.Topic, Partition: int(p)})
			switch {
			case m == nil:
				rp.ErrorCode = errUnknownTopicOrPartition
			case m.leader != broker:
				rp.ErrorCode = errNotLeaderOrFollower
			default:
				st := w.leaderLog(m).State()
				for _, e := range st.Entries() {
					ap := kmsg.NewDescribeProducersResponseTopicPartitionActiveProducer()
					ap.ProducerID, ap.ProducerEpoch, ap.LastSequence = e.ProducerID(), int32(e.Epoch()), e.LastSeq()
					ap.LastTimestamp, ap.CoordinatorEpoch, ap.CurrentTxnStartOffset = e.LastTimestamp(), e.CoordinatorEpoch(), -1
					if off, ok := st.TxnFirstOffset(e.ProducerID()); ok {
						ap.CurrentTxnStartOffset = off
					}
					rp.ActiveProducers = append(rp.ActiveProducers, ap)
				}
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// newestTxns is the newest __transaction_state record of every
// transactional id, by id.
func (w *World) newestTxns() map[string]txn.Metadata {
	out := map[string]txn.Metadata{}
	for _, p := range w.tx.txnLog {
		for id, md := range p.latest {
			out[id] = md
		}
	}
	return out
}

func (w *World) describeTransactions(broker int, q *kmsg.DescribeTransactionsRequest) *kmsg.DescribeTransactionsResponse {
	resp := q.ResponseKind().(*kmsg.DescribeTransactionsResponse)
	all := w.newestTxns()
	for _, id := range q.TransactionalIDs {
		ts := kmsg.NewDescribeTransactionsResponseTransactionState()
		ts.TransactionalID, ts.ProducerID, ts.ProducerEpoch, ts.StartTimestamp = id, -1, -1, -1
		md, ok := all[id]
		c, alive := w.coordinatorOf(id, 1)
		switch {
		case !alive:
			ts.ErrorCode = errCoordNotAvailable
		case c != broker:
			ts.ErrorCode = errNotCoordinator
		case !ok:
			ts.ErrorCode = 105 // TRANSACTIONAL_ID_NOT_FOUND
		default:
			ts.State, ts.TimeoutMillis, ts.ProducerID, ts.ProducerEpoch = md.State.String(), md.TimeoutMs, md.ProducerID, md.Epoch
			if md.StartMs > 0 || len(md.Partitions) > 0 {
				ts.StartTimestamp = EpochMs + md.StartMs
			}
			byTopic := map[string][]int32{}
			var names []string
			for _, tp := range md.Partitions {
				if _, seen := byTopic[tp.Topic]; !seen {
					names = append(names, tp.Topic)
				}
				byTopic[tp.Topic] = append(byTopic[tp.Topic], int32(tp.Partition))
			}
			for _, n := range names {
				tt := kmsg.NewDescribeTransactionsResponseTransactionStateTopic()
				tt.Topic, tt.Partitions = n, byTopic[n]
				ts.Topics = append(ts.Topics, tt)
			}
		}
		resp.TransactionStates = append(resp.TransactionStates, ts)
	}
	return resp
}

func (w *World) listTransactions(broker int, q *kmsg.ListTransactionsRequest) *kmsg.ListTransactionsResponse {
	resp := q.ResponseKind().(*kmsg.ListTransactionsResponse)
	all := w.newestTxns()
	ids := make([]string, 0, len(all))
	for id := range all {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		md := all[id]
		if c, _ := w.coordinatorOf(id, 1); c != broker {
			continue
		}
		if len(q.StateFilters) > 0 && !slices.Contains(q.StateFilters, md.State.String()) {
			continue
		}
		if len(q.ProducerIDFilters) > 0 && !slices.Contains(q.ProducerIDFilters, md.ProducerID) {
			continue
		}
		if q.DurationFilterMillis > 0 && (md.State != txn.Ongoing || w.now-md.StartMs < q.DurationFilterMillis) {
			continue
		}
		ts := kmsg.NewListTransactionsResponseTransactionState()
		ts.TransactionalID, ts.ProducerID, ts.TransactionState = id, md.ProducerID, md.State.String()
		resp.TransactionStates = append(resp.TransactionStates, ts)
	}
	return resp
}
