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
	if l.Title != "Lost answers: the retry is a duplicate." || l.Summary != "Lost answers: the retry is a duplicate.\nSecond line of the summary." {
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
