package serve

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// DescribeConfigs as kafka-topics.sh --describe and kafka-configs.sh send
// it (ConfigHelper.describeConfigs), and CreateTopics v5+'s answer with
// the new topic's configs: every topic config of Kafka's
// LogConfig with its value and where it comes from — Kafka's default, the
// brokers' static min.insync.replicas, or the topic's own override from
// its CreateTopics — and, when asked, the synonyms in Kafka's order; only
// the configs named when some are; UNKNOWN_TOPIC_OR_PARTITION for a topic
// that does not exist; the brokers' dynamic defaults are empty; a broker's
// own configuration is refused with a message that says why.
func TestDescribeConfigs(t *testing.T) {
	s, _ := start(t, Config{})
	c := ctx(t)
	admin := client(t, s, kgo.ClientID("admin"))

	ct := kmsg.NewPtrCreateTopicsRequest()
	ctt := kmsg.NewCreateTopicsRequestTopic()
	ctt.Topic, ctt.NumPartitions, ctt.ReplicationFactor = "pinned", 1, 3
	for _, kv := range [][2]string{{"min.insync.replicas", "2"}, {"cleanup.policy", "delete"}} {
		cfg := kmsg.NewCreateTopicsRequestTopicConfig()
		v := kv[1]
		cfg.Name, cfg.Value = kv[0], &v
		ctt.Configs = append(ctt.Configs, cfg)
	}
	ct.Topics = append(ct.Topics, ctt)
	resp, err := admin.Request(c, ct)
	if err != nil || resp.(*kmsg.CreateTopicsResponse).Topics[0].ErrorCode != 0 {
		t.Fatalf("CreateTopics pinned: %v %+v", err, resp)
	}
	// CreateTopics v5+ answers with the new topic's configs and their sources.
	created := map[string]string{}
	for _, cfg := range resp.(*kmsg.CreateTopicsResponse).Topics[0].Configs {
		created[cfg.Name] = fmt.Sprintf("%s %d", *cfg.Value, cfg.Source)
	}
	if len(created) != 36 || created["min.insync.replicas"] != "2 1" || created["cleanup.policy"] != "delete 1" || created["retention.ms"] != "604800000 5" {
		t.Errorf("CreateTopics' configs of pinned: %v", created)
	}

	// A client that speaks DescribeConfigs version 0 only, as Kafka 1.0's.
	v0 := kversion.Stable()
	v0.SetMaxKeyVersion(32, 0)
	old := client(t, s, kgo.ClientID("old-admin"), kgo.MaxVersions(v0))
	describe := func(version int16, synonyms bool, res ...kmsg.DescribeConfigsRequestResource) []kmsg.DescribeConfigsResponseResource {
		dc := kmsg.NewPtrDescribeConfigsRequest()
		dc.Resources, dc.IncludeSynonyms = res, synonyms
		cl := admin
		if version == 0 {
			cl = old
		}
		resp, err := cl.Broker(1).Request(c, dc)
		if err != nil {
			t.Fatal(err)
		}
		return resp.(*kmsg.DescribeConfigsResponse).Resources
	}
	resource := func(kind kmsg.ConfigResourceType, name string, configs ...string) kmsg.DescribeConfigsRequestResource {
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName, r.ConfigNames = kind, name, configs
		return r
	}
	// entry is "value source [synonym=value/source ...]".
	entry := func(e kmsg.DescribeConfigsResponseResourceConfig) string {
		out := fmt.Sprintf("%s %d", *e.Value, e.Source)
		for _, s := range e.ConfigSynonyms {
			out += fmt.Sprintf(" %s=%s/%d", s.Name, *s.Value, s.Source)
		}
		return out
	}

	got := describe(4, true, resource(kmsg.ConfigResourceTypeTopic, "orders"), resource(kmsg.ConfigResourceTypeTopic, "pinned"))
	byName := func(r kmsg.DescribeConfigsResponseResource) map[string]kmsg.DescribeConfigsResponseResourceConfig {
		m := map[string]kmsg.DescribeConfigsResponseResourceConfig{}
		for _, e := range r.Configs {
			m[e.Name] = e
		}
		return m
	}
	orders, pinned := byName(got[0]), byName(got[1])
	if got[0].ErrorCode != 0 || len(orders) != 36 || got[1].ErrorCode != 0 || len(pinned) != 36 {
		t.Fatalf("orders: error %d, %d configs; pinned: error %d, %d configs; want 36 each", got[0].ErrorCode, len(orders), got[1].ErrorCode, len(pinned))
	}
	for _, tc := range []struct {
		cfgs       map[string]kmsg.DescribeConfigsResponseResourceConfig
		name, want string
		kind       kmsg.ConfigType
	}{
		{orders, "cleanup.policy", "delete 5 log.cleanup.policy=delete/5", 7},
		{orders, "min.insync.replicas", "2 4 min.insync.replicas=2/4 min.insync.replicas=1/5", 3},
		{orders, "retention.ms", "604800000 5", 5}, // log.retention.hours carries the default: no synonym (dropWhile)
		{orders, "max.message.bytes", "1048588 5 message.max.bytes=1048588/5", 3},
		{orders, "min.cleanable.dirty.ratio", "0.5 5 log.cleaner.min.cleanable.ratio=0.5/5", 6},
		{orders, "remote.storage.enable", "false 5", 1},
		{orders, "message.timestamp.type", "CreateTime 5 log.message.timestamp.type=CreateTime/5", 2},
		{pinned, "min.insync.replicas", "2 1 min.insync.replicas=2/1 min.insync.replicas=2/4 min.insync.replicas=1/5", 3},
		{pinned, "cleanup.policy", "delete 1 cleanup.policy=delete/1 log.cleanup.policy=delete/5", 7},
		{pinned, "segment.bytes", "1073741824 5 log.segment.bytes=1073741824/5", 3},
	} {
		e, ok := tc.cfgs[tc.name]
		if !ok {
			t.Errorf("%s: missing", tc.name)
			continue
		}
		if entry(e) != tc.want || e.ConfigType != tc.kind || e.ReadOnly || e.IsSensitive {
			t.Errorf("%s: %q type %d read-only %v sensitive %v; want %q type %d", tc.name, entry(e), e.ConfigType, e.ReadOnly, e.IsSensitive, tc.want, tc.kind)
		}
	}

	// Without synonyms, only what was asked for; version 0 says isDefault
	// instead of the source.
	got = describe(0, false, resource(kmsg.ConfigResourceTypeTopic, "orders", "min.insync.replicas", "retention.ms"))
	var seen []string
	for _, e := range got[0].Configs {
		seen = append(seen, fmt.Sprintf("%s=%s default=%v synonyms=%d", e.Name, *e.Value, e.IsDefault, len(e.ConfigSynonyms)))
	}
	if want := []string{"min.insync.replicas=2 default=false synonyms=0", "retention.ms=604800000 default=true synonyms=0"}; !slices.Equal(seen, want) {
		t.Errorf("v0, two configs: %q, want %q", seen, want)
	}

	got = describe(4, false,
		resource(kmsg.ConfigResourceTypeTopic, "nothing"),
		resource(kmsg.ConfigResourceTypeTopic, "bad name!"),
		resource(kmsg.ConfigResourceTypeBroker, ""),
		resource(kmsg.ConfigResourceTypeBroker, "2"),
		resource(kmsg.ConfigResourceTypeBroker, "1"),
		resource(kmsg.ConfigResourceTypeBrokerLogger, ""),
		resource(kmsg.ConfigResourceTypeClientMetrics, "subscription"),
	)
	msg := func(r kmsg.DescribeConfigsResponseResource) string {
		if r.ErrorMessage == nil {
			return ""
		}
		return *r.ErrorMessage
	}
	for i, want := range []struct {
		code int16
		msg  string
	}{
		{3, ""},
		{17, "Topic name is invalid: 'bad name!' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"},
		{0, ""},
		{42, "Unexpected broker id, expected 1 or empty string, but received 2"},
		{42, "eoslab serve describes topic configs and the brokers' dynamic defaults, not a broker's own configuration or loggers (docs/serve.md)"},
		{42, "Broker id must not be empty"},
		{0, ""},
	} {
		if r := got[i]; r.ErrorCode != want.code || msg(r) != want.msg || len(r.Configs) != 0 {
			t.Errorf("resource %d (%d %q): error %d %q, %d configs; want %d %q", i, r.ResourceType, r.ResourceName, r.ErrorCode, msg(r), len(r.Configs), want.code, want.msg)
		}
	}
}
