package sim

import (
	"slices"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
)

// Each scenario is a rule of Kafka's network or recovery code that the
// engine once broke; the name says where the rule lives.

func playScript(t *testing.T, src string) *World {
	t.Helper()
	return playScriptSeed(t, src, 1)
}

func playScriptSeed(t *testing.T, src string, seed uint64) *World {
	t.Helper()
	cmds, err := script.Parse("scenario", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := New(seed)
	for _, c := range cmds {
		if _, err := w.Apply(c); err != nil {
			t.Fatalf("%s: %v", script.Format(c), err)
		}
	}
	return w
}

// decisions lists the produce decisions for a partition as "outcome:seq".
func decisions(w *World, partition string) []string {
	var out []string
	for _, e := range eventsOf(w, "produce.decision") {
		if e.Str("partition") == partition {
			out = append(out, e.Str("outcome")+":"+itoa(e.Int("base_sequence")))
		}
	}
	return out
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

func values(w *World, partition string) []string {
	var out []string
	for _, p := range w.Snapshot().Partitions {
		if p.Name != partition {
			continue
		}
		for _, r := range p.Log {
			if !r.Control {
				out = append(out, string(r.Value))
			}
		}
	}
	return out
}

func count(w *World, kind trace.Kind) int { return len(eventsOf(w, kind)) }

func TestTCPConnections(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, w *World)
	}{{
		// The example: over TCP a lost request takes the next one on
		// the same connection with it, so nothing overtakes and nothing is
		// written twice (NetworkClient.handleTimedOutRequests fails both,
		// RecordAccumulator retries them in sequence order).
		name: "NetworkClient/lost request breaks the connection",
		src:  "producer p1\nlose request p1 orders-0 seq=0\nsend p1 orders-0 1\nsend p1 orders-0 1\nrun\n",
		check: func(t *testing.T, w *World) {
			if got := values(w, "orders-0"); !slices.Equal(got, []string{"p1-0", "p1-1"}) {
				t.Errorf("log %v, want [p1-0 p1-1] once each, in order", got)
			}
			if got := decisions(w, "orders-0"); !slices.Equal(got, []string{"append:0", "append:1"}) {
				t.Errorf("decisions %v: nothing may reach the broker before the retry of seq 0", got)
			}
			if n := len(w.Anomalies()); n != 0 {
				t.Errorf("anomalies %v", w.Anomalies())
			}
		},
	}, {
		// A lost answer breaks the connection too: the answer after it is
		// gone as well, and both retries are recognised as duplicates.
		name: "ProducerStateManager/lost answer: both retries are duplicates",
		src:  "producer p1\nlose response p1 orders-0 seq=0\nsend p1 orders-0 1\nsend p1 orders-0 1\nrun\n",
		check: func(t *testing.T, w *World) {
			if got := decisions(w, "orders-0"); !slices.Equal(got, []string{"append:0", "append:1", "duplicate:0", "duplicate:1"}) {
				t.Errorf("decisions %v", got)
			}
			if got := values(w, "orders-0"); !slices.Equal(got, []string{"p1-0", "p1-1"}) {
				t.Errorf("log %v", got)
			}
		},
	}, {
		// A held request holds its connection: the next one waits behind it.
		name: "TCP/delay holds the connection",
		src:  "producer p1\ndelay request p1 orders-0 seq=0\nsend p1 orders-0 1\nsend p1 orders-0 1\nrun\n",
		check: func(t *testing.T, w *World) {
			if got := decisions(w, "orders-0"); !slices.Equal(got, []string{"append:0", "append:1"}) {
				t.Errorf("decisions %v: the second request overtook the first on one connection", got)
			}
		},
	}, {
		// Kafka's broker reads a connection's next request only after it has
		// answered the previous one (SocketServer mutes the channel), so with
		// acks=all the second batch is appended after the first is
		// replicated and answered.
		name: "SocketServer/one request per connection at a time",
		src:  "producer p1\nsend p1 orders-0 1\nsend p1 orders-0 1\nrun\n",
		check: func(t *testing.T, w *World) {
			answered, second := -1, -1
			for i, e := range w.Trace().Events() {
				switch {
				case e.Kind == "message.send" && e.Str("api") == "Produce" && e.Bool("response") && answered < 0:
					answered = i
				case e.Kind == "produce.decision" && e.Int("base_sequence") == 1:
					second = i
				}
			}
			if answered < 0 || second < answered {
				t.Errorf("the second batch was decided (event %d) before the first was answered (event %d)", second, answered)
			}
		},
	}, {
		// A reset reaches both ends at once: the producer fails what it had
		// in flight right away, without waiting for request.timeout.ms.
		name: "NetworkClient/reset fails in-flight requests at once",
		src:  "producer p1\nsend p1 orders-0 1\nstep 4\nreset connection p1 1\nrun\n",
		check: func(t *testing.T, w *World) {
			retries := eventsOf(w, "producer.retry")
			if len(retries) != 1 || retries[0].Str("error") != "NETWORK_EXCEPTION" || retries[0].TimeMs > 100 {
				t.Errorf("retries %v: want one NETWORK_EXCEPTION at once", retries)
			}
			if got := values(w, "orders-0"); !slices.Equal(got, []string{"p1-0"}) {
				t.Errorf("log %v", got)
			}
		},
	}, {
		// No "answer out of turn" can happen, so the client never closes a
		// connection for it (Kafka would only log CorrelationIdMismatch).
		name: "NetworkClient/no answer arrives out of turn",
		src:  "producer p1\ndelay response p1 orders-0 seq=0\nsend p1 orders-0 1\nsend p1 orders-0 1\nrun\n",
		check: func(t *testing.T, w *World) {
			if n := count(w, "producer.out_of_order") + count(w, "producer.retry"); n != 0 {
				t.Errorf("%d out-of-order answers or retries on a healthy connection", n)
			}
		},
	}, {
		// The retriable error before append is how a batch is overtaken in
		// Kafka: A is refused, B arrives with a gap (OUT_OF_ORDER), A is
		// retried, then B (TransactionManager.canRetry: not the next batch).
		name: "Partition.appendRecordsToLeader/refused batch is overtaken, then retried in order",
		src:  "producer p1\nsend p1 orders-0 1\nrun\nfail request p1 orders-0 seq=1 NOT_ENOUGH_REPLICAS\nsend p1 orders-0 1\nsend p1 orders-0 1\nrun\n",
		check: func(t *testing.T, w *World) {
			want := []string{"append:0", "reject:1", "reject:2", "append:1", "append:2"}
			if got := decisions(w, "orders-0"); !slices.Equal(got, want) {
				t.Errorf("decisions %v, want %v", got, want)
			}
			if got := values(w, "orders-0"); !slices.Equal(got, []string{"p1-0", "p1-1", "p1-2"}) {
				t.Errorf("log %v", got)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, playScript(t, tt.src)) })
	}
}

