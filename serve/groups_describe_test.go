package serve

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeGroups and ListGroups, as kafka-consumer-groups.sh --list and
// --describe send them, over a group of one kgo consumer and a group of
// one simulated consumer: each is Stable with its protocol, its member's
// client id, subscription and assignment (GroupMetadataManager's
// describeGroups and listGroups); a group never seen is Dead without an
// error, and one only ever given offsets is Empty with no protocol type;
// only the coordinator answers for a group; the state filter ignores case
// and spaces and the type filter knows only classic groups.
func TestDescribeAndListGroups(t *testing.T) {
	s, _ := start(t, Config{})
	c := ctx(t)
	apply(t, s, "consumer sim read_committed orders-1 group=simg")
	apply(t, s, "poll sim")

	var assigned []int32
	done := make(chan struct{})
	real := client(t, s, kgo.ClientID("real"), kgo.ConsumerGroup("kg"), kgo.ConsumeTopics("orders"),
		kgo.HeartbeatInterval(100*time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			if assigned == nil {
				assigned = slices.Sorted(slices.Values(m["orders"]))
				close(done)
			}
		}))
	pollUntilCleanup(t, c, real)
	select {
	case <-done:
	case <-c.Done():
		t.Fatal("kgo's consumer was never assigned its partitions")
	}
	if !slices.Equal(assigned, []int32{0, 1, 2}) {
		t.Fatalf("kgo alone in its group got %v", assigned)
	}

	admin := client(t, s, kgo.ClientID("admin"))
	describe := func() map[string]kmsg.DescribeGroupsResponseGroup {
		dg := kmsg.NewPtrDescribeGroupsRequest()
		dg.Groups, dg.IncludeAuthorizedOperations = []string{"kg", "simg", "nobody"}, true
		out := map[string]kmsg.DescribeGroupsResponseGroup{}
		for _, sh := range admin.RequestSharded(c, dg) {
			if sh.Err != nil {
				t.Fatal(sh.Err)
			}
			for _, g := range sh.Resp.(*kmsg.DescribeGroupsResponse).Groups {
				out[g.Group] = g
			}
		}
		return out
	}
	groups := describe()
	for deadline := time.Now().Add(10 * time.Second); groups["kg"].State != "Stable" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		groups = describe() // the leader's SyncGroup may still be on its way
	}

	kg := groups["kg"]
	if kg.ErrorCode != 0 || kg.State != "Stable" || kg.ProtocolType != "consumer" || kg.Protocol == "" || len(kg.Members) != 1 || kg.AuthorizedOperations != 328 {
		t.Fatalf("kg: %+v", kg)
	}
	m := kg.Members[0]
	var sub kmsg.ConsumerMemberMetadata
	var asg kmsg.ConsumerMemberAssignment
	if m.ClientID != "real" || m.ClientHost != "" || sub.ReadFrom(m.ProtocolMetadata) != nil || !slices.Equal(sub.Topics, []string{"orders"}) ||
		asg.ReadFrom(m.MemberAssignment) != nil || len(asg.Topics) != 1 || !slices.Equal(slices.Sorted(slices.Values(asg.Topics[0].Partitions)), []int32{0, 1, 2}) {
		t.Errorf("kg's member: %+v (subscription %+v, assignment %+v)", m, sub, asg)
	}
	if member, _ := real.GroupMetadata(); m.MemberID != member {
		t.Errorf("kg's member id %q, kgo's %q", m.MemberID, member)
	}

	simg := groups["simg"]
	if simg.ErrorCode != 0 || simg.State != "Stable" || simg.ProtocolType != "consumer" || simg.Protocol != "range" || len(simg.Members) != 1 {
		t.Fatalf("simg: %+v", simg)
	}
	sub = kmsg.ConsumerMemberMetadata{}
	if sm := simg.Members[0]; sm.ClientID != "sim" || sub.ReadFrom(sm.ProtocolMetadata) != nil || !slices.Equal(sub.Topics, []string{"orders"}) || len(sm.MemberAssignment) != 0 {
		t.Errorf("simg's member: %+v (subscription %+v)", sm, sub)
	}
	if nobody := groups["nobody"]; nobody.ErrorCode != 0 || nobody.State != "Dead" || len(nobody.Members) != 0 {
		t.Errorf("a group never seen: %+v, want Dead without an error", nobody)
	}

	// Only the coordinator answers for a group.
	answered := 0
	for id := int32(1); id <= 3; id++ {
		dg := kmsg.NewPtrDescribeGroupsRequest()
		dg.Groups = []string{"kg"}
		resp, err := admin.Broker(int(id)).Request(c, dg)
		if err != nil {
			t.Fatal(err)
		}
		switch code := resp.(*kmsg.DescribeGroupsResponse).Groups[0].ErrorCode; code {
		case 0:
			answered++
		case 16: // NOT_COORDINATOR
		default:
			t.Errorf("broker %d answers DescribeGroups kg with error %d", id, code)
		}
	}
	if answered != 1 {
		t.Errorf("%d brokers answer for kg, want its coordinator alone", answered)
	}

	// A kgo consumer joins the simulated consumer's group and leads it: the
	// group is the real members' protocol now, and the simulated member's
	// assignment is the one the leader gave it.
	joiner := client(t, s, kgo.ClientID("joiner"), kgo.ConsumerGroup("simg"), kgo.ConsumeTopics("orders"),
		kgo.HeartbeatInterval(100*time.Millisecond))
	pollUntilCleanup(t, c, joiner)
	var why string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		apply(t, s, "poll sim") // the simulated member rejoins at its polls
		why = mixedAssigned(describe()["simg"])
		if why == "" || time.Now().After(deadline) {
			break
		}
	}
	if why != "" {
		t.Fatal(why)
	}

	// A group only ever given offsets (a commit at generation -1, as an
	// application that assigns itself partitions makes) is Empty, with no
	// protocol type.
	commitSimple(t, c, admin, "simple", 0)

	// Each group as "name:protocol type:state".
	list := func(states, types []string) []string {
		lg := kmsg.NewPtrListGroupsRequest()
		lg.StatesFilter, lg.TypesFilter = states, types
		var names []string
		for _, sh := range admin.RequestSharded(c, lg) {
			if sh.Err != nil {
				t.Fatal(sh.Err)
			}
			for _, g := range sh.Resp.(*kmsg.ListGroupsResponse).Groups {
				if g.GroupType != "classic" {
					t.Errorf("ListGroups: %+v", g)
				}
				names = append(names, g.Group+":"+g.ProtocolType+":"+g.GroupState)
			}
		}
		slices.Sort(names)
		return names
	}
	stable := []string{"kg:consumer:Stable", "simg:consumer:Stable"}
	for _, tc := range []struct {
		states, types []string
		want          []string
	}{
		{nil, nil, append(slices.Clone(stable), "simple::Empty")},
		{[]string{" STABLE "}, nil, stable},
		{[]string{"empty", "PreparingRebalance"}, nil, []string{"simple::Empty"}},
		{nil, []string{"Classic"}, append(slices.Clone(stable), "simple::Empty")},
		{nil, []string{"consumer"}, nil},
	} {
		if got := list(tc.states, tc.types); !slices.Equal(got, tc.want) {
			t.Errorf("ListGroups states %q types %q: %v, want %v", tc.states, tc.types, got, tc.want)
		}
	}
}

