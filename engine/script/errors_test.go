package script

import (
	"errors"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	const (
		sendUsage  = "(usage: send NAME TOPIC-PARTITION COUNT [key=K] [value=V])"
		loseUsage  = "(usage: lose request NAME [TOPIC-PARTITION seq=N])"
		clusterErr = "t.eos:1:9: cluster: "
	)
	tests := []struct{ line, want string }{
		{"sned p1 orders-0 1", `t.eos:1:1: unknown command "sned", did you mean "send"?`},
		{"diagnose duplicat orders-0 1", `t.eos:1:10: diagnose: unknown anomaly "duplicat", did you mean "duplicate"? (the checker's names: duplicate, lost, reordered, zombie_write, aborted_read, read_past_LSO)`},
		{"diagnose zombie orders-0 1", `t.eos:1:10: diagnose: unknown anomaly "zombie", did you mean "zombie_write"? (the checker's names: duplicate, lost, reordered, zombie_write, aborted_read, read_past_LSO)`},
		{"diagnose lost orders-0", "t.eos:1:23: diagnose: missing OFFSET (usage: diagnose ANOMALY TOPIC-PARTITION OFFSET)"},
		{"diagnose lost orders-0 x", `t.eos:1:24: diagnose: OFFSET must be a non-negative integer, got "x"`},
		{"diagnose lost orders-0 1 extra", `t.eos:1:26: diagnose: unexpected word "extra" (usage: diagnose ANOMALY TOPIC-PARTITION OFFSET)`},
		{"replay", "t.eos:1:7: replay: missing NAME (usage: replay NAME [idempotent | plain | transactional=TXN_ID] [KEY=VALUE ...])"},
		{"replay app ack=all", `t.eos:1:12: replay: unknown config key "ack", did you mean "acks"?`},
		{"Send p1 orders-0 1", `t.eos:1:1: unknown command "Send", did you mean "send"?`},
		{"adv 1s", `t.eos:1:1: unknown command "adv", did you mean "advance"?`},
		{"frobnicate", `t.eos:1:1: unknown command "frobnicate"`},
		{"restart brokr 1", `t.eos:1:9: unknown command "restart brokr", did you mean "restart broker"?`},
		{"lose req p1", `t.eos:1:6: unknown command "lose req", did you mean "lose request"?`},
		{"restart", `t.eos:1:8: restart: expected "producer", "broker" or "consumer"`},
		{"kill", `t.eos:1:5: kill: expected "broker"`},
		{"a=b", `t.eos:1:1: expected a command, got a=b`},
		{"producer p1 ack=1", `t.eos:1:13: producer: unknown config key "ack", did you mean "acks"?`},
		{"producer p1 idempotnt", `t.eos:1:13: producer: unknown word "idempotnt", did you mean "idempotent"?`},
		{"producer p1 transactional", `t.eos:1:13: producer: transactional needs a value (transactional=...)`},
		{"producer p1 idempotent plain", `t.eos:1:24: producer: plain conflicts with idempotent: give at most one of idempotent, plain, transactional=TXN_ID`},
		{"producer p1 transactional=a transactional.id=b", `t.eos:1:29: producer: transactional=a and transactional.id=b both set the transactional id; give only one`},
		{"producer p1 transactional=\"\"", `t.eos:1:13: producer: transactional must not be empty`},
		{"producer 1p", `t.eos:1:10: producer: invalid NAME "1p": a name starts with a letter and holds only letters, digits, '_', '.' and '-'`},
		{"send p1 orders-0", "t.eos:1:17: send: missing COUNT " + sendUsage},
		{"send p1 orders-0 # no count", "t.eos:1:17: send: missing COUNT " + sendUsage},
		{"send p1 orders-0 key=a", "t.eos:1:18: send: missing COUNT " + sendUsage},
		{"send p1", "t.eos:1:8: send: missing TOPIC-PARTITION " + sendUsage},
		{"send p1 orders-0 three", `t.eos:1:18: send: COUNT must be a positive integer, got "three"`},
		{"send p1 orders-0 -3", `t.eos:1:18: send: COUNT must be a positive integer, got "-3"`},
		{"send p1 orders-0 0", `t.eos:1:18: send: COUNT must be a positive integer, got "0"`},
		{"send p1 orders 1", `t.eos:1:9: send: invalid topic-partition "orders": expected TOPIC-PARTITION such as orders-0`},
		{"send p1 orders-x 1", `t.eos:1:9: send: invalid topic-partition "orders-x": partition "x" is not a non-negative integer`},
		{"send p1 orders-0 1 extra", `t.eos:1:20: send: unexpected word "extra" ` + sendUsage},
		{"send p1 orders-0 1 key=a key=b", `t.eos:1:26: send: duplicate key "key" (first given at column 20)`},
		{"send p1 orders-0 1 value=\"hello", `t.eos:1:26: unterminated quoted string`},
		{`send p1 orders-0 1 value="a\tb"`, `t.eos:1:28: unknown escape \t in quoted string (only \" and \\ are allowed)`},
		{`send p1 orders-0 1 value=a"b"`, `t.eos:1:27: unexpected quote in the middle of a word`},
		{`send p1 orders-0 1 "a"b`, `t.eos:1:23: unexpected character after closing quote`},
		{"lose request p1 seq=3", "t.eos:1:17: lose request: seq=N needs a TOPIC-PARTITION before it " + loseUsage},
		{"lose request p1 orders-0", "t.eos:1:25: lose request: missing seq=N after orders-0 " + loseUsage},
		{"cluster brokers=3 brokers=4", `t.eos:1:19: cluster: duplicate key "brokers" (first given at column 9)`},
		{"cluster broker=3", clusterErr + `unknown key "broker", did you mean "brokers"?`},
		{"cluster colour=red", clusterErr + `unknown key "colour" (known: brokers, topic, partitions, rf, min.insync, transaction.version, segment.bytes, producer.id.start, transaction.max.timeout.ms, broker.latency.ms)`},
		{"cluster transaction.version=3", clusterErr + `transaction.version must be 1 or 2, got "3"`},
		{"cluster rf=0", clusterErr + `rf must be a positive integer, got "0"`},
		{"cluster brokers=99999999999", clusterErr + `brokers must be at most 9 (every broker must fit on the lab's screen), got "99999999999"`},
		{"cluster topic=a$b", clusterErr + `topic name "a$b" may only contain letters, digits, '.', '_' and '-'`},
		{"advance 0s", `t.eos:1:9: advance: duration must be greater than zero, got "0s"`},
		{"advance 5x", `t.eos:1:9: advance: invalid duration "5x": unknown unit "x" (units: ms, s, m, h, d)`},
		{"advance 5", `t.eos:1:9: advance: invalid duration "5": missing unit after 5 (units: ms, s, m, h, d)`},
		{"advance 1.5h", `t.eos:1:9: advance: invalid duration "1.5h": unknown unit "." (units: ms, s, m, h, d)`},
		{"advance", `t.eos:1:8: advance: missing DURATION (usage: advance DURATION)`},
		{"inject orders-0 pid=1 epoch=0 seq=0", `t.eos:1:36: inject: missing count=N (usage: inject TOPIC-PARTITION pid=N epoch=N seq=N count=N [txn])`},
		{"inject orders-0 pid=1 epoch=40000 seq=0 count=1", `t.eos:1:23: inject: epoch must be at most 32767 (the batch header's int16 producerEpoch), got "40000"`},
		{"inject orders-0 pid=1 epoch=0 seq=0 count=1 tx", `t.eos:1:45: inject: unknown word "tx", did you mean "txn"?`},
		{"inject orders-0 txn=1", `t.eos:1:17: inject: txn takes no value`},
		{"step 0", `t.eos:1:6: step: N must be a positive integer, got "0"`},
		{"run now", `t.eos:1:5: run: unexpected word "now" (usage: run)`},
		{"restart broker 0", `t.eos:1:16: restart broker: ID must be a positive integer, got "0"`},
		{"restart broker 1 clen", `t.eos:1:18: restart broker: unknown word "clen", did you mean "clean"?`},
		{`restart broker 1 "clean"`, `t.eos:1:18: restart broker: clean is a keyword: write it without quotes`},
		{"failover orders-0 sideways", `t.eos:1:19: failover: unknown word "sideways" (expected "unclean")`},
		{"pause p1 p2", `t.eos:1:10: pause: unexpected word "p2" (usage: pause NAME)`},
		// Columns count runes, not bytes.
		{"send p1 orders-0 1 key=é extra", `t.eos:1:26: send: unexpected word "extra" ` + sendUsage},
	}
	for _, tt := range tests {
		cmds, err := Parse("t.eos", []byte(tt.line))
		if err == nil {
			t.Errorf("Parse(%q) = %v, want error %s", tt.line, cmds, tt.want)
			continue
		}
		if cmds != nil {
			t.Errorf("Parse(%q) returned commands along with an error", tt.line)
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", tt.line, err, tt.want)
		}
	}
}

