package serve

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// KIP-447's fencing reaches real clients. A kgo group transact session
// reads orders and writes shipments in a transaction; before it commits,
// an operator removes it from the group (a LeaveGroup naming its member
// id, as an admin client may send) and another consumer joins, alone in
// the next generation. The stale member's TxnOffsetCommit, carrying its
// member id and generation, is refused as Kafka's group coordinator
// refuses it (UNKNOWN_MEMBER_ID), kgo aborts the transaction, and nothing
// it wrote becomes visible. Raw TxnOffsetCommits
// through kgo then get each of the coordinator's answers: a generation
// behind the group's is ILLEGAL_GENERATION, a group that does not exist
// asked with a generation is ILLEGAL_GENERATION, the current member at its
// generation is accepted.
func TestKgoStaleMemberIsFenced(t *testing.T) {
	s, events := traced(t)
	c := ctx(t)
	feeder := client(t, s, kgo.ClientID("feeder"), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for i := range 5 {
		if err := feeder.ProduceSync(c, &kgo.Record{Partition: 0, Value: []byte(fmt.Sprintf("order-%d", i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	// A long heartbeat interval: the stale session learns it lost the
	// group only from its TxnOffsetCommit, not from a heartbeat first
	// (after the one kgo sends right after joining, waited for below).
	stale, err := kgo.NewGroupTransactSession(kgo.SeedBrokers(s.Addrs()...), kgo.ClientID("stale"), kgo.TransactionalID("stale-tx"),
		kgo.ConsumerGroup("fence"), kgo.ConsumeTopics("orders"), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.HeartbeatInterval(40*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer stale.Close()
	var orders []*kgo.Record
	for len(orders) == 0 {
		fs := stale.PollFetches(c)
		if c.Err() != nil {
			t.Fatal(c.Err())
		}
		fs.EachRecord(func(r *kgo.Record) { orders = append(orders, r) })
	}
	staleMember, staleGen := stale.Client().GroupMetadata()
	eventually(t, s, func(Engine) string {
		for _, e := range events() {
			if e.Kind == "kafka.answer" && e.Str("client") == "stale" && e.Str("api") == "Heartbeat" {
				return ""
			}
		}
		return "stale sent no heartbeat yet"
	})
	if err := stale.Begin(); err != nil {
		t.Fatal(err)
	}
	for _, r := range orders {
		if err := stale.ProduceSync(c, &kgo.Record{Partition: 1, Value: append([]byte("shipment-"), r.Value...)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}

	admin := client(t, s, kgo.ClientID("admin"))
	leave := kmsg.NewPtrLeaveGroupRequest()
	leave.Group = "fence"
	lm := kmsg.NewLeaveGroupRequestMember()
	lm.MemberID = staleMember
	leave.Members = append(leave.Members, lm)
	if resp, err := admin.Request(c, leave); err != nil {
		t.Fatal(err)
	} else if lr := resp.(*kmsg.LeaveGroupResponse); lr.ErrorCode != 0 || len(lr.Members) != 1 || lr.Members[0].ErrorCode != 0 {
		t.Fatalf("removing %s: %+v", staleMember, lr)
	}

	fresh := client(t, s, kgo.ClientID("fresh"), kgo.ConsumerGroup("fence"), kgo.ConsumeTopics("orders"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit(), kgo.HeartbeatInterval(40*time.Second))
	for got := 0; got == 0; {
		fs := fresh.PollFetches(c)
		if c.Err() != nil {
			t.Fatal(c.Err())
		}
		got = fs.NumRecords()
	}
	freshMember, freshGen := fresh.GroupMetadata()
	if freshMember == staleMember || freshGen <= staleGen {
		t.Fatalf("the fresh member %s (generation %d) did not take over from %s (generation %d)", freshMember, freshGen, staleMember, staleGen)
	}

	committed, err := stale.End(c, kgo.TryCommit)
	if committed {
		t.Fatalf("the stale member's transaction committed (err %v)", err)
	}
	refused, aborted := false, false
	for _, e := range events() {
		refused = refused || e.Kind == "group.refused" && e.Str("member") == staleMember && e.Str("error") == "UNKNOWN_MEMBER_ID"
		// EndTxn is answered once the abort is decided (PrepareAbort); the
		// markers follow.
		aborted = aborted || e.Kind == "txn.state" && e.Str("transactional_id") == "stale-tx" && e.Str("to") == "PrepareAbort"
	}
	if !refused {
		t.Error("no group.refused UNKNOWN_MEMBER_ID for the stale member's TxnOffsetCommit")
	}
	if !aborted {
		t.Error("the stale member's transaction was not aborted")
	}

	// The coordinator's other answers, through kgo's routing.
	offsets := func(group, member string, generation int32) int16 {
		t.Helper()
		req := kmsg.NewPtrTxnOffsetCommitRequest()
		req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = "raw-tx", group, 999, 0
		req.MemberID, req.Generation = member, generation
		rt := kmsg.NewTxnOffsetCommitRequestTopic()
		rt.Topic = "orders"
		rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset = 0, 1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := admin.Request(c, req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.(*kmsg.TxnOffsetCommitResponse).Topics[0].Partitions[0].ErrorCode
	}
	for _, tc := range []struct {
		what, group, member string
		generation          int32
		want                int16
	}{
		{"the stale member at the current generation", "fence", staleMember, freshGen, 25},
		{"the current member a generation behind", "fence", freshMember, freshGen - 1, 22},
		{"a group that does not exist, with a generation", "ghost", "m", 1, 22},
		{"the current member at its generation", "fence", freshMember, freshGen, 0},
	} {
		if got := offsets(tc.group, tc.member, tc.generation); got != tc.want {
			t.Errorf("%s: error %d, want %d", tc.what, got, tc.want)
		}
	}
}