// mixedAssigned checks a stable group of the real client joiner and the
// simulated consumer sim: the real members' protocol, and the three
// partitions of orders split between the two assignments.
func mixedAssigned(g kmsg.DescribeGroupsResponseGroup) string {
	if g.State != "Stable" || g.Protocol == "range" || len(g.Members) != 2 {
		return fmt.Sprintf("simg with joiner: %+v", g)
	}
	var all []int32
	for _, m := range g.Members {
		var asg kmsg.ConsumerMemberAssignment
		if err := asg.ReadFrom(m.MemberAssignment); err != nil {
			return fmt.Sprintf("simg's member %s: assignment %v", m.ClientID, err)
		}
		var mine []int32
		for _, t := range asg.Topics {
			mine = append(mine, t.Partitions...)
		}
		if len(mine) == 0 {
			return fmt.Sprintf("simg's member %s was assigned nothing", m.ClientID)
		}
		all = append(all, mine...)
	}
	if slices.Sort(all); !slices.Equal(all, []int32{0, 1, 2}) {
		return fmt.Sprintf("simg's assignments cover %v", all)
	}
	return ""
}

// commitSimple commits group's offset for orders-0 at generation -1, as an
// application that assigns itself partitions does: a group Kafka creates
// for the commit, with no members ("a simple consumer group").
func commitSimple(t *testing.T, c context.Context, admin *kgo.Client, group string, offset int64) {
	t.Helper()
	oc := kmsg.NewPtrOffsetCommitRequest()
	oc.Group, oc.Generation = group, -1
	oct := kmsg.NewOffsetCommitRequestTopic()
	oct.Topic = "orders"
	ocp := kmsg.NewOffsetCommitRequestTopicPartition()
	ocp.Partition, ocp.Offset = 0, offset
	oct.Partitions = append(oct.Partitions, ocp)
	oc.Topics = append(oc.Topics, oct)
	if resp, err := admin.Request(c, oc); err != nil || resp.(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("OffsetCommit for the group %s: %v %+v", group, err, resp)
	}
}
