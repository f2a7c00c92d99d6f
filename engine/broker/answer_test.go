package broker

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eoslab/eoslab/engine/msg"
)

// replyLog is an Env that records the answers sent; nothing else is called.
type replyLog struct {
	Env
	sent map[int][]int // by connection, the requests answered in order
}

func (e *replyLog) Reply(_ int, _ msg.Addr, conn, replyTo int, _ msg.Body) int {
	e.sent[conn] = append(e.sent[conn], replyTo)
	return 0
}

// TestAnswerOrder: with more connections than solos, requests arriving and
// answered in any order, every connection's answers leave in the order its
// requests arrived, each once, and a copy of the broker answers its own.
func TestAnswerOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		b := New(1, Config{})
		env := &replyLog{sent: map[int][]int{}}
		conns := 1 + rng.IntN(2*soloSlots)
		arrived := map[int][]int{}
		var open []msg.Message // arrived, not answered yet
		next := 1
		for range 40 {
			if len(open) > 0 && rng.IntN(2) == 0 {
				i := rng.IntN(len(open))
				m := open[i]
				open = slices.Delete(open, i, i+1)
				b.answer(m.From, m.Conn, m.ID, nil, env)
				continue
			}
			m := msg.Message{Conn: 100 + rng.IntN(conns), ID: next}
			next++
			b.arrive(&m)
			arrived[m.Conn] = append(arrived[m.Conn], m.ID)
			open = append(open, m)
		}
		c := b.Clone()
		cenv := &replyLog{sent: map[int][]int{}}
		for _, m := range open {
			b.answer(m.From, m.Conn, m.ID, nil, env)
		}
		for i := len(open) - 1; i >= 0; i-- {
			c.answer(open[i].From, open[i].Conn, open[i].ID, nil, cenv)
		}
		for conn, ids := range arrived {
			if !slices.Equal(env.sent[conn], ids) {
				t.Fatalf("round %d: connection %d answered %v, requests arrived %v", round, conn, env.sent[conn], ids)
			}
			if got := append(slices.Clone(env.sent[conn][:len(env.sent[conn])-len(cenv.sent[conn])]), cenv.sent[conn]...); !slices.Equal(got, ids) {
				t.Fatalf("round %d: the copy answered %v on connection %d after %v", round, cenv.sent[conn], conn, env.sent[conn])
			}
		}
		if len(b.conns) != 0 || b.nsolo != 0 || len(c.conns) != 0 || c.nsolo != 0 {
			t.Fatalf("round %d: %d+%d connections left, copy %d+%d", round, len(b.conns), b.nsolo, len(c.conns), c.nsolo)
		}
	}
}
