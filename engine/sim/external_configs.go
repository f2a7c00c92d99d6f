package sim

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeConfigs, as ConfigHelper.describeConfigs answers it, for what
// the served cluster has: its topics' configs and its brokers' dynamic
// default configs (none). A served topic has Kafka's defaults (LogConfig,
// as of 3.9), min.insync.replicas the cluster's (set in the brokers'
// static configuration), segment.bytes the cluster's when the cluster
// sets it, and whatever its CreateTopics named — configs the topic has
// anyway (configRefusal) — as topic overrides. The engine models the
// checks and the log, not retention or flushing: their values are
// Kafka's defaults, which the engine does not act on (docs/serve.md).

// Where a config's value comes from (DescribeConfigsResponse's ConfigSource).
const (
	sourceTopic         = 1 // TOPIC_CONFIG: the topic's own override
	sourceStaticBroker  = 4 // STATIC_BROKER_CONFIG: the brokers' configuration file
	sourceDefaultConfig = 5 // DEFAULT_CONFIG: Kafka's default
)

// A config's type (ConfigDef.Type, as DescribeConfigs v3+ numbers it).
const (
	typeBoolean = 1
	typeString  = 2
	typeInt     = 3
	typeLong    = 5
	typeDouble  = 6
	typeList    = 7
)

// topicConfig is one of LogConfig's topic configs.
type topicConfig struct {
	name string
	kind int8
	def  string // the topic's default, as ConfigDef.convertToString writes it
	// server is the broker config that sets the default for every topic
	// (ServerTopicConfigSynonyms' first synonym), "" for none
	// (LogConfig.CONFIGS_WITH_NO_SERVER_DEFAULTS); serverDef is its own
	// default, "" when it has none (log.retention.ms, whose default comes
	// from log.retention.hours: Kafka then lists no synonym).
	server, serverDef string
}

const maxLong = "9223372036854775807"

// topicConfigs are LogConfig's topic configs, by name.
var topicConfigs = []topicConfig{
	{"cleanup.policy", typeList, "delete", "log.cleanup.policy", "delete"},
	{"compression.gzip.level", typeInt, "-1", "compression.gzip.level", "-1"},
	{"compression.lz4.level", typeInt, "9", "compression.lz4.level", "9"},
	{"compression.type", typeString, "producer", "compression.type", "producer"},
	{"compression.zstd.level", typeInt, "3", "compression.zstd.level", "3"},
	{"delete.retention.ms", typeLong, "86400000", "log.cleaner.delete.retention.ms", "86400000"},
	{"file.delete.delay.ms", typeLong, "60000", "log.segment.delete.delay.ms", "60000"},
	{"flush.messages", typeLong, maxLong, "log.flush.interval.messages", maxLong},
	{"flush.ms", typeLong, maxLong, "log.flush.interval.ms", ""},
	{"follower.replication.throttled.replicas", typeList, "", "", ""},
	{"index.interval.bytes", typeInt, "4096", "log.index.interval.bytes", "4096"},
	{"leader.replication.throttled.replicas", typeList, "", "", ""},
	{"local.retention.bytes", typeLong, "-2", "log.local.retention.bytes", "-2"},
	{"local.retention.ms", typeLong, "-2", "log.local.retention.ms", "-2"},
	{"max.compaction.lag.ms", typeLong, maxLong, "log.cleaner.max.compaction.lag.ms", maxLong},
	{"max.message.bytes", typeInt, strconv.Itoa(MaxMessageBytes), "message.max.bytes", strconv.Itoa(MaxMessageBytes)},
	{"message.downconversion.enable", typeBoolean, "true", "log.message.downconversion.enable", "true"},
	{"message.format.version", typeString, "3.0-IV1", "log.message.format.version", "3.0-IV1"},
	{"message.timestamp.after.max.ms", typeLong, maxLong, "log.message.timestamp.after.max.ms", maxLong},
	{"message.timestamp.before.max.ms", typeLong, maxLong, "log.message.timestamp.before.max.ms", maxLong},
	{"message.timestamp.difference.max.ms", typeLong, maxLong, "log.message.timestamp.difference.max.ms", maxLong},
	{"message.timestamp.type", typeString, "CreateTime", "log.message.timestamp.type", "CreateTime"},
	{"min.cleanable.dirty.ratio", typeDouble, "0.5", "log.cleaner.min.cleanable.ratio", "0.5"},
	{"min.compaction.lag.ms", typeLong, "0", "log.cleaner.min.compaction.lag.ms", "0"},
	{"min.insync.replicas", typeInt, "1", "min.insync.replicas", "1"},
	{"preallocate", typeBoolean, "false", "log.preallocate", "false"},
	{"remote.log.copy.disable", typeBoolean, "false", "", ""},
	{"remote.log.delete.on.disable", typeBoolean, "false", "", ""},
	{"remote.storage.enable", typeBoolean, "false", "", ""},
	{"retention.bytes", typeLong, "-1", "log.retention.bytes", "-1"},
	{"retention.ms", typeLong, "604800000", "log.retention.ms", ""},
	{"segment.bytes", typeInt, "1073741824", "log.segment.bytes", "1073741824"},
	{"segment.index.bytes", typeInt, "10485760", "log.index.size.max.bytes", "10485760"},
	{"segment.jitter.ms", typeLong, "0", "log.roll.jitter.ms", ""},
	{"segment.ms", typeLong, "604800000", "log.roll.ms", ""},
	{"unclean.leader.election.enable", typeBoolean, "false", "unclean.leader.election.enable", "false"},
}

