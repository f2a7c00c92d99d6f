package txn

import "testing"

// The vectors of kafka-facts.md §5.1.
func TestPartitionFor(t *testing.T) {
	cases := []struct {
		id   string
		hash int32
		part int
	}{
		{"tx-1", 3572520, 20},
		{"my-txn", -1061187895, 45},
		{"orders-app", 772757305, 5},
		{"a", 97, 47},
		{"polygenelubricants", -2147483648, 0},
	}
	for _, c := range cases {
		if h := JavaHash(c.id); h != c.hash {
			t.Errorf("hash(%q) = %d, want %d", c.id, h, c.hash)
		}
		if p := PartitionFor(c.id, NumPartitions); p != c.part {
			t.Errorf("partitionFor(%q) = %d, want %d", c.id, p, c.part)
		}
	}
}

// Every (from, to) pair against Kafka's table, for both transaction versions.
func TestTransitionsExhaustive(t *testing.T) {
	allowed := map[[2]State]bool{}
	for to, froms := range map[State][]State{
		Empty:             {Empty, CompleteCommit, CompleteAbort},
		Ongoing:           {Ongoing, Empty, CompleteCommit, CompleteAbort},
		PrepareCommit:     {Ongoing},
		PrepareAbort:      {Ongoing, PrepareEpochFence},
		CompleteCommit:    {PrepareCommit},
		CompleteAbort:     {PrepareAbort},
		Dead:              {Empty, CompleteAbort, CompleteCommit},
		PrepareEpochFence: {Ongoing},
	} {
		for _, from := range froms {
			allowed[[2]State{from, to}] = true
		}
	}
	tv2Only := map[[2]State]bool{{Empty, PrepareAbort}: true, {CompleteCommit, PrepareAbort}: true, {CompleteAbort, PrepareAbort}: true}
	n := 0
	for _, from := range States() {
		for _, to := range States() {
			want1 := allowed[[2]State{from, to}]
			want2 := want1 || tv2Only[[2]State{from, to}]
			if got := ValidTransition(from, to, false); got != want1 {
				t.Errorf("TV1 %s -> %s: %v, want %v", from, to, got, want1)
			}
			if got := ValidTransition(from, to, true); got != want2 {
				t.Errorf("TV2 %s -> %s: %v, want %v", from, to, got, want2)
			}
			n++
		}
	}
	if n != 64 {
		t.Fatalf("walked %d pairs", n)
	}
}

func TestIllegalTransitionPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Empty -> PrepareCommit must panic")
		}
	}()
	m := Metadata{TransactionalID: "x", State: Empty}
	m.Transition(PrepareCommit, false, 0)
}
