package serve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// A real client and a simulated consumer in one group are both members of
// it, as two consumers of Kafka's classic protocol are: the real client's
// JoinGroup waits until the simulated member has rejoined at its next
// poll (GroupMetadataManager.classicGroupJoinToClassicGroup, then
// completeClassicGroupJoin once all members joined), and both then have
// the same new generation. A second simulated consumer joining makes the
// real client's heartbeat REBALANCE_IN_PROGRESS: kgo rejoins, and once the
// first simulated member polls too the group has three members at the next
// generation. Before, the real client's join replaced the group's members
// with itself alone.
func TestKgoJoinsGroupOfSimulatedConsumer(t *testing.T) {
	s, events := traced(t)
	c := ctx(t)
	apply(t, s, "consumer sim read_committed orders-0 group=mixed")
	apply(t, s, "poll sim")
	group := func(e Engine) (int32, []string) {
		for _, g := range e.World().Snapshot().Groups {
			if g.Group == "mixed" {
				return g.Generation, g.Members
			}
		}
		return 0, nil
	}
	var gen1 int32
	s.Do(func(e Engine) {
		var members []string
		gen1, members = group(e)
		if gen1 != 1 || !slices.Equal(members, []string{"sim-1"}) {
			t.Fatalf("after the simulated consumer's poll: generation %d, members %v; want 1, [sim-1]", gen1, members)
		}
	})

	real := client(t, s, kgo.ClientID("real"), kgo.ConsumerGroup("mixed"), kgo.ConsumeTopics("orders"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.HeartbeatInterval(100*time.Millisecond))
	pollUntilCleanup(t, c, real)

	// The real member is in, its JoinGroup waits: the group is at
	// generation 1 until sim rejoins.
	eventually(t, s, func(e Engine) string {
		gen, members := group(e)
		if len(members) != 2 || gen != gen1 {
			return fmt.Sprintf("generation %d, members %v: want the real client to join and wait at generation %d", gen, members, gen1)
		}
		return ""
	})
	if _, gen := real.GroupMetadata(); gen > gen1 {
		t.Fatalf("kgo has generation %d before the simulated member rejoined", gen)
	}
	apply(t, s, "poll sim")
	var gen2 int32
	eventually(t, s, func(e Engine) string {
		gen, members := group(e)
		_, kgen := real.GroupMetadata()
		if len(members) != 2 || !slices.Contains(members, "sim-1") || gen <= gen1 || kgen != gen {
			return fmt.Sprintf("generation %d, members %v, kgo's generation %d: want both members at the next generation", gen, members, kgen)
		}
		gen2 = gen
		return ""
	})

	// Another simulated consumer joins: the real member learns from its
	// heartbeat and rejoins.
	apply(t, s, "consumer sim2 read_committed orders-1 group=mixed")
	apply(t, s, "poll sim2")
	eventually(t, s, func(e Engine) string {
		for _, ev := range events() {
			if ev.Kind == "group.join" && ev.Str("consumer") == "real" && ev.Int("generation") == int64(gen2) {
				return ""
			}
		}
		return "the real member did not rejoin"
	})
	apply(t, s, "poll sim")
	eventually(t, s, func(e Engine) string {
		gen, members := group(e)
		_, kgen := real.GroupMetadata()
		if len(members) != 3 || gen <= gen2 || kgen != gen {
			return fmt.Sprintf("generation %d, members %v, kgo's generation %d: want three members at the next generation", gen, members, kgen)
		}
		for _, m := range members {
			if !strings.HasPrefix(m, "sim-") && !strings.HasPrefix(m, "sim2-") && !strings.HasPrefix(m, "real-") {
				return fmt.Sprintf("member %s", m)
			}
		}
		return ""
	})
}

// Two kgo consumers in one group share its partitions, as in Kafka: the
// second one's JoinGroup waits until the first has rejoined (its
// heartbeat answered REBALANCE_IN_PROGRESS), the leader's SyncGroup hands
// each its part, and in the end each owns some of the three partitions,
// none owned by both, at the group's generation.
func TestKgoTwoConsumersShareAGroup(t *testing.T) {
	s, _ := start(t, Config{})
	c := ctx(t)
	type owned struct {
		mu    sync.Mutex
		parts map[int32]bool
	}
	consumer := func(name string, o *owned) *kgo.Client {
		o.parts = map[int32]bool{}
		cl := client(t, s, kgo.ClientID(name), kgo.ConsumerGroup("pair"), kgo.ConsumeTopics("orders"),
			kgo.HeartbeatInterval(100*time.Millisecond),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				o.mu.Lock()
				defer o.mu.Unlock()
				for _, p := range m["orders"] {
					o.parts[p] = true
				}
			}),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				o.mu.Lock()
				defer o.mu.Unlock()
				for _, p := range m["orders"] {
					delete(o.parts, p)
				}
			}))
		pollUntilCleanup(t, c, cl)
		return cl
	}
	var oa, ob owned
	a := consumer("a", &oa)
	b := consumer("b", &ob)
	eventually(t, s, func(e Engine) string {
		var gen int32
		var members []string
		for _, g := range e.World().Snapshot().Groups {
			if g.Group == "pair" {
				gen, members = g.Generation, g.Members
			}
		}
		_, ga := a.GroupMetadata()
		_, gb := b.GroupMetadata()
		oa.mu.Lock()
		defer oa.mu.Unlock()
		ob.mu.Lock()
		defer ob.mu.Unlock()
		if len(members) != 2 || ga != gen || gb != gen || len(oa.parts) == 0 || len(ob.parts) == 0 || len(oa.parts)+len(ob.parts) != 3 {
			return fmt.Sprintf("generation %d, members %v; a at %d owns %v, b at %d owns %v", gen, members, ga, oa.parts, gb, ob.parts)
		}
		for p := range oa.parts {
			if ob.parts[p] {
				return fmt.Sprintf("both own orders-%d", p)
			}
		}
		return ""
	})
}

// pollUntilCleanup polls cl's fetches in the background, as a consumer's
// application loop does (a group member only heartbeats and rejoins
// while it polls), until the test ends.
func pollUntilCleanup(t *testing.T, c context.Context, cl *kgo.Client) {
	pctx, cancel := context.WithCancel(c)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for pctx.Err() == nil {
			cl.PollFetches(pctx)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}