func TestRecoveryAsKafka(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, w *World)
	}{{
		// bumpIdempotentEpochAndResetIdIfNeeded is idempotent-only: the
		// abort goes out with the epoch the coordinator knows and succeeds;
		// then (version 1) InitProducerId(producerId, epoch) bumps it, the
		// sequences restart, and the next transaction commits.
		name: "TransactionManager/transactional producer bumps through its coordinator",
		src: `cluster brokers=2 rf=1 min.insync=1 transaction.version=1
producer t1 transactional=a request.timeout.ms=1000 delivery.timeout.ms=1500
run
begin t1
send t1 orders-0 1
step 4
kill broker 1
advance 3s
abort t1
advance 2s
restart broker 1
run
begin t1
send t1 orders-1 1
commit t1
run
`,
		check: func(t *testing.T, w *World) {
			if n := count(w, "producer.epoch_bump"); n != 0 {
				t.Errorf("%d local epoch bumps on a transactional producer", n)
			}
			if n := count(w, "fenced") + count(w, "producer.fatal"); n != 0 {
				t.Errorf("the producer was fenced or stopped: %v", eventsOf(w, "producer.fatal"))
			}
			p := w.Snapshot().Producers[0]
			if p.Epoch != 1 || p.TxnState != "READY" {
				t.Errorf("producer at epoch %d, %s; want epoch 1 (bumped by InitProducerId), READY", p.Epoch, p.TxnState)
			}
			completes := eventsOf(w, "txn.complete")
			if len(completes) != 2 || !completes[1].Bool("committed") {
				t.Errorf("transactions ended %v; want the abort, then a commit", completes)
			}
		},
	}, {
		// After an unclean election the new leader lacks acknowledged
		// batches: the next batch is out of order. A transactional producer
		// fails it, moves the later in-flight batches down
		// (TxnPartitionEntry.adjustSequencesDueToFailedBatch) so that they
		// fail too instead of retrying forever, aborts, gets the next epoch
		// from its coordinator, and commits the next transaction.
		name: "TxnPartitionEntry.adjustSequencesDueToFailedBatch/unclean election does not leave it stuck",
		src: `cluster transaction.version=1
producer t1 transactional=tx
run
begin t1
send t1 orders-0 1
run
kill broker 3
advance 10s
send t1 orders-0 1
send t1 orders-0 1
run
restart broker 3
kill broker 1
kill broker 2
failover orders-0 unclean
restart broker 1
restart broker 2
send t1 orders-0 1
send t1 orders-0 1
run
abort t1
run
begin t1
send t1 orders-0 1
commit t1
run
`,
		check: func(t *testing.T, w *World) {
			if n := count(w, "producer.adjust"); n == 0 {
				t.Errorf("no sequences were adjusted")
			}
			if n := count(w, "producer.retry"); n > 2 {
				t.Errorf("%d retries: the producer kept retrying OUT_OF_ORDER_SEQUENCE_NUMBER", n)
			}
			completes := eventsOf(w, "txn.complete")
			if len(completes) != 2 || !completes[1].Bool("committed") || completes[1].Int("producer_epoch") != 1 {
				t.Errorf("transactions ended %v; want the abort, then a commit at epoch 1", completes)
			}
			if len(w.Anomalies()) != 0 {
				t.Errorf("anomalies %v: what an aborted transaction loses is not lost", w.Anomalies())
			}
		},
	}, {
		// Sender.completeBatch: failBatch(batch, response, attempts < retries).
		// A batch that fails after its last retry leaves the sequences and
		// the epoch alone: nobody knows whether it was written.
		name: "Sender/retries used up: no epoch bump",
		src: `producer p1 retries=2 retry.backoff.ms=10
send p1 orders-0 1
run
fail request p1 orders-0 seq=1 NOT_ENOUGH_REPLICAS
fail request p1 orders-0 seq=1 NOT_ENOUGH_REPLICAS
fail request p1 orders-0 seq=1 NOT_ENOUGH_REPLICAS
send p1 orders-0 1
run
`,
		check: func(t *testing.T, w *World) {
			fails := eventsOf(w, "producer.fail")
			if len(fails) != 1 || fails[0].Str("error") != "NOT_ENOUGH_REPLICAS" {
				t.Fatalf("fails %v: want the batch to fail after its two retries", fails)
			}
			if n := count(w, "producer.epoch_bump"); n != 0 {
				t.Errorf("the epoch was bumped after the retries ran out")
			}
		},
	}, {
		// The same error with retries left bumps the epoch (idempotent):
		// the control for the case above.
		name: "TransactionManager.handleFailedBatch/non-retriable with retries left bumps",
		src: `producer p1
send p1 orders-0 1
run
inject orders-0 pid=0 epoch=1 seq=0 count=1
run
send p1 orders-0 1
run
`,
		check: func(t *testing.T, w *World) {
			if n := count(w, "producer.epoch_bump"); n != 1 {
				t.Errorf("%d epoch bumps after INVALID_PRODUCER_EPOCH; want 1", n)
			}
		},
	}, {
		// Markers are appended with acks=-1: under min.insync.replicas they
		// are refused before anything is written, and once the ISR is back
		// exactly one marker lands (Partition.appendRecordsToLeader).
		name: "Partition.appendRecordsToLeader/markers wait for min ISR, one lands",
		src: `producer t1 transactional=tx
run
begin t1
send t1 orders-0 1
run
kill broker 2
kill broker 3
advance 10s
commit t1
advance 2s
restart broker 2
restart broker 3
run
`,
		check: func(t *testing.T, w *World) {
			markers := 0
			for _, r := range w.Snapshot().Partitions[0].Log {
				if r.Control {
					markers++
				}
			}
			if markers != 1 {
				t.Errorf("%d markers on orders-0, want exactly 1", markers)
			}
			if count(w, "txn.marker_refused") == 0 {
				t.Errorf("no marker was refused while the ISR was under min.insync.replicas")
			}
		},
	}, {
		// KAFKA-15583 (3.7+): the high watermark does not move while the ISR
		// is under min.insync.replicas, so an acks=1 record stays invisible,
		// and an acks=all request appended before the shrink waits
		// (Partition.maybeIncrementLeaderHW, checkEnoughReplicasReachOffset).
		name: "Partition.maybeIncrementLeaderHW/no HW under min ISR",
		src: `producer a1 acks=1 enable.idempotence=false
kill broker 2
kill broker 3
advance 10s
send a1 orders-0 1
advance 1s
`,
		check: func(t *testing.T, w *World) {
			p := w.Snapshot().Partitions[0]
			if p.LogEndOffset != 1 || p.HighWatermark != 0 {
				t.Errorf("log end %d, high watermark %d; want 1 and 0", p.LogEndOffset, p.HighWatermark)
			}
		},
	}, {
		// AddPartitionsToTxnManager maps the coordinator's PRODUCER_FENCED
		// to INVALID_PRODUCER_EPOCH for a fenced zombie's write (version 1).
		name: "AddPartitionsToTxnManager/fenced zombie gets INVALID_PRODUCER_EPOCH",
		src: `cluster transaction.version=1
producer z transactional=tx
run
begin z
send z orders-0 1
run
pause z
producer n transactional=tx
run
resume z
send z orders-0 1
run
`,
		check: func(t *testing.T, w *World) {
			var errs []string
			for _, e := range eventsOf(w, "produce.decision") {
				if e.Str("producer") == "z" {
					errs = append(errs, e.Str("error"))
				}
			}
			if !slices.Equal(errs, []string{"NONE", "INVALID_PRODUCER_EPOCH"}) {
				t.Errorf("the zombie's writes got %v, want NONE then INVALID_PRODUCER_EPOCH", errs)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, playScript(t, tt.src)) })
	}
}

