package script

import (
	"reflect"
	"testing"
)

// p1 is a position on line 1, the line every ParseLine test is on.
func p1(col int) Pos { return Pos{1, col} }

func TestParseLineValid(t *testing.T) {
	tests := []struct {
		line string
		want Command
	}{
		// cluster
		{"cluster", &Cluster{At: p1(1)}},
		{"cluster brokers=3 topic=orders partitions=3 rf=3 min.insync=2",
			&Cluster{At: p1(1), Brokers: 3, Topic: "orders", Partitions: 3, RF: 3, MinInsync: 2}},
		{"cluster segment.bytes=1024 transaction.version=2 rf=1",
			&Cluster{At: p1(1), SegmentBytes: 1024, TransactionVersion: 2, RF: 1}},
		{"cluster transaction.version=1 topic=\"my-topic\"", &Cluster{At: p1(1), TransactionVersion: 1, Topic: "my-topic"}},
		{"  cluster   brokers=5 # five of them", &Cluster{At: p1(3), Brokers: 5}},
		// producer
		{"producer p1", &Producer{At: p1(1), Name: "p1", Mode: ModeDefault}},
		{"producer p1 idempotent", &Producer{At: p1(1), Name: "p1", Mode: ModeIdempotent}},
		{"producer p1 plain", &Producer{At: p1(1), Name: "p1", Mode: ModePlain}},
		{"producer tx-1 transactional=t1", &Producer{At: p1(1), Name: "tx-1", Mode: ModeTransactional, TxnID: "t1"}},
		{"producer a.b_c transactional.id=\"my txn\"", &Producer{At: p1(1), Name: "a.b_c", Mode: ModeTransactional, TxnID: "my txn"}},
		{"producer p1 acks=1", &Producer{At: p1(1), Name: "p1", Config: []KV{{"acks", "1", p1(13)}}}},
		{"producer p1 enable.idempotence=true acks=1",
			&Producer{At: p1(1), Name: "p1", Config: []KV{{"enable.idempotence", "true", p1(13)}, {"acks", "1", p1(37)}}}},
		{"producer p2 max.in.flight.requests.per.connection=5 plain retries=0",
			&Producer{At: p1(1), Name: "p2", Mode: ModePlain, Config: []KV{
				{"max.in.flight.requests.per.connection", "5", p1(13)}, {"retries", "0", p1(59)}}}},
		{"producer p acks=all linger.ms=5 delivery.timeout.ms=120000 request.timeout.ms=30000 retry.backoff.ms=100 transaction.timeout.ms=60000 batch.size=16384",
			&Producer{At: p1(1), Name: "p", Config: []KV{
				{"acks", "all", p1(12)}, {"linger.ms", "5", p1(21)}, {"delivery.timeout.ms", "120000", p1(33)},
				{"request.timeout.ms", "30000", p1(60)}, {"retry.backoff.ms", "100", p1(85)},
				{"transaction.timeout.ms", "60000", p1(106)}, {"batch.size", "16384", p1(135)}}}},
		// send
		{"send p1 orders-0 3", &Send{At: p1(1), Producer: "p1", TP: TopicPartition{"orders", 0}, Count: 3}},
		{"send p1 my-topic-12 1 key=k1", &Send{At: p1(1), Producer: "p1", TP: TopicPartition{"my-topic", 12}, Count: 1, Key: "k1", HasKey: true}},
		{`send p1 orders-2 10 value="hello world" key=""`,
			&Send{At: p1(1), Producer: "p1", TP: TopicPartition{"orders", 2}, Count: 10, Value: "hello world", HasValue: true, HasKey: true}},
		{`send p1 orders-0 1 value="say \"hi\" \\ # not a comment"`,
			&Send{At: p1(1), Producer: "p1", TP: TopicPartition{"orders", 0}, Count: 1, Value: `say "hi" \ # not a comment`, HasValue: true}},
		{`send "p1" "orders-0" "2" value=a=b`, &Send{At: p1(1), Producer: "p1", TP: TopicPartition{"orders", 0}, Count: 2, Value: "a=b", HasValue: true}},
		{"send p1 a.b_c-7 1 key=héllo", &Send{At: p1(1), Producer: "p1", TP: TopicPartition{"a.b_c", 7}, Count: 1, Key: "héllo", HasKey: true}},
		// inject
		{"inject orders-0 pid=7 epoch=0 seq=5 count=2",
			&Inject{At: p1(1), TP: TopicPartition{"orders", 0}, PID: 7, Epoch: 0, Seq: 5, Count: 2}},
		{"inject orders-1 count=1 txn seq=0 epoch=32767 pid=9223372036854775807",
			&Inject{At: p1(1), TP: TopicPartition{"orders", 1}, PID: 9223372036854775807, Epoch: 32767, Seq: 0, Count: 1, Txn: true}},
		// step, run
		{"step", &Step{At: p1(1), N: 1}},
		{"step 12", &Step{At: p1(1), N: 12}},
		{"run", &Run{At: p1(1)}},
		// faults
		{"lose request p1", &Fault{At: p1(1), Action: Lose, Target: Request, Producer: "p1"}},
		{"lose response p1 orders-0 seq=3",
			&Fault{At: p1(1), Action: Lose, Target: Response, Producer: "p1", HasSelector: true, TP: TopicPartition{"orders", 0}, Seq: 3}},
		{"delay request p1 my-topic-2 seq=0",
			&Fault{At: p1(1), Action: Delay, Target: Request, Producer: "p1", HasSelector: true, TP: TopicPartition{"my-topic", 2}, Seq: 0}},
		{"delay response p2", &Fault{At: p1(1), Action: Delay, Target: Response, Producer: "p2"}},
		// processes and brokers
		{"restart producer p1", &RestartProducer{At: p1(1), Name: "p1"}},
		{"restart consumer c1", &RestartConsumer{At: p1(1), Name: "c1"}},
		{"pause p1", &Pause{At: p1(1), Name: "p1"}},
		{"resume p1", &Resume{At: p1(1), Name: "p1"}},
		{"restart broker 2", &RestartBroker{At: p1(1), ID: 2}},
		{"restart broker 1 clean", &RestartBroker{At: p1(1), ID: 1, Clean: true}},
		{"kill broker 3", &KillBroker{At: p1(1), ID: 3}},
		{"failover orders-0", &Failover{At: p1(1), TP: TopicPartition{"orders", 0}}},
		{"failover my-topic-1 unclean", &Failover{At: p1(1), TP: TopicPartition{"my-topic", 1}, Unclean: true}},
		// advance
		{"advance 500ms", &Advance{At: p1(1), Ms: 500}},
		{"advance 2m", &Advance{At: p1(1), Ms: 120000}},
		{"advance 25h", &Advance{At: p1(1), Ms: 25 * 3600000}},
		{"advance 1d", &Advance{At: p1(1), Ms: 86400000}},
		{"advance 90s", &Advance{At: p1(1), Ms: 90000}},
		{"advance 1h30m", &Advance{At: p1(1), Ms: 5400000}},
		{`advance "1m1s1ms"`, &Advance{At: p1(1), Ms: 61001}},
		// empty and comment-only lines
		{"", nil},
		{"   # just a comment", nil},
		{"\t", nil},
	}
	for _, tt := range tests {
		got, err := ParseLine(tt.line)
		if err != nil {
			t.Errorf("ParseLine(%q): unexpected error %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseLine(%q)\n got %#v\nwant %#v", tt.line, got, tt.want)
		}
		if got != nil && got.Verb() != tt.want.Verb() {
			t.Errorf("ParseLine(%q).Verb() = %q", tt.line, got.Verb())
		}
	}
}

