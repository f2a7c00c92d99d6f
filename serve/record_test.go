package serve

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A served session — an idempotent producer whose answer is lost and
// retried, a topic created by a producer's Metadata and given a second
// partition (CreatePartitions), a transaction, a
// read_committed consumer — saved as a script
// replays to the same world: the same logs byte for byte, the same
// producer state, transactions and group offsets.
func TestServedSessionReplays(t *testing.T) {
	w := sim.New(7)
	rec := NewRecorder(w)
	if _, err := rec.Apply(Cluster("orders", 3)); err != nil {
		t.Fatal(err)
	}
	s, err := Start(Config{Listen: "127.0.0.1:0", Logf: t.Logf}, rec)
	if err != nil {
		t.Fatal(err)
	}
	c := ctx(t)
	p := client(t, s, kgo.ClientID("writer"), kgo.DefaultProduceTopic("orders"))
	for i := range 30 {
		if i == 10 {
			apply(t, s, "lose response writer")
		}
		if err := p.ProduceSync(c, &kgo.Record{Value: []byte(fmt.Sprintf("v%d", i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	auto := client(t, s, kgo.ClientID("auto"), kgo.DefaultProduceTopic("events"), kgo.AllowAutoTopicCreation(), kgo.MetadataMinAge(20*time.Millisecond),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := auto.ProduceSync(c, &kgo.Record{Value: []byte("e")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// A partition added to it (CreatePartitions) is written too.
	cp := kmsg.NewPtrCreatePartitionsRequest()
	cpt := kmsg.NewCreatePartitionsRequestTopic()
	cpt.Topic, cpt.Count = "events", 2
	cp.Topics = append(cp.Topics, cpt)
	if resp, err := auto.Request(c, cp); err != nil || resp.(*kmsg.CreatePartitionsResponse).Topics[0].ErrorCode != 0 {
		t.Fatalf("CreatePartitions events: %v %+v", err, resp)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// The client learns of the partition at its next metadata refresh.
		auto.ForceMetadataRefresh()
		err := auto.ProduceSync(c, &kgo.Record{Partition: 1, Value: []byte("e1")}).FirstErr()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	tx := client(t, s, kgo.ClientID("tx"), kgo.TransactionalID("tx-r"), kgo.DefaultProduceTopic("orders"))
	produceTxn(t, c, tx, "t", 3, kgo.TryCommit)
	rc := client(t, s, kgo.ClientID("rc"), kgo.ConsumeTopics("orders"), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.ConsumerGroup("g"), kgo.AutoCommitMarks())
	got := 0
	for got < 33 {
		fs := rc.PollFetches(c)
		if c.Err() != nil {
			t.Fatal(c.Err())
		}
		fs.EachRecord(func(r *kgo.Record) { rc.MarkCommitRecords(r); got++ })
	}
	if err := rc.CommitMarkedOffsets(c); err != nil {
		t.Fatal(err)
	}
	p.Close()
	auto.Close()
	tx.Close()
	rc.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	src := rec.Script()
	cmds, err := script.Parse("session.eos", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r := sim.New(7)
	for _, cmd := range cmds {
		if _, err := r.Apply(cmd); err != nil {
			t.Fatalf("%s: %v", cmd.Position(), err)
		}
	}
	a, b := w.Snapshot(), r.Snapshot()
	if len(a.Partitions) != 5 || len(b.Partitions) != 5 {
		t.Fatalf("%d partitions served, %d replayed; want orders-0..2 and events-0..1", len(a.Partitions), len(b.Partitions))
	}
	if a.Step != b.Step || a.TimeMs != b.TimeMs {
		t.Fatalf("replayed to step %d at %d ms, served world is at step %d at %d ms", b.Step, b.TimeMs, a.Step, a.TimeMs)
	}
	for i := range a.Partitions {
		pa, pb := a.Partitions[i], b.Partitions[i]
		if pa.HighWatermark != pb.HighWatermark || len(pa.Batches) != len(pb.Batches) {
			t.Fatalf("%s: HW %d, %d batches; replayed HW %d, %d batches", pa.Name, pa.HighWatermark, len(pa.Batches), pb.HighWatermark, len(pb.Batches))
		}
		for j := range pa.Batches {
			if !bytes.Equal(pa.Batches[j].Bytes, pb.Batches[j].Bytes) {
				t.Fatalf("%s batch %d differs after replay", pa.Name, j)
			}
		}
	}
	if fmt.Sprint(a.Transactions) != fmt.Sprint(b.Transactions) || fmt.Sprint(a.Groups) != fmt.Sprint(b.Groups) ||
		fmt.Sprint(a.Anomalies) != fmt.Sprint(b.Anomalies) || len(a.Producers) != len(b.Producers) {
		t.Errorf("replayed state differs:\n%+v\n%+v\n%+v\n%+v", a.Transactions, b.Transactions, a.Groups, b.Groups)
	}
	if len(a.Groups) == 0 {
		t.Error("no group offsets were committed")
	}
	// Time travel inside a served world works as in any other: the world
	// rewound to any step (from a checkpoint copy) is the replayed one
	// rewound there, and rewound to the end it is the served world.
	for _, k := range []int{w.Steps() / 3, w.Steps() / 2, 2 * w.Steps() / 3, w.Steps()} {
		x, err := w.Rewind(k)
		if err != nil {
			t.Fatal(err)
		}
		y, err := r.Rewind(k)
		if err != nil {
			t.Fatal(err)
		}
		sx, sy := x.Snapshot(), y.Snapshot()
		if fmt.Sprint(sx.Partitions) != fmt.Sprint(sy.Partitions) || fmt.Sprint(sx.Producers) != fmt.Sprint(sy.Producers) ||
			fmt.Sprint(sx.Consumers) != fmt.Sprint(sy.Consumers) || sx.TimeMs != sy.TimeMs {
			t.Fatalf("rewound to step %d, the served and the replayed worlds differ", k)
		}
		if k == w.Steps() && fmt.Sprint(sx.Partitions) != fmt.Sprint(a.Partitions) {
			t.Fatalf("rewound to the end, the world is not the served one")
		}
	}
}