func TestParseCollectsErrorsFromAllLines(t *testing.T) {
	src := strings.Join([]string{
		"cluster brokers=3",
		"sned p1 orders-0 1",
		"producer p1",
		"send p1 orders 1",
		"",
		"advance 0s",
		"run",
	}, "\n")
	_, err := Parse("lesson.eos", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v is not an ErrorList", err)
	}
	want := `lesson.eos:2:1: unknown command "sned", did you mean "send"?
lesson.eos:4:9: send: invalid topic-partition "orders": expected TOPIC-PARTITION such as orders-0
lesson.eos:6:9: advance: duration must be greater than zero, got "0s"`
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
	if len(list) != 3 || list[1].Pos != (Pos{4, 9}) || list[1].File != "lesson.eos" {
		t.Errorf("unexpected list %#v", list)
	}
	var first *Error
	if !errors.As(err, &first) || first.Pos != (Pos{2, 1}) {
		t.Errorf("errors.As(*Error) = %v", first)
	}
}

func TestParseLineErrors(t *testing.T) {
	_, err := ParseLine("sned")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("ParseLine error %T is not a *Error", err)
	}
	if got := err.Error(); got != `1:1: unknown command "sned", did you mean "send"?` {
		t.Errorf("got %q", got)
	}
	_, err = ParseLine("run\nrun")
	if err == nil || err.Error() != "1:4: a command must fit on one line" {
		t.Errorf("ParseLine with a line break: %v", err)
	}
}

