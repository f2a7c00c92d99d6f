package serve

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// CreatePartitions (kafka-topics.sh --alter --partitions) as Kafka's
// controller answers it (ReplicationControlManager.createPartitions): the
// count must be an increase, assignments one per new partition with the
// topic's replication factor, a topic named twice is INVALID_REQUEST, and
// validate_only changes nothing. The new partitions are partitions like
// the others: Metadata names their leaders, a real client and the lab's
// own producer write to them, and the checker follows them.
func TestCreatePartitions(t *testing.T) {
	s, _ := start(t, Config{})
	c := ctx(t)
	admin := client(t, s, kgo.ClientID("admin"))
	create := func(validate bool, topics ...kmsg.CreatePartitionsRequestTopic) []kmsg.CreatePartitionsResponseTopic {
		q := kmsg.NewPtrCreatePartitionsRequest()
		q.Topics, q.ValidateOnly, q.TimeoutMillis = topics, validate, 10000
		resp, err := admin.Request(c, q)
		if err != nil {
			t.Fatal(err)
		}
		return resp.(*kmsg.CreatePartitionsResponse).Topics
	}
	topic := func(name string, count int32, assign ...[]int32) kmsg.CreatePartitionsRequestTopic {
		t := kmsg.NewCreatePartitionsRequestTopic()
		t.Topic, t.Count = name, count
		for _, a := range assign {
			pa := kmsg.NewCreatePartitionsRequestTopicAssignment()
			pa.Replicas = a
			t.Assignment = append(t.Assignment, pa)
		}
		return t
	}
	partitions := func(name string) []string {
		var out []string
		s.Do(func(e Engine) {
			for _, p := range e.World().Snapshot().Partitions {
				if p.Topic == name {
					out = append(out, p.Name)
				}
			}
		})
		slices.Sort(out)
		return out
	}

	type verdict struct {
		topic string
		code  int16
		msg   string
	}
	check := func(got []kmsg.CreatePartitionsResponseTopic, want ...verdict) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%d answers, want %d: %+v", len(got), len(want), got)
		}
		for i, w := range want {
			msg := ""
			if got[i].ErrorMessage != nil {
				msg = *got[i].ErrorMessage
			}
			if got[i].Topic != w.topic || got[i].ErrorCode != w.code || msg != w.msg {
				t.Errorf("answer %d: %s error %d %q, want %s %d %q", i, got[i].Topic, got[i].ErrorCode, msg, w.topic, w.code, w.msg)
			}
		}
	}

	check(create(true, topic("orders", 5)), verdict{"orders", 0, ""})
	if got := partitions("orders"); len(got) != 3 {
		t.Fatalf("validate_only added partitions: %v", got)
	}
	check(create(false, topic("orders", 5), topic("twice", 2), topic("twice", 3), topic("nothing", 2)),
		verdict{"twice", 42, "Duplicate topic name."},
		verdict{"orders", 0, ""},
		verdict{"nothing", 3, ""},
	)
	check(create(false, topic("orders", 5)), verdict{"orders", 37, "Topic already has 5 partition(s)."})
	check(create(false, topic("orders", 4)), verdict{"orders", 37, "The topic orders currently has 5 partition(s); 4 would not be an increase."})
	check(create(false, topic("orders", 7, []int32{1, 2, 3})),
		verdict{"orders", 39, "Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified."})
	check(create(false, topic("orders", 6, []int32{1, 2})),
		verdict{"orders", 39, "The manual partition assignment includes a partition with 2 replica(s), but this is not consistent with previous partitions, which have 3 replica(s)."})
	check(create(false, topic("orders", 6, []int32{9, 2, 2})),
		verdict{"orders", 39, "The manual partition assignment includes the broker 2 more than once."})
	check(create(false, topic("orders", 6, []int32{3, 1, 2})), verdict{"orders", 0, ""})
	if got, want := partitions("orders"), []string{"orders-0", "orders-1", "orders-2", "orders-3", "orders-4", "orders-5"}; !slices.Equal(got, want) {
		t.Fatalf("orders has %v, want %v", got, want)
	}

	// Metadata names them, with the leader the assignment put first.
	md := kmsg.NewPtrMetadataRequest()
	name := "orders"
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = &name
	md.Topics = append(md.Topics, mt)
	resp, err := admin.Request(c, md)
	if err != nil {
		t.Fatal(err)
	}
	leaders := map[int32]int32{}
	for _, p := range resp.(*kmsg.MetadataResponse).Topics[0].Partitions {
		leaders[p.Partition] = p.Leader
	}
	if len(leaders) != 6 || leaders[5] != 3 {
		t.Errorf("Metadata of orders: leaders %v, want six partitions, orders-5 led by broker 3", leaders)
	}

	// A real client and the lab's own producer write to the new partitions.
	p := client(t, s, kgo.ClientID("writer"), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.MetadataMinAge(20*time.Millisecond))
	if err := p.ProduceSync(c, &kgo.Record{Partition: 4, Value: []byte("four")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	apply(t, s, "producer lab")
	apply(t, s, "send lab orders-5 2")
	eventually(t, s, func(e Engine) string {
		snap := e.World().Snapshot()
		hw := map[string]int64{}
		for _, p := range snap.Partitions {
			hw[p.Name] = p.HighWatermark
		}
		if hw["orders-4"] != 1 || hw["orders-5"] != 2 {
			return fmt.Sprint("high watermarks of the new partitions: ", hw)
		}
		for _, a := range snap.Anomalies {
			return "anomaly: " + a.Text
		}
		return ""
	})
}
