package kerr

import (
	"fmt"
	"math"
	"testing"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
)

// Every code eoslab names must carry the same name, number and retriability
// as an independent table (franz-go's kerr, itself generated from Kafka's Errors.java).
func TestCodesMatchFranzGo(t *testing.T) {
	for _, c := range All() {
		if c == None {
			continue // franz-go maps success to a nil error
		}
		ref := fkerr.ErrorForCode(int16(c))
		if ref == nil {
			t.Fatalf("%d: franz-go knows no such code", c)
		}
		ke := ref.(*fkerr.Error)
		// franz-go keeps the pre-KIP-392 name for code 6; Kafka renamed it in 2.6.
		if ke.Message != c.Name() && !(c == NotLeaderOrFollower && ke.Message == "NOT_LEADER_FOR_PARTITION") {
			t.Errorf("code %d: name %q, franz-go says %q", c, c.Name(), ke.Message)
		}
		// franz-go does not retry CONCURRENT_TRANSACTIONS; Kafka's
		// ConcurrentTransactionsException extends RetriableException, and
		// TransactionManager's handlers retry it as such.
		if ke.Retriable != c.Retriable() && c != ConcurrentTransactions {
			t.Errorf("%s: retriable %v, franz-go says %v", c.Name(), c.Retriable(), ke.Retriable)
		}
	}
}

func TestParseAndString(t *testing.T) {
	c, ok := Parse("INVALID_PRODUCER_EPOCH")
	if !ok || c != InvalidProducerEpoch {
		t.Fatalf("Parse = %v, %v", c, ok)
	}
	if got := c.String(); got != "INVALID_PRODUCER_EPOCH (47)" {
		t.Fatalf("String = %q", got)
	}
	if _, ok := Parse("NOPE"); ok {
		t.Fatal("Parse accepted an unknown name")
	}
	if got := Code(999).Name(); got != "UNKNOWN_ERROR_999" {
		t.Fatalf("unknown code name = %q", got)
	}
}

// Retriability follows the Java exception class (Errors.java maps code 51
// to ConcurrentTransactionsException, a RetriableException; code 88 to
// UnstableOffsetCommitException, one too); the producer-state codes are not.
func TestRetriableFollowsKafkasExceptions(t *testing.T) {
	for c, want := range map[Code]bool{ConcurrentTransactions: true, UnstableOffsetCommit: true, NetworkException: true,
		KafkaStorageError: true, OutOfOrderSequenceNumber: false, InvalidProducerEpoch: false, ProducerFenced: false, TransactionAbortable: false} {
		if c.Retriable() != want {
			t.Errorf("%s: retriable %v, want %v", c, c.Retriable(), want)
		}
	}
}

// Every code, known or not (the index by code and the table it is made
// from must agree everywhere, including a gap below the largest code and
// the codes on either side of the range).
func TestLookupByCodeMatchesTable(t *testing.T) {
	for v := math.MinInt16; v <= math.MaxInt16; v++ {
		c := Code(v)
		i, known := table[c]
		want := i.name
		if !known {
			want = fmt.Sprintf("UNKNOWN_ERROR_%d", v)
		}
		if c.Name() != want || c.Retriable() != i.retriable || c.Description() != i.desc {
			t.Fatalf("code %d: %q %v %q, want %q %v %q", v, c.Name(), c.Retriable(), c.Description(), want, i.retriable, i.desc)
		}
	}
}

// TestNamesUnique: Parse finds a code by its name in an index built from
// the table, which holds only if no two codes share a name.
func TestNamesUnique(t *testing.T) {
	seen := map[string]Code{}
	for _, c := range All() {
		if d, ok := seen[c.Name()]; ok {
			t.Fatalf("codes %d and %d are both named %s", d, c, c.Name())
		}
		seen[c.Name()] = c
		if p, ok := Parse(c.Name()); !ok || p != c {
			t.Fatalf("Parse(%q) = %d, %v; want %d", c.Name(), p, ok, c)
		}
	}
}