func TestSuggest(t *testing.T) {
	cands := []string{"send", "step", "run", "restart", "resume", "advance"}
	tests := []struct{ w, want string }{
		{"sned", "send"},   // transposition: distance 2
		{"sen", "send"},    // prefix and distance 1
		{"adv", "advance"}, // prefix, distance 4
		{"runn", "run"},
		{"res", "resume"},    // prefixes beat "run" at distance 2; the shortest completion wins
		{"xyzzy", ""},        // nothing near
		{"adwanc3d", ""},     // distance 3, not a prefix
		{"ru", "run"},        // the shortest completion
		{"send", ""},         // an exact match needs no suggestion
		{"", ""},             // nothing to go on
		{"stpe", "step"},     // distance 2
		{"résumé", "resume"}, // distance counts runes
	}
	for _, tt := range tests {
		if got := Suggest(tt.w, cands); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.w, got, tt.want)
		}
	}
	// Equally near candidates: the earlier one wins.
	if got := Suggest("x", []string{"ab", "xb", "xa"}); got != "xb" {
		t.Errorf("tie: Suggest = %q, want %q", got, "xb")
	}
}

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"send", "sned", 2}, {"flaw", "lawn", 2}, {"héllo", "hello", 1},
	}
	for _, tt := range tests {
		if got := levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestErrorFormatting(t *testing.T) {
	e := &Error{Pos: Pos{3, 7}, Msg: "boom"}
	if got := e.Error(); got != "3:7: boom" {
		t.Errorf("without file: %q", got)
	}
	e.File = "a.eos"
	if got := e.Error(); got != "a.eos:3:7: boom" {
		t.Errorf("with file: %q", got)
	}
	l := ErrorList{e, {File: "a.eos", Pos: Pos{4, 1}, Msg: "bang"}}
	if got := l.Error(); got != "a.eos:3:7: boom\na.eos:4:1: bang" {
		t.Errorf("list: %q", got)
	}
}

func TestTxnParseErrors(t *testing.T) {
	cases := map[string]string{
		"consumer c1 read_comitted orders-0":                     `t:1:13: consumer: isolation level must be read_committed or read_uncommitted, got "read_comitted", did you mean "read_committed"?`,
		"consumer c1 read_committed":                             "t:1:27: consumer: missing TOPIC-PARTITION (usage: consumer NAME read_committed|read_uncommitted TOPIC-PARTITION... [group=G] [max.poll.records=N] [max.poll.interval.ms=N])",
		"consumer c1 read_committed orders-0 grp=g":              `t:1:37: consumer: unknown key "grp", did you mean "group"?`,
		"consumer c1 read_committed orders-0 max.poll.records=0": `t:1:37: consumer: max.poll.records must be a positive integer, got "0"`,
		"send-offsets p1":                                        "t:1:16: send-offsets: missing GROUP (usage: send-offsets NAME GROUP [consumer=NAME] [legacy])",
		"lose markers orders":                                    `t:1:14: lose markers: `,
		"feature":                                                "t:1:8: feature: missing transaction.version=1|2 (usage: feature transaction.version=1|2)",
		"feature transaction.version=3":                          `t:1:9: feature: transaction.version must be 1 or 2, got "3"`,
		"seek c1":                                                "t:1:8: seek: missing committed (usage: seek NAME committed)",
		"seek c1 comitted":                                       `t:1:9: seek: expected "committed" (the group's committed offsets), got "comitted", did you mean "committed"?`,
		"failover coordinator":                                   "t:1:21: failover: missing TXN_ID",
		"begin":                                                  "t:1:6: begin: missing NAME (usage: begin NAME)",
		"comit p1":                                               `t:1:1: unknown command "comit", did you mean "commit"?`,
	}
	for src, want := range cases {
		_, err := Parse("t", []byte(src))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Parse(%q)\n got %v\nwant prefix %s", src, err, want)
		}
	}
}
