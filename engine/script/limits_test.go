package script

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// limitUse is a command line that puts %s where the limited number goes,
// one for every row of the table.
var limitUse = map[limitID][]string{
	limSendCount:       {"send p1 orders-0 %s"},
	limInjectCount:     {"inject orders-0 pid=1 epoch=0 seq=0 count=%s"},
	limInjectPID:       {"inject orders-0 pid=%s epoch=0 seq=0 count=1"},
	limInjectEpoch:     {"inject orders-0 pid=1 epoch=%s seq=0 count=1"},
	limSeq:             {"inject orders-0 pid=1 epoch=0 seq=%s count=1", "lose request p1 orders-0 seq=%s", "fail request p1 orders-0 seq=%s NOT_ENOUGH_REPLICAS"},
	limStep:            {"step %s"},
	limAdvance:         {"advance %s"},
	limBrokers:         {"cluster brokers=%s"},
	limPartitions:      {"cluster partitions=%s"},
	limRF:              {"cluster rf=%s"},
	limMinInsync:       {"cluster min.insync=%s"},
	limTxnVersion:      {"cluster transaction.version=%s"},
	limSegmentBytes:    {"cluster segment.bytes=%s"},
	limProducerIDStart: {"cluster producer.id.start=%s"},
	limTxnMaxTimeout:   {"cluster transaction.max.timeout.ms=%s"},
	limBrokerLatency:   {"cluster broker.latency.ms=%s"},
	limBrokerID:        {"restart broker %s", "kill broker %s", "reset connection p1 %s"},
	limMaxPoll:         {"consumer c1 read_committed orders-0 max.poll.records=%s"},
	limStartOffset:     {"transactions abort orders-0 start-offset=%s"},
	limMaxPollInterval: {"consumer c1 read_committed orders-0 max.poll.interval.ms=%s"},
	limConn:            {"arrive %s 1 Produce at=0 data=AAAAAAAAAAD//w==", "hangup %s at=0"},
	limAtMs:            {"arrive 1 1 Produce at=%s data=AAAAAAAAAAD//w==", "hangup 1 at=%s"},
	limOffset:          {"diagnose duplicate orders-0 %s"},
}

// above renders the number just past a bound, also past int64.
func above(l Limit) string {
	if l.Max == math.MaxInt64 {
		return strconv.FormatUint(uint64(l.Max)+1, 10)
	}
	return l.Format(l.Max + 1)
}

// Every limit of the table holds where the number is written: its bounds
// are accepted, one past them is a parse error at the number's position
// that quotes the value and says the limit.
func TestLimitsAreEnforced(t *testing.T) {
	for id, l := range limitTable {
		uses := limitUse[limitID(id)]
		if len(uses) == 0 {
			t.Errorf("%s: no command line to test it with", l.What)
		}
		for _, use := range uses {
			for _, ok := range []int64{l.Min, l.Max} {
				if ok == 0 && l.Duration {
					continue
				}
				line := strings.Replace(use, "%s", l.Format(ok), 1)
				if _, err := Parse("t.eos", []byte(line)); err != nil {
					t.Errorf("%s: %q is within the limit but fails: %v", l.What, line, err)
				}
			}
			// The position is the word's, KEY= included.
			col := strings.LastIndexByte(use[:strings.Index(use, "%s")], ' ') + 2
			line := strings.Replace(use, "%s", above(l), 1)
			_, err := Parse("t.eos", []byte(line))
			want := "t.eos:1:" + strconv.Itoa(col) + ": "
			if err == nil || !strings.HasPrefix(err.Error(), want) ||
				!strings.Contains(err.Error(), strconv.Quote(above(l))) {
				t.Errorf("%s: %q: got %v, want an error at %s quoting the value", l.What, line, err, want)
				continue
			}
			if l.Max != math.MaxInt64 && !l.Duration && l.Min != l.Max-1 && !strings.Contains(err.Error(), "at most "+l.Format(l.Max)) {
				t.Errorf("%s: %v does not say the limit", l.What, err)
			}
			if l.Min > 0 && !l.Duration {
				below := strings.Replace(use, "%s", l.Format(l.Min-1), 1)
				if _, err := Parse("t.eos", []byte(below)); err == nil {
					t.Errorf("%s: %q is below the limit but parses", l.What, below)
				}
			}
		}
	}
}

// The sizes users reported: each ran the lab out of memory or time, each
// is now refused when the line is read, in a script or the command bar.
func TestReportedSizesAreRefused(t *testing.T) {
	cases := []struct{ line, want string }{
		{"send p1 orders-0 2147483647", `1:18: send: COUNT must be at most 10000 (one batch, which must stay well under Kafka's 1 MiB max.message.bytes), got "2147483647"`},
		{"send p1 orders-0 50000000", `1:18: send: COUNT must be at most 10000`},
		{"cluster brokers=2147483647", `1:9: cluster: brokers must be at most 9 (every broker must fit on the lab's screen), got "2147483647"`},
		{"cluster partitions=1000000", `1:9: cluster: partitions must be at most 64`},
		{"cluster partitions=3000000", `1:9: cluster: partitions must be at most 64`},
		{"cluster rf=10", `1:9: cluster: rf must be at most 9`},
		{"cluster min.insync=10", `1:9: cluster: min.insync must be at most 9`},
		{"cluster segment.bytes=13", `1:9: cluster: segment.bytes must be at least 14, got "13"`},
		{"cluster segment.bytes=1073741825", `1:9: cluster: segment.bytes must be at most 1073741824`},
		{"inject orders-0 pid=1 epoch=0 seq=0 count=10001", `1:37: inject: count must be at most 10000`},
		{"advance 36501d", `1:9: advance: duration must be at most 36500d (100 years of logical time), got "36501d"`},
		{"advance 99999999999999999999d", `1:9: advance: duration must be at most 36500d`},
		{"step 1000001", `1:6: step: N must be at most 1000000`},
		{"consumer c1 read_committed orders-0 max.poll.records=10001", `1:37: consumer: max.poll.records must be at most 10000`},
		{"restart broker 10", `1:16: restart broker: ID must be at most 9`},
		{"send p1 orders-0 99999999999999999999999", `1:18: send: COUNT must be at most 10000`},
		{"inject orders-0 pid=9223372036854775808 epoch=0 seq=0 count=1", `1:17: inject: pid must be at most 9223372036854775807`},
	}
	for _, c := range cases {
		_, err := ParseLine(c.line)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParseLine(%q)\n got %v\nwant %s...", c.line, err, c.want)
		}
	}
}

// docs/commands.md lists every limit with its bounds, as the table has
// them: the reference cannot drift from the parser.
func TestLimitsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| `") {
			what, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
			rows[what] = line
		}
	}
	for _, l := range limitTable {
		row, ok := rows[l.What]
		if !ok {
			t.Errorf("docs/commands.md has no row for `%s`", l.What)
			continue
		}
		cells := strings.Split(row, "|")
		if len(cells) < 4 || strings.TrimSpace(cells[2]) != l.Format(l.Min) || !strings.HasPrefix(strings.TrimSpace(cells[3]), l.Format(l.Max)) {
			t.Errorf("docs/commands.md: %q\nwant | `%s` | %s | %s ...", row, l.What, l.Format(l.Min), l.Format(l.Max))
		}
	}
}
