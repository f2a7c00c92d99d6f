package script

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	seeds := append([]string{}, roundTripCorpus...)
	seeds = append(seeds,
		strings.Join(roundTripCorpus, "\n"),
		"# comment only\n\n",
		"cluster brokers=3\r\nproducer p1\r\nsend p1 orders-0 3\r\nrun\r\n",
		"sned p1 orders-0 1\nrestart brokr 1\nproducer p1 ack=1",
		"send p1 orders-0\nsend p1 orders-0 x\nsend p1 orders 1",
		"lose request p1 seq=3\ncluster brokers=3 brokers=3\ncluster foo=1",
		"cluster transaction.version=3\nadvance 0s\nadvance 5x\nsend p1 orders-0 1 extra",
		`send p1 orders-0 1 value="unterminated`,
		`send p1 orders-0 1 value="a\"b\\c" key="#"`,
		"\uFEFFrun\n\xff\xfe send",
		"producer p1 transactional=a transactional.id=b",
		"send p1 orders-0 2147483647\ncluster brokers=2147483647 partitions=3000000\nstep 99999999999999999999",
		"advance 36500d\nadvance 36500d1ms\ninject orders-0 pid=9223372036854775808 epoch=0 seq=0 count=1",
		"\x1b[2J\x07\nsend p1 orders-0 1 value=\"\x00\"",
	)
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		cmds, err := Parse("f", src)
		if err != nil {
			checkErrors(t, src, err)
			return
		}
		for _, c := range cmds {
			checkLimits(t, c)
		}
		lines := make([]string, len(cmds))
		for i, c := range cmds {
			lines[i] = Format(c)
		}
		text := strings.Join(lines, "\n")
		back, err := Parse("f", []byte(text))
		if err != nil {
			t.Fatalf("formatted script does not parse: %v\nsource: %q\nformatted: %q", err, src, text)
		}
		if len(back) != len(cmds) {
			t.Fatalf("re-parse gave %d commands, want %d\nformatted: %q", len(back), len(cmds), text)
		}
		for i := range cmds {
			if !reflect.DeepEqual(stripPositions(back[i]), stripPositions(cmds[i])) {
				t.Fatalf("command %d changed: %#v, want %#v\nformatted: %q", i, back[i], cmds[i], lines[i])
			}
		}
	})
}

// checkErrors verifies that a failed parse reports usable positions.
func checkErrors(t *testing.T, src []byte, err error) {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
	}
	lines := strings.Count(string(src), "\n") + 1
	for _, e := range list {
		if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Pos.Line > lines+1 {
			t.Fatalf("bad position %v for %d lines: %v", e.Pos, lines, e)
		}
		if e.File != "f" || e.Msg == "" {
			t.Fatalf("incomplete error %#v", e)
		}
		checkPrintable(t, e.Error())
	}
}

// FuzzParseLine is the command bar's way in: one line, any bytes.
func FuzzParseLine(f *testing.F) {
	for _, s := range roundTripCorpus {
		f.Add(s)
	}
	f.Add("send p1 orders-0 50000000")
	f.Add("cluster partitions=3000000")
	f.Add("run\nrun")
	f.Add("\xff\x1b")
	f.Fuzz(func(t *testing.T, line string) {
		c, err := ParseLine(line)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Pos.Line != 1 || e.Pos.Col < 1 {
				t.Fatalf("ParseLine error %#v", err)
			}
			checkPrintable(t, err.Error())
			return
		}
		if c == nil {
			return
		}
		checkLimits(t, c)
		back, err := ParseLine(Format(c))
		if err != nil || !reflect.DeepEqual(stripPositions(back), stripPositions(c)) {
			t.Fatalf("%q formats as %q: %#v, %v", line, Format(c), back, err)
		}
	})
}

// checkLimits fails if a parsed command holds a number outside its limit.
func checkLimits(t *testing.T, c Command) {
	t.Helper()
	in := func(id limitID, n int64) {
		if l := limitTable[id]; n < l.Min || n > l.Max {
			t.Fatalf("%s: %s = %d is outside %d..%d", Format(c), l.What, n, l.Min, l.Max)
		}
	}
	optional := func(id limitID, n int) {
		if n != 0 { // 0: not given
			in(id, int64(n))
		}
	}
	switch c := c.(type) {
	case *Send:
		in(limSendCount, int64(c.Count))
	case *Inject:
		in(limInjectCount, int64(c.Count))
		in(limInjectEpoch, int64(c.Epoch))
		in(limSeq, int64(c.Seq))
	case *Step:
		in(limStep, int64(c.N))
	case *Advance:
		in(limAdvance, c.Ms)
	case *Cluster:
		optional(limBrokers, c.Brokers)
		optional(limPartitions, c.Partitions)
		optional(limRF, c.RF)
		optional(limMinInsync, c.MinInsync)
		optional(limTxnVersion, c.TransactionVersion)
		optional(limSegmentBytes, c.SegmentBytes)
		optional(limProducerIDStart, c.ProducerIDStart)
		optional(limTxnMaxTimeout, c.TxnMaxTimeoutMs)
		if c.LatencyGiven {
			in(limBrokerLatency, int64(c.BrokerLatencyMs))
		}
	case *RestartBroker:
		in(limBrokerID, int64(c.ID))
	case *KillBroker:
		in(limBrokerID, int64(c.ID))
	case *ResetConnection:
		in(limBrokerID, int64(c.Broker))
	case *Consumer:
		optional(limMaxPoll, c.MaxPoll)
		optional(limMaxPollInterval, c.MaxPollIntervalMs)
	case *TxnTool:
		in(limStartOffset, c.StartOffset)
		optional(limBrokerID, c.Broker)
	case *Diagnose:
		in(limOffset, c.Offset)
	}
}
