package client

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Setting is one producer config key as the user wrote it.
type Setting struct{ Key, Value string }

// Config is a producer's resolved configuration.
type Config struct {
	Idempotent           bool
	TransactionalID      string
	Acks                 int16 // -1 (all), 0 or 1
	Retries              int32
	MaxInFlight          int
	DeliveryTimeoutMs    int64
	RequestTimeoutMs     int64
	LingerMs             int64
	RetryBackoffMs       int64
	RetryBackoffMaxMs    int64
	TransactionTimeoutMs int32
	BatchSize            int
}

// Defaults of the Java producer (Kafka 4.x: linger.ms 5).
func defaults() Config {
	return Config{
		Idempotent: true, Acks: -1, Retries: math.MaxInt32, MaxInFlight: 5,
		DeliveryTimeoutMs: 120_000, RequestTimeoutMs: 30_000, LingerMs: 5,
		RetryBackoffMs: 100, RetryBackoffMaxMs: 1000, TransactionTimeoutMs: 60_000, BatchSize: 16384,
	}
}

// ConfigError is Kafka's ConfigException: the producer cannot be created.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return "ConfigException: " + e.Msg }

// Resolve applies Kafka's producer config rules
// (ProducerConfig.postProcessAndValidateIdempotenceConfigs, Kafka 4.x) to
// the keys the user set. It returns the resolved config and warnings for
// silent changes Kafka makes (eoslab does not keep them silent).
func Resolve(settings []Setting) (Config, []string, error) {
	c := defaults()
	set := map[string]bool{}
	idempotenceExplicit := false
	for _, s := range settings {
		if set[s.Key] {
			return c, nil, &ConfigError{fmt.Sprintf("%s is set twice", s.Key)}
		}
		set[s.Key] = true
		if err := apply(&c, s); err != nil {
			return c, nil, err
		}
		if s.Key == "enable.idempotence" {
			idempotenceExplicit = true
		}
	}
	var warnings []string
	if c.Idempotent {
		// Kafka checks max.in.flight first, and in 4.x it fails whether or not
		// idempotence was asked for explicitly.
		if c.MaxInFlight > 5 {
			return c, nil, &ConfigError{fmt.Sprintf("max.in.flight.requests.per.connection=%d: the idempotent producer allows at most 5", c.MaxInFlight)}
		}
		var conflicts []string
		if set["retries"] && c.Retries == 0 {
			conflicts = append(conflicts, "retries=0 (idempotence needs retries)")
		}
		if set["acks"] && c.Acks != -1 {
			conflicts = append(conflicts, fmt.Sprintf("acks=%d (idempotence needs acks=all)", c.Acks))
		}
		if len(conflicts) > 0 {
			if idempotenceExplicit {
				return c, nil, &ConfigError{"enable.idempotence=true conflicts with " + strings.Join(conflicts, " and ")}
			}
			c.Idempotent = false
			warnings = append(warnings, "idempotence silently disabled: "+strings.Join(conflicts, " and ")+
				" while enable.idempotence was left at its default; this producer can now write duplicates")
		}
	}
	if c.TransactionalID != "" && !c.Idempotent {
		return c, nil, &ConfigError{"transactional.id is set but idempotence is off; a transactional producer must be idempotent"}
	}
	if min := c.LingerMs + c.RequestTimeoutMs; c.DeliveryTimeoutMs < min {
		if set["delivery.timeout.ms"] {
			return c, nil, &ConfigError{fmt.Sprintf("delivery.timeout.ms=%d must be at least linger.ms + request.timeout.ms = %d", c.DeliveryTimeoutMs, min)}
		}
		c.DeliveryTimeoutMs = min
		warnings = append(warnings, fmt.Sprintf("delivery.timeout.ms raised to linger.ms + request.timeout.ms = %d", min))
	}
	return c, warnings, nil
}

func apply(c *Config, s Setting) error {
	bad := func(why string) error {
		return &ConfigError{fmt.Sprintf("invalid value %q for %s: %s", s.Value, s.Key, why)}
	}
	num := func(lo, hi int64) (int64, error) {
		n, err := strconv.ParseInt(s.Value, 10, 64)
		if err != nil || n < lo || n > hi {
			return 0, bad(fmt.Sprintf("expected a number in [%d, %d]", lo, hi))
		}
		return n, nil
	}
	var err error
	var n int64
	switch s.Key {
	case "acks":
		switch s.Value {
		case "all", "-1":
			c.Acks = -1
		case "0", "1":
			c.Acks = int16(s.Value[0] - '0')
		default:
			return bad("expected all, -1, 0 or 1")
		}
	case "enable.idempotence":
		switch s.Value {
		case "true":
			c.Idempotent = true
		case "false":
			c.Idempotent = false
		default:
			return bad("expected true or false")
		}
	case "transactional.id":
		c.TransactionalID = s.Value
	case "retries":
		n, err = num(0, math.MaxInt32)
		c.Retries = int32(n)
	case "max.in.flight.requests.per.connection":
		n, err = num(1, math.MaxInt32)
		c.MaxInFlight = int(n)
	case "delivery.timeout.ms":
		n, err = num(0, math.MaxInt32)
		c.DeliveryTimeoutMs = n
	case "request.timeout.ms":
		n, err = num(0, math.MaxInt32)
		c.RequestTimeoutMs = n
	case "linger.ms":
		n, err = num(0, math.MaxInt32)
		c.LingerMs = n
	case "retry.backoff.ms":
		n, err = num(0, math.MaxInt32)
		c.RetryBackoffMs = n
	case "transaction.timeout.ms":
		n, err = num(1, math.MaxInt32)
		c.TransactionTimeoutMs = int32(n)
	case "batch.size":
		n, err = num(0, math.MaxInt32)
		c.BatchSize = int(n)
	default:
		return &ConfigError{fmt.Sprintf("unknown producer config %q", s.Key)}
	}
	return err
}
