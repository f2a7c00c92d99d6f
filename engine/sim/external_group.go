package sim

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/eoslab/eoslab/engine/broker"
	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Real clients in consumer groups. The group a real client's JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup and OffsetCommit act on is the engine's
// own (broker.GroupOffsets: its members, generation and rebalance), the
// one simulated consumers join at their polls (group.go), so a real client
// and a simulated consumer in the same group are both members, and a join
// or leave by either is a rebalance the other takes part in, as in Kafka's
// classic protocol (GroupMetadataManager.classicGroupJoin*, ClassicGroup):
//
//   - a JoinGroup waits (its answer is parked, the connection muted) until
//     every member has rejoined: a real member when its heartbeat is told
//     REBALANCE_IN_PROGRESS and it sends JoinGroup, a simulated one at its
//     next poll; a member that does not in time is removed (a real one
//     after the group's rebalance timeout, the largest of the members'
//     rebalance timeouts — a simulated consumer's is its
//     max.poll.interval.ms —, a simulated one when its application has not
//     polled for max.poll.interval.ms), and the group moves to the next
//     generation, which every member then has;
//   - the leader, always a real member (a simulated consumer reads the
//     partitions its command names, it computes no assignment), gets every
//     member in its JoinGroup answer — a simulated one with a consumer
//     protocol subscription to the topics it reads — and sends the
//     assignment in its SyncGroup; the others' SyncGroup waits for it
//     (CompletingRebalance); what it assigns a simulated member is kept by
//     the coordinator but does not change what that consumer reads;
//   - a real member's session times out (session.timeout.ms without a
//     heartbeat) and a static member (group.instance.id) keeps its place
//     across restarts, the old member id then fenced (FENCED_INSTANCE_ID).
//
// group.initial.rebalance.delay.ms is 0 (a group's first rebalance does
// not wait for more members), a legal broker setting.

// extGroup is the part of a group only real clients' protocol needs: each
// real member's protocols and assignment, the JoinGroup and SyncGroup
// answers waiting, the chosen protocol and the leader. Who is a member and
// at which generation is the engine's group's.
type extGroup struct {
	ptype    string                // the protocol type of the real members
	protocol string                // the protocol the current generation chose
	leader   string                // the real member that assigns ("" none)
	members  map[string]*extMember // the group's real members, by member id
	pending  map[string]int64      // member ids handed out with MEMBER_ID_REQUIRED (KIP-394), by the time they expire
	simAsg   map[string][]byte     // what the leader's last SyncGroup assigned each simulated member, by member id
	syncing  bool                  // CompletingRebalance: the leader's assignment is not in yet
	phaseAt  int64                 // when the rebalance, or the wait for SyncGroups, began
	timerAt  int64                 // when the group's timer item is due (0: none queued)
}

// extMember is one real member.
type extMember struct {
	client      string
	instance    string // group.instance.id ("" for a dynamic member)
	protocols   []kmsg.JoinGroupRequestProtocol
	rebalanceMs int64
	sessionMs   int64
	assignment  []byte
	join, sync  *held // answers parked until the rebalance gets that far
	synced      bool  // sent SyncGroup in this generation
	seen        int64 // its last JoinGroup, SyncGroup or Heartbeat
}

// held is a Kafka request whose answer waits: the broker answers it on its
// connection once it has the answer, and reads nothing else from that
// connection meanwhile (SocketServer's mute).
type held struct {
	from, to msg.Addr
	conn, id int
	req      kmsg.Request
}

func (g *extGroup) clone() *extGroup {
	d := *g
	d.members = make(map[string]*extMember, len(g.members))
	for id, m := range g.members {
		c := *m
		d.members[id] = &c // protocols, assignment and held requests are never changed in place
	}
	d.pending = make(map[string]int64, len(g.pending))
	for id, at := range g.pending {
		d.pending[id] = at
	}
	d.simAsg = maps.Clone(g.simAsg) // the assignments are never changed in place
	return &d
}

// extGroup returns (creating) a group's real-client part.
func (e *extWorld) group(name string) *extGroup {
	g := e.groups[name]
	if g == nil {
		g = &extGroup{members: map[string]*extMember{}, pending: map[string]int64{}}
		e.groups[name] = g
	}
	return g
}

// extGroupOf is a group's real-client part, nil when no real client ever
// joined it.
func (w *World) extGroupOf(name string) *extGroup {
	if w.ext == nil {
		return nil
	}
	return w.ext.groups[name]
}

