package sim

import (
	"slices"
	"strconv"

	"github.com/eoslab/eoslab/engine/kerr"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ElectLeaders (kafka-leader-election.sh), as Kafka's controller answers
// it (ReplicationControlManager.electLeaders and electLeader,
// PartitionChangeBuilder's electPreferredLeader and electAnyLeader):
//
//   - preferred (type 0): the partition's first replica leads again if it
//     is alive and in the ISR; if it cannot and the leader can stay, the
//     leader stays (PREFERRED_LEADER_NOT_AVAILABLE); a partition the first
//     replica leads already needs none (ELECTION_NOT_NEEDED);
//   - unclean (type 1): only a partition without a leader is elected,
//     from the ISR if one of it is alive, else from any live replica —
//     losing what that replica lacks, acknowledged records included, as
//     `failover TP unclean` does; ELIGIBLE_LEADERS_NOT_AVAILABLE when no
//     replica is alive.
//
// With no partitions named, every partition is elected and those that
// needed none are left out of the answer. A replica can lead while its
// broker runs (Kafka: while it is not fenced).

// The election types, and the errors only ElectLeaders gives with
// Kafka's messages (Errors.java).
const (
	electPreferred = 0
	electUnclean   = 1

	errPreferredLeaderNotAvailable = int16(kerr.PreferredLeaderNotAvailable)
	errEligibleLeadersNotAvailable = int16(kerr.EligibleLeadersNotAvailable)
	errElectionNotNeeded           = int16(kerr.ElectionNotNeeded)
	msgPreferredLeaderNotAvailable = "The preferred leader was not available."
	msgEligibleLeadersNotAvailable = "Eligible topic partition leaders are not available."
	msgElectionNotNeeded           = "Leader election not needed for topic partition."
)

func (w *World) electLeaders(q *kmsg.ElectLeadersRequest) *kmsg.ElectLeadersResponse {
	resp := q.ResponseKind().(*kmsg.ElectLeadersResponse)
	unclean := q.Version >= 1 && q.ElectionType == electUnclean
	result := func(rt *kmsg.ElectLeadersResponseTopic, p int32, code int16, why string) {
		rp := kmsg.NewElectLeadersResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p, code
		if why != "" {
			rp.ErrorMessage = &why
		}
		rt.Partitions = append(rt.Partitions, rp)
	}
	if q.Topics == nil {
		for _, name := range w.topicNames() {
			rt := kmsg.NewElectLeadersResponseTopic()
			rt.Topic = name
			for _, m := range w.topicPartitions(name) {
				if code, why := w.electLeader(m, unclean); code != errElectionNotNeeded {
					result(&rt, int32(m.tp.Partition), code, why)
				}
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}
	for _, t := range q.Topics {
		rt := kmsg.NewElectLeadersResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			switch m := w.meta(msg.TP{Topic: t.Topic, Partition: int(p)}); {
			case !w.topicExists(t.Topic):
				result(&rt, p, errUnknownTopicOrPartition, "No such topic as "+t.Topic)
			case m == nil:
				result(&rt, p, errUnknownTopicOrPartition, "No such partition as "+t.Topic+"-"+strconv.Itoa(int(p)))
			default:
				code, why := w.electLeader(m, unclean)
				result(&rt, p, code, why)
			}
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// electLeader elects m's leader as electLeader does, returning the error
// code and message of the partition's result.
func (w *World) electLeader(m *partMeta, unclean bool) (int16, string) {
	canLead := func(id int) bool { return id != 0 && w.brokers[id-1].Alive() && slices.Contains(m.isr, id) }
	if !unclean {
		preferred := m.replicas[0]
		switch {
		case m.leader == preferred:
			return errElectionNotNeeded, msgElectionNotNeeded
		case canLead(preferred):
			w.elect(m, preferred, liveOf(w, m.isr), "preferred leader election (ElectLeaders)")
			return errNone, ""
		case canLead(m.leader):
			return errPreferredLeaderNotAvailable, msgPreferredLeaderNotAvailable
		}
		for _, id := range m.replicas[1:] {
			if canLead(id) {
				w.elect(m, id, liveOf(w, m.isr), "leader election (ElectLeaders): the preferred replica cannot lead")
				return errNone, ""
			}
		}
		return errPreferredLeaderNotAvailable, msgPreferredLeaderNotAvailable
	}
	if m.leader != 0 {
		return errElectionNotNeeded, msgElectionNotNeeded
	}
	for _, id := range m.replicas {
		if canLead(id) {
			w.elect(m, id, liveOf(w, m.isr), "leader election (ElectLeaders)")
			return errNone, ""
		}
	}
	for _, id := range m.replicas {
		if w.brokers[id-1].Alive() {
			w.elect(m, id, []int{id}, "unclean election (ElectLeaders)")
			return errNone, ""
		}
	}
	return errEligibleLeadersNotAvailable, msgEligibleLeadersNotAvailable
}
