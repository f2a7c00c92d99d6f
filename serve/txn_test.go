package serve

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// produceTxn runs one transaction of n records with values prefix-i and
// ends it.
func produceTxn(t *testing.T, c context.Context, p *kgo.Client, prefix string, n int, commit kgo.TransactionEndTry) {
	t.Helper()
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := p.ProduceSync(c, &kgo.Record{Value: []byte(fmt.Sprintf("%s-%d", prefix, i))}).FirstErr(); err != nil {
			t.Fatalf("%s: %v", prefix, err)
		}
	}
	if err := p.EndTransaction(c, commit); err != nil {
		t.Fatalf("%s: end: %v", prefix, err)
	}
}

// readUntil polls until a record with value last arrives and returns the
// values read before and with it.
func readUntil(t *testing.T, c context.Context, cl *kgo.Client, last string) []string {
	t.Helper()
	var got []string
	for {
		fs := cl.PollFetches(c)
		if err := c.Err(); err != nil {
			t.Fatalf("waiting for %q: %v (read %v)", last, err, got)
		}
		fs.EachError(func(topic string, p int32, err error) { t.Errorf("fetch %s-%d: %v", topic, p, err) })
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			got = append(got, string(r.Value))
			done = done || string(r.Value) == last
		})
		if done {
			return got
		}
	}
}

func values(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}

// A transactional producer commits one transaction and aborts another; a
// read_committed consumer sees only the committed records, a
// read_uncommitted one sees both (and a last committed transaction marks
// the end of what there is to read).
func TestKgoTransactionsIsolation(t *testing.T) {
	s, eng := start(t, Config{})
	c := ctx(t)
	one := kgo.ManualPartitioner()
	p := client(t, s, kgo.ClientID("txn-writer"), kgo.TransactionalID("tx-1"), kgo.DefaultProduceTopic("orders"),
		kgo.RecordPartitioner(one), kgo.TransactionTimeout(30*time.Second))
	produceTxn(t, c, p, "committed", 5, kgo.TryCommit)
	produceTxn(t, c, p, "aborted", 5, kgo.TryAbort)
	produceTxn(t, c, p, "end", 1, kgo.TryCommit)

	rc := client(t, s, kgo.ClientID("rc"), kgo.ConsumeTopics("orders"), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ru := client(t, s, kgo.ClientID("ru"), kgo.ConsumeTopics("orders"), kgo.FetchIsolationLevel(kgo.ReadUncommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	wantRC := append(values("committed", 5), "end-0")
	wantRU := append(append(values("committed", 5), values("aborted", 5)...), "end-0")
	if got := readUntil(t, c, rc, "end-0"); !slices.Equal(got, wantRC) {
		t.Errorf("read_committed read %v, want %v", got, wantRC)
	}
	if got := readUntil(t, c, ru, "end-0"); !slices.Equal(got, wantRU) {
		t.Errorf("read_uncommitted read %v, want %v", got, wantRU)
	}
	// The lab shows what each real consumer hands its application: the
	// broker's answers, filtered as the client library filters them.
	s.Do(func(e Engine) {
		handed := map[string][]string{}
		for _, c := range e.World().Snapshot().Consumers {
			for _, r := range c.Read {
				handed[c.Name] = append(handed[c.Name], string(r.Value))
			}
		}
		if !slices.Equal(handed["rc"], wantRC) || !slices.Equal(handed["ru"], wantRU) {
			t.Errorf("the consumers' views hold rc %v and ru %v, want %v and %v", handed["rc"], handed["ru"], wantRC, wantRU)
		}
	})
	// The coordinator completes the commit once the markers are written,
	// which may be after a reader saw them.
	eventually(t, s, func(e Engine) string {
		snap := e.World().Snapshot()
		for _, a := range snap.Anomalies {
			t.Errorf("anomaly: %s", a.Text)
		}
		for _, tx := range snap.Transactions {
			if tx.TransactionalID == "tx-1" && tx.State == "CompleteCommit" {
				return ""
			}
		}
		return fmt.Sprintf("the coordinator does not show tx-1 committed: %+v", snap.Transactions)
	})
	_ = eng
}

// eventually runs check on the loop until it finds nothing wrong (""),
// for up to ten seconds, and fails with what it found last.
func eventually(t *testing.T, s *Server, check func(Engine) string) {
	t.Helper()
	var why string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		s.Do(func(e Engine) { why = check(e) })
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
	}
}

// A consume-transform-produce loop with a group transact session: each
// order read from orders-0 is written as a shipment to orders-1 in a
// transaction that also commits the input offsets (TxnOffsetCommit). A
// read_committed reader of orders-1 sees each shipment once, and the
// group's committed offset for orders-0 is past every order.
func TestKgoConsumeTransformProduce(t *testing.T) {
	s, _ := start(t, Config{})
	c := ctx(t)
	const n = 20
	feeder := client(t, s, kgo.ClientID("feeder"), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for i := range n {
		if err := feeder.ProduceSync(c, &kgo.Record{Partition: 0, Value: []byte(fmt.Sprintf("order-%d", i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := kgo.NewGroupTransactSession(kgo.SeedBrokers(s.Addrs()...), kgo.ClientID("shipper"), kgo.TransactionalID("shipper-tx"),
		kgo.ConsumerGroup("shipping"), kgo.ConsumeTopics("orders"), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequireStableFetchOffsets())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	done := 0
	for done < n {
		fs := sess.PollFetches(c)
		if err := c.Err(); err != nil {
			t.Fatalf("transformed %d of %d: %v", done, n, err)
		}
		fs.EachError(func(topic string, p int32, err error) { t.Errorf("fetch %s-%d: %v", topic, p, err) })
		if err := sess.Begin(); err != nil {
			t.Fatal(err)
		}
		var orders []*kgo.Record
		fs.EachRecord(func(r *kgo.Record) {
			if r.Partition == 0 {
				orders = append(orders, r)
			}
		})
		for _, r := range orders {
			out := &kgo.Record{Partition: 1, Value: []byte("shipment-" + string(r.Value[len("order-"):]))}
			if err := sess.ProduceSync(c, out).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		committed, err := sess.End(c, kgo.TryCommit)
		if err != nil {
			t.Fatal(err)
		}
		if committed {
			done += len(orders)
		}
	}
	reader := client(t, s, kgo.ClientID("shipments"), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"orders": {1: kgo.NewOffset().AtStart()}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	got := readUntil(t, c, reader, fmt.Sprintf("shipment-%d", n-1))
	if !slices.Equal(got, values("shipment", n)) {
		t.Errorf("read_committed read %v, want each shipment once", got)
	}
	// The group's offsets count once the COMMIT marker reaches its
	// __consumer_offsets partition, which may be after the reader saw the
	// marker on orders-1.
	eventually(t, s, func(e Engine) string {
		snap := e.World().Snapshot()
		for _, g := range snap.Groups {
			if g.Group != "shipping" {
				continue
			}
			for _, p := range g.Committed {
				if p.Partition == "orders-0" && p.Offset == n {
					return ""
				}
			}
			return fmt.Sprintf("the group has not committed orders-0 at %d: %+v", n, g.Committed)
		}
		return fmt.Sprintf("no committed offsets for group shipping: %+v", snap.Groups)
	})
}