// staticBrokerConfigs are the broker configs the served brokers'
// configuration file sets: what the cluster configures.
func (w *World) staticBrokerConfigs() map[string]string {
	out := map[string]string{"min.insync.replicas": strconv.Itoa(w.cluster.MinInsync)}
	if w.cluster.SegmentBytes != 0 {
		out["log.segment.bytes"] = strconv.Itoa(w.cluster.SegmentBytes)
	}
	return out
}

// describeConfigs answers each resource: a topic's configs, the brokers'
// dynamic defaults (none), a client-metrics subscription's (none); a
// broker's own full configuration and its loggers are not modelled and
// are refused INVALID_REQUEST, saying so.
func (w *World) describeConfigs(broker int, q *kmsg.DescribeConfigsRequest) *kmsg.DescribeConfigsResponse {
	resp := q.ResponseKind().(*kmsg.DescribeConfigsResponse)
	for _, r := range q.Resources {
		rr := kmsg.NewDescribeConfigsResponseResource()
		rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
		refuse := func(code int16, why string) {
			rr.ErrorCode, rr.ErrorMessage = code, &why
		}
		switch r.ResourceType {
		case kmsg.ConfigResourceTypeTopic:
			switch {
			case invalidTopic(r.ResourceName) != nil:
				refuse(errInvalidTopic, invalidTopic(r.ResourceName).Error())
			case !w.topicExists(r.ResourceName):
				rr.ErrorCode = errUnknownTopicOrPartition
			default:
				rr.Configs = w.topicConfigEntries(w.ext.topicOverrides(r.ResourceName), r.ConfigNames, q.IncludeSynonyms)
			}
		case kmsg.ConfigResourceTypeBroker, kmsg.ConfigResourceTypeBrokerLogger:
			logger := r.ResourceType == kmsg.ConfigResourceTypeBrokerLogger
			id, err := strconv.Atoi(r.ResourceName)
			switch {
			case r.ResourceName == "" && !logger:
				// The dynamic default broker configs: none were ever set.
			case r.ResourceName == "":
				refuse(errInvalidRequest, "Broker id must not be empty")
			case err != nil:
				refuse(errInvalidRequest, "Broker id must be an integer, but it is: "+r.ResourceName)
			case id != broker && logger:
				refuse(errInvalidRequest, fmt.Sprintf("Unexpected broker id, expected %d but received %s", broker, r.ResourceName))
			case id != broker:
				refuse(errInvalidRequest, fmt.Sprintf("Unexpected broker id, expected %d or empty string, but received %s", broker, r.ResourceName))
			default:
				refuse(errInvalidRequest, "eoslab serve describes topic configs and the brokers' dynamic defaults, not a broker's own configuration or loggers (docs/serve.md)")
			}
		case kmsg.ConfigResourceTypeClientMetrics:
			if r.ResourceName == "" {
				refuse(errInvalidRequest, "Client metrics subscription name must not be empty")
			} // else: no subscription was ever configured
		default:
			refuse(errInvalidRequest, "Unsupported resource type: "+resourceTypeName(r.ResourceType))
		}
		resp.Resources = append(resp.Resources, rr)
	}
	return resp
}

