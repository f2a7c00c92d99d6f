package sim

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/msg"
)

// TransactionManager.beginTransaction: one transaction at a time. A second
// beginTransaction in any state but READY is an invalid transition of the
// client's state machine (transitionTo throws IllegalStateException), and
// it changes nothing: the open transaction goes on and commits as one.
func TestBeginTransactionStateMachine(t *testing.T) {
	cases := []struct {
		name, script, state, exception string
	}{
		{"begin while a transaction is open", "producer p transactional=t\nrun\nbegin p\nsend p orders-0 1\nbegin p\n", "IN_TRANSACTION", "IllegalStateException"},
		{"begin before InitProducerId is answered", "producer p transactional=t\nbegin p\n", "INITIALIZING", "IllegalStateException"},
		{"begin while committing", "producer p transactional=t\nrun\nbegin p\nsend p orders-0 1\ncommit p\nbegin p\n", "COMMITTING_TRANSACTION", "IllegalStateException"},
		{"begin after an abortable error", "producer p transactional=t retries=1\nrun\nbegin p\nfail request p orders-0 NOT_ENOUGH_REPLICAS\nfail request p orders-0 NOT_ENOUGH_REPLICAS\nsend p orders-0 1\nrun\nbegin p\n", "ABORTABLE_ERROR", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := playScript(t, c.script)
			refused := eventsOf(w, "producer.refused")
			if len(refused) == 0 {
				t.Fatal("no producer.refused event")
			}
			last := refused[len(refused)-1]
			if last.Str("call") != "beginTransaction" {
				t.Fatalf("refused %q, want beginTransaction", last.Str("call"))
			}
			if got := last.Str("exception"); got != c.exception {
				t.Errorf("exception %q, want %q (%s)", got, c.exception, last.Describe())
			}
			if c.exception != "" && !strings.Contains(last.Describe(), "from state "+c.state+" to state IN_TRANSACTION") {
				t.Errorf("the refusal does not name the transition from %s: %s", c.state, last.Describe())
			}
			if got := w.Snapshot().Producers[0].TxnState; got != c.state {
				t.Errorf("state after the refused begin %s, want %s unchanged", got, c.state)
			}
		})
	}

	// The open transaction goes on: one commit covers both sends.
	w := playScript(t, "producer p transactional=t\nrun\nbegin p\nsend p orders-0 1\nbegin p\nsend p orders-0 1\ncommit p\nrun\n")
	if n := len(eventsOf(w, "txn.begin")); n != 1 {
		t.Errorf("%d txn.begin events, want 1", n)
	}
	if n := len(eventsOf(w, "txn.marker")); n != 1 {
		t.Errorf("%d markers, want 1: both records in the one transaction", n)
	}
}

// TransactionCoordinator.handleInitProducerId refuses a transaction.timeout.ms
// above the broker's transaction.max.timeout.ms
// (TransactionStateManager.validateTransactionTimeoutMs) with
// INVALID_TRANSACTION_TIMEOUT, which the producer takes as fatal.
func TestTransactionMaxTimeout(t *testing.T) {
	cases := []struct {
		cluster string
		timeout int
		fatal   string
	}{
		{"", 900_000, ""},
		{"", 900_001, "INVALID_TRANSACTION_TIMEOUT"},
		{"cluster transaction.max.timeout.ms=60000\n", 60_000, ""},
		{"cluster transaction.max.timeout.ms=60000\n", 60_001, "INVALID_TRANSACTION_TIMEOUT"},
		{"cluster transaction.max.timeout.ms=59999\n", 0, "INVALID_TRANSACTION_TIMEOUT"}, // the producer's default, 60000, is above it
	}
	for _, c := range cases {
		src := c.cluster + "producer p transactional=t"
		if c.timeout != 0 {
			src += " transaction.timeout.ms=" + itoa(int64(c.timeout))
		}
		w := playScript(t, src+"\nrun\n")
		p := w.Snapshot().Producers[0]
		if p.FatalError != c.fatal {
			t.Errorf("%q: fatal error %q, want %q", src, p.FatalError, c.fatal)
		}
		if refused := eventsOf(w, "txn.invalid_timeout"); (len(refused) == 1) != (c.fatal != "") {
			t.Errorf("%q: %d txn.invalid_timeout events", src, len(refused))
		}
	}
}

