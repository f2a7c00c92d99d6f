package client

import (
	"testing"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
)

// canRetry and the epoch bump it may request, case by case as
// TransactionManager.canRetry has them (OUT_OF_ORDER_SEQUENCE_NUMBER).
func TestCanRetryOutOfOrder(t *testing.T) {
	tp := msg.TP{Topic: "orders", Partition: 0}
	tests := []struct {
		name          string
		transactional bool
		lastAcked     int32
		unresolved    bool
		unresolvedSeq int32
		seq           int32
		seqReset      bool
		wantRetry     bool
		wantBump      bool
	}{
		{name: "not the next batch: an earlier one is on its way", lastAcked: 3, seq: 6, wantRetry: true},
		{name: "sequences were reset: retry", lastAcked: 3, seq: 4, seqReset: true, wantRetry: true},
		{name: "the next batch is out of order: idempotent bumps", lastAcked: 3, seq: 4, wantRetry: true, wantBump: true},
		{name: "the next batch is out of order: transactional fails", transactional: true, lastAcked: 3, seq: 4},
		{name: "not next, transactional: retry", transactional: true, lastAcked: 3, seq: 6, wantRetry: true},
		{name: "unresolved, the batch right after it: bump (isNextSequenceForUnresolvedPartition)",
			lastAcked: 3, unresolved: true, unresolvedSeq: 6, seq: 6, wantRetry: true, wantBump: true},
		{name: "unresolved, a later batch: retry and wait for it to resolve",
			lastAcked: 3, unresolved: true, unresolvedSeq: 6, seq: 8, wantRetry: true},
		{name: "unresolved, transactional: not retriable", transactional: true, lastAcked: 3, unresolved: true, unresolvedSeq: 6, seq: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Producer{cfg: &Config{Idempotent: true, Retries: 1 << 30, DeliveryTimeoutMs: 120_000}, pid: 7}
			if tt.transactional {
				p.txn = &txnManager{}
			}
			p.parts = []*partitionState{{tp: tp, lastAcked: tt.lastAcked, unresolved: tt.unresolved, unresolvedSeq: tt.unresolvedSeq, pid: 7}}
			b := &Batch{TP: tp, Seq: tt.seq, Count: 2, PID: 7, seqReset: tt.seqReset, ps: p.parts[0]}
			if got := p.canRetry(b, kerr.OutOfOrderSequenceNumber, 0); got != tt.wantRetry {
				t.Errorf("canRetry = %v, want %v", got, tt.wantRetry)
			}
			if p.bumpNeeded != tt.wantBump {
				t.Errorf("epoch bump requested = %v, want %v", p.bumpNeeded, tt.wantBump)
			}
		})
	}
}

// Sender.canRetry: no retry once delivery.timeout.ms passed or the
// attempts reached retries, whatever the error.
func TestCanRetryLimits(t *testing.T) {
	tp := msg.TP{Topic: "orders", Partition: 0}
	p := &Producer{cfg: &Config{Idempotent: true, Retries: 2, DeliveryTimeoutMs: 1000}, parts: []*partitionState{{tp: tp}}}
	tests := []struct {
		attempts int
		now      int64
		want     bool
	}{{0, 10, true}, {1, 10, true}, {2, 10, false}, {0, 1000, false}}
	for _, tt := range tests {
		b := &Batch{TP: tp, Seq: 0, Count: 1, Attempts: tt.attempts, ps: p.parts[0]}
		if got := p.canRetry(b, kerr.NotEnoughReplicas, tt.now); got != tt.want {
			t.Errorf("attempts %d at %d ms: canRetry = %v, want %v", tt.attempts, tt.now, got, tt.want)
		}
	}
}
