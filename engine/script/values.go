package script

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// TopicPartition names one partition of a topic.
type TopicPartition struct {
	Topic     string
	Partition int
}

// String renders the partition as TOPIC-PARTITION, e.g. "orders-0".
func (tp TopicPartition) String() string {
	return tp.Topic + "-" + strconv.Itoa(tp.Partition)
}

// ParseTopicPartition parses TOPIC-PARTITION such as "orders-0" or
// "my-topic-12". It splits at the last '-' because topic names may contain
// dashes while partition numbers cannot.
func ParseTopicPartition(s string) (TopicPartition, error) {
	i := strings.LastIndexByte(s, '-')
	if i < 0 {
		return TopicPartition{}, fmt.Errorf("invalid topic-partition %s: expected TOPIC-PARTITION such as orders-0", Quote(s))
	}
	topic, part := s[:i], s[i+1:]
	if err := checkTopic(topic); err != nil {
		return TopicPartition{}, fmt.Errorf("invalid topic-partition %s: %v", Quote(s), err)
	}
	if !isDigits(part) {
		return TopicPartition{}, fmt.Errorf("invalid topic-partition %s: partition %s is not a non-negative integer", Quote(s), Quote(part))
	}
	// Kafka partition numbers are int32.
	n, err := strconv.ParseInt(part, 10, 32)
	if err != nil {
		return TopicPartition{}, fmt.Errorf("invalid topic-partition %s: partition %s is too large", Quote(s), Quote(part))
	}
	return TopicPartition{Topic: topic, Partition: int(n)}, nil
}

// maxTopicLen is Kafka's limit on topic name length.
const maxTopicLen = 249

// checkTopic applies Kafka's rules for topic names: ASCII letters, digits,
// '.', '_' and '-', at most 249 characters, and not "." or "..".
func checkTopic(t string) error {
	switch {
	case t == "":
		return errors.New("topic name is empty")
	case t == "." || t == "..":
		return fmt.Errorf("topic name %s is not allowed", Quote(t))
	case len(t) > maxTopicLen:
		return fmt.Errorf("topic name is longer than %d characters", maxTopicLen)
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !isLetter(c) && !isDigit(c) && c != '.' && c != '_' && c != '-' {
			return fmt.Errorf("topic name %s may only contain letters, digits, '.', '_' and '-'", Quote(t))
		}
	}
	return nil
}

// durationUnits maps each unit to milliseconds, largest first: Format emits
// units in this order.
var durationUnits = []struct {
	name string
	ms   int64
}{
	{"d", 24 * 60 * 60 * 1000},
	{"h", 60 * 60 * 1000},
	{"m", 60 * 1000},
	{"s", 1000},
	{"ms", 1},
}

// errTooLarge is a duration beyond int64 milliseconds; the caller says
// what its limit is.
var errTooLarge = errors.New("too large")

// parseDuration parses a sequence of number+unit groups such as "1h30m" or
// "500ms" into milliseconds. Only whole numbers are accepted: the clock is
// counted in milliseconds, so a fraction would be either lost or ambiguous.
func parseDuration(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("empty duration")
	}
	var total int64
	for rest := s; rest != ""; {
		i := 0
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("expected a number at %s", Quote(rest))
		}
		num := rest[:i]
		rest = rest[i:]
		j := 0
		for j < len(rest) && !isDigit(rest[j]) {
			j++
		}
		unit := rest[:j]
		rest = rest[j:]
		if unit == "" {
			return 0, fmt.Errorf("missing unit after %s (units: ms, s, m, h, d)", shown(num))
		}
		mult := unitMs(unit)
		if mult == 0 {
			return 0, fmt.Errorf("unknown unit %s (units: ms, s, m, h, d)", Quote(unit))
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > (math.MaxInt64-total)/mult {
			return 0, errTooLarge
		}
		total += n * mult
	}
	return total, nil
}

// unitMs returns the length of a unit in milliseconds, or 0 if unknown.
func unitMs(unit string) int64 {
	for _, u := range durationUnits {
		if u.name == unit {
			return u.ms
		}
	}
	return 0
}

// formatDuration renders milliseconds with the largest units first, e.g.
// 5400000 as "1h30m". Non-positive values, which parseDuration never
// produces, render as "0s".
func formatDuration(ms int64) string {
	if ms <= 0 {
		return "0s"
	}
	var b strings.Builder
	for _, u := range durationUnits {
		if n := ms / u.ms; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			ms -= n * u.ms
		}
	}
	return b.String()
}