// PartitionChangeBuilder.electLeader: an unclean election takes a replica
// out of sync only when no in-sync replica is alive; while one is, the
// command is refused and leadership stays (it once elected the
// out-of-sync broker 3 with brokers 1 and 2 alive in the ISR).
func TestUncleanElectionNeedsTheISRGone(t *testing.T) {
	tests := []struct {
		name, src string
		want      int // the leader after the failover
		refused   bool
	}{
		{"ISR alive", "producer p1\nsend p1 orders-0 1\nrun\nkill broker 3\nadvance 10s\nrestart broker 3\nfailover orders-0 unclean\n", 1, true},
		{"leader alone in the ISR", "producer p1\nsend p1 orders-0 1\nrun\nkill broker 2\nkill broker 3\nadvance 10s\nrestart broker 3\nfailover orders-0 unclean\n", 1, true},
		{"ISR gone", "producer p1\nsend p1 orders-0 1\nrun\nkill broker 3\nadvance 10s\nrestart broker 3\nkill broker 1\nkill broker 2\nfailover orders-0 unclean\n", 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := playScript(t, tt.src)
			var leader int
			for _, p := range w.Snapshot().Partitions {
				if p.Name == "orders-0" {
					leader = p.Leader
				}
			}
			if leader != tt.want || (count(w, "failover.refused") > 0) != tt.refused {
				t.Fatalf("leader %d (want %d), refused %d time(s) (want %v)", leader, tt.want, count(w, "failover.refused"), tt.refused)
			}
		})
	}
}

// Sender.handleProduceResponse: a request that timed out (NetworkClient
// completes everything in flight on the connection it closes as timed
// out) is retried after REQUEST_TIMED_OUT; a connection closed otherwise —
// reset, or its broker stopped — after NETWORK_EXCEPTION.
func TestTimeoutAndDisconnectErrors(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"request.timeout.ms", "producer p1\nrun\nlose request p1\nsend p1 orders-0 1\nrun\n", "REQUEST_TIMED_OUT"},
		{"reset", "producer p1\nrun\ndelay request p1\nsend p1 orders-0 1\nstep 1\nreset connection p1 1\nrun\n", "NETWORK_EXCEPTION"},
		{"broker stopped", "producer p1\nrun\ndelay request p1\nsend p1 orders-0 1\nstep 1\nkill broker 1\nrun\n", "NETWORK_EXCEPTION"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := playScript(t, tt.src)
			retries := eventsOf(w, "producer.retry")
			if len(retries) == 0 {
				t.Fatal("no retry")
			}
			if got := retries[0].Str("error"); got != tt.want {
				t.Fatalf("retried after %s, want %s", got, tt.want)
			}
		})
	}
}
