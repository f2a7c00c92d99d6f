package serve

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// kafkaPython is a python3 with kafka-python (Debian's python3-kafka,
// which .ci/run installs): a third implementation of Kafka's protocol,
// written in Python, with its own choice of API versions. Without it the
// test skips, unless CI is set.
func kafkaPython(t *testing.T) string {
	t.Helper()
	// Debian's package is for Debian's python3, which another python3 on
	// the PATH (pyenv's, say) may hide.
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(name); err == nil && exec.Command(path, "-c", "import kafka").Run() == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("python3 with kafka-python is not installed (CI is set; .ci/run installs it with apt-get install -y python3-kafka)")
	}
	t.Skip("python3 with kafka-python is not installed (apt-get install python3-kafka)")
	return ""
}

// kafkaPythonScript produces ten records to each partition with acks=all,
// then a group consumer reads them from the earliest offset and commits;
// a second consumer of the group finds nothing left to read. It prints
// "partition:offset:value" for each record read, then "again:N". Its
// admin client lists the groups and describes the group while the first
// consumer is in it and once it has left (ListGroups, DescribeGroups):
// "groups:…", "describe:…" with the member's client id, subscription and
// assignment, and "after:…"; and it describes the topic's configs
// (DescribeConfigs): "configs:COUNT:…" with two configs' values and
// sources.
const kafkaPythonScript = `
import sys
from kafka import KafkaProducer, KafkaConsumer, KafkaAdminClient
from kafka.admin import ConfigResource, ConfigResourceType
broker = sys.argv[1]
p = KafkaProducer(bootstrap_servers=broker, acks="all", client_id="py-shop")
for part in range(3):
    for i in range(10):
        p.send("orders", ("v%d-%d" % (part, i)).encode(), partition=part).get(timeout=20)
p.flush()
p.close()
def group(wait_ms):
    return KafkaConsumer("orders", bootstrap_servers=broker, group_id="py-group", client_id="py-reader",
                         auto_offset_reset="earliest", enable_auto_commit=False, consumer_timeout_ms=wait_ms)
c = group(4000)
for m in c:
    print("%d:%d:%s" % (m.partition, m.offset, m.value.decode()))
c.commit()
a = KafkaAdminClient(bootstrap_servers=broker, client_id="py-admin")
print("groups:" + ",".join(sorted(g for g, _ in a.list_consumer_groups())))
cfgs = {}
for res in a.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "orders")]):
    for r in res.resources:
        for e in r[4]:
            cfgs[e[0]] = "%s/%s" % (e[1], e[3])
print("configs:%d:%s:%s" % (len(cfgs), cfgs.get("min.insync.replicas"), cfgs.get("retention.ms")))
for d in a.describe_consumer_groups(["py-group"]):
    for m in d.members:
        print("describe:%s:%s:%s:%s:%s:%s" % (d.state, d.protocol_type, d.protocol, m.client_id,
              ",".join(m.member_metadata.subscription),
              ",".join("%s-%s" % (t, "+".join(str(p) for p in ps)) for t, ps in m.member_assignment.assignment)))
c.close()
for d in a.describe_consumer_groups(["py-group"]):
    print("after:%s:%s:%d" % (d.state, d.protocol_type, len(d.members)))
a.close()
c = group(2500)
print("again:%d" % len(list(c)))
c.close()
`

// kafka-python against the served cluster: its producer's records land in
// order on their partitions, its group consumer reads each once, and the
// offsets it commits hold for the group's next member.
func TestKafkaPythonProduceConsume(t *testing.T) {
	python := kafkaPython(t)
	s, _ := start(t, Config{})
	c, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(c, python, "-c", kafkaPythonScript, s.Addrs()[0]).CombinedOutput()
	if err != nil {
		t.Fatalf("kafka-python: %v\n%s", err, out)
	}
	read := map[string][]string{}
	again := ""
	admin := map[string]string{}
	for _, line := range strings.Fields(string(out)) {
		if n, ok := strings.CutPrefix(line, "again:"); ok {
			again = n
			continue
		}
		if kind, rest, _ := strings.Cut(line, ":"); kind == "groups" || kind == "describe" || kind == "after" || kind == "configs" {
			admin[kind] = rest
			continue
		}
		part, rest, _ := strings.Cut(line, ":")
		read[part] = append(read[part], rest)
	}
	for _, part := range []string{"0", "1", "2"} {
		var want []string
		for i := range 10 {
			want = append(want, strconv.Itoa(i)+":v"+part+"-"+strconv.Itoa(i))
		}
		if strings.Join(read[part], ",") != strings.Join(want, ",") {
			t.Errorf("partition %s: read %q, want %q", part, read[part], want)
		}
	}
	if again != "0" {
		t.Errorf("the group's next member read %q records, want 0 after the commit\n%s", again, out)
	}
	for kind, want := range map[string]string{
		"groups":   "py-group",
		"describe": "Stable:consumer:range:py-reader:orders:orders-0+1+2",
		"after":    "Empty:consumer:0",
		"configs":  "36:2/4:604800000/5", // min.insync.replicas from the brokers' configuration, retention.ms Kafka's default
	} {
		if admin[kind] != want {
			t.Errorf("kafka-python's admin client, %s: %q, want %q\n%s", kind, admin[kind], want, out)
		}
	}
	s.Do(func(e Engine) {
		snap := e.World().Snapshot()
		found := false
		for _, p := range snap.Producers {
			found = found || p.Name == "py-shop"
		}
		if !found {
			t.Errorf("no producer py-shop in the lab: %+v", snap.Producers)
		}
		for _, a := range snap.Anomalies {
			t.Errorf("anomaly: %s", a.Text)
		}
	})
}
