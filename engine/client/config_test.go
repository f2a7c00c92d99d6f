package client

import (
	"strings"
	"testing"
)

// Kafka 4.x's rules (ProducerConfig.postProcessAndValidateIdempotenceConfigs):
// explicit idempotence plus a conflict fails; idempotence left at its
// default is silently switched off by acks/retries conflicts; more than five
// requests in flight fails either way.
func TestResolve(t *testing.T) {
	cases := []struct {
		name       string
		settings   []Setting
		idempotent bool
		err        string // substring of the ConfigException; "" for none
		warning    string // substring of a warning; "" for none
	}{
		{"defaults", nil, true, "", ""},
		{"acks=1 with idempotence by default: silently off", []Setting{{"acks", "1"}}, false, "", "idempotence silently disabled: acks=1"},
		{"retries=0 by default: silently off", []Setting{{"retries", "0"}}, false, "", "retries=0"},
		{"explicit idempotence and acks=1", []Setting{{"enable.idempotence", "true"}, {"acks", "1"}}, false, "conflicts with acks=1", ""},
		{"explicit idempotence and retries=0", []Setting{{"enable.idempotence", "true"}, {"retries", "0"}}, false, "conflicts with retries=0", ""},
		{"six in flight fails even by default", []Setting{{"max.in.flight.requests.per.connection", "6"}}, false, "at most 5", ""},
		{"six in flight and acks=1: the in-flight check comes first", []Setting{{"acks", "1"}, {"max.in.flight.requests.per.connection", "6"}}, false, "at most 5", ""},
		{"plain producer may have six in flight", []Setting{{"enable.idempotence", "false"}, {"max.in.flight.requests.per.connection", "6"}}, false, "", ""},
		{"acks=all spelled -1", []Setting{{"enable.idempotence", "true"}, {"acks", "-1"}}, true, "", ""},
		{"transactional needs idempotence", []Setting{{"transactional.id", "tx"}, {"acks", "1"}}, false, "transactional.id is set but idempotence is off", ""},
		{"delivery timeout too small, explicit", []Setting{{"delivery.timeout.ms", "1000"}}, false, "must be at least linger.ms + request.timeout.ms", ""},
		{"delivery timeout raised when request timeout grows", []Setting{{"request.timeout.ms", "200000"}}, true, "", "delivery.timeout.ms raised to"},
		{"bad acks", []Setting{{"acks", "2"}}, false, `invalid value "2" for acks`, ""},
		{"unknown key", []Setting{{"ack", "1"}}, false, `unknown producer config "ack"`, ""},
		{"twice", []Setting{{"acks", "1"}, {"acks", "all"}}, false, "acks is set twice", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, warnings, err := Resolve(c.settings)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "ConfigException: ") {
					t.Fatalf("err = %v, want ConfigException containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected %v", err)
			}
			if cfg.Idempotent != c.idempotent {
				t.Fatalf("idempotent = %v", cfg.Idempotent)
			}
			joined := strings.Join(warnings, "\n")
			if (c.warning == "") != (joined == "") || !strings.Contains(joined, c.warning) {
				t.Fatalf("warnings %q, want %q", joined, c.warning)
			}
		})
	}
	d, _, _ := Resolve(nil)
	if d.Acks != -1 || d.Retries != 2147483647 || d.MaxInFlight != 5 || d.DeliveryTimeoutMs != 120000 || d.RequestTimeoutMs != 30000 {
		t.Fatalf("defaults %+v", d)
	}
}

// ExponentialBackoff.backoff: doubled per retry, jitter applied to the
// term, the maximum applied after the jitter.
func TestBackoffDoublesToTheMaximum(t *testing.T) {
	p := &Producer{cfg: &Config{RetryBackoffMs: 100, RetryBackoffMaxMs: 1000}}
	tests := []struct {
		attempts int
		jitter   float64
		want     int64
	}{{1, 1, 100}, {2, 1, 200}, {3, 1, 400}, {4, 1, 800}, {5, 1, 1000}, {9, 1, 1000},
		{1, 0.8, 80}, {1, 1.19, 119}, {4, 1.19, 952}, {5, 0.8, 800}, {5, 1.19, 1000}}
	for _, tt := range tests {
		if got := p.backoff(tt.attempts, tt.jitter); got != tt.want {
			t.Errorf("backoff(%d, %v) = %d, want %d", tt.attempts, tt.jitter, got, tt.want)
		}
	}
}