func (w *World) groupCoordinator(broker int, group string) int16 {
	id, ok := w.coordinatorOf(group, 0)
	switch {
	case !ok:
		return errCoordNotAvailable
	case id != broker:
		return errNotCoordinator
	}
	return errNone
}

func instanceOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// groupProtocolType is the group's protocol type: its real members', or
// "consumer" when only simulated consumers are members ("" when empty).
func (w *World) groupProtocolType(g *broker.GroupOffsets, eg *extGroup) string {
	switch {
	case len(g.Members) == 0:
		return ""
	case eg != nil && len(eg.members) > 0:
		return eg.ptype
	}
	return "consumer"
}

// supportsProtocols is ClassicGroup.supportsProtocols: an empty group
// takes any protocol type and protocols; otherwise the type must be the
// group's and one of the protocols must be one every member supports. A
// simulated consumer supports any consumer protocol (it assigns nothing),
// so only the real members other than the joining one count.
func (w *World) supportsProtocols(g *broker.GroupOffsets, eg *extGroup, self string, q *kmsg.JoinGroupRequest) bool {
	if q.ProtocolType == "" || len(q.Protocols) == 0 {
		return false
	}
	ptype := w.groupProtocolType(g, eg)
	if ptype == "" || len(g.Members) == 1 && g.Members[self] != "" {
		return true
	}
	if ptype != q.ProtocolType {
		return false
	}
	for _, p := range q.Protocols {
		all := true
		for id, m := range eg.members {
			if id != self && !slices.ContainsFunc(m.protocols, func(o kmsg.JoinGroupRequestProtocol) bool { return o.Name == p.Name }) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

func sameProtocols(a, b []kmsg.JoinGroupRequestProtocol) bool {
	return slices.EqualFunc(a, b, func(x, y kmsg.JoinGroupRequestProtocol) bool {
		return x.Name == y.Name && string(x.Metadata) == string(y.Metadata)
	})
}

func (w *World) joinGroup(broker int, client string, q *kmsg.JoinGroupRequest, h held) *kmsg.JoinGroupResponse {
	resp := q.ResponseKind().(*kmsg.JoinGroupResponse)
	resp.Generation, resp.MemberID = -1, q.MemberID
	if code := w.groupCoordinator(broker, q.Group); code != errNone {
		resp.ErrorCode = code
		return resp
	}
	e := w.extw()
	if q.MemberID != "" && w.tx.groups[q.Group] == nil {
		resp.ErrorCode = errUnknownMemberID // a member id for a group that does not exist
		return resp
	}
	w.expireMembers(q.Group)
	g, eg := w.group(q.Group), e.group(q.Group)
	if cl := e.clients[client]; cl != nil {
		cl.group = q.Group
	}
	defer w.armGroupTimer(q.Group)
	if !w.supportsProtocols(g, eg, q.MemberID, q) {
		resp.ErrorCode = errInconsistentProtocol
		return resp
	}
	instance := instanceOf(q.InstanceID)
	if q.MemberID == "" {
		id := w.newRealMemberID(g, eg, client)
		if instance != "" {
			h.req = q
			if old, ok := g.Instances[instance]; ok && eg.members[old] != nil {
				return w.replaceStatic(g, eg, q, old, id, h)
			}
			return w.addMember(g, eg, q, client, id, h)
		}
		if q.Version >= 4 {
			// KIP-394: a new member first gets its id, then joins with it.
			eg.pending[id] = w.now + sessionMs(q)
			resp.MemberID, resp.ErrorCode = id, errMemberIDRequired
			return resp
		}
		return w.addMember(g, eg, q, client, id, h)
	}
	if _, ok := eg.pending[q.MemberID]; ok && instance == "" {
		delete(eg.pending, q.MemberID)
		return w.addMember(g, eg, q, client, q.MemberID, h)
	}
	if code := g.ValidateMember(q.MemberID, instance); code != kerr.None {
		resp.ErrorCode = int16(code)
		return resp
	}
	m := eg.members[q.MemberID]
	if m == nil {
		resp.ErrorCode = errUnknownMemberID // a simulated consumer's member id
		return resp
	}
	m.seen = w.now
	switch {
	case g.Rebalancing:
		w.updateMember(m, q, h)
		delete(g.Awaiting, q.MemberID)
		w.traceRealJoin(q.Group, m, q.MemberID, g)
		w.maybeComplete(g, q.Group)
		return nil
	case eg.syncing && sameProtocols(m.protocols, q.Protocols),
		!eg.syncing && q.MemberID != eg.leader && sameProtocols(m.protocols, q.Protocols):
		// The same metadata again (a lost answer, a follower's rejoin):
		// the current generation, no rebalance.
		return w.joinAnswer(g, eg, q.MemberID, q)
	}
	// The leader rejoining, or changed metadata: a rebalance.
	w.updateMember(m, q, h)
	w.traceRealJoin(q.Group, m, q.MemberID, g)
	w.startRebalance(g, q.Group, q.MemberID)
	return nil
}

// newRealMemberID is a new member id, CLIENT-N: unique in the group even
// when a simulated consumer has the client's name (Kafka's ids end in a
// random UUID).
func (w *World) newRealMemberID(g *broker.GroupOffsets, eg *extGroup, client string) string {
	for {
		w.ext.members++
		id := fmt.Sprintf("%s-%d", client, w.ext.members)
		if !memberIDTaken(g, eg, id) {
			return id
		}
	}
}

// memberIDTaken reports whether a member, or a member id handed out to a
// real client, has id.
func memberIDTaken(g *broker.GroupOffsets, eg *extGroup, id string) bool {
	if _, in := g.Members[id]; in {
		return true
	}
	if eg != nil {
		_, pending := eg.pending[id]
		return pending
	}
	return false
}

func sessionMs(q *kmsg.JoinGroupRequest) int64 { return int64(q.SessionTimeoutMillis) }

func rebalanceMs(q *kmsg.JoinGroupRequest) int64 {
	if q.Version == 0 {
		return int64(q.SessionTimeoutMillis) // v0 has none: the session timeout serves
	}
	return int64(q.RebalanceTimeoutMillis)
}

func (w *World) updateMember(m *extMember, q *kmsg.JoinGroupRequest, h held) {
	h.req = q
	m.protocols, m.rebalanceMs, m.sessionMs, m.join = q.Protocols, rebalanceMs(q), sessionMs(q), &h
}

// addMember is addMemberThenRebalanceOrCompleteJoin: the member is in the
// engine's group, its JoinGroup waits for the rebalance it starts (or
// joins).
func (w *World) addMember(g *broker.GroupOffsets, eg *extGroup, q *kmsg.JoinGroupRequest, client, id string, h held) *kmsg.JoinGroupResponse {
	if len(eg.members) == 0 {
		eg.ptype = q.ProtocolType // the group's already, if simulated members are in it (supportsProtocols)
	}
	m := &extMember{client: client, instance: instanceOf(q.InstanceID), seen: w.now}
	w.updateMember(m, q, h)
	eg.members[id] = m
	if len(g.Members) == 0 {
		g.ProtocolType = q.ProtocolType
	}
	g.Members[id] = client
	if m.instance != "" {
		if g.Instances == nil {
			g.Instances = map[string]string{}
		}
		g.Instances[m.instance] = id
	}
	if eg.leader == "" {
		eg.leader = id
	}
	w.traceRealJoin(q.Group, m, id, g)
	w.startRebalance(g, q.Group, id)
	return nil
}

// replaceStatic is updateStaticMemberThenRebalanceOrCompleteJoin: a
// static member restarting takes its place under a new member id; the
// old id is fenced. In a stable group whose protocol stays it gets the
// current generation and its assignment without a rebalance.
func (w *World) replaceStatic(g *broker.GroupOffsets, eg *extGroup, q *kmsg.JoinGroupRequest, old, id string, h held) *kmsg.JoinGroupResponse {
	m := eg.members[old]
	// ClassicGroup.replaceStaticMember: what the old instance waits for is
	// answered FENCED_INSTANCE_ID.
	if m.join != nil {
		resp := m.join.req.ResponseKind().(*kmsg.JoinGroupResponse)
		resp.Generation, resp.MemberID, resp.ErrorCode = -1, old, errFencedInstanceID
		w.answerHeld(m.join, resp)
	}
	if m.sync != nil {
		resp := m.sync.req.ResponseKind().(*kmsg.SyncGroupResponse)
		resp.MemberAssignment, resp.ErrorCode = []byte{}, errFencedInstanceID
		w.answerHeld(m.sync, resp)
	}
	delete(eg.members, old)
	delete(g.Members, old)
	awaiting := g.Awaiting[old]
	delete(g.Awaiting, old)
	eg.members[id], g.Members[id], g.Instances[m.instance] = m, m.client, id
	if awaiting {
		g.Awaiting[id] = true
	}
	if eg.leader == old {
		eg.leader = id
	}
	oldProtocols := m.protocols
	m.join, m.sync = nil, nil
	w.updateMember(m, q, h)
	m.seen = w.now
	if w.tracing() {
		w.emit(trace.New("group.join", fmt.Sprintf("%s joins group %s as member %s, in place of %s (static member %s): the old id is fenced",
			m.client, q.Group, id, old, m.instance)).
			With("consumer", trace.Str(m.client)).With("group", trace.Str(q.Group)).With("member", trace.Str(id)).
			With("generation", trace.Int(int64(g.Generation))))
	}
	switch {
	case g.Rebalancing:
		delete(g.Awaiting, id)
		w.maybeComplete(g, q.Group)
		return nil
	case !eg.syncing && eg.protocol == w.selectProtocol(eg) && sameProtocols(oldProtocols, q.Protocols):
		m.join = nil
		resp := w.joinAnswer(g, eg, id, q)
		if id == eg.leader && q.Version >= 9 {
			resp.SkipAssignment = true // the group has its assignment already
		}
		return resp
	}
	w.startRebalance(g, q.Group, id)
	return nil
}

func (w *World) traceRealJoin(group string, m *extMember, id string, g *broker.GroupOffsets) {
	if w.tracing() {
		w.emit(trace.New("group.join", fmt.Sprintf("%s joins group %s as member %s (JoinGroup): its answer waits for the rebalance", m.client, group, id)).
			With("consumer", trace.Str(m.client)).With("group", trace.Str(group)).With("member", trace.Str(id)).
			With("generation", trace.Int(int64(g.Generation))))
	}
}

// selectProtocol is ClassicGroup.selectProtocol over the real members: of
// the protocols all of them support, the one most of them prefer (ties:
// the leader's preference).
func (w *World) selectProtocol(eg *extGroup) string {
	ids := sortedReal(eg)
	if len(ids) == 0 {
		return ""
	}
	supported := func(name string) bool {
		for _, id := range ids {
			if !slices.ContainsFunc(eg.members[id].protocols, func(p kmsg.JoinGroupRequestProtocol) bool { return p.Name == name }) {
				return false
			}
		}
		return true
	}
	votes := map[string]int{}
	for _, id := range ids {
		for _, p := range eg.members[id].protocols {
			if supported(p.Name) {
				votes[p.Name]++
				break
			}
		}
	}
	order := ids
	if l := eg.members[eg.leader]; l != nil {
		order = append([]string{eg.leader}, ids...)
	}
	best, n := "", 0
	for _, id := range order {
		for _, p := range eg.members[id].protocols {
			if votes[p.Name] > n {
				best, n = p.Name, votes[p.Name]
			}
		}
	}
	return best
}

func sortedReal(eg *extGroup) []string {
	ids := make([]string, 0, len(eg.members))
	for id := range eg.members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// joinAnswer is a JoinGroup answer at the group's current generation; the
// leader's lists every member with its metadata for the chosen protocol.
func (w *World) joinAnswer(g *broker.GroupOffsets, eg *extGroup, id string, q *kmsg.JoinGroupRequest) *kmsg.JoinGroupResponse {
	resp := q.ResponseKind().(*kmsg.JoinGroupResponse)
	resp.Generation, resp.MemberID, resp.LeaderID = g.Generation, id, eg.leader
	proto, ptype := eg.protocol, eg.ptype
	resp.Protocol, resp.ProtocolType = &proto, &ptype
	if id != eg.leader {
		return resp
	}
	for _, mid := range sortedMembers(g) {
		jm := kmsg.NewJoinGroupResponseMember()
		jm.MemberID = mid
		if m := eg.members[mid]; m != nil {
			if m.instance != "" {
				inst := m.instance
				jm.InstanceID = &inst
			}
			for _, p := range m.protocols {
				if p.Name == eg.protocol {
					jm.ProtocolMetadata = p.Metadata
					break
				}
			}
		} else {
			jm.ProtocolMetadata = w.simSubscription(g.Members[mid], mid)
		}
		resp.Members = append(resp.Members, jm)
	}
	return resp
}

// simSubscription is a simulated member's metadata as the Java consumer
// writes it (ConsumerProtocolSubscription v0): the topics it reads.
func (w *World) simSubscription(name, id string) []byte {
	meta := kmsg.NewConsumerMemberMetadata()
	if cs := w.tx.cons[name]; cs != nil {
		if member, _ := cs.c.GroupMetadata(); member == id {
			for _, tp := range cs.c.Partitions() {
				if !slices.Contains(meta.Topics, tp.Topic) {
					meta.Topics = append(meta.Topics, tp.Topic)
				}
			}
		}
	}
	slices.Sort(meta.Topics)
	return meta.AppendTo(nil)
}

// realJoinComplete is the real members' part of completeClassicGroupJoin,
// once the engine's group has moved to its next generation: the leader is
// elected among the members that rejoined, the protocol chosen, every
// parked JoinGroup answered, and the group waits for the leader's
// assignment (CompletingRebalance).
func (w *World) realJoinComplete(g *broker.GroupOffsets, name string) {
	eg := w.extGroupOf(name)
	if eg == nil {
		return
	}
	defer w.armGroupTimer(name)
	ids := sortedReal(eg)
	if l := eg.members[eg.leader]; l == nil || l.join == nil {
		eg.leader = ""
		for _, id := range ids {
			if eg.members[id].join != nil {
				eg.leader = id
				break
			}
		}
		if eg.leader == "" && len(ids) > 0 {
			eg.leader = ids[0]
		}
	}
	eg.syncing, eg.phaseAt = eg.leader != "", w.now
	eg.protocol = w.selectProtocol(eg)
	for _, id := range ids {
		m := eg.members[id]
		m.synced, m.seen, m.sync = false, w.now, nil
		if m.join != nil {
			h := m.join
			m.join = nil
			w.answerHeld(h, w.joinAnswer(g, eg, id, h.req.(*kmsg.JoinGroupRequest)))
		}
	}
}

// answerHeld sends a parked answer on its connection.
func (w *World) answerHeld(h *held, resp kmsg.Response) {
	api := APIName(h.req.Key())
	if w.tracing() {
		w.emit(trace.New("kafka.answer", fmt.Sprintf("broker %d answers %s's %s", h.from.Broker, h.to, api)).
			With("broker", trace.Int(int64(h.from.Broker))).With("client", trace.Str(h.to.String())).With("api", trace.Str(api)))
	}
	w.send(h.from, h.to, h.conn, h.id, wireResponse{api: api, resp: resp})
}

// realRebalanceStarts is prepareRebalance's part for real members: a
// group waiting for SyncGroups answers them REBALANCE_IN_PROGRESS (they
// rejoin), and the rebalance timeout starts.
func (w *World) realRebalanceStarts(name string, fresh bool) {
	eg := w.extGroupOf(name)
	if eg == nil {
		return
	}
	if eg.syncing {
		eg.syncing = false
		for _, id := range sortedReal(eg) {
			if m := eg.members[id]; m.sync != nil {
				h := m.sync
				m.sync = nil
				resp := h.req.ResponseKind().(*kmsg.SyncGroupResponse)
				resp.ErrorCode = errRebalanceInProgress
				w.answerHeld(h, resp)
			}
		}
	}
	if fresh {
		eg.phaseAt = w.now
	}
	w.armGroupTimer(name)
}

// joinBlocked reports whether a group's rebalance must wait for a member
// id it handed out (ClassicGroup.hasAllMembersJoined: no pending member).
func (w *World) joinBlocked(name string) bool {
	eg := w.extGroupOf(name)
	return eg != nil && len(eg.pending) > 0
}

// removeMember removes a member, real or simulated; the rest rebalance.
// A real member's parked JoinGroup is answered UNKNOWN_MEMBER_ID
// (removeMemberAndUpdateClassicGroup), its parked SyncGroup
// REBALANCE_IN_PROGRESS.
func (w *World) removeMember(g *broker.GroupOffsets, name, id, why string) {
	if eg := w.extGroupOf(name); eg != nil {
		if m := eg.members[id]; m != nil {
			if m.join != nil {
				resp := m.join.req.ResponseKind().(*kmsg.JoinGroupResponse)
				resp.Generation, resp.ErrorCode = -1, errUnknownMemberID
				w.answerHeld(m.join, resp)
			}
			if m.sync != nil {
				resp := m.sync.req.ResponseKind().(*kmsg.SyncGroupResponse)
				resp.ErrorCode = errRebalanceInProgress
				w.answerHeld(m.sync, resp)
			}
			delete(eg.members, id)
			if m.instance != "" && g.Instances[m.instance] == id {
				delete(g.Instances, m.instance)
			}
			if eg.leader == id {
				eg.leader = ""
				if ids := sortedReal(eg); len(ids) > 0 {
					eg.leader = ids[0]
				}
			}
		}
	}
	w.leave(g, name, id, why)
}

// realMember is the check of a real member's SyncGroup, Heartbeat and
// OffsetCommit: it is the member it says (ClassicGroup.validateMember) at
// the group's generation.
func (w *World) realMember(group, member string, instance *string, generation int32) (*broker.GroupOffsets, *extMember, int16) {
	g := w.tx.groups[group]
	if g == nil || len(g.Members) == 0 {
		return g, nil, errUnknownMemberID
	}
	if code := g.ValidateMember(member, instanceOf(instance)); code != kerr.None {
		return g, nil, int16(code)
	}
	m := w.extGroupOf(group).memberOrNil(member)
	if m == nil {
		return g, nil, errUnknownMemberID
	}
	if generation != g.Generation {
		return g, m, errIllegalGeneration
	}
	return g, m, errNone
}

func (eg *extGroup) memberOrNil(id string) *extMember {
	if eg == nil {
		return nil
	}
	return eg.members[id]
}

func (w *World) syncGroup(broker int, q *kmsg.SyncGroupRequest, h held) *kmsg.SyncGroupResponse {
	resp := q.ResponseKind().(*kmsg.SyncGroupResponse)
	if resp.ErrorCode = w.groupCoordinator(broker, q.Group); resp.ErrorCode != errNone {
		return resp
	}
	defer w.armGroupTimer(q.Group)
	g, m, code := w.realMember(q.Group, q.MemberID, q.InstanceID, q.Generation)
	if resp.ErrorCode = code; code != errNone {
		return resp
	}
	m.seen = w.now
	eg := w.extGroupOf(q.Group)
	if q.ProtocolType != nil && *q.ProtocolType != eg.ptype || q.Protocol != nil && *q.Protocol != eg.protocol {
		resp.ErrorCode = errInconsistentProtocol
		return resp
	}
	switch {
	case g.Rebalancing:
		resp.ErrorCode = errRebalanceInProgress
		return resp
	case !eg.syncing:
		m.synced = true
		return w.syncAnswer(eg, m, q)
	}
	h.req = q
	m.synced, m.sync = true, &h
	if q.MemberID != eg.leader {
		return nil // waits for the leader's assignment
	}
	// The leader's assignment: every member's, an empty one for a member
	// it left out (classicGroupSyncToClassicGroup).
	for _, id := range sortedReal(eg) {
		eg.members[id].assignment = []byte{}
	}
	eg.simAsg = map[string][]byte{}
	for _, a := range q.GroupAssignment {
		if r := eg.members[a.MemberID]; r != nil {
			r.assignment = a.MemberAssignment
		} else if _, ok := g.Members[a.MemberID]; ok {
			eg.simAsg[a.MemberID] = a.MemberAssignment // kept for DescribeGroups; the consumer reads what its command names
		}
	}
	eg.syncing = false
	if w.tracing() {
		w.emit(trace.New("group.assign", fmt.Sprintf("group %s has generation %d's assignment from its leader %s", q.Group, g.Generation, q.MemberID)).
			With("group", trace.Str(q.Group)).With("generation", trace.Int(int64(g.Generation))).With("member", trace.Str(q.MemberID)))
	}
	for _, id := range sortedReal(eg) {
		if r := eg.members[id]; r.sync != nil {
			sh := r.sync
			r.sync = nil
			w.answerHeld(sh, w.syncAnswer(eg, r, sh.req.(*kmsg.SyncGroupRequest)))
		}
	}
	return nil
}

func (w *World) syncAnswer(eg *extGroup, m *extMember, q *kmsg.SyncGroupRequest) *kmsg.SyncGroupResponse {
	resp := q.ResponseKind().(*kmsg.SyncGroupResponse)
	resp.MemberAssignment = m.assignment
	if resp.MemberAssignment == nil {
		resp.MemberAssignment = []byte{}
	}
	proto, ptype := eg.protocol, eg.ptype
	resp.Protocol, resp.ProtocolType = &proto, &ptype
	return resp
}

// heartbeat is classicGroupHeartbeatToClassicGroup: a member at the
// group's generation learns that a rebalance is under way
// (REBALANCE_IN_PROGRESS: it must rejoin); one a generation behind is
// ILLEGAL_GENERATION.
func (w *World) heartbeat(broker int, q *kmsg.HeartbeatRequest) *kmsg.HeartbeatResponse {
	resp := q.ResponseKind().(*kmsg.HeartbeatResponse)
	if resp.ErrorCode = w.groupCoordinator(broker, q.Group); resp.ErrorCode != errNone {
		return resp
	}
	w.expireMembers(q.Group) // what the simulated members' heartbeats told the coordinator meanwhile
	defer w.armGroupTimer(q.Group)
	g, m, code := w.realMember(q.Group, q.MemberID, q.InstanceID, q.Generation)
	if code == errNone {
		m.seen = w.now // rescheduleClassicGroupMemberHeartbeat
	}
	if resp.ErrorCode = code; code == errNone && g.Rebalancing {
		resp.ErrorCode = errRebalanceInProgress
	}
	return resp
}

func (w *World) leaveGroup(broker int, q *kmsg.LeaveGroupRequest) *kmsg.LeaveGroupResponse {
	resp := q.ResponseKind().(*kmsg.LeaveGroupResponse)
	if resp.ErrorCode = w.groupCoordinator(broker, q.Group); resp.ErrorCode != errNone {
		return resp
	}
	type leaver struct{ member, instance string }
	leavers := []leaver{{member: q.MemberID}}
	if q.Version >= 3 {
		leavers = leavers[:0]
		for _, m := range q.Members {
			leavers = append(leavers, leaver{m.MemberID, instanceOf(m.InstanceID)})
		}
	}
	g, eg := w.tx.groups[q.Group], w.extGroupOf(q.Group)
	defer w.armGroupTimer(q.Group)
	for _, l := range leavers {
		rm := kmsg.NewLeaveGroupResponseMember()
		rm.MemberID = l.member
		if l.instance != "" {
			inst := l.instance
			rm.InstanceID = &inst
		}
		id := l.member
		switch {
		case g == nil:
			rm.ErrorCode = errUnknownMemberID
		case id == "" && l.instance != "":
			// An administrative removal by group.instance.id.
			if id = g.Instances[l.instance]; id == "" {
				rm.ErrorCode = errUnknownMemberID
			}
		case eg != nil && eg.pending[id] != 0:
			delete(eg.pending, id)
			id = ""
			w.maybeComplete(g, q.Group)
		default:
			rm.ErrorCode = int16(g.ValidateMember(id, l.instance))
		}
		if rm.ErrorCode == errNone && id != "" {
			w.removeMember(g, q.Group, id, "it left the group (LeaveGroup)")
		}
		resp.Members = append(resp.Members, rm)
	}
	if q.Version < 3 {
		resp.ErrorCode, resp.Members = resp.Members[0].ErrorCode, nil
	}
	return resp
}

// offsetCommit writes committed offsets, after ClassicGroup.
// validateOffsetCommit: a group that does not exist, or has no members,
// takes a commit without generation (a consumer outside group management:
// assign); otherwise the commit must come from a member at the group's
// generation, and not while the group waits for its assignment
// (REBALANCE_IN_PROGRESS). A rebalance under way refuses nothing: the
// generation is still the current one.
func (w *World) offsetCommit(at int, q *kmsg.OffsetCommitRequest) *kmsg.OffsetCommitResponse {
	resp := q.ResponseKind().(*kmsg.OffsetCommitResponse)
	code := w.groupCoordinator(at, q.Group)
	if code == errNone {
		w.expireMembers(q.Group)
		code = w.validateOffsetCommit(q)
	}
	var g *broker.GroupOffsets
	if code == errNone {
		g = w.group(q.Group)
	}
	for _, t := range q.Topics {
		rt := kmsg.NewOffsetCommitResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			tp := msg.TP{Topic: t.Topic, Partition: int(p.Partition)}
			if code == errNone && w.meta(tp) == nil {
				rp.ErrorCode = errUnknownTopicOrPartition
			} else if code == errNone {
				g.Committed[tp] = p.Offset
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func (w *World) validateOffsetCommit(q *kmsg.OffsetCommitRequest) int16 {
	g := w.tx.groups[q.Group]
	instance := instanceOf(q.InstanceID)
	switch {
	case g == nil && q.Generation < 0:
		return errNone // a simple group, created by the commit
	case g == nil:
		return errIllegalGeneration // OffsetCommit v8 and older
	case q.Generation < 0 && len(g.Members) == 0:
		return errNone
	case q.Generation >= 0 || q.MemberID != "" || instance != "":
		if code := g.ValidateMember(q.MemberID, instance); code != kerr.None {
			return int16(code)
		}
		if q.Generation != g.Generation {
			return errIllegalGeneration
		}
	default:
		return errUnknownMemberID // no member named, and the group has members
	}
	if eg := w.extGroupOf(q.Group); eg != nil && eg.syncing {
		return errRebalanceInProgress
	}
	if m := w.extGroupOf(q.Group).memberOrNil(q.MemberID); m != nil {
		m.seen = w.now // a commit keeps the session (OffsetMetadataManager.commitOffset)
	}
	return errNone
}

// rebalanceTimeout is ClassicGroup.rebalanceTimeoutMs: the largest of the
// members' (a simulated consumer's is its max.poll.interval.ms).
func (w *World) rebalanceTimeout(g *broker.GroupOffsets, eg *extGroup) int64 {
	var most int64
	for id, name := range g.Members {
		if m := eg.members[id]; m != nil {
			most = max(most, m.rebalanceMs)
		} else if cs := w.tx.cons[name]; cs != nil {
			most = max(most, cs.c.MaxPollInterval())
		}
	}
	return most
}

// groupDeadline is the group's next deadline: a member id handed out and
// not used, a real member's session, the rebalance timeout, a simulated
// member's max.poll.interval.ms while the rebalance waits for it, the
// wait for SyncGroups. Only groups with real members have one: a group of
// simulated consumers finds its deadlines out at their polls.
func (w *World) groupDeadline(name string) (int64, bool) {
	eg, g := w.extGroupOf(name), w.tx.groups[name]
	if eg == nil || g == nil || len(eg.members) == 0 && len(eg.pending) == 0 {
		return 0, false
	}
	at := int64(math.MaxInt64)
	for _, exp := range eg.pending {
		at = min(at, exp)
	}
	for _, m := range eg.members {
		if m.join == nil && m.sync == nil {
			at = min(at, m.seen+m.sessionMs)
		}
	}
	if g.Rebalancing || eg.syncing {
		at = min(at, eg.phaseAt+w.rebalanceTimeout(g, eg))
	}
	if g.Rebalancing {
		for id := range g.Awaiting {
			if cs := w.tx.cons[g.Members[id]]; cs != nil && eg.members[id] == nil {
				at = min(at, cs.c.PollDeadline()+1)
			}
		}
	}
	return max(at, w.now), at != math.MaxInt64
}

// armGroupTimer keeps one live timer item per group, at its deadline: an
// item queued for an older deadline is dead (timerAt moved).
func (w *World) armGroupTimer(name string) {
	eg := w.extGroupOf(name)
	if eg == nil {
		return
	}
	at, ok := w.groupDeadline(name)
	if !ok {
		eg.timerAt = 0
		return
	}
	if eg.timerAt == at {
		return
	}
	eg.timerAt = at
	w.schedule(item{due: at, kind: itemGroupTimer, txnID: name})
}

func (w *World) groupTimerLive(it *item) bool {
	eg := w.extGroupOf(it.txnID)
	return eg != nil && eg.timerAt == it.due
}

// groupTimer is the group coordinator's timers for a group with real
// members coming due (expireClassicGroupMemberHeartbeat, the join and
// sync phases' rebalance timeout). It always counts as a step, even when
// the check changed nothing: a step that does nothing would let the world
// run on to a later item, ahead of the wall clock eoslab serve keeps.
func (w *World) groupTimer(name string) bool {
	eg, g := w.extGroupOf(name), w.tx.groups[name]
	eg.timerAt = 0
	defer w.armGroupTimer(name)
	if g == nil {
		return true
	}
	w.expireMembers(name)
	for _, id := range sortedKeysOf(eg.pending) {
		if w.now >= eg.pending[id] {
			delete(eg.pending, id)
			w.maybeComplete(g, name)
		}
	}
	for _, id := range sortedReal(eg) {
		if m := eg.members[id]; m != nil && m.join == nil && m.sync == nil && w.now >= m.seen+m.sessionMs {
			w.removeMember(g, name, id, fmt.Sprintf("no heartbeat for its session.timeout.ms (%d ms)", m.sessionMs))
		}
	}
	timeout := w.rebalanceTimeout(g, eg)
	if g.Rebalancing && w.now >= eg.phaseAt+timeout {
		// completeClassicGroupJoin: the dynamic members that did not
		// rejoin are removed; static ones stay, a generation behind.
		for _, id := range sortedKeys(g.Awaiting) {
			if m := eg.members[id]; m != nil && m.instance != "" {
				delete(g.Awaiting, id)
			} else if _, in := g.Members[id]; in {
				w.removeMember(g, name, id, fmt.Sprintf("it did not rejoin within the group's rebalance timeout (%d ms)", timeout))
			}
		}
		w.maybeComplete(g, name)
	}
	if eg.syncing && w.now >= eg.phaseAt+timeout {
		// expirePendingSync: the members that sent no SyncGroup are removed.
		for _, id := range sortedReal(eg) {
			if m := eg.members[id]; m != nil && !m.synced {
				w.removeMember(g, name, id, fmt.Sprintf("it sent no SyncGroup within the group's rebalance timeout (%d ms)", timeout))
			}
		}
	}
	return true
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
