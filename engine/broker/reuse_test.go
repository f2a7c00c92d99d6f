package broker

import (
	"testing"

	"github.com/eoslab/eoslab/engine/msg"
)

// TestCloneOwnsWaitingAnswers: a produce answer waiting for its turn on a
// connection is the copy's own. The broker reuses an answer once its
// producer has read it (TakeBackProduce); an answer shared with a copy of
// the world would change under the copy when the original reused it.
func TestCloneOwnsWaitingAnswers(t *testing.T) {
	b := New(1, Config{})
	tp := msg.TP{Topic: "orders", Partition: 0}
	resp := b.produceResponse(append(b.resultRoom(1), msg.ProduceResult{TP: tp, BaseOffset: 7}))
	b.conns[3] = &clientConn{order: []int{1, 2}, ready: []answered{{2, resp}}}
	c := b.Clone()

	// The original sends it, its producer reads it, and the room makes
	// the next answer.
	b.TakeBackProduce(resp)
	next := b.produceResponse(append(b.resultRoom(1), msg.ProduceResult{TP: tp, BaseOffset: 99}))
	if next != resp {
		t.Fatal("the answer read was not reused: this test no longer tests the copy")
	}
	got, ok := c.conns[3].ready[0].body.(*msg.ProduceResponse)
	if !ok || len(got.Results) != 1 || got.Results[0].BaseOffset != 7 {
		t.Fatalf("the copy's waiting answer is %+v, want the one result at offset 7", c.conns[3].ready[0].body)
	}
}

// TestReusedRoomIsZero: the results' room, the purgatory entry and the
// follower's answer a broker reuses come back as new ones would: zero, and
// keeping nothing of the last one alive.
func TestReusedRoomIsZero(t *testing.T) {
	b := New(1, Config{})
	tp := msg.TP{Topic: "orders", Partition: 0}
	results := append(b.resultRoom(2), msg.ProduceResult{TP: tp, BaseOffset: 5, Reason: "x"}, msg.ProduceResult{TP: tp, BaseOffset: 6})
	b.TakeBackProduce(b.produceResponse(results))
	r := b.resultRoom(1)
	if len(r) != 0 || cap(r) < 1 {
		t.Fatalf("room: len %d cap %d", len(r), cap(r))
	}
	for _, x := range r[:cap(r)] {
		if x != (msg.ProduceResult{}) {
			t.Fatalf("reused room holds %+v", x)
		}
	}

	p := b.pendingEntry()
	p.waitFor = append(p.waitFor, 3, 4)
	p.request, p.results = 9, results
	b.recyclePending(p)
	q := b.pendingEntry()
	if q != p || q.request != 0 || q.results != nil || len(q.waitFor) != 0 || cap(q.waitFor) < 2 {
		t.Fatalf("reused entry %+v", q)
	}

	f := b.fetchResponse()
	f.TP, f.HighWatermark, f.Batches = tp, 8, append(f.Batches, []byte("batch"))
	b.TakeBack(f)
	g := b.fetchResponse()
	if g != f || g.HighWatermark != 0 || len(g.Batches) != 0 || cap(g.Batches) < 1 || g.Batches[:1][0] != nil {
		t.Fatalf("reused fetch answer %+v", g)
	}
}
