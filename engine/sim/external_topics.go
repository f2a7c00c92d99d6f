package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Topics real clients create. The cluster's own topic (`cluster
// topic=NAME`) is the one the lab's simulated producers write; a real
// client may create more, with CreateTopics or, as Kafka's default
// auto.create.topics.enable=true allows, by asking Metadata for a topic
// that does not exist. Their partitions follow the cluster's in the
// world's partitions, so everything that walks the partitions (the
// controller, the replicas, the checker, the snapshot, the segment files)
// sees them too.

// Kafka's defaults for a topic created without a partition count or a
// replication factor (KafkaConfig num.partitions, default.replication.factor):
// one partition, and the served cluster's own replication factor — its
// brokers are configured as `cluster` configures them, so that
// min.insync.replicas (2 by default) can be met by acks=all producers.
const DefaultNumPartitions = 1

// MaxPartitions bounds the partitions of every topic together, as the
// command language bounds `cluster partitions=`: every partition must fit
// on the lab's screen. A creation past it is refused POLICY_VIOLATION.
const MaxPartitions = 64

// Kafka's internal topics (Topic.INTERNAL_TOPICS, and the metadata log):
// the engine models the first two as the coordinators' partitions, never
// as topics a client can describe or create.
const (
	offsetsTopic  = "__consumer_offsets"
	txnStateTopic = "__transaction_state"
	metadataTopic = "__cluster_metadata"
)

// createdMeta finds a partition a real client created: of a topic it
// created, or one it added to a topic (CreatePartitions).
func (w *World) createdMeta(tp msg.TP) *partMeta {
	for _, m := range w.parts[w.cluster.Partitions:] { // none, unless a real client created a topic
		if m.tp == tp {
			return m
		}
	}
	return nil
}

// partIndex is where tp is in the world's partitions: the cluster's topic
// first, by partition number, then the partitions real clients created, in
// the order they were created. tp must exist.
func (w *World) partIndex(tp msg.TP) int {
	if tp.Topic == w.cluster.Topic && tp.Partition < w.cluster.Partitions {
		return tp.Partition
	}
	for i := w.cluster.Partitions; i < len(w.parts); i++ {
		if w.parts[i].tp == tp {
			return i
		}
	}
	panic(fmt.Sprintf("partIndex: no partition %s", tp))
}

// topicNames lists every topic, the cluster's first, then the others in
// the order they were created.
func (w *World) topicNames() []string {
	names := []string{w.cluster.Topic}
	for _, m := range w.parts[w.cluster.Partitions:] {
		if !slices.Contains(names, m.tp.Topic) {
			names = append(names, m.tp.Topic)
		}
	}
	return names
}

// topicPartitions are the partitions of a topic, in order (none when it
// does not exist). Partitions added to a topic (CreatePartitions) follow
// every partition created before them in the world's partitions, and
// each topic's are in partition order there.
func (w *World) topicPartitions(topic string) []*partMeta {
	var out []*partMeta
	if topic == w.cluster.Topic {
		out = w.parts[:w.cluster.Partitions:w.cluster.Partitions] // appending copies
	}
	for _, m := range w.parts[w.cluster.Partitions:] {
		if m.tp.Topic == topic {
			out = append(out, m)
		}
	}
	return out
}

func (w *World) topicExists(topic string) bool { return len(w.topicPartitions(topic)) > 0 }

// topicByID is the topic whose TopicID is id, or "".
func (w *World) topicByID(id [16]byte) string {
	for _, t := range w.topicNames() {
		if TopicID(t) == id {
			return t
		}
	}
	return ""
}

