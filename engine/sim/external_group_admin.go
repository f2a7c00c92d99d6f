package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eoslab/eoslab/engine/broker"
	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeGroups, ListGroups, DeleteGroups and OffsetDelete: the group coordinator's
// view of its classic groups, real clients' and simulated consumers'
// alike (GroupMetadataManager's describeGroups, listGroups and
// validateDeleteGroup, ClassicGroup's asListedGroup, ClassicGroupMember's
// describe and describeNoMetadata, OffsetMetadataManager.deleteAllOffsets).

// groupOperations is what a group's AuthorizedOperations holds when the
// cluster has no authorizer, as the served one has none
// (AuthHelper.authorizedOperations): every operation a group supports —
// READ (3), DELETE (6), DESCRIBE (8) — as a bit field.
const groupOperations = 1<<3 | 1<<6 | 1<<8

// simProtocol is the protocol a group of simulated consumers alone has
// chosen: the Java consumer's default partition.assignment.strategy lists
// range first, and a group takes the first protocol its members share.
const simProtocol = "range"

// groupState is ClassicGroupState's name for g now.
func groupState(g *broker.GroupOffsets, eg *extGroup) string {
	switch {
	case g.Rebalancing:
		return "PreparingRebalance"
	case eg != nil && eg.syncing:
		return "CompletingRebalance"
	case len(g.Members) == 0:
		return "Empty"
	}
	return "Stable"
}

// describedProtocolType is the protocol type a group is described with:
// its members', or, once it is empty, the one it kept.
func (w *World) describedProtocolType(g *broker.GroupOffsets, eg *extGroup) string {
	if len(g.Members) == 0 {
		return g.ProtocolType
	}
	return w.groupProtocolType(g, eg)
}

// groupProtocol is the protocol of a stable group's generation.
func groupProtocol(eg *extGroup) string {
	if eg != nil && len(eg.members) > 0 {
		return eg.protocol
	}
	return simProtocol
}

// describeGroups answers each group the broker coordinates with its state
// and members; a group it has never had is Dead, with no error (the
// GroupIdNotFoundException branch). Only a stable group names its
// protocol and gives each member's metadata for it; a member's assignment
// is the one the leader sent in the last SyncGroup (a simulated consumer
// reads the partitions its command names whatever it was assigned). The
// client's host is not part of a recorded session: it is left empty.
func (w *World) describeGroups(broker int, q *kmsg.DescribeGroupsRequest) *kmsg.DescribeGroupsResponse {
	resp := q.ResponseKind().(*kmsg.DescribeGroupsResponse)
	for _, name := range q.Groups {
		rg := kmsg.NewDescribeGroupsResponseGroup()
		rg.Group = name
		resp.Groups = append(resp.Groups, rg)
		d := &resp.Groups[len(resp.Groups)-1]
		if d.ErrorCode = w.groupCoordinator(broker, name); d.ErrorCode != errNone {
			continue
		}
		if q.IncludeAuthorizedOperations {
			d.AuthorizedOperations = groupOperations
		}
		w.expireMembers(name)
		g := w.tx.groups[name]
		if g == nil {
			d.State = "Dead"
			continue
		}
		eg := w.extGroupOf(name)
		d.State, d.ProtocolType = groupState(g, eg), w.describedProtocolType(g, eg)
		if d.State == "Stable" {
			d.Protocol = groupProtocol(eg)
		}
		for _, id := range sortedMembers(g) {
			dm := kmsg.NewDescribeGroupsResponseGroupMember()
			dm.MemberID, dm.MemberAssignment = id, []byte{}
			if m := eg.memberOrNil(id); m != nil {
				dm.ClientID = m.client
				if m.instance != "" {
					inst := m.instance
					dm.InstanceID = &inst
				}
				if m.assignment != nil {
					dm.MemberAssignment = m.assignment
				}
				if d.State == "Stable" {
					for _, p := range m.protocols {
						if p.Name == d.Protocol {
							dm.ProtocolMetadata = p.Metadata
							break
						}
					}
				}
			} else {
				dm.ClientID = g.Members[id]
				if a := eg.simAssigned(id); a != nil {
					dm.MemberAssignment = a
				}
				if d.State == "Stable" {
					dm.ProtocolMetadata = w.simSubscription(g.Members[id], id)
				}
			}
			if dm.ProtocolMetadata == nil {
				dm.ProtocolMetadata = []byte{}
			}
			d.Members = append(d.Members, dm)
		}
	}
	return resp
}

