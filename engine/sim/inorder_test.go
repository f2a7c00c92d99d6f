package sim

import (
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

// A broker reads a connection's requests in the order they were sent
// (TCP, and Kafka's SocketServer muting the channel until each is
// answered). Three pipelined requests: the second waits in the socket
// buffer behind the first, and the third, due the moment the first is
// answered, must not be read before the second. It was: the third
// overtook it on the same connection and was refused
// OUT_OF_ORDER_SEQUENCE_NUMBER (seq-gap), which Kafka cannot do.
func TestRequestsReadInOrderOnAConnection(t *testing.T) {
	src := `producer p1
run
send p1 orders-0 1
advance 1ms
send p1 orders-0 1
advance 1ms
send p1 orders-0 1
advance 1ms
send p1 orders-0 1
run
`
	cmds, err := script.Parse("inorder.eos", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := New(1)
	for _, c := range cmds {
		if _, err := w.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	var seqs []int64
	for _, e := range w.Trace().Events() {
		if e.Kind != "produce.decision" {
			continue
		}
		if e.Str("outcome") != "append" {
			t.Fatalf("step %d: %s", e.Step, e.Text())
		}
		seqs = append(seqs, e.Int("base_sequence"))
	}
	for i, s := range seqs {
		if s != int64(i) {
			t.Fatalf("batches appended in sequence order %v, want 0 1 2 3", seqs)
		}
	}
	if len(seqs) != 4 {
		t.Fatalf("%d batches appended, want 4", len(seqs))
	}
}