// Kafka's consumer never moves back when a transaction that carried its
// group's offsets aborts: the application seeks to consumer.committed()
// itself (ExactlyOnceMessageProcessor), and that OffsetFetch is
// require_stable, so while the ABORT marker has not reached the group's
// coordinator it is answered UNSTABLE_OFFSET_COMMIT and nothing moves.
func TestAbortDoesNotRewindTheConsumer(t *testing.T) {
	const pipeline = `producer feeder idempotent
send feeder orders-0 3
run
consumer in read_committed orders-0 group=g max.poll.records=1
producer app transactional=a
run
poll in
run
begin app
send app orders-1 1
send-offsets app g
commit app
run
poll in
run
begin app
send app orders-1 1
send-offsets app g
run
`
	position := func(w *World) int64 {
		for _, c := range w.Snapshot().Consumers {
			if c.Name == "in" {
				return c.Positions[0].Offset
			}
		}
		t.Fatal("no consumer in")
		return 0
	}
	cases := []struct {
		name, then string
		want       int64
		unstable   int
	}{
		{"abort alone leaves the position", "abort app\nrun\n", 2, 0},
		{"the application seeks back", "abort app\nrun\nseek in committed\n", 1, 0},
		{"a seek before the abort's markers are written waits", "abort app\nseek in committed\n", 2, 1},
		{"a seek while the transaction is open is unstable", "seek in committed\n", 2, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := playScript(t, pipeline+c.then)
			if got := position(w); got != c.want {
				t.Errorf("position %d, want %d", got, c.want)
			}
			if n := len(eventsOf(w, "consumer.unstable")); n != c.unstable {
				t.Errorf("%d consumer.unstable events, want %d", n, c.unstable)
			}
		})
	}
}

// TransactionsCommand.FindHangingTransactionsCommand: only a transaction
// open longer than 15 minutes whose coordinator no longer counts the
// partition in it is hanging; AbortTransactionCommand writes its ABORT
// marker and the LSO moves.
func TestFindHangingAndAbort(t *testing.T) {
	w := playScript(t, string(mustRead(t, "testdata/hanging-transaction.eos")))
	finds := eventsOf(w, "admin.find_hanging")
	var hanging []int64
	for _, e := range finds {
		hanging = append(hanging, e.Int("hanging"))
	}
	if want := []int64{0, 1, 0}; !slices.Equal(hanging, want) {
		t.Errorf("find-hanging counts %v, want %v (too young, hanging, aborted)", hanging, want)
	}
	if n := len(eventsOf(w, "admin.abort_refused")); n != 1 {
		t.Errorf("%d refused aborts, want 1 (no transaction starts at offset 1)", n)
	}
	if got := eventsOf(w, "admin.aborted"); len(got) != 1 || got[0].Str("error") != "NONE" {
		t.Errorf("aborted: %v", got)
	}
	for _, p := range w.Snapshot().Partitions {
		if p.Name == "orders-0" && (p.LastStableOffset != 2 || len(p.AbortedTxns) != 1) {
			t.Errorf("orders-0 after the abort: LSO %d, aborted %v", p.LastStableOffset, p.AbortedTxns)
		}
	}

	// An ongoing transaction older than 15 minutes (its timeout is the
	// longest allowed, and the scan has not come round yet) is a candidate,
	// but its coordinator still counts the partition: not hanging.
	w = playScript(t, "producer tx transactional=t transaction.timeout.ms=900000\nrun\nbegin tx\nsend tx orders-0 1\nrun\nadvance 905s\ntransactions find-hanging\n")
	f := eventsOf(w, "admin.find_hanging")
	if len(f) != 1 || f[0].Int("candidates") != 1 || f[0].Int("hanging") != 0 {
		t.Errorf("an ongoing transaction: %v", f)
	}
}

