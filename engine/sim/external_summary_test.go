package sim

import (
	"testing"

	"github.com/eoslab/eoslab/engine/msg"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A real client's state requests are shown with what they ask, and their
// answers with Kafka's error names — never an empty summary after the
// colon of "rdkafka sends Metadata #3 to broker 1: ".
func TestWireSummaries(t *testing.T) {
	topic := "orders"
	meta := kmsg.NewPtrMetadataRequest()
	meta.Version = 12
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = &topic
	meta.Topics = append(meta.Topics, mt)
	meta.AllowAutoTopicCreation = true
	allMeta := kmsg.NewPtrMetadataRequest()
	allMeta.Version = 1
	allMeta.Topics = nil
	join := kmsg.NewPtrJoinGroupRequest()
	join.Version, join.Group = 5, "g1"
	joinResp := kmsg.NewPtrJoinGroupResponse()
	joinResp.Version, joinResp.ErrorCode = 5, 79
	joined := kmsg.NewPtrJoinGroupResponse()
	joined.Version, joined.Generation, joined.MemberID = 5, 2, "m-1"
	hb := kmsg.NewPtrHeartbeatRequest()
	hb.Version, hb.Group, hb.Generation, hb.MemberID = 4, "g1", 3, "m-1"
	hbResp := kmsg.NewPtrHeartbeatResponse()
	hbResp.Version, hbResp.ErrorCode = 4, 27
	lo := kmsg.NewPtrListOffsetsRequest()
	lo.Version, lo.IsolationLevel = 2, 1
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = "orders"
	lp := kmsg.NewListOffsetsRequestTopicPartition()
	lp.Partition, lp.Timestamp = 1, -2
	lt.Partitions = append(lt.Partitions, lp)
	lo.Topics = append(lo.Topics, lt)
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.Version, fc.CoordinatorType, fc.CoordinatorKeys = 4, 1, []string{"tx-1"}
	fcResp := kmsg.NewPtrFindCoordinatorResponse()
	fcResp.Version = 4
	co := kmsg.NewFindCoordinatorResponseCoordinator()
	co.NodeID = 2
	fcResp.Coordinators = append(fcResp.Coordinators, co)
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version, av.ClientSoftwareName, av.ClientSoftwareVersion = 3, "librdkafka", "2.0.2"
	unsupported := kmsg.NewPtrApiVersionsResponse()
	unsupported.Version, unsupported.ErrorCode = 0, 35
	dg := kmsg.NewPtrDescribeGroupsRequest()
	dg.Version, dg.Groups = 5, []string{"g1", "g2"}
	dgResp := kmsg.NewPtrDescribeGroupsResponse()
	dgResp.Version = 5
	for _, g := range []struct {
		name, state string
		members     int
		code        int16
	}{{"g1", "Stable", 2, 0}, {"g2", "", 0, 16}} {
		rg := kmsg.NewDescribeGroupsResponseGroup()
		rg.Group, rg.State, rg.ErrorCode, rg.Members = g.name, g.state, g.code, make([]kmsg.DescribeGroupsResponseGroupMember, g.members)
		dgResp.Groups = append(dgResp.Groups, rg)
	}
	lg := kmsg.NewPtrListGroupsRequest()
	lg.Version, lg.StatesFilter = 4, []string{"Empty"}
	lgResp := kmsg.NewPtrListGroupsResponse()
	lgResp.Version, lgResp.Groups = 4, make([]kmsg.ListGroupsResponseGroup, 3)
	dc := kmsg.NewPtrDescribeConfigsRequest()
	dc.Version = 4
	for _, r := range []struct {
		kind  kmsg.ConfigResourceType
		name  string
		names []string
	}{{kmsg.ConfigResourceTypeTopic, "orders", []string{"min.insync.replicas"}}, {kmsg.ConfigResourceTypeBroker, "", nil}} {
		rr := kmsg.NewDescribeConfigsRequestResource()
		rr.ResourceType, rr.ResourceName, rr.ConfigNames = r.kind, r.name, r.names
		dc.Resources = append(dc.Resources, rr)
	}
	delg := kmsg.NewPtrDeleteGroupsRequest()
	delg.Version, delg.Groups = 2, []string{"g1"}
	delgResp := kmsg.NewPtrDeleteGroupsResponse()
	delgResp.Version = 2
	dgr := kmsg.NewDeleteGroupsResponseGroup()
	dgr.Group, dgr.ErrorCode = "g1", 68
	delgResp.Groups = append(delgResp.Groups, dgr)
	el := kmsg.NewPtrElectLeadersRequest()
	el.Version, el.ElectionType = 2, 1
	elt := kmsg.NewElectLeadersRequestTopic()
	elt.Topic, elt.Partitions = "orders", []int32{0, 2}
	el.Topics = append(el.Topics, elt)
	elResp := kmsg.NewPtrElectLeadersResponse()
	elResp.Version = 2
	elrt := kmsg.NewElectLeadersResponseTopic()
	elrp := kmsg.NewElectLeadersResponseTopicPartition()
	elrp.ErrorCode = 84
	elrt.Partitions = append(elrt.Partitions, elrp)
	elResp.Topics = append(elResp.Topics, elrt)
	dcResp := kmsg.NewPtrDescribeConfigsResponse()
	dcResp.Version = 4
	dcRes := kmsg.NewDescribeConfigsResponseResource()
	dcRes.ErrorCode = 3
	dcResp.Resources = append(dcResp.Resources, dcRes)

	for _, c := range []struct {
		name string
		body msg.Body
		want string
	}{
		{"metadata of a topic", wireRequest{api: "Metadata", req: meta}, "v12 for orders (auto-create allowed)"},
		{"metadata of every topic", wireRequest{api: "Metadata", req: allMeta}, "v1 for every topic"},
		{"a new member joins", wireRequest{api: "JoinGroup", req: join}, "v5 group g1, a new member"},
		{"KIP-394's first answer", wireResponse{api: "JoinGroup", resp: joinResp}, "v5 MEMBER_ID_REQUIRED"},
		{"joined", wireResponse{api: "JoinGroup", resp: joined}, "v5 NONE, generation 2, member m-1"},
		{"heartbeat", wireRequest{api: "Heartbeat", req: hb}, "v4 group g1 generation 3, m-1"},
		{"heartbeat in a rebalance", wireResponse{api: "Heartbeat", resp: hbResp}, "v4 REBALANCE_IN_PROGRESS"},
		{"list offsets", wireRequest{api: "ListOffsets", req: lo}, "v2 orders-1 earliest (read_committed)"},
		{"find a transaction coordinator", wireRequest{api: "FindCoordinator", req: fc}, "v4, the transaction coordinator of tx-1"},
		{"the coordinator found", wireResponse{api: "FindCoordinator", resp: fcResp}, "v4 NONE, broker 2"},
		{"api versions", wireRequest{api: "ApiVersions", req: av}, "v3 from librdkafka 2.0.2"},
		{"answered on arrival", wireRequest{api: "ApiVersions", prepared: unsupported}, "v0, answered UNSUPPORTED_VERSION"},
		{"describe groups", wireRequest{api: "DescribeGroups", req: dg}, "v5 group g1, g2"},
		{"groups described", wireResponse{api: "DescribeGroups", resp: dgResp}, "v5 g1 Stable, 2 member(s); g2 NOT_COORDINATOR"},
		{"list groups", wireRequest{api: "ListGroups", req: lg}, "v4 in state Empty"},
		{"groups listed", wireResponse{api: "ListGroups", resp: lgResp}, "v4 NONE, 3 group(s)"},
		{"describe configs", wireRequest{api: "DescribeConfigs", req: dc}, `v4 topic "orders" (min.insync.replicas), broker ""`},
		{"configs refused", wireResponse{api: "DescribeConfigs", resp: dcResp}, "v4 UNKNOWN_TOPIC_OR_PARTITION"},
		{"delete groups", wireRequest{api: "DeleteGroups", req: delg}, "v2 group g1"},
		{"elect leaders", wireRequest{api: "ElectLeaders", req: el}, "v2 unclean, orders-0, orders-2"},
		{"no election needed", wireResponse{api: "ElectLeaders", resp: elResp}, "v2 ELECTION_NOT_NEEDED"},
		{"a group with members", wireResponse{api: "DeleteGroups", resp: delgResp}, "v2 NON_EMPTY_GROUP"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := summarize(&msg.Message{Body: c.body}); got != c.want {
				t.Fatalf("summary %q, want %q", got, c.want)
			}
		})
	}
}
