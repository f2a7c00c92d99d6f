package lesson

import (
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

func TestFromScript(t *testing.T) {
	src := `# Lost answers: the retry is a duplicate.
# Second line of the summary.

producer p1

# Send two records; the answer is lost.
send p1 orders-0 2
lose response p1
run
`
	l, err := FromScript("x.eos", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if l.Title != "Lost answers" || l.Summary != "Lost answers: the retry is a duplicate.\nSecond line of the summary." {
		t.Fatalf("title %q summary %q", l.Title, l.Summary)
	}
	if len(l.Steps) != 2 || len(l.Steps[0].Commands) != 1 || len(l.Steps[1].Commands) != 3 {
		t.Fatalf("steps %+v", l.Steps)
	}
	if l.Steps[1].Narration != "Send two records; the answer is lost." || l.Steps[1].Line != 7 {
		t.Fatalf("step 2: %+v", l.Steps[1])
	}
	if _, ok := l.Steps[1].Commands[2].(*script.Run); !ok {
		t.Fatalf("last command %T", l.Steps[1].Commands[2])
	}
	if _, err := FromScript("bad.eos", []byte("sned p1\n")); err == nil {
		t.Fatal("a malformed script became a lesson")
	}
}

// A script's title is the first sentence or clause of its top comment,
// however the comment's lines are broken; the summary stays whole.
func TestScriptTitle(t *testing.T) {
	cases := []struct{ comment, title string }{
		{"Lost answers: the retry is a duplicate.", "Lost answers"},
		{"A committed transaction. The producer gets its id: then it writes.", "A committed transaction"},
		{"The coordinator fails over between its decision and\nthe markers. p1 commits.", "The coordinator fails over between its decision and the markers"},
		{"A transaction that outlives transaction.timeout.ms. p1 stalls.", "A transaction that outlives transaction.timeout.ms"},
		{"Without idempotence, a retry is written twice.", "Without idempotence, a retry is written twice"},
		{"No full stop at all", "No full stop at all"},
		{"", ""},
		{"The same two transactions under transaction protocol version 1 (Kafka before\nKIP-890): the producer registers each partition.",
			"The same two transactions under transaction protocol version 1…"},
	}
	for _, c := range cases {
		if got := scriptTitle(c.comment); got != c.title {
			t.Errorf("scriptTitle(%q) = %q, want %q", c.comment, got, c.title)
		}
		if n := len([]rune(scriptTitle(c.comment))); n > maxTitle {
			t.Errorf("%q: %d characters", c.comment, n)
		}
	}
	src := "# The worked example: producer id 5001 writes four batches to orders-1.\n# A reply is lost.\nproducer p1\n"
	l, err := FromScript("w.eos", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if l.Title != "The worked example" || l.Summary != "The worked example: producer id 5001 writes four batches to orders-1.\nA reply is lost." {
		t.Fatalf("title %q summary %q", l.Title, l.Summary)
	}
}
