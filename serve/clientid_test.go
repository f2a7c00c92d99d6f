package serve

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Two processes may share a client.id (kcat's is always rdkafka, kgo's
// kgo): Kafka tells producers apart by what InitProducerId asks, never by
// client.id. An idempotent producer started after a transactional one of
// the same client.id gets a producer id of its own, and the transactional
// one is not fenced by it (InitProducerId without a transactional id
// touches no transaction's epoch: TransactionCoordinator.handleInitProducerId).
func TestSharedClientIDIsNotOneProducer(t *testing.T) {
	s, _ := start(t, Config{})
	c := ctx(t)
	txn := client(t, s, kgo.ClientID("same"), kgo.TransactionalID("tx-same"), kgo.DefaultProduceTopic("orders"))
	produceTxn(t, c, txn, "first", 3, kgo.TryCommit)
	txnID, txnEpoch, err := txn.ProducerID(c)
	if err != nil {
		t.Fatal(err)
	}
	idem := client(t, s, kgo.ClientID("same"), kgo.DefaultProduceTopic("orders"))
	if err := idem.ProduceSync(c, &kgo.Record{Value: []byte("plain")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	id, epoch, err := idem.ProducerID(c)
	if err != nil {
		t.Fatal(err)
	}
	if id == txnID {
		t.Fatalf("the idempotent producer got the transactional id's producer id %d (epoch %d; the transactional one's %d)", id, epoch, txnEpoch)
	}
	produceTxn(t, c, txn, "second", 3, kgo.TryCommit) // not fenced
	if id2, epoch2, _ := txn.ProducerID(c); id2 != txnID || epoch2 != txnEpoch {
		t.Fatalf("the transactional producer moved from %d/%d to %d/%d", txnID, txnEpoch, id2, epoch2)
	}
}