func TestParseScript(t *testing.T) {
	src := "# a lesson\r\ncluster brokers=3\r\n\nproducer p1 idempotent\n  send p1 orders-0 3 # batch\nrun"
	got, err := Parse("lesson.eos", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{
		&Cluster{At: Pos{2, 1}, Brokers: 3},
		&Producer{At: Pos{4, 1}, Name: "p1", Mode: ModeIdempotent},
		&Send{At: Pos{5, 3}, Producer: "p1", TP: TopicPartition{"orders", 0}, Count: 3},
		&Run{At: Pos{6, 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	for i, c := range got {
		if c.Position() != want[i].Position() {
			t.Errorf("command %d: Position() = %v, want %v", i, c.Position(), want[i].Position())
		}
	}
}

func TestParseEmptyAndBOM(t *testing.T) {
	for _, src := range []string{"", "\n\n# nothing\n", "\uFEFF# only a comment"} {
		got, err := Parse("x", []byte(src))
		if err != nil || len(got) != 0 {
			t.Errorf("Parse(%q) = %v, %v; want no commands, no error", src, got, err)
		}
	}
	got, err := Parse("x", []byte("\uFEFFrun"))
	if err != nil || len(got) != 1 || got[0].Position() != (Pos{1, 1}) {
		t.Errorf("Parse with BOM = %v, %v", got, err)
	}
}

func TestParseLineTrailingNewline(t *testing.T) {
	got, err := ParseLine("run\n")
	if err != nil || !reflect.DeepEqual(got, &Run{At: p1(1)}) {
		t.Errorf("ParseLine(\"run\\n\") = %#v, %v", got, err)
	}
}

func TestVerbsCoverTable(t *testing.T) {
	seen := map[string]bool{}
	for _, u := range Verbs() {
		if u.Verb == "" || u.Syntax == "" || u.Summary == "" {
			t.Errorf("incomplete usage %+v", u)
		}
		if seen[u.Verb] {
			t.Errorf("verb %q listed twice", u.Verb)
		}
		seen[u.Verb] = true
	}
	want := []string{"cluster", "feature", "producer", "send", "inject", "step", "run", "lose request", "lose response",
		"delay request", "delay response", "restart producer", "pause", "resume", "restart broker",
		"kill broker", "failover", "advance", "reset connection", "fail request", "begin", "commit", "abort", "consumer", "restart consumer", "poll", "seek", "send-offsets",
		"lose markers", "delay markers", "effect",
		"transactions describe-producers", "transactions find-hanging", "transactions abort", "diagnose", "replay"}
	for _, v := range want {
		if !seen[v] {
			t.Errorf("Verbs() lacks %q", v)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("Verbs() has %d verbs, want %d", len(seen), len(want))
	}
}
