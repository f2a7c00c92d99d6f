package script

import (
	"reflect"
	"strings"
	"testing"
)

// stripPositions returns a deep copy of c with every Pos zeroed, so that
// commands can be compared "positions aside".
func stripPositions(c Command) Command {
	v := reflect.New(reflect.TypeOf(c).Elem())
	v.Elem().Set(reflect.ValueOf(c).Elem())
	zeroPos(v.Elem())
	return v.Interface().(Command)
}

func zeroPos(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(Pos{}) {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			zeroPos(v.Field(i))
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(cp, v)
		v.Set(cp)
		for i := 0; i < v.Len(); i++ {
			zeroPos(v.Index(i))
		}
	}
}

func TestStripPositionsCopies(t *testing.T) {
	p := &Producer{At: Pos{2, 3}, Name: "p", Config: []KV{{"acks", "1", Pos{2, 9}}}}
	s := stripPositions(p).(*Producer)
	if s.At != (Pos{}) || s.Config[0].At != (Pos{}) {
		t.Errorf("positions kept: %#v", s)
	}
	if p.At != (Pos{2, 3}) || p.Config[0].At != (Pos{2, 9}) {
		t.Errorf("original changed: %#v", p)
	}
}

// roundTripCorpus holds one or more spellings of every verb, several of
// them deliberately non-canonical.
var roundTripCorpus = []string{
	"cluster",
	"cluster brokers=3 topic=orders partitions=3 rf=3 min.insync=2",
	"cluster segment.bytes=1048576 transaction.version=2 topic=\"my-topic\"",
	"producer p1",
	"producer p1 idempotent",
	"producer p1 plain acks=1",
	"producer p1 acks=all enable.idempotence=true",
	"producer t transactional.id=\"txn one\" transaction.timeout.ms=60000",
	`producer t acks="" linger.ms="a#b" retries="x=y" batch.size="q\"uote\\"`,
	"send p1 orders-0 3",
	`send "p1" my-topic-12 1 value="hello world" key=k`,
	`send p1 orders-1 2 key="" value=""`,
	"send p1 orders-1 2 key=\"héllo\u00a0wörld\"",
	"inject orders-0 count=2 seq=5 epoch=1 pid=7 txn",
	"inject orders-2 pid=0 epoch=0 seq=0 count=1",
	"step", "step 1", "step 40", "run",
	"lose request p1", "lose response p1 orders-0 seq=3",
	"delay request p2 my-topic-0 seq=10", "delay response p2",
	"restart producer p1", "pause p1", "resume p1",
	"restart broker 1", "restart broker 2 clean", "kill broker 3",
	"failover orders-0", "failover orders-1 unclean",
	"advance 500ms", "advance 25h", "advance 1d", "advance 90s", "advance 1h30m", "advance 2m", "advance 1h1h",
	"begin t", "commit t", "abort t",
	"consumer c1 read_committed orders-0", "consumer c2 read_uncommitted orders-0 orders-1 group=g1", "consumer c3 read_committed orders-0 max.poll.records=1",
	"feature transaction.version=1", "feature transaction.version=2",
	"poll c1", "seek c1 committed", "send-offsets t g1", "send-offsets t g1 consumer=c1", "send-offsets t g1 legacy",
	"consumer c1 read_committed orders-0 group=g max.poll.interval.ms=30000",
	"transactions describe-producers orders-0", "transactions describe-producers orders-1 broker=2", "transactions find-hanging",
	"transactions find-hanging broker=3", "transactions abort orders-0 start-offset=17",
	"lose markers orders-0", "delay markers orders-2",
	"failover coordinator tx-1", `failover coordinator "tx one"`,
	"effect app \"charge card 17\"", "effect app email",
	"diagnose duplicate orders-0 4", `diagnose "zombie write" orders-1 0`, "diagnose READ_PAST_LSO my-topic-2 9223372036854775807",
	"replay app", "replay app acks=all enable.idempotence=true", "replay app plain acks=1", "replay t transactional=tx-1",
}

func TestFormatRoundTrip(t *testing.T) {
	for _, line := range roundTripCorpus {
		c, err := ParseLine(line)
		if err != nil {
			t.Fatalf("ParseLine(%q): %v", line, err)
		}
		text := Format(c)
		back, err := ParseLine(text)
		if err != nil {
			t.Errorf("%q formats as %q, which does not parse: %v", line, text, err)
			continue
		}
		if !reflect.DeepEqual(stripPositions(back), stripPositions(c)) {
			t.Errorf("%q -> %q -> %#v, want %#v", line, text, back, c)
		}
		if again := Format(back); again != text {
			t.Errorf("Format is not stable: %q then %q", text, again)
		}
	}
}

func TestFormatCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"cluster   rf=3 brokers=3  topic=\"orders\"", "cluster brokers=3 topic=orders rf=3"},
		{"cluster min.insync=2 segment.bytes=200 transaction.version=1 partitions=1",
			"cluster partitions=1 min.insync=2 transaction.version=1 segment.bytes=200"},
		{"producer p1 acks=1 idempotent retries=3", "producer p1 idempotent acks=1 retries=3"},
		{"producer p1 transactional.id=t1", "producer p1 transactional=t1"},
		{`producer p1 transactional="a b"`, `producer p1 transactional="a b"`},
		{`send p1 orders-0 1 value="plain" key="k \"q\""`, `send p1 orders-0 1 key="k \"q\"" value=plain`},
		{`send p1 orders-0 1 key=`, `send p1 orders-0 1 key=""`},
		{`send p1 orders-01 1 key=a\b`, `send p1 orders-1 1 key=a\b`},
		{"inject orders-0 txn count=1 seq=0 epoch=0 pid=5", "inject orders-0 pid=5 epoch=0 seq=0 count=1 txn"},
		{"send p1 orders-0 1 key=\"a\u00a0b\"", "send p1 orders-0 1 key=\"a\u00a0b\""}, // NBSP separates words
		{"step 1", "step"},
		{"step 007", "step 7"},
		{"advance 90s", "advance 1m30s"},
		{"advance 25h", "advance 1d1h"},
		{"advance 1500ms", "advance 1s500ms"},
		{"lose response p1 orders-0 seq=03", "lose response p1 orders-0 seq=3"},
		{"restart broker 1 clean # safely", "restart broker 1 clean"},
	}
	for _, tt := range tests {
		c, err := ParseLine(tt.in)
		if err != nil {
			t.Fatalf("ParseLine(%q): %v", tt.in, err)
		}
		if got := Format(c); got != tt.want {
			t.Errorf("Format(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if Format(nil) != "" {
		t.Error("Format(nil) is not empty")
	}
}

func TestFormatWholeScript(t *testing.T) {
	cmds, err := Parse("s", []byte(strings.Join(roundTripCorpus, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]string, len(cmds))
	for i, c := range cmds {
		lines[i] = Format(c)
	}
	back, err := Parse("s", []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	for i := range cmds {
		if !reflect.DeepEqual(stripPositions(back[i]), stripPositions(cmds[i])) {
			t.Errorf("command %d: %#v, want %#v", i, back[i], cmds[i])
		}
	}
}
