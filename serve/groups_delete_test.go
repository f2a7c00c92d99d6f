package serve

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteGroups (kafka-consumer-groups.sh --delete) and OffsetDelete
// (--delete-offsets) as Kafka's group coordinator answers them
// (validateDeleteGroup, deleteAllOffsets, validateOffsetDelete,
// deleteOffsets): an empty
// group goes with its committed offsets and the offsets pending in an open
// transaction, so the transaction's commit later commits none for it; a
// group with a member is NON_EMPTY_GROUP; one that does not exist
// GROUP_ID_NOT_FOUND; a name given twice is answered once.
func TestDeleteGroups(t *testing.T) {
	s, _ := start(t, Config{})
	c := ctx(t)
	admin := client(t, s, kgo.ClientID("admin"))

	// simple: committed offsets only; busy: a member; txg: offsets pending
	// in tp's open transaction, sent with the group metadata of a consumer
	// that has not joined yet (generation -1).
	commitSimple(t, c, admin, "simple", 7)
	commitSimple(t, c, admin, "trim", 3)
	for _, line := range []string{
		"consumer member read_committed orders-1 group=busy", "poll member",
		"producer tp transactional=tx-d", "run", "consumer reader read_committed orders-2 group=txg",
		"consumer reader2 read_committed orders-2 group=txg2",
		"begin tp", "send tp orders-2 1", "send-offsets tp txg", "send-offsets tp txg2", "run",
	} {
		apply(t, s, line)
	}

	// OffsetDelete (kafka-consumer-groups.sh --delete-offsets): an empty
	// group loses the offsets named, committed or pending; a group with
	// members refuses, and one that does not exist is not found.
	offsetDelete := func(group string, parts ...int32) string {
		q := kmsg.NewPtrOffsetDeleteRequest()
		q.Group = group
		rt := kmsg.NewOffsetDeleteRequestTopic()
		rt.Topic = "orders"
		for _, p := range parts {
			rp := kmsg.NewOffsetDeleteRequestTopicPartition()
			rp.Partition = p
			rt.Partitions = append(rt.Partitions, rp)
		}
		q.Topics = append(q.Topics, rt)
		resp, err := admin.Request(c, q)
		if err != nil {
			t.Fatal(err)
		}
		r := resp.(*kmsg.OffsetDeleteResponse)
		out := fmt.Sprint(r.ErrorCode)
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				out += fmt.Sprintf(" %d:%d", p.Partition, p.ErrorCode)
			}
		}
		return out
	}
	for _, tc := range []struct {
		group string
		parts []int32
		want  string
	}{
		{"trim", []int32{0, 1}, "0 0:0 1:0"},
		{"txg2", []int32{2}, "0 2:0"},
		{"busy", []int32{1}, "68"},
		{"nothing", []int32{0}, "69"},
	} {
		if got := offsetDelete(tc.group, tc.parts...); got != tc.want {
			t.Errorf("OffsetDelete %s %v: %q, want %q", tc.group, tc.parts, got, tc.want)
		}
	}

	del := kmsg.NewPtrDeleteGroupsRequest()
	del.Groups = []string{"simple", "busy", "nothing", "simple", "txg"}
	resp, err := admin.Request(c, del)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range resp.(*kmsg.DeleteGroupsResponse).Groups {
		got = append(got, fmt.Sprintf("%s:%d", g.Group, g.ErrorCode))
	}
	slices.Sort(got) // kgo asks each group's coordinator apart and merges the answers
	if want := "[busy:68 nothing:69 simple:0 txg:0]"; fmt.Sprint(got) != want {
		t.Errorf("DeleteGroups: %v, want %s (NON_EMPTY_GROUP 68, GROUP_ID_NOT_FOUND 69)", got, want)
	}

	apply(t, s, "commit tp")
	apply(t, s, "run")
	eventually(t, s, func(e Engine) string {
		for _, g := range e.World().Snapshot().Groups {
			switch {
			case g.Group == "simple" || g.Group == "txg":
				return fmt.Sprintf("group %s is still there after its deletion and the commit: %+v", g.Group, g)
			case (g.Group == "trim" || g.Group == "txg2") && len(g.Committed) > 0:
				return fmt.Sprintf("group %s has offsets after OffsetDelete and the commit: %+v", g.Group, g)
			}
		}
		return ""
	})
	fetch := kmsg.NewPtrOffsetFetchRequest()
	fetch.Group = "simple"
	ft := kmsg.NewOffsetFetchRequestTopic()
	ft.Topic, ft.Partitions = "orders", []int32{0}
	fetch.Topics = append(fetch.Topics, ft)
	fresp, err := admin.Request(c, fetch)
	if err != nil {
		t.Fatal(err)
	}
	if off := fresp.(*kmsg.OffsetFetchResponse).Topics[0].Partitions[0].Offset; off != -1 {
		t.Errorf("a deleted group's offset for orders-0: %d, want none (-1)", off)
	}
}