// invalidTopic is Kafka's Topic.validate (and its messages): nil for a
// name Kafka accepts.
func invalidTopic(name string) error {
	why := ""
	switch {
	case name == "":
		why = "the empty string is not allowed"
	case name == ".":
		why = "'.' is not allowed"
	case name == "..":
		why = "'..' is not allowed"
	case len(name) > 249:
		why = fmt.Sprintf("the length of '%s' is longer than the max allowed length 249", name)
	default:
		for i := 0; i < len(name); i++ {
			c := name[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				why = fmt.Sprintf("'%s' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'", name)
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("Topic name is invalid: %s", why)
}

// collision is the existing topic a new name collides with (Kafka refuses
// names that differ only by '.' and '_', Topic.hasCollision), or "".
func (w *World) collision(name string) string {
	if !strings.ContainsAny(name, "._") {
		return ""
	}
	unify := func(s string) string { return strings.ReplaceAll(s, ".", "_") }
	for _, t := range w.topicNames() {
		if t != name && unify(t) == unify(name) {
			return t
		}
	}
	return ""
}

// topicRefusal is one refused topic creation: Kafka's error and message.
type topicRefusal struct {
	code int16
	why  string
}

// placeTopic decides where the replicas of a new topic go, as Kafka's
// controller does for a creation without a manual assignment
// (ReplicationControlManager.createTopic): numPartitions and rf of -1
// take the defaults. Partitions are striped over the brokers, each led
// by a live one, starting where the last topic left off (Kafka's
// StripedReplicaPlacer starts at random; here the start follows from the
// partitions so far, so a replayed session places them alike).
func (w *World) placeTopic(numPartitions int32, rf int16) ([][]int, *topicRefusal) {
	switch {
	case rf < -1 || rf == 0:
		return nil, &topicRefusal{errInvalidReplicationFactor, "Replication factor must be larger than 0, or -1 to use the default value."}
	case numPartitions < -1 || numPartitions == 0:
		return nil, &topicRefusal{errInvalidPartitions, "Number of partitions was set to an invalid non-positive value."}
	}
	n, r := int(numPartitions), int(rf)
	if n == -1 {
		n = DefaultNumPartitions
	}
	if r == -1 {
		r = w.cluster.RF
	}
	if r > len(w.brokers) {
		return nil, &topicRefusal{errInvalidReplicationFactor, fmt.Sprintf("Unable to replicate the partition %d time(s): "+
			"The target replication factor of %d cannot be reached because only %d broker(s) are registered.", r, r, len(w.brokers))}
	}
	if len(w.parts)+n > MaxPartitions {
		return nil, &topicRefusal{errPolicyViolation, w.tooMany(n)}
	}
	// Live brokers first, so that a partition's first replica, its leader,
	// is live (Kafka's placer puts no leader on a fenced broker).
	var order []int
	for _, live := range []bool{true, false} {
		for _, b := range w.brokers {
			if b.Alive() == live {
				order = append(order, b.ID)
			}
		}
	}
	if !w.brokers[order[0]-1].Alive() {
		return nil, &topicRefusal{errInvalidReplicationFactor, fmt.Sprintf("Unable to replicate the partition %d time(s): All brokers are currently fenced or in controlled shutdown.", r)}
	}
	live := 0
	for _, id := range order {
		if w.brokers[id-1].Alive() {
			live++
		}
	}
	out := make([][]int, n)
	for p := range out {
		first := (len(w.parts) + p) % live
		for i := range r {
			out[p] = append(out[p], order[(first+i)%len(order)])
		}
	}
	return out, nil
}

func (w *World) tooMany(n int) string {
	return fmt.Sprintf("eoslab serve holds at most %d partitions over all topics (every partition must fit on the lab's screen): %d exist, %d more asked for",
		MaxPartitions, len(w.parts), n)
}

// manualAssignment checks a CreateTopics' own replica assignment as Kafka
// does (ReplicationControlManager.createTopic, validateManualPartitionAssignment).
func (w *World) manualAssignment(t kmsg.CreateTopicsRequestTopic) ([][]int, *topicRefusal) {
	if t.ReplicationFactor != -1 {
		return nil, &topicRefusal{errInvalidRequest, "A manual partition assignment was specified, but replication factor was not set to -1."}
	}
	if t.NumPartitions != -1 {
		return nil, &topicRefusal{errInvalidRequest, "A manual partition assignment was specified, but numPartitions was not set to -1."}
	}
	byIndex := map[int32][]int{}
	rf := -1
	for _, a := range t.ReplicaAssignment {
		if _, dup := byIndex[a.Partition]; dup {
			return nil, &topicRefusal{errInvalidReplicaAssignment, fmt.Sprintf("Found multiple manual partition assignments for partition %d", a.Partition)}
		}
		reps, no := w.manualReplicas(a.Replicas, rf, int(a.Partition))
		if no != nil {
			return nil, no
		}
		rf = len(reps)
		byIndex[a.Partition] = reps
	}
	out := make([][]int, len(byIndex))
	for i := range out {
		reps, ok := byIndex[int32(i)]
		if !ok {
			return nil, &topicRefusal{errInvalidReplicaAssignment, "partitions should be a consecutive 0-based integer sequence"}
		}
		out[i] = reps
	}
	if len(w.parts)+len(out) > MaxPartitions {
		return nil, &topicRefusal{errPolicyViolation, w.tooMany(len(out))}
	}
	return out, nil
}

// manualReplicas checks one partition's manual replica assignment as
// ReplicationControlManager.validateManualPartitionAssignment does — the
// brokers in order of their ids, then the count against rf (-1: none yet)
// — and that one of them is live. It returns the replicas in the order
// given: the first live one leads.
func (w *World) manualReplicas(ids []int32, rf, partition int) ([]int, *topicRefusal) {
	if len(ids) == 0 {
		return nil, &topicRefusal{errInvalidReplicaAssignment, "The manual partition assignment includes an empty replica list."}
	}
	sorted := slices.Sorted(slices.Values(ids))
	for i, id := range sorted {
		switch {
		case w.broker(int(id)) == nil:
			return nil, &topicRefusal{errInvalidReplicaAssignment, fmt.Sprintf("The manual partition assignment includes broker %d, but no such broker is registered.", id)}
		case i > 0 && id == sorted[i-1]:
			return nil, &topicRefusal{errInvalidReplicaAssignment, fmt.Sprintf("The manual partition assignment includes the broker %d more than once.", id)}
		}
	}
	if rf >= 0 && len(ids) != rf {
		return nil, &topicRefusal{errInvalidReplicaAssignment, fmt.Sprintf("The manual partition assignment includes a partition with %d replica(s), "+
			"but this is not consistent with previous partitions, which have %d replica(s).", len(ids), rf)}
	}
	reps := make([]int, len(ids))
	for i, id := range ids {
		reps[i] = int(id)
	}
	if !slices.ContainsFunc(reps, func(id int) bool { return w.brokers[id-1].Alive() }) {
		return nil, &topicRefusal{errInvalidReplicaAssignment, fmt.Sprintf("All brokers specified in the manual partition assignment for partition %d are fenced or in controlled shutdown.", partition)}
	}
	return reps, nil
}

// createPartitions answers CreatePartitions as Kafka's controller does
// (ControllerApis.createPartitions, ReplicationControlManager.createPartitions):
// a topic named twice is INVALID_REQUEST, answered first; for each other
// topic the count must be an increase, the assignments (if any) one per new
// partition with the replication factor of the topic's first partition,
// and the new partitions are placed as a new topic's are. validate_only
// checks only.
func (w *World) createPartitions(q *kmsg.CreatePartitionsRequest) *kmsg.CreatePartitionsResponse {
	resp := q.ResponseKind().(*kmsg.CreatePartitionsResponse)
	count := map[string]int{}
	for _, t := range q.Topics {
		count[t.Topic]++
	}
	result := func(topic string, no *topicRefusal) {
		rt := kmsg.NewCreatePartitionsResponseTopic()
		rt.Topic = topic
		if no != nil {
			rt.ErrorCode = no.code
			if no.why != "" {
				why := no.why
				rt.ErrorMessage = &why
			}
		}
		resp.Topics = append(resp.Topics, rt)
	}
	named := map[string]bool{}
	for _, t := range q.Topics {
		if count[t.Topic] > 1 && !named[t.Topic] {
			named[t.Topic] = true
			result(t.Topic, &topicRefusal{errInvalidRequest, "Duplicate topic name."})
		}
	}
	for _, t := range q.Topics {
		if count[t.Topic] > 1 {
			continue
		}
		first, reps, no := w.newPartitions(t)
		if no == nil && !q.ValidateOnly {
			w.addPartitions(t.Topic, first, reps)
		}
		result(t.Topic, no)
	}
	return resp
}

// newPartitions checks one topic of a CreatePartitions and places its new
// partitions: it returns the first new partition's number and each new
// partition's replicas, or why not.
func (w *World) newPartitions(t kmsg.CreatePartitionsRequestTopic) (int, [][]int, *topicRefusal) {
	parts := w.topicPartitions(t.Topic)
	cur, want := len(parts), int(t.Count)
	switch {
	case cur == 0:
		return 0, nil, &topicRefusal{errUnknownTopicOrPartition, ""}
	case want == cur:
		return 0, nil, &topicRefusal{errInvalidPartitions, fmt.Sprintf("Topic already has %d partition(s).", cur)}
	case want < cur:
		return 0, nil, &topicRefusal{errInvalidPartitions, fmt.Sprintf("The topic %s currently has %d partition(s); %d would not be an increase.", t.Topic, cur, want)}
	}
	add, rf := want-cur, len(parts[0].replicas)
	if t.Assignment == nil {
		reps, no := w.placeTopic(int32(add), int16(rf))
		return cur, reps, no
	}
	if len(t.Assignment) != add {
		return 0, nil, &topicRefusal{errInvalidReplicaAssignment, fmt.Sprintf("Attempted to add %d additional partition(s), but only %d assignment(s) were specified.", add, len(t.Assignment))}
	}
	out := make([][]int, add)
	for i, a := range t.Assignment {
		reps, no := w.manualReplicas(a.Replicas, rf, cur+i)
		if no != nil {
			return 0, nil, no
		}
		out[i] = reps
	}
	if len(w.parts)+add > MaxPartitions {
		return 0, nil, &topicRefusal{errPolicyViolation, w.tooMany(add)}
	}
	return cur, out, nil
}

// addTopic creates a topic whose partition p has the replicas given: the
// live replicas are its ISR and the first of them leads, at leader epoch
// 0 (Kafka's buildPartitionRegistration). A replica on a broker that is
// down joins when the broker comes back.
func (w *World) addTopic(name string, replicas [][]int) { w.addPartitions(name, 0, replicas) }

// addPartitions adds partitions first, first+1, ... of a topic, with the
// replicas given, as addTopic creates a topic's.
func (w *World) addPartitions(name string, first int, replicas [][]int) {
	pcfg := partition.Config{SegmentBytes: w.cluster.SegmentBytes}
	env := w.benv
	for i, reps := range replicas {
		tp := msg.TP{Topic: name, Partition: first + i}
		m := &partMeta{tp: tp, replicas: slices.Clone(reps)}
		for _, id := range reps {
			w.brokers[id-1].AddReplica(tp, pcfg)
			if w.brokers[id-1].Alive() {
				m.isr = append(m.isr, id)
			}
		}
		m.leader = m.isr[0]
		slices.Sort(m.isr)
		w.parts = append(w.parts, m)
		w.brokers[m.leader-1].BecomeLeader(tp, m.epoch, m.replicas, m.isr, env)
		for _, id := range m.isr {
			if id != m.leader {
				w.brokers[id-1].BecomeFollower(tp, m.leader, m.epoch, m.replicas, w.leaderLog(m), env)
			}
		}
	}
}

// internalTopic answers for Kafka's internal topics, which the engine
// keeps as the coordinators' partitions: they exist, but are neither
// described nor created.
func internalTopic(name string) bool {
	return name == offsetsTopic || name == txnStateTopic || name == metadataTopic
}

// createTopic is one topic of a CreateTopics, checked in Kafka's order
// (ControllerApis.createTopics, ReplicationControlManager.createTopics):
// the name, whether it exists, its configs, its placement. It returns the
// partitions' replicas, or why not.
func (w *World) createTopic(t kmsg.CreateTopicsRequestTopic) ([][]int, *topicRefusal) {
	switch {
	case t.Topic == metadataTopic:
		return nil, &topicRefusal{errInvalidRequest, "Creation of internal topic " + metadataTopic + " is prohibited."}
	case invalidTopic(t.Topic) != nil:
		return nil, &topicRefusal{errInvalidTopic, invalidTopic(t.Topic).Error()}
	case w.collision(t.Topic) != "":
		return nil, &topicRefusal{errInvalidTopic, fmt.Sprintf("Topic '%s' collides with existing topic: %s", t.Topic, w.collision(t.Topic))}
	case w.topicExists(t.Topic) || internalTopic(t.Topic):
		return nil, &topicRefusal{errTopicAlreadyExists, fmt.Sprintf("Topic '%s' already exists.", t.Topic)}
	}
	if r := w.configRefusal(t.Configs); r != nil {
		return nil, r
	}
	if len(t.ReplicaAssignment) > 0 {
		return w.manualAssignment(t)
	}
	return w.placeTopic(t.NumPartitions, t.ReplicationFactor)
}

// topicHas reports whether a served topic has config name at value: the
// configs the engine models have Kafka's defaults (LogConfig), and
// min.insync.replicas is the cluster's. Every other config is false.
func (w *World) topicHas(name, value string) bool {
	value = strings.TrimSpace(value)
	switch name {
	case "cleanup.policy":
		return value == "delete"
	case "compression.type":
		return value == "producer"
	case "max.message.bytes":
		return value == strconv.Itoa(MaxMessageBytes)
	case "message.timestamp.type":
		return value == "CreateTime"
	case "min.insync.replicas":
		return value == strconv.Itoa(w.cluster.MinInsync)
	case "unclean.leader.election.enable":
		return strings.EqualFold(value, "false") // ConfigDef parses a boolean in any case
	}
	return false
}

// configRefusal checks a new topic's configs: a config may be set to the
// value the topic has anyway (topicHas); anything else would make the
// engine claim what it does not do, and is refused INVALID_CONFIG. Null
// values are refused first, with Kafka's message
// (ControllerConfigurationValidator.validate).
func (w *World) configRefusal(configs []kmsg.CreateTopicsRequestTopicConfig) *topicRefusal {
	var null, other []string
	for _, c := range configs {
		if c.Value == nil {
			null = append(null, c.Name)
			continue
		}
		if !w.topicHas(c.Name, *c.Value) {
			other = append(other, c.Name+"="+*c.Value)
		}
	}
	switch {
	case len(null) > 0:
		return &topicRefusal{errInvalidConfig, "Null value not supported for topic configs: " + strings.Join(null, ",")}
	case len(other) > 0:
		return &topicRefusal{errInvalidConfig, fmt.Sprintf("eoslab serve models a topic with Kafka's default configs only (%s): it could not do what they ask", strings.Join(other, ", "))}
	}
	return nil
}

// createTopics answers CreateTopics: each topic is created (unless the
// request only validates) or refused with Kafka's error and message.
func (w *World) createTopics(q *kmsg.CreateTopicsRequest) *kmsg.CreateTopicsResponse {
	resp := q.ResponseKind().(*kmsg.CreateTopicsResponse)
	count := map[string]int{}
	for _, t := range q.Topics {
		count[t.Topic]++
	}
	for _, t := range q.Topics {
		rt := kmsg.NewCreateTopicsResponseTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = t.Topic, -1, -1
		var reps [][]int
		var no *topicRefusal
		if count[t.Topic] > 1 {
			no = &topicRefusal{errInvalidRequest, "Duplicate topic name."}
		} else {
			reps, no = w.createTopic(t)
		}
		if no != nil {
			rt.ErrorCode = no.code
			why := no.why
			rt.ErrorMessage = &why
			resp.Topics = append(resp.Topics, rt)
			continue
		}
		overrides := overridesOf(t.Configs)
		if !q.ValidateOnly {
			w.addTopic(t.Topic, reps)
			w.ext.noteTopicOverrides(t.Topic, overrides)
		}
		rt.NumPartitions, rt.ReplicationFactor = int32(len(reps)), int16(len(reps[0]))
		rt.TopicID = TopicID(t.Topic)
		if q.Version >= 5 {
			rt.Configs = w.createdConfigs(overrides)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// autoCreate is Metadata asking for a topic that does not exist, with
// auto-creation allowed: Kafka's broker hands the creation to the
// controller (AutoTopicCreationManager, with num.partitions and
// default.replication.factor) and answers UNKNOWN_TOPIC_OR_PARTITION at
// once; the client asks again and finds the topic. A name Kafka refuses is
// INVALID_TOPIC_EXCEPTION; one the controller cannot place stays unknown.
func (w *World) autoCreate(name string) int16 {
	if invalidTopic(name) != nil {
		return errInvalidTopic
	}
	if internalTopic(name) || w.collision(name) != "" {
		return errUnknownTopicOrPartition
	}
	if reps, no := w.placeTopic(-1, -1); no == nil {
		w.addTopic(name, reps)
	}
	return errUnknownTopicOrPartition
}
