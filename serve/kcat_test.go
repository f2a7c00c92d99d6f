package serve

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// kcat is librdkafka's command-line client (Debian's kcat package, which
// .ci/run installs). Without it the test skips, unless CI is set.
func kcat(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kcat")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("kcat is not installed (CI is set; .ci/run installs it with apt-get install -y kcat)")
		}
		t.Skip("kcat is not installed (apt-get install kcat)")
	}
	return path
}

// librdkafka through kcat: an idempotent producer writes lines, and a
// read_committed consumer reads every one back to the end of the topic
// (the two lines the README gives).
func TestKcatProduceConsume(t *testing.T) {
	bin := kcat(t)
	s, _ := start(t, Config{})
	broker := s.Addrs()[0]
	var lines []string
	for i := range 50 {
		lines = append(lines, fmt.Sprintf("line-%02d", i))
	}
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	produce := exec.CommandContext(c, bin, "-b", broker, "-t", "orders", "-P", "-X", "enable.idempotence=true", "-p", "0")
	produce.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	if out, err := produce.CombinedOutput(); err != nil {
		t.Fatalf("kcat -P: %v\n%s", err, out)
	}
	consume := exec.CommandContext(c, bin, "-b", broker, "-t", "orders", "-C", "-X", "isolation.level=read_committed", "-e", "-q")
	out, err := consume.Output()
	if err != nil {
		t.Fatalf("kcat -C: %v\n%s", err, out)
	}
	if got := strings.Fields(string(out)); strings.Join(got, ",") != strings.Join(lines, ",") {
		t.Fatalf("kcat read %q, want the %d lines in order", got, len(lines))
	}
	// librdkafka's producer allows auto-creation (allow.auto.create.topics
	// is true for producers): a topic that does not exist is created with
	// Kafka's num.partitions, 1.
	produce = exec.CommandContext(c, bin, "-b", broker, "-t", "fresh", "-P", "-X", "enable.idempotence=true")
	produce.Stdin = strings.NewReader("a\nb\nc\n")
	if out, err := produce.CombinedOutput(); err != nil {
		t.Fatalf("kcat -P -t fresh: %v\n%s", err, out)
	}
	consume = exec.CommandContext(c, bin, "-b", broker, "-t", "fresh", "-C", "-X", "isolation.level=read_committed", "-e", "-q", "-f", "%p:%s\n")
	if out, err = consume.Output(); err != nil {
		t.Fatalf("kcat -C -t fresh: %v\n%s", err, out)
	}
	if got := strings.Fields(string(out)); strings.Join(got, ",") != "0:a,0:b,0:c" {
		t.Fatalf("kcat read %q from the created topic, want a, b and c from partition 0", got)
	}
	s.Do(func(e Engine) {
		snap := e.World().Snapshot()
		found := false
		for _, p := range snap.Producers {
			found = found || p.Name == "rdkafka" && p.ProducerID >= 0
		}
		if !found {
			t.Errorf("no idempotent producer rdkafka in the lab: %+v", snap.Producers)
		}
		for _, a := range snap.Anomalies {
			t.Errorf("anomaly: %s", a.Text)
		}
	})
}
