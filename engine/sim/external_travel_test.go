package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Time travel is exact for what real clients' admin requests change too:
// random sessions of the lab's commands interleaved with arrivals of
// CreateTopics (with configs), CreatePartitions, simple offset commits,
// DeleteGroups, OffsetDelete, ElectLeaders and the describing requests. A world rewound
// to the moment after any command, checkpoints every few steps, answers
// the same probe — every group described and listed, every topic's
// configs with synonyms, the cluster's metadata — byte for byte as a world
// given the same commands from the start, and has the same state.
func TestServedAdminTimeTravel(t *testing.T) {
	sessions := 60
	if testing.Short() {
		sessions = 15
	}
	for seed := uint64(1); seed <= uint64(sessions); seed++ {
		rng := rand.New(rand.NewPCG(seed, 0xad))
		cmds := adminSession(seed, rng)
		w := dense(New(seed), 3+rng.IntN(20))
		var moments []Moment
		for _, c := range cmds {
			w.Apply(c)
			moments = append(moments, w.Moment())
		}
		for range 4 {
			i := rng.IntN(len(cmds))
			r, err := w.RewindTo(moments[i])
			if err != nil {
				t.Fatalf("seed %d: rewind to the moment after command %d: %v", seed, i, err)
			}
			fresh := New(seed)
			for _, c := range cmds[:i+1] {
				fresh.Apply(c)
			}
			if got, want := r.Snapshot().StateJSON(), fresh.Snapshot().StateJSON(); !bytes.Equal(got, want) {
				t.Fatalf("seed %d: rewound to the moment after command %d (%s), the state differs", seed, i, script.Format(cmds[i]))
			}
			if got, want := adminProbe(t, r), adminProbe(t, fresh); got != want {
				t.Fatalf("seed %d: rewound to the moment after command %d (%s), the probe's answers differ\n got %s\nwant %s", seed, i, script.Format(cmds[i]), got, want)
			}
		}
	}
}

// arrival is a request from the admin client on a connection of its own.
func arrival(conn, broker int, req kmsg.Request) *script.Arrive {
	frame := kmsg.NewRequestFormatter(kmsg.FormatterClientID("admin")).AppendRequest(nil, req, int32(conn))
	return &script.Arrive{Conn: conn, Broker: broker, API: APIName(req.Key()), AtMs: -1, Data: frame[4:]}
}

// adminSession is a random session with admin arrivals among its commands.
func adminSession(seed uint64, rng *rand.Rand) []script.Command {
	lab := randomSession(seed, 30)
	topics := []string{"orders", "events", "audit"}
	groups := []string{"g", "simple", "other"}
	conn := 1000
	var out []script.Command
	for _, c := range lab {
		out = append(out, c)
		if _, ok := c.(*script.Cluster); ok || rng.IntN(3) != 0 {
			continue
		}
		conn++
		broker := 1 + rng.IntN(3)
		var req kmsg.Request
		switch rng.IntN(8) {
		case 0:
			q := kmsg.NewPtrCreateTopicsRequest()
			ct := kmsg.NewCreateTopicsRequestTopic()
			ct.Topic, ct.NumPartitions, ct.ReplicationFactor = topics[1+rng.IntN(2)], int32(1+rng.IntN(2)), -1
			if rng.IntN(2) == 0 {
				cfg := kmsg.NewCreateTopicsRequestTopicConfig()
				v := "delete"
				cfg.Name, cfg.Value = "cleanup.policy", &v
				ct.Configs = append(ct.Configs, cfg)
			}
			q.Topics = append(q.Topics, ct)
			req = q
		case 1:
			q := kmsg.NewPtrCreatePartitionsRequest()
			cp := kmsg.NewCreatePartitionsRequestTopic()
			cp.Topic, cp.Count = topics[rng.IntN(3)], int32(2+rng.IntN(4))
			q.Topics = append(q.Topics, cp)
			req = q
		case 2:
			q := kmsg.NewPtrOffsetCommitRequest()
			q.Group, q.Generation = groups[1+rng.IntN(2)], -1
			ot := kmsg.NewOffsetCommitRequestTopic()
			ot.Topic = "orders"
			op := kmsg.NewOffsetCommitRequestTopicPartition()
			op.Offset = int64(rng.IntN(5))
			ot.Partitions = append(ot.Partitions, op)
			q.Topics = append(q.Topics, ot)
			req = q
		case 3:
			q := kmsg.NewPtrDeleteGroupsRequest()
			q.Groups = []string{groups[rng.IntN(3)]}
			req = q
		case 4:
			q := kmsg.NewPtrElectLeadersRequest()
			q.ElectionType = int8(rng.IntN(2))
			et := kmsg.NewElectLeadersRequestTopic()
			et.Topic, et.Partitions = "orders", []int32{int32(rng.IntN(3))}
			q.Topics = append(q.Topics, et)
			req = q
		case 6:
			q := kmsg.NewPtrOffsetDeleteRequest()
			q.Group = groups[rng.IntN(3)]
			ot := kmsg.NewOffsetDeleteRequestTopic()
			ot.Topic = "orders"
			ot.Partitions = append(ot.Partitions, kmsg.NewOffsetDeleteRequestTopicPartition())
			q.Topics = append(q.Topics, ot)
			req = q
		case 5:
			q := kmsg.NewPtrDescribeGroupsRequest()
			q.Groups = groups
			req = q
		default:
			q := kmsg.NewPtrListGroupsRequest()
			req = q
		}
		served, _ := servedRange(req.Key())
		req.SetVersion(served.Max)
		out = append(out, arrival(conn, broker, req))
	}
	return out
}

// adminProbe asks w what the admin APIs describe, from every broker, and
// returns the answers' bytes; w is changed only by the probe itself.
func adminProbe(t *testing.T, w *World) string {
	t.Helper()
	w.KeepOutgoing(true)
	w.TakeOutgoing()
	dg := kmsg.NewPtrDescribeGroupsRequest()
	dg.SetVersion(5)
	dg.Groups = []string{"g", "simple", "other"}
	lg := kmsg.NewPtrListGroupsRequest()
	lg.SetVersion(4)
	dc := kmsg.NewPtrDescribeConfigsRequest()
	dc.SetVersion(4)
	dc.IncludeSynonyms = true
	for _, topic := range []string{"orders", "events", "audit"} {
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, topic
		dc.Resources = append(dc.Resources, r)
	}
	md := kmsg.NewPtrMetadataRequest()
	md.SetVersion(12)
	md.Topics = nil
	conn := 9000
	for broker := 1; broker <= len(w.brokers); broker++ {
		for _, req := range []kmsg.Request{dg, lg, dc, md} {
			conn++
			if _, err := w.Apply(arrival(conn, broker, req)); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Run()
	var out []string
	for _, o := range w.TakeOutgoing() {
		out = append(out, fmt.Sprintf("%d/%d %x", o.Conn, o.CorrelationID, o.Response.AppendTo(nil)))
	}
	slices.Sort(out)
	return fmt.Sprint(out)
}
