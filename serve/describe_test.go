package serve

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The describing APIs, through kgo's request routing (coordinators,
// partition leaders).
func TestDescribeAPIs(t *testing.T) {
	s, _ := start(t, Config{})
	c := ctx(t)
	p := client(t, s, kgo.ClientID("tx"), kgo.TransactionalID("tx-d"), kgo.DefaultProduceTopic("orders"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.TransactionTimeout(20*time.Second))
	produceTxn(t, c, p, "d", 2, kgo.TryCommit)
	admin := client(t, s, kgo.ClientID("admin"))

	// EndTxn is answered once the commit is decided (PrepareCommit); the
	// coordinator completes it when the markers are written.
	states := map[string]kmsg.DescribeTransactionsResponseTransactionState{}
	for deadline := time.Now().Add(10 * time.Second); states["tx-d"].State != "CompleteCommit" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		dt := kmsg.NewPtrDescribeTransactionsRequest()
		dt.TransactionalIDs = []string{"tx-d", "nobody"}
		resp, err := admin.Request(c, dt)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range resp.(*kmsg.DescribeTransactionsResponse).TransactionStates {
			states[st.TransactionalID] = st
		}
	}
	if st := states["tx-d"]; st.ErrorCode != 0 || st.State != "CompleteCommit" || st.ProducerID < 0 || st.TimeoutMillis != 20000 {
		t.Errorf("DescribeTransactions tx-d: %+v", st)
	}
	if st := states["nobody"]; st.ErrorCode != 105 {
		t.Errorf("DescribeTransactions of an unknown id: error %d, want TRANSACTIONAL_ID_NOT_FOUND (105)", st.ErrorCode)
	}

	dp := kmsg.NewPtrDescribeProducersRequest()
	dpt := kmsg.NewDescribeProducersRequestTopic()
	dpt.Topic, dpt.Partitions = "orders", []int32{0}
	dp.Topics = append(dp.Topics, dpt)
	resp, err := admin.Request(c, dp)
	if err != nil {
		t.Fatal(err)
	}
	part := resp.(*kmsg.DescribeProducersResponse).Topics[0].Partitions[0]
	if part.ErrorCode != 0 || len(part.ActiveProducers) != 1 || part.ActiveProducers[0].LastSequence != 1 || part.ActiveProducers[0].CurrentTxnStartOffset != -1 {
		t.Errorf("DescribeProducers orders-0: %+v", part)
	}

	lt := kmsg.NewPtrListTransactionsRequest()
	found := false
	for _, sh := range admin.RequestSharded(c, lt) {
		if sh.Err != nil {
			t.Fatal(sh.Err)
		}
		for _, st := range sh.Resp.(*kmsg.ListTransactionsResponse).TransactionStates {
			found = found || st.TransactionalID == "tx-d" && st.TransactionState == "CompleteCommit"
		}
	}
	if !found {
		t.Error("ListTransactions does not list tx-d")
	}
}
