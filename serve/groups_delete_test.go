package serve

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteGroups (kafka-consumer-groups.sh --delete) as Kafka's group
// coordinator answers it (validateDeleteGroup, deleteAllOffsets): an empty
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
	for _, line := range []string{
		"consumer member read_committed orders-1 group=busy", "poll member",
		"producer tp transactional=tx-d", "run", "consumer reader read_committed orders-2 group=txg",
		"begin tp", "send tp orders-2 1", "send-offsets tp txg", "run",
	} {
		apply(t, s, line)
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
	if want := "[simple:0 busy:68 nothing:69 txg:0]"; fmt.Sprint(got) != want {
		t.Errorf("DeleteGroups: %v, want %s (NON_EMPTY_GROUP 68, GROUP_ID_NOT_FOUND 69)", got, want)
	}

	apply(t, s, "commit tp")
	apply(t, s, "run")
	eventually(t, s, func(e Engine) string {
		for _, g := range e.World().Snapshot().Groups {
			if g.Group == "simple" || g.Group == "txg" {
				return fmt.Sprintf("group %s is still there after its deletion and the commit: %+v", g.Group, g)
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
