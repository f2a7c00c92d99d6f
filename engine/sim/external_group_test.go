package sim

import (
	"slices"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// wireClient drives the world as eoslab serve does for one real client:
// each request arrives as an `arrive` command, the world performs what is
// due by then (never later: the wall clock has not got there), and the
// answers are collected by correlation id.
type wireClient struct {
	t       *testing.T
	w       *World
	name    string
	conn    int
	broker  int
	corr    int32
	answers map[[2]int32]kmsg.Response // every client's, by connection and correlation id
}

func newWireClient(t *testing.T, w *World, name string, conn int, group string, answers map[[2]int32]kmsg.Response) *wireClient {
	broker, _ := w.coordinatorOf(group, 0)
	return &wireClient{t: t, w: w, name: name, conn: conn, broker: broker, answers: answers}
}

// send sends req and returns its correlation id.
func (c *wireClient) send(req kmsg.Request) int32 {
	c.t.Helper()
	c.corr++
	frame := kmsg.NewRequestFormatter(kmsg.FormatterClientID(c.name)).AppendRequest(nil, req, c.corr)
	if _, err := c.w.Apply(&script.Arrive{Conn: c.conn, Broker: c.broker, API: APIName(req.Key()), AtMs: c.w.Now(), Data: frame[4:]}); err != nil {
		c.t.Fatal(err)
	}
	settle(c.w)
	return c.corr
}

// settle performs what is due now.
func settle(w *World) {
	for {
		due, ok := w.NextDue()
		if !ok || due > w.Now() {
			return
		}
		if _, ok := w.Step(); !ok {
			return
		}
	}
}

// answer is the answer to request corr, nil while it waits.
func (c *wireClient) answer(corr int32) kmsg.Response {
	for _, o := range c.w.TakeOutgoing() {
		c.answers[[2]int32{int32(o.Conn), o.CorrelationID}] = o.Response
	}
	return c.answers[[2]int32{int32(c.conn), corr}]
}

func (w *World) apply(t *testing.T, lines ...string) {
	t.Helper()
	for _, line := range lines {
		c, err := script.ParseLine(line)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Apply(c); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		settle(w)
	}
}

func joinReq(member string, instance *string) *kmsg.JoinGroupRequest {
	q := kmsg.NewPtrJoinGroupRequest()
	q.SetVersion(5)
	q.Group, q.MemberID, q.InstanceID, q.ProtocolType = "g", member, instance, "consumer"
	q.SessionTimeoutMillis, q.RebalanceTimeoutMillis = 45000, 60000
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Topics = []string{"orders"}
	p := kmsg.NewJoinGroupRequestProtocol()
	p.Name, p.Metadata = "range", meta.AppendTo(nil)
	q.Protocols = append(q.Protocols, p)
	return q
}

func heartbeatReq(member string, instance *string, generation int32) *kmsg.HeartbeatRequest {
	q := kmsg.NewPtrHeartbeatRequest()
	q.SetVersion(4)
	q.Group, q.MemberID, q.InstanceID, q.Generation = "g", member, instance, generation
	return q
}

func syncReq(member string, generation int32, assign map[string][]byte) *kmsg.SyncGroupRequest {
	q := kmsg.NewPtrSyncGroupRequest()
	q.SetVersion(5)
	q.Group, q.MemberID, q.Generation = "g", member, generation
	ptype, proto := "consumer", "range"
	q.ProtocolType, q.Protocol = &ptype, &proto
	for _, id := range sortedKeysOf(assign) {
		a := kmsg.NewSyncGroupRequestGroupAssignment()
		a.MemberID, a.MemberAssignment = id, assign[id]
		q.GroupAssignment = append(q.GroupAssignment, a)
	}
	return q
}

// A real client's group APIs and simulated consumers act on one group,
// as members of a classic group do in Kafka (GroupMetadataManager's
// classicGroupJoin / classicGroupSync / classicGroupHeartbeat, ClassicGroup):
// joins by either kind are rebalances both take part in, a member a
// generation behind is ILLEGAL_GENERATION, one at the current generation
// learns of a rebalance from its heartbeat (REBALANCE_IN_PROGRESS), a
// static member's older instance is FENCED_INSTANCE_ID, and a real member
// that stops heartbeating leaves after its session timeout.
func TestRealAndSimulatedMembersShareOneGroup(t *testing.T) {
	w := New(1)
	w.apply(t, "cluster topic=orders partitions=3", "consumer c1 read_committed orders-0 group=g", "poll c1")
	w.KeepOutgoing(true)
	g := w.tx.groups["g"]
	c1 := w.tx.cons["c1"]
	if id, gen := c1.c.GroupMetadata(); id != "c1-1" || gen != 1 {
		t.Fatalf("c1 is %s at generation %d, want c1-1 at 1", id, gen)
	}
	answers := map[[2]int32]kmsg.Response{}
	r := newWireClient(t, w, "real", 1, "g", answers)

	first := r.answer(r.send(joinReq("", nil))).(*kmsg.JoinGroupResponse)
	if first.ErrorCode != errMemberIDRequired {
		t.Fatalf("first JoinGroup: error %d, want MEMBER_ID_REQUIRED", first.ErrorCode)
	}
	id := first.MemberID
	join := r.send(joinReq(id, nil))
	if r.answer(join) != nil {
		t.Fatal("the JoinGroup was answered before c1 rejoined")
	}
	if got := sortedMembers(g); !slices.Equal(got, []string{"c1-1", id}) || g.Generation != 1 || !g.Awaiting["c1-1"] {
		t.Fatalf("members %v at generation %d, awaiting %v: want c1-1 and %s at 1, c1-1 awaited", got, g.Generation, g.Awaiting, id)
	}

	w.apply(t, "poll c1") // c1 rejoins: the rebalance completes
	jr, _ := r.answer(join).(*kmsg.JoinGroupResponse)
	if jr == nil || jr.ErrorCode != 0 || jr.Generation != 2 || jr.LeaderID != id || len(jr.Members) != 2 {
		t.Fatalf("JoinGroup answer %+v: want generation 2, %s leading, both members listed", jr, id)
	}
	if _, gen := c1.c.GroupMetadata(); gen != 2 {
		t.Fatalf("c1 has generation %d, want 2", gen)
	}
	var simMeta kmsg.ConsumerMemberMetadata
	for _, m := range jr.Members {
		if m.MemberID == "c1-1" {
			if err := simMeta.ReadFrom(m.ProtocolMetadata); err != nil || !slices.Equal(simMeta.Topics, []string{"orders"}) {
				t.Fatalf("c1's metadata %x (%v): want a subscription to orders", m.ProtocolMetadata, err)
			}
		}
	}
	sr := r.answer(r.send(syncReq(id, 2, map[string][]byte{id: []byte("mine"), "c1-1": []byte("its")}))).(*kmsg.SyncGroupResponse)
	if sr.ErrorCode != 0 || string(sr.MemberAssignment) != "mine" {
		t.Fatalf("SyncGroup answer %+v", sr)
	}
	code := func(c *wireClient, corr int32) int16 {
		t.Helper()
		switch resp := c.answer(corr).(type) {
		case *kmsg.HeartbeatResponse:
			return resp.ErrorCode
		case *kmsg.JoinGroupResponse:
			return resp.ErrorCode
		}
		t.Fatalf("no answer to %d", corr)
		return 0
	}
	if c := code(r, r.send(heartbeatReq(id, nil, 2))); c != 0 {
		t.Fatalf("heartbeat in a stable group: %d", c)
	}

	// A second simulated consumer joins: the real member's heartbeat says
	// the group rebalances; a heartbeat a generation behind is refused.
	w.apply(t, "consumer c2 read_committed orders-1 group=g", "poll c2")
	if c := code(r, r.send(heartbeatReq(id, nil, 2))); c != errRebalanceInProgress {
		t.Fatalf("heartbeat during the rebalance: %d, want REBALANCE_IN_PROGRESS", c)
	}
	if c := code(r, r.send(heartbeatReq(id, nil, 1))); c != errIllegalGeneration {
		t.Fatalf("heartbeat a generation behind: %d, want ILLEGAL_GENERATION", c)
	}
	rejoin := r.send(joinReq(id, nil))
	w.apply(t, "poll c1")
	jr, _ = r.answer(rejoin).(*kmsg.JoinGroupResponse)
	if jr == nil || jr.Generation != 3 || len(g.Members) != 3 {
		t.Fatalf("rejoin answer %+v with members %v: want generation 3 of three", jr, sortedMembers(g))
	}
	r.answer(r.send(syncReq(id, 3, nil)))

	// A static member joins, then a newer instance of it takes its place:
	// the older one is fenced.
	s := newWireClient(t, w, "static", 2, "g", answers)
	inst := "shop-1"
	sj := s.send(joinReq("", &inst))
	hb := code(r, r.send(heartbeatReq(id, nil, 3)))
	if hb != errRebalanceInProgress {
		t.Fatalf("heartbeat once the static member joined: %d", hb)
	}
	rj := r.send(joinReq(id, nil))
	w.apply(t, "poll c1", "poll c2")
	sjr, _ := s.answer(sj).(*kmsg.JoinGroupResponse)
	if sjr == nil || sjr.Generation != 4 || r.answer(rj) == nil {
		t.Fatalf("the static member's JoinGroup answer %+v: want generation 4", sjr)
	}
	old := sjr.MemberID
	ss := s.send(syncReq(old, 4, nil))
	if s.answer(ss) != nil {
		t.Fatal("a follower's SyncGroup was answered before the leader's")
	}
	r.answer(r.send(syncReq(id, 4, map[string][]byte{old: []byte("static's")})))
	if a, _ := s.answer(ss).(*kmsg.SyncGroupResponse); a == nil || string(a.MemberAssignment) != "static's" {
		t.Fatalf("the follower's SyncGroup answer %+v", a)
	}
	s2 := newWireClient(t, w, "static", 3, "g", answers)
	nj, _ := s2.answer(s2.send(joinReq("", &inst))).(*kmsg.JoinGroupResponse)
	if nj == nil || nj.ErrorCode != 0 || nj.Generation != 4 || nj.MemberID == old {
		t.Fatalf("the newer instance's JoinGroup answer %+v: want its own member id at generation 4, no rebalance", nj)
	}
	if c := code(s, s.send(heartbeatReq(old, &inst, 4))); c != errFencedInstanceID {
		t.Fatalf("the older instance's heartbeat: %d, want FENCED_INSTANCE_ID", c)
	}
	if g.Rebalancing || g.Generation != 4 {
		t.Fatalf("the static member's replacement rebalanced the group (generation %d)", g.Generation)
	}

	// Nobody heartbeats for the session timeout: the real members leave,
	// the simulated ones (their applications still within
	// max.poll.interval.ms) stay.
	before := w.Clone()
	w.apply(t, "advance 46s")
	if got := sortedMembers(g); !slices.Equal(got, []string{"c1-1", "c2-1"}) {
		t.Fatalf("members after the session timeout: %v, want the simulated ones", got)
	}
	// A copy of the world before it does the same.
	before.apply(t, "advance 46s")
	if got := sortedMembers(before.tx.groups["g"]); !slices.Equal(got, []string{"c1-1", "c2-1"}) {
		t.Fatalf("the copy's members after the session timeout: %v", got)
	}
}

// A group's members share one protocol type (ClassicGroup.
// supportsProtocols): a real client of another type cannot join a group
// of simulated consumers, and a simulated consumer cannot join a group
// that real members of another type hold; both are
// INCONSISTENT_GROUP_PROTOCOL.
func TestGroupProtocolTypeIsShared(t *testing.T) {
	for _, simFirst := range []bool{true, false} {
		w := New(1)
		w.apply(t, "cluster topic=orders partitions=3")
		w.KeepOutgoing(true)
		r := newWireClient(t, w, "worker", 1, "g", map[[2]int32]kmsg.Response{})
		if simFirst {
			w.apply(t, "consumer c1 read_committed orders-0 group=g", "poll c1")
		}
		q := joinReq("", nil)
		q.SetVersion(3) // no MEMBER_ID_REQUIRED round
		q.ProtocolType = "connect"
		jr := r.answer(r.send(q)).(*kmsg.JoinGroupResponse)
		if simFirst {
			if jr.ErrorCode != errInconsistentProtocol {
				t.Errorf("a connect member joining a consumer group: error %d, want INCONSISTENT_GROUP_PROTOCOL", jr.ErrorCode)
			}
			continue
		}
		if jr.ErrorCode != 0 {
			t.Fatalf("a connect member joining an empty group: error %d", jr.ErrorCode)
		}
		w.SetTracing(true)
		w.apply(t, "consumer c1 read_committed orders-0 group=g")
		c, _ := script.ParseLine("poll c1")
		evs, err := w.Apply(c)
		if err != nil {
			t.Fatal(err)
		}
		refused := false
		for _, e := range evs {
			refused = refused || e.Kind == "group.refused" && e.Str("error") == "INCONSISTENT_GROUP_PROTOCOL"
		}
		if _, in := w.tx.groups["g"].Members["c1-1"]; in || !refused {
			t.Errorf("a consumer joined a group of connect members (refused: %v)", refused)
		}
	}
}

// A real client named like a simulated consumer gets a member id of its
// own (Kafka's end in a random UUID): both are members.
func TestRealClientNamedLikeSimulatedConsumer(t *testing.T) {
	w := New(1)
	w.apply(t, "cluster topic=orders partitions=3", "consumer c1 read_committed orders-0 group=g", "poll c1")
	w.KeepOutgoing(true)
	r := newWireClient(t, w, "c1", 1, "g", map[[2]int32]kmsg.Response{})
	q := joinReq("", nil)
	q.SetVersion(3)
	join := r.send(q)
	w.apply(t, "poll c1")
	jr, _ := r.answer(join).(*kmsg.JoinGroupResponse)
	if jr == nil || jr.ErrorCode != 0 || jr.MemberID == "c1-1" {
		t.Fatalf("JoinGroup answer %+v: want a member id other than the simulated c1-1", jr)
	}
	if got := sortedMembers(w.tx.groups["g"]); len(got) != 2 || !slices.Contains(got, "c1-1") || !slices.Contains(got, jr.MemberID) {
		t.Fatalf("members %v", got)
	}
}
