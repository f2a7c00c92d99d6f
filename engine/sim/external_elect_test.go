package sim

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ElectLeaders as kafka-leader-election.sh sends it, against Kafka's
// controller rules (ReplicationControlManager.electLeader): a preferred
// election moves leadership back to the first replica, or is not needed,
// or cannot happen; an unclean one acts only on a partition without a
// leader, and then elects an out-of-sync replica, losing the acknowledged
// records it lacks, as `failover unclean` does; with no partitions named,
// the partitions that needed nothing are left out.
func TestElectLeaders(t *testing.T) {
	w := New(1)
	w.apply(t, "cluster topic=orders partitions=1")
	w.KeepOutgoing(true)
	answers := map[[2]int32]kmsg.Response{}
	admin := &wireClient{t: t, w: w, name: "admin", conn: 1, broker: 2, answers: answers}
	elect := func(kind int8, parts map[string][]int32) string {
		t.Helper()
		q := kmsg.NewPtrElectLeadersRequest()
		q.SetVersion(2)
		q.ElectionType, q.TimeoutMillis = kind, 30000
		if parts != nil {
			q.Topics = []kmsg.ElectLeadersRequestTopic{}
			for _, topic := range []string{"orders", "nope"} {
				if ps, ok := parts[topic]; ok {
					rt := kmsg.NewElectLeadersRequestTopic()
					rt.Topic, rt.Partitions = topic, ps
					q.Topics = append(q.Topics, rt)
				}
			}
		}
		resp, _ := admin.answer(admin.send(q)).(*kmsg.ElectLeadersResponse)
		if resp == nil {
			t.Fatal("no answer")
		}
		out := ""
		for _, rt := range resp.Topics {
			for _, p := range rt.Partitions {
				msg := ""
				if p.ErrorMessage != nil {
					msg = *p.ErrorMessage
				}
				out += fmt.Sprintf("[%s-%d %d %s]", rt.Topic, p.Partition, p.ErrorCode, msg)
			}
		}
		return out
	}
	leader := func() int { return w.meta(w.parts[0].tp).leader }
	orders0 := map[string][]int32{"orders": {0}}

	steps := []struct {
		do        []string // lab commands first
		kind      int8
		parts     map[string][]int32
		want      string
		leader    int
		connectTo int // the broker the admin client speaks to (0: as before)
	}{
		{nil, electPreferred, orders0, "[orders-0 84 Leader election not needed for topic partition.]", 1, 0},
		{[]string{"failover orders-0"}, electPreferred, orders0, "[orders-0 0 ]", 1, 0},
		{nil, electPreferred, map[string][]int32{"orders": {0, 7}, "nope": {0}},
			"[orders-0 84 Leader election not needed for topic partition.][orders-7 3 No such partition as orders-7][nope-0 3 No such topic as nope]", 1, 0},
		{nil, electPreferred, nil, "", 1, 0}, // every partition: orders-0 needed nothing
		{nil, electUnclean, orders0, "[orders-0 84 Leader election not needed for topic partition.]", 1, 0},
		// Broker 3 falls out of the ISR, records are acknowledged without
		// it, and the two in-sync replicas stop: no leader is left.
		{[]string{"kill broker 3", "advance 31s", "producer p1", "send p1 orders-0 2", "run", "kill broker 1", "kill broker 2", "advance 10s", "restart broker 3"},
			electPreferred, orders0, "[orders-0 80 The preferred leader was not available.]", 0, 3},
		{nil, electUnclean, orders0, "[orders-0 0 ]", 3, 0},
		{nil, electUnclean, orders0, "[orders-0 84 Leader election not needed for topic partition.]", 3, 0},
	}
	for i, s := range steps {
		w.apply(t, s.do...)
		if s.connectTo != 0 {
			admin.broker, admin.conn = s.connectTo, admin.conn+1
		}
		if got := elect(s.kind, s.parts); got != s.want || leader() != s.leader {
			t.Fatalf("step %d: %q with leader %d, want %q with leader %d", i, got, leader(), s.want, s.leader)
		}
	}
	lost := false
	for _, a := range w.Snapshot().Anomalies {
		lost = lost || a.Name == "lost"
	}
	if !lost {
		t.Errorf("the unclean election lost acknowledged records without the checker saying so: %+v", w.Snapshot().Anomalies)
	}
}