// KIP-447 with the classic group protocol: TxnOffsetCommit carries the
// consumer's member id and generation (consumer.groupMetadata()), the group
// coordinator checks them (ClassicGroup.validateOffsetCommit) and the
// producer makes the transaction abortable on UNKNOWN_MEMBER_ID or
// ILLEGAL_GENERATION (TransactionManager.TxnOffsetCommitHandler).
func TestGroupGenerationFencesStaleInstances(t *testing.T) {
	const setup = `producer feeder idempotent
send feeder orders-0 3
run
consumer a-in read_committed orders-0 group=g max.poll.records=1 max.poll.interval.ms=30000
producer a transactional=ship-a
run
poll a-in
run
begin a
send a orders-1 1 value=from-a
`
	cases := []struct {
		name, then string
		txnError   string // the error a's transaction hit ("" : none)
		committed  int64  // group g's committed offset for orders-0 afterwards (-1: none)
		generation int32
	}{
		{"a stale instance after a rebalance without it: UNKNOWN_MEMBER_ID",
			"pause a\nconsumer b-in read_committed orders-0 group=g\npoll b-in\nadvance 31s\npoll b-in\nrun\nresume a\nsend-offsets a g consumer=a-in\ncommit a\nrun\n",
			"UNKNOWN_MEMBER_ID", -1, 2},
		{"the same with the groupId-only API: nothing fences it",
			"pause a\nconsumer b-in read_committed orders-0 group=g\npoll b-in\nadvance 31s\npoll b-in\nrun\nresume a\nsend-offsets a g consumer=a-in legacy\ncommit a\nrun\n",
			"", 1, 2},
		{"a live member during a rebalance that waits for it: accepted",
			"consumer b-in read_committed orders-0 group=g\npoll b-in\nsend-offsets a g consumer=a-in\ncommit a\nrun\n",
			"", 1, 1},
		{"metadata taken before the member rejoined: ILLEGAL_GENERATION",
			"consumer b-in read_committed orders-0 group=g\npoll b-in\nsend-offsets a g consumer=a-in\npoll a-in\nrun\ncommit a\nrun\n",
			"ILLEGAL_GENERATION", -1, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := playScript(t, setup+c.then)
			p := w.producers.get("a").p
			if got := p.TxnError().Name(); c.txnError != "" && got != c.txnError || c.txnError == "" && got != "NONE" {
				t.Errorf("a's transaction error %s, want %q", got, c.txnError)
			}
			g := w.tx.groups["g"]
			got, ok := g.Committed[msg.TP{Topic: "orders", Partition: 0}]
			if !ok {
				got = -1
			}
			if got != c.committed {
				t.Errorf("committed offset %d, want %d", got, c.committed)
			}
			if g.Generation != c.generation {
				t.Errorf("generation %d, want %d (members %v)", g.Generation, c.generation, g.Members)
			}
		})
	}

	// Joins, restarts and a waiting joiner.
	w := playScript(t, setup+"consumer b-in read_committed orders-0 group=g\npoll b-in\n")
	if n := len(eventsOf(w, "consumer.rebalancing")); n != 1 {
		t.Errorf("a joiner waits for the live member to rejoin: %d consumer.rebalancing events", n)
	}
	w = playScript(t, setup+"restart consumer a-in\npoll a-in\nrun\n")
	g := w.tx.groups["g"]
	if g.Generation != 3 || len(g.Members) != 1 || g.Members["a-in-2"] != "a-in" {
		t.Errorf("after a restart: generation %d, members %v; want 3 and a-in-2", g.Generation, g.Members)
	}
}

// KIP-890: the coordinator ends a transaction by its client's version
// (KafkaApis.handleEndTxnRequest: EndTxn version > 4 is transaction version
// 2; TransactionMetadata.clientTransactionVersion), and the leader adds a
// partition only for a version 2 client; kafka-features.sh changes what a
// client uses once a new connection's ApiVersions answer has told it, from
// its next beginTransaction (TransactionManager.maybeUpdateTransactionV2Enabled).
func TestTransactionVersionPerClient(t *testing.T) {
	w := playScript(t, string(mustRead(t, "testdata/txn-versions-mixed.eos")))
	epochs := map[string][]int64{}
	for _, e := range eventsOf(w, "txn.complete") {
		epochs[e.Str("producer")] = append(epochs[e.Str("producer")], e.Int("producer_epoch"))
	}
	// old: its first transaction began under version 2 and its commit
	// bumps the epoch to 1; the second began after its new connection to
	// the leader had learned version 1, and keeps epoch 1. new: epoch 0 for
	// both version 1 transactions; restarted under version 2 it gets epoch
	// 1 and its commit bumps it to 2.
	if want := map[string][]int64{"old": {1, 1}, "new": {0, 0, 2}}; !reflect.DeepEqual(epochs, want) {
		t.Errorf("epochs after each commit %v, want %v", epochs, want)
	}
	adds := map[string]int{}
	for _, e := range eventsOf(w, "message.send") {
		if e.Str("api") == "AddPartitionsToTxn" && !e.Bool("response") {
			adds[e.Str("from")]++
		}
	}
	if want := map[string]int{"old": 1, "new": 2}; !reflect.DeepEqual(adds, want) {
		t.Errorf("AddPartitionsToTxn requests %v, want %v", adds, want)
	}
	var seqs []int64
	for _, e := range eventsOf(w, "produce.decision") {
		if e.Str("producer") == "new" {
			seqs = append(seqs, e.Int("base_sequence"))
		}
	}
	if want := []int64{0, 1, 0}; !slices.Equal(seqs, want) {
		t.Errorf("new's sequences %v, want %v (continuing under version 1, from 0 after the bump)", seqs, want)
	}
	if as := w.Anomalies(); len(as) > 0 {
		t.Errorf("anomalies: %v", as)
	}
}