// listGroups lists the groups the broker coordinates, with their protocol
// type, state (v4+) and type (v5+: every group is classic), keeping those
// whose state is one of StatesFilter (any case) and whose type is one of
// TypesFilter, when given.
func (w *World) listGroups(broker int, q *kmsg.ListGroupsRequest) *kmsg.ListGroupsResponse {
	resp := q.ResponseKind().(*kmsg.ListGroupsResponse)
	states := map[string]bool{}
	for _, s := range q.StatesFilter {
		states[strings.ToLower(strings.TrimSpace(s))] = true
	}
	classic := len(q.TypesFilter) == 0
	for _, t := range q.TypesFilter {
		classic = classic || strings.ToLower(t) == "classic"
	}
	for _, name := range sortedKeysOf(w.tx.groups) {
		if c, ok := w.coordinatorOf(name, 0); !ok || c != broker || !classic {
			continue
		}
		w.expireMembers(name)
		g, eg := w.tx.groups[name], w.extGroupOf(name)
		state := groupState(g, eg)
		if len(states) > 0 && !states[strings.ToLower(state)] {
			continue
		}
		lg := kmsg.NewListGroupsResponseGroup()
		lg.Group, lg.ProtocolType, lg.GroupState, lg.GroupType = name, w.describedProtocolType(g, eg), state, "classic"
		resp.Groups = append(resp.Groups, lg)
	}
	return resp
}

// simAssigned is what the leader last assigned a simulated member, or nil.
func (eg *extGroup) simAssigned(id string) []byte {
	if eg == nil {
		return nil
	}
	return eg.simAsg[id]
}

// deleteGroups deletes each empty group the broker coordinates, with its
// committed offsets and the offsets pending in open transactions (a
// transaction that commits later commits none for it); a group with
// members is NON_EMPTY_GROUP, one that does not exist GROUP_ID_NOT_FOUND.
// A name given twice is answered once, as Kafka's result set keys by name.
func (w *World) deleteGroups(broker int, q *kmsg.DeleteGroupsRequest) *kmsg.DeleteGroupsResponse {
	resp := q.ResponseKind().(*kmsg.DeleteGroupsResponse)
	seen := map[string]bool{}
	for _, name := range q.Groups {
		if seen[name] {
			continue
		}
		seen[name] = true
		rg := kmsg.NewDeleteGroupsResponseGroup()
		rg.Group = name
		if rg.ErrorCode = w.groupCoordinator(broker, name); rg.ErrorCode == errNone {
			rg.ErrorCode = w.deleteGroup(name)
		}
		resp.Groups = append(resp.Groups, rg)
	}
	return resp
}

func (w *World) deleteGroup(name string) int16 {
	w.expireMembers(name)
	g := w.tx.groups[name]
	switch {
	case g == nil:
		return int16(kerr.GroupIDNotFound)
	case groupState(g, w.extGroupOf(name)) != "Empty":
		return int16(kerr.NonEmptyGroup)
	}
	delete(w.tx.groups, name)
	if w.ext != nil {
		delete(w.ext.groups, name)
	}
	if w.tracing() {
		w.emit(trace.New("group.deleted", fmt.Sprintf("group %s is deleted, with its committed offsets and any pending in open transactions (DeleteGroups)", name)).
			With("group", trace.Str(name)))
	}
	return errNone
}

// offsetDelete is OffsetMetadataManager.deleteOffsets for a classic group:
// only an empty group's offsets can go (validateOffsetDelete: a group with
// members is NON_EMPTY_GROUP, one that does not exist GROUP_ID_NOT_FOUND,
// for the whole request); each partition named loses its committed offset
// and the offsets pending for it in open transactions, and is answered
// NONE whether it had one or not.
func (w *World) offsetDelete(broker int, q *kmsg.OffsetDeleteRequest) *kmsg.OffsetDeleteResponse {
	resp := q.ResponseKind().(*kmsg.OffsetDeleteResponse)
	if resp.ErrorCode = w.groupCoordinator(broker, q.Group); resp.ErrorCode != errNone {
		return resp
	}
	w.expireMembers(q.Group)
	g := w.tx.groups[q.Group]
	switch {
	case g == nil:
		resp.ErrorCode = int16(kerr.GroupIDNotFound)
		return resp
	case groupState(g, w.extGroupOf(q.Group)) != "Empty":
		resp.ErrorCode = int16(kerr.NonEmptyGroup)
		return resp
	}
	var gone []string
	for _, t := range q.Topics {
		rt := kmsg.NewOffsetDeleteResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			tp := msg.TP{Topic: t.Topic, Partition: int(p.Partition)}
			_, had := g.Committed[tp]
			delete(g.Committed, tp)
			for pid, offs := range g.Pending {
				n := len(offs)
				if offs = slices.DeleteFunc(slices.Clone(offs), func(o msg.Offset) bool { return o.TP == tp }); len(offs) != n {
					had = true
					g.Pending[pid] = offs
					if len(offs) == 0 {
						delete(g.Pending, pid) // the marker will find nothing of this group's to commit
					}
				}
			}
			if had {
				gone = append(gone, tp.String())
			}
			rp := kmsg.NewOffsetDeleteResponseTopicPartition()
			rp.Partition = p.Partition
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	if w.tracing() && len(gone) > 0 {
		w.emit(trace.New("group.offsets_deleted", fmt.Sprintf("group %s forgets its offsets for %s (OffsetDelete)", q.Group, strings.Join(gone, ", "))).
			With("group", trace.Str(q.Group)).With("partitions", trace.Str(strings.Join(gone, ","))))
	}
	return resp
}
