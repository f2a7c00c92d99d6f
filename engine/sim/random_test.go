package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/eoslab/eoslab/engine/script"
)

// randomSession is a seeded sequence of commands touching everything the
// world does: producers of every mode (idempotent, plain, acks=1,
// transactional, two instances of one transactional id), consumers, sends,
// transactions, every network fault, broker kills, restarts and failovers,
// coordinator failovers, pauses, restarts, steps and long advances. Some
// commands are refused by the world (a broker already down, a partition
// unknown after a smaller cluster): that is part of the test.
func randomSession(seed uint64, ops int) []script.Command {
	return sessionFrom(rand.New(rand.NewPCG(seed, 0x5e55)), ops)
}

// intner is what a session draws its choices from: a seeded generator, or
// a fuzzer's bytes.
type intner interface{ IntN(n int) int }

// byteChoices draws choices from fuzz input, then zeros.
type byteChoices struct {
	data []byte
	i    int
}

func (b *byteChoices) IntN(n int) int {
	if b.i >= len(b.data) {
		return 0
	}
	v := int(b.data[b.i])
	if b.i+1 < len(b.data) {
		v = v<<8 | int(b.data[b.i+1])
	}
	b.i += 2
	return v % n
}

func sessionFrom(rng intner, ops int) []script.Command {
	brokers, partitions := 3, 3
	var lines []string
	if rng.IntN(3) == 0 {
		brokers = 1 + rng.IntN(4)
		rf := 1 + rng.IntN(brokers)
		partitions = 1 + rng.IntN(3)
		// broker.latency.ms 0 (eoslab serve's: replication at once) or 1.
		lines = append(lines, fmt.Sprintf("cluster brokers=%d rf=%d partitions=%d min.insync=%d transaction.version=%d broker.latency.ms=%d",
			brokers, rf, partitions, 1+rng.IntN(rf), 1+rng.IntN(2), rng.IntN(2)))
	}
	lines = append(lines, "producer p1", "producer p2 plain", "producer p3 acks=1",
		"producer t1 transactional=tx1 request.timeout.ms=5000 delivery.timeout.ms=10000",
		"consumer c1 read_committed orders-0 group=g", "consumer c2 read_uncommitted orders-0")
	tp := func() string { return fmt.Sprintf("orders-%d", rng.IntN(partitions)) }
	name := func() string { return [...]string{"p1", "p2", "p3", "t1", "t2"}[rng.IntN(5)] }
	broker := func() int { return 1 + rng.IntN(brokers) }
	t2 := false
	for range ops {
		var l string
		switch r := rng.IntN(100); {
		case r < 22:
			l = fmt.Sprintf("send %s %s %d", name(), tp(), 1+rng.IntN(3))
		case r < 30:
			l = [...]string{"begin", "commit", "abort"}[rng.IntN(3)] + " " + [...]string{"t1", "t2"}[rng.IntN(2)]
		case r < 34:
			l = fmt.Sprintf("%s %s %s", [...]string{"lose", "delay"}[rng.IntN(2)], [...]string{"request", "response"}[rng.IntN(2)], name())
		case r < 36:
			l = fmt.Sprintf("reset connection %s %d", name(), broker())
		case r < 38:
			l = fmt.Sprintf("fail request %s %s %s", name(), tp(), script.RefusalErrors[rng.IntN(len(script.RefusalErrors))])
		case r < 40:
			l = fmt.Sprintf("%s markers %s", [...]string{"lose", "delay"}[rng.IntN(2)], tp())
		case r < 43:
			l = fmt.Sprintf("kill broker %d", broker())
		case r < 47:
			l = fmt.Sprintf("restart broker %d%s", broker(), [...]string{"", " clean"}[rng.IntN(2)])
		case r < 50:
			l = fmt.Sprintf("failover %s%s", tp(), [...]string{"", " unclean"}[rng.IntN(2)])
		case r < 51:
			l = "failover coordinator tx1"
		case r < 53:
			l = [...]string{"pause", "resume"}[rng.IntN(2)] + " " + name()
		case r < 54:
			l = "restart producer " + name()
		case r < 56:
			if !t2 {
				t2 = true
				l = "producer t2 transactional=tx1" // a second instance: fences t1
			} else {
				l = "restart producer t2"
			}
		case r < 59:
			l = [...]string{"poll c1", "poll c2", "send-offsets t1 g"}[rng.IntN(3)]
		case r < 64:
			l = fmt.Sprintf("advance %s", [...]string{"100ms", "2s", "31s", "10m", "3h"}[rng.IntN(5)])
		case r < 65:
			l = "run"
		default:
			l = fmt.Sprintf("step %d", 1+rng.IntN(30))
		}
		lines = append(lines, l)
	}
	cmds := make([]script.Command, 0, len(lines))
	for _, l := range lines {
		c, err := script.ParseLine(l)
		if err != nil {
			panic(fmt.Sprintf("%q: %v", l, err)) // the generator's own lines are well-formed
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// liveItems counts what the queue holds that can still act, by kind.
func liveItems(w *World) (deliveries, others int) {
	w.queue.each(func(it *item) {
		switch {
		case it.kind == itemDeliver:
			deliveries++
		case !w.obsolete(it):
			others++
		}
	})
	return deliveries, others
}
