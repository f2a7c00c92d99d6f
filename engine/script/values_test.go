package script

import (
	"math"
	"testing"
)

func TestParseTopicPartition(t *testing.T) {
	valid := []struct {
		in   string
		want TopicPartition
	}{
		{"orders-0", TopicPartition{"orders", 0}},
		{"my-topic-12", TopicPartition{"my-topic", 12}},
		{"a.b_c-3", TopicPartition{"a.b_c", 3}},
		{"orders--1", TopicPartition{"orders-", 1}},
		{"t-2147483647", TopicPartition{"t", math.MaxInt32}},
	}
	for _, tt := range valid {
		got, err := ParseTopicPartition(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseTopicPartition(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	invalid := map[string]string{
		"orders":       `invalid topic-partition "orders": expected TOPIC-PARTITION such as orders-0`,
		"orders-":      `invalid topic-partition "orders-": partition "" is not a non-negative integer`,
		"-1":           `invalid topic-partition "-1": topic name is empty`,
		"orders-+1":    `invalid topic-partition "orders-+1": partition "+1" is not a non-negative integer`,
		"or ders-1":    `invalid topic-partition "or ders-1": topic name "or ders" may only contain letters, digits, '.', '_' and '-'`,
		"..-1":         `invalid topic-partition "..-1": topic name ".." is not allowed`,
		"t-2147483648": `invalid topic-partition "t-2147483648": partition "2147483648" is too large`,
	}
	for in, want := range invalid {
		_, err := ParseTopicPartition(in)
		if err == nil || err.Error() != want {
			t.Errorf("ParseTopicPartition(%q) error = %v, want %s", in, err, want)
		}
	}
}

func TestTopicPartitionString(t *testing.T) {
	if got := (TopicPartition{"my-topic", 12}).String(); got != "my-topic-12" {
		t.Errorf("String() = %q", got)
	}
}

func TestParseDuration(t *testing.T) {
	valid := map[string]int64{
		"500ms": 500, "2m": 120000, "25h": 90000000, "1d": 86400000, "90s": 90000,
		"1h30m": 5400000, "1d2h3m4s5ms": 93784005, "0s1ms": 1, "1m1ms": 60001,
	}
	for in, want := range valid {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "5", "h", "5x", "1.5h", "-1s", "1h 2m", "1mss", "106751991168d"} {
		if got, err := parseDuration(in); err == nil {
			t.Errorf("parseDuration(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	tests := map[int64]string{
		1: "1ms", 1000: "1s", 90000: "1m30s", 5400000: "1h30m", 90000000: "1d1h",
		93784005: "1d2h3m4s5ms", 0: "0s", math.MaxInt64: "106751991167d7h12m55s807ms",
	}
	for ms, want := range tests {
		got := formatDuration(ms)
		if got != want {
			t.Errorf("formatDuration(%d) = %q, want %q", ms, got, want)
		}
		if ms > 0 {
			if back, err := parseDuration(got); err != nil || back != ms {
				t.Errorf("parseDuration(formatDuration(%d)) = %d, %v", ms, back, err)
			}
		}
	}
}

func TestEnumStrings(t *testing.T) {
	if Lose.String() != "lose" || Delay.String() != "delay" || Request.String() != "request" || Response.String() != "response" {
		t.Error("fault enum names changed")
	}
	if ModeDefault.String() != "default" || ModeTransactional.String() != "transactional" {
		t.Error("producer mode names changed")
	}
	f := &Fault{Action: Delay, Target: Response}
	if f.Verb() != "delay response" {
		t.Errorf("Verb() = %q", f.Verb())
	}
}
