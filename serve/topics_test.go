package serve

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Auto-creation follows Kafka's default (auto.create.topics.enable=true,
// num.partitions=1): a kgo producer that allows it writes to a topic that
// does not exist; the first Metadata answers UNKNOWN_TOPIC_OR_PARTITION
// while the controller creates it (KRaft's AutoTopicCreationManager), the
// next one finds one partition replicated as the cluster's topic is, and a
// consumer reads the records back. A client that does not allow it (kgo's
// consumer default) creates nothing.
func TestAutoCreateTopic(t *testing.T) {
	s, eng := start(t, Config{})
	c := ctx(t)
	admin := client(t, s, kgo.ClientID("admin"))
	md := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	name := "quiet"
	mt.Topic = &name
	md.Topics = append(md.Topics, mt)
	md.AllowAutoTopicCreation = false
	resp, err := admin.Request(c, md)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.(*kmsg.MetadataResponse).Topics[0].ErrorCode; got != 3 {
		t.Errorf("Metadata without auto-creation for a new topic: error %d, want UNKNOWN_TOPIC_OR_PARTITION (3)", got)
	}

	p := client(t, s, kgo.ClientID("writer"), kgo.DefaultProduceTopic("events"), kgo.AllowAutoTopicCreation(),
		kgo.MetadataMinAge(20*time.Millisecond))
	const n = 50
	for i := range n {
		if err := p.ProduceSync(c, &kgo.Record{Value: []byte(fmt.Sprintf("e-%d", i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cons := client(t, s, kgo.ClientID("reader"), kgo.ConsumeTopics("events"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if got := readUntil(t, c, cons, fmt.Sprintf("e-%d", n-1)); !slices.Equal(got, values("e", n)) {
		t.Errorf("read %v, want e-0..e-%d once each in order", got, n-1)
	}
	s.Do(func(e Engine) {
		snap := e.World().Snapshot()
		var names []string
		for _, p := range snap.Partitions {
			names = append(names, p.Name)
			if p.Name == "events-0" && (len(p.Replicas) != 3 || p.HighWatermark != n) {
				t.Errorf("events-0: replicas %v, high watermark %d; want 3 replicas and %d records", p.Replicas, p.HighWatermark, n)
			}
		}
		if !slices.Equal(names, []string{"orders-0", "orders-1", "orders-2", "events-0"}) {
			t.Errorf("partitions %v, want the cluster's three and events-0 (num.partitions=1); quiet must not exist", names)
		}
		for _, a := range snap.Anomalies {
			t.Errorf("anomaly: %s", a.Text)
		}
	})
	_ = eng
}

// CreateTopics creates topics as Kafka's controller does, and refuses
// what it refuses with its errors and messages.
func TestCreateTopics(t *testing.T) {
	s, _ := start(t, Config{})
	c := ctx(t)
	admin := client(t, s, kgo.ClientID("admin"))
	type topic struct {
		name       string
		partitions int32
		rf         int16
		assign     [][]int32
		configs    []string // name=value; a name alone is a null value
	}
	cases := []struct {
		topic
		code        int16
		parts, reps int
	}{
		{topic{name: "payments", partitions: 2, rf: 2}, 0, 2, 2},
		{topic{name: "defaults", partitions: -1, rf: -1}, 0, 1, 3},
		{topic{name: "manual", partitions: -1, rf: -1, assign: [][]int32{{3, 1}, {2, 3}}}, 0, 2, 2},
		{topic{name: "orders", partitions: 1, rf: 1}, 36, 0, 0},                             // TOPIC_ALREADY_EXISTS
		{topic{name: "bad/name", partitions: 1, rf: 1}, 17, 0, 0},                           // INVALID_TOPIC_EXCEPTION
		{topic{name: "pay.ments", partitions: 1, rf: 1}, 0, 1, 1},                           // no collision yet
		{topic{name: "pay_ments", partitions: 1, rf: 1}, 17, 0, 0},                          // collides with pay.ments
		{topic{name: "zero", partitions: 0, rf: 1}, 37, 0, 0},                               // INVALID_PARTITIONS
		{topic{name: "wide", partitions: 1, rf: 4}, 38, 0, 0},                               // INVALID_REPLICATION_FACTOR
		{topic{name: "norf", partitions: 1, rf: 0}, 38, 0, 0},                               // INVALID_REPLICATION_FACTOR
		{topic{name: "mixed", partitions: 2, rf: -1, assign: [][]int32{{1}}}, 42, 0, 0},     // INVALID_REQUEST
		{topic{name: "twice", partitions: -1, rf: -1, assign: [][]int32{{1, 1}}}, 39, 0, 0}, // INVALID_REPLICA_ASSIGNMENT
		{topic{name: "nobroker", partitions: -1, rf: -1, assign: [][]int32{{7}}}, 39, 0, 0},
		{topic{name: "configured", partitions: 1, rf: 1, configs: []string{"cleanup.policy=compact"}}, 40, 0, 0}, // INVALID_CONFIG
		{topic{name: "retained", partitions: 1, rf: 1, configs: []string{"retention.ms=1000"}}, 40, 0, 0},
		{topic{name: "nullcfg", partitions: 1, rf: 1, configs: []string{"min.insync.replicas"}}, 40, 0, 0},
		{topic{name: "isr1", partitions: 1, rf: 1, configs: []string{"min.insync.replicas=1"}}, 40, 0, 0}, // the cluster's is 2
		// The configs a served topic has anyway may be set to what it has.
		{topic{name: "defaulted", partitions: 1, rf: 3, configs: []string{"min.insync.replicas=2", "cleanup.policy=delete", "compression.type=producer",
			"max.message.bytes=1048588", "message.timestamp.type=CreateTime", "unclean.leader.election.enable=FALSE"}}, 0, 1, 3},
		{topic{name: "__consumer_offsets", partitions: 1, rf: 1}, 36, 0, 0},
		{topic{name: "huge", partitions: sim.MaxPartitions, rf: 1}, 44, 0, 0}, // POLICY_VIOLATION
	}
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.TimeoutMillis = 5000
	for _, tc := range cases {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = tc.name, tc.partitions, tc.rf
		for i, reps := range tc.assign {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition, a.Replicas = int32(i), reps
			rt.ReplicaAssignment = append(rt.ReplicaAssignment, a)
		}
		for _, kv := range tc.configs {
			cf := kmsg.NewCreateTopicsRequestTopicConfig()
			name, v, ok := strings.Cut(kv, "=")
			cf.Name = name
			if ok {
				cf.Value = &v
			}
			rt.Configs = append(rt.Configs, cf)
		}
		ct.Topics = append(ct.Topics, rt)
	}
	dup := kmsg.NewCreateTopicsRequestTopic()
	dup.Topic, dup.NumPartitions, dup.ReplicationFactor = "dup", 1, 1
	ct.Topics = append(ct.Topics, dup, dup)
	resp, err := admin.Request(c, ct)
	if err != nil {
		t.Fatal(err)
	}
	got := resp.(*kmsg.CreateTopicsResponse).Topics
	if len(got) != len(cases)+2 {
		t.Fatalf("%d answers for %d topics", len(got), len(cases)+2)
	}
	for i, tc := range cases {
		r := got[i]
		msg := ""
		if r.ErrorMessage != nil {
			msg = *r.ErrorMessage
		}
		if r.Topic != tc.name || r.ErrorCode != tc.code {
			t.Errorf("%s: error %d (%s), want %d", tc.name, r.ErrorCode, msg, tc.code)
			continue
		}
		if tc.code == 0 && (int(r.NumPartitions) != tc.parts || int(r.ReplicationFactor) != tc.reps) {
			t.Errorf("%s: %d partitions of %d replicas, want %d of %d", tc.name, r.NumPartitions, r.ReplicationFactor, tc.parts, tc.reps)
		}
		if tc.code != 0 && msg == "" {
			t.Errorf("%s: refused without a message", tc.name)
		}
		if want := "Null value not supported for topic configs: min.insync.replicas"; tc.name == "nullcfg" && msg != want {
			t.Errorf("nullcfg: %q, want Kafka's %q", msg, want)
		}
	}
	for _, r := range got[len(cases):] {
		if r.ErrorCode != 42 {
			t.Errorf("a duplicate name: error %d, want INVALID_REQUEST (42)", r.ErrorCode)
		}
	}

	// The created topics are served: metadata names their leaders, and a
	// producer writes to them.
	p := client(t, s, kgo.ClientID("writer"), kgo.DefaultProduceTopic("manual"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for part := range int32(2) {
		if err := p.ProduceSync(c, &kgo.Record{Partition: part, Value: []byte("m")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	s.Do(func(e Engine) {
		for _, p := range e.World().Snapshot().Partitions {
			switch p.Name {
			case "manual-0":
				if fmt.Sprint(p.Replicas) != "[3 1]" || p.Leader != 3 || p.HighWatermark != 1 {
					t.Errorf("manual-0: replicas %v, leader %d, HW %d; want [3 1], 3, 1", p.Replicas, p.Leader, p.HighWatermark)
				}
			case "dup-0", "configured-0", "retained-0", "nullcfg-0", "isr1-0", "huge-0":
				t.Errorf("%s was created", p.Name)
			}
		}
	})
}

// A topic created while a broker is down is led by live brokers only; the
// down broker's replicas are out of the ISR until it comes back.
func TestCreateTopicWithABrokerDown(t *testing.T) {
	s, _ := start(t, Config{})
	c := ctx(t)
	apply(t, s, "kill broker 2")
	admin := client(t, s, kgo.ClientID("admin"))
	ct := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = "later", 3, 3
	ct.Topics = append(ct.Topics, rt)
	resp, err := admin.Request(c, ct)
	if err != nil {
		t.Fatal(err)
	}
	if r := resp.(*kmsg.CreateTopicsResponse).Topics[0]; r.ErrorCode != 0 {
		t.Fatalf("CreateTopics with a broker down: error %d", r.ErrorCode)
	}
	s.Do(func(e Engine) {
		for _, p := range e.World().Snapshot().Partitions {
			if p.Topic == "later" && (p.Leader == 2 || p.Leader == 0 || slices.Contains(p.ISR, 2) || len(p.Replicas) != 3) {
				t.Errorf("%s: leader %d, ISR %v, replicas %v", p.Name, p.Leader, p.ISR, p.Replicas)
			}
		}
	})
}