// topicConfigEntries is createTopicConfigEntry for each config of a topic
// with the overrides given (those named, or all): its value, where it
// comes from, and, when asked, its synonyms — the topic's override, then
// the brokers' static setting, then the broker config's default.
func (w *World) topicConfigEntries(overrides map[string]string, names []string, synonyms bool) []kmsg.DescribeConfigsResponseResourceConfig {
	static := w.staticBrokerConfigs()
	var out []kmsg.DescribeConfigsResponseResourceConfig
	for _, c := range topicConfigs {
		if len(names) > 0 && !slices.Contains(names, c.name) {
			continue
		}
		value := c.def
		var all []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym
		add := func(name, value string, source kmsg.ConfigSource) {
			s := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
			v := value
			s.Name, s.Value, s.Source = name, &v, source
			all = append(all, s)
		}
		if c.server != "" {
			if v, ok := static[c.server]; ok {
				value = v
				add(c.server, v, sourceStaticBroker)
			}
			if c.serverDef != "" {
				add(c.server, c.serverDef, sourceDefaultConfig)
			}
		}
		if _, ok := overrides[c.name]; ok {
			// configRefusal let only the value the topic has anyway through.
			all = append([]kmsg.DescribeConfigsResponseResourceConfigConfigSynonym{{Name: c.name, Value: &value, Source: sourceTopic}}, all...)
		}
		e := kmsg.NewDescribeConfigsResponseResourceConfig()
		v := value
		e.Name, e.Value, e.ConfigType, e.Source = c.name, &v, kmsg.ConfigType(c.kind), sourceDefaultConfig
		if len(all) > 0 {
			e.Source = all[0].Source
		}
		e.IsDefault = e.Source == sourceDefaultConfig // what version 0 says instead of the source
		if synonyms {
			e.ConfigSynonyms = all
		}
		out = append(out, e)
	}
	return out
}

// topicOverrides are the configs a topic's CreateTopics named, or none.
func (e *extWorld) topicOverrides(topic string) map[string]string {
	if e == nil {
		return nil
	}
	return e.topicConfigs[topic]
}

// overridesOf are the configs a CreateTopics names for a topic, or nil.
func overridesOf(configs []kmsg.CreateTopicsRequestTopicConfig) map[string]string {
	if len(configs) == 0 {
		return nil
	}
	m := make(map[string]string, len(configs))
	for _, c := range configs {
		m[c.Name] = *c.Value // configRefusal refused null values
	}
	return m
}

// noteTopicOverrides keeps a created topic's overrides.
func (e *extWorld) noteTopicOverrides(topic string, overrides map[string]string) {
	if overrides == nil {
		return
	}
	if e.topicConfigs == nil {
		e.topicConfigs = map[string]map[string]string{}
	}
	e.topicConfigs[topic] = overrides
}

// createdConfigs are a created topic's configs as CreateTopics v5+
// answers them (ReplicationControlManager.createTopic: the effective
// configs, by name, with their sources).
func (w *World) createdConfigs(overrides map[string]string) []kmsg.CreateTopicsResponseTopicConfig {
	var out []kmsg.CreateTopicsResponseTopicConfig
	for _, e := range w.topicConfigEntries(overrides, nil, false) {
		c := kmsg.NewCreateTopicsResponseTopicConfig()
		c.Name, c.Value, c.Source = e.Name, e.Value, int8(e.Source)
		out = append(out, c)
	}
	return out
}

// resourceTypeName is ConfigResource.Type's name for t.
func resourceTypeName(t kmsg.ConfigResourceType) string {
	switch t {
	case 32:
		return "GROUP" // KIP-848's group configs, not served
	case kmsg.ConfigResourceTypeTopic, kmsg.ConfigResourceTypeBroker, kmsg.ConfigResourceTypeBrokerLogger, kmsg.ConfigResourceTypeClientMetrics:
		return t.String()
	}
	return "UNKNOWN"
}
