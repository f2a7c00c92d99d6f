package script

import "fmt"

// Cluster creates the cluster and its topic. A zero field means the key was
// not given and the engine's default applies.
type Cluster struct {
	At                 Pos
	Brokers            int
	Partitions         int
	RF                 int
	MinInsync          int
	TransactionVersion int // 1 or 2; 0 = not given
	SegmentBytes       int
	ProducerIDStart    int // where the controller's first producer-id block starts
	TxnMaxTimeoutMs    int // the brokers' transaction.max.timeout.ms
	Topic              string
	// BrokerLatencyMs is how long a message between two brokers spends on
	// the wire (replication, markers), when LatencyGiven: 0 is a value.
	BrokerLatencyMs int
	LatencyGiven    bool
}

func (c *Cluster) Position() Pos { return c.At }
func (c *Cluster) Verb() string  { return "cluster" }

// clusterKeys is also the canonical order Format writes them in.
var clusterKeys = []string{"brokers", "topic", "partitions", "rf", "min.insync", "transaction.version", "segment.bytes", "producer.id.start", "transaction.max.timeout.ms", "broker.latency.ms"}

// clusterLimits are the limits of the numeric cluster keys.
var clusterLimits = map[string]limitID{
	"brokers": limBrokers, "partitions": limPartitions, "rf": limRF, "min.insync": limMinInsync,
	"transaction.version": limTxnVersion, "segment.bytes": limSegmentBytes, "producer.id.start": limProducerIDStart,
	"transaction.max.timeout.ms": limTxnMaxTimeout, "broker.latency.ms": limBrokerLatency,
}

// intField maps a numeric cluster key to its field, so parsing and
// formatting share one mapping.
func (c *Cluster) intField(key string) *int {
	switch key {
	case "brokers":
		return &c.Brokers
	case "partitions":
		return &c.Partitions
	case "rf":
		return &c.RF
	case "min.insync":
		return &c.MinInsync
	case "transaction.version":
		return &c.TransactionVersion
	case "segment.bytes":
		return &c.SegmentBytes
	case "producer.id.start":
		return &c.ProducerIDStart
	case "transaction.max.timeout.ms":
		return &c.TxnMaxTimeoutMs
	case "broker.latency.ms":
		return &c.BrokerLatencyMs
	}
	return nil
}

func parseCluster(l *cmdLine) (Command, *Error) {
	opts, err := l.options(optSpec{keys: clusterKeys})
	if err != nil {
		return nil, err
	}
	c := &Cluster{At: l.at}
	for _, t := range opts {
		switch t.key {
		case "topic":
			if e := checkTopic(t.val); e != nil {
				return nil, l.errf(t.pos, "%v", e)
			}
			c.Topic = t.val
		case "transaction.version":
			// Two protocols, so the message names both (limTxnVersion).
			if t.val != "1" && t.val != "2" {
				return nil, l.errf(t.pos, "transaction.version must be 1 or 2, got %s", Quote(t.val))
			}
			c.TransactionVersion = int(t.val[0] - '0')
		default:
			n, err := l.count(t, t.key, clusterLimits[t.key])
			if err != nil {
				return nil, err
			}
			*c.intField(t.key) = n
			c.LatencyGiven = c.LatencyGiven || t.key == "broker.latency.ms"
		}
	}
	return c, nil
}

func (c *Cluster) formatArgs(w *words) {
	for _, key := range clusterKeys {
		if key == "topic" {
			if c.Topic != "" {
				w.kv(key, c.Topic)
			}
		} else if n := *c.intField(key); n != 0 || key == "broker.latency.ms" && c.LatencyGiven {
			w.num(key, int64(n))
		}
	}
}

// ProducerMode is the mode word of a producer command.
type ProducerMode int

const (
	ModeDefault       ProducerMode = iota // no mode word: Kafka's defaults (idempotence on by default, not explicitly)
	ModeIdempotent                        // idempotent
	ModePlain                             // plain: enable.idempotence=false
	ModeTransactional                     // transactional=TXN_ID
)

// String returns the mode word, or "default".
func (m ProducerMode) String() string {
	switch m {
	case ModeDefault:
		return "default"
	case ModeIdempotent:
		return "idempotent"
	case ModePlain:
		return "plain"
	case ModeTransactional:
		return "transactional"
	}
	return fmt.Sprintf("ProducerMode(%d)", int(m))
}

// KV is one KEY=VALUE producer config, its value kept raw: validating it is
// the simulated client's job, which reports what Kafka's client would.
type KV struct {
	Key, Value string
	At         Pos
}

// Producer creates a producer and starts its InitProducerId.
type Producer struct {
	At     Pos
	Name   string
	Mode   ProducerMode
	TxnID  string // set when Mode is ModeTransactional
	Config []KV   // in source order
}

func (p *Producer) Position() Pos { return p.At }
func (p *Producer) Verb() string  { return "producer" }

// producerKeys are the Kafka producer configs eoslab models, plus the
// "transactional" mode key. transactional.id is an alias of it.
var producerKeys = []string{
	"transactional", "acks", "retries", "enable.idempotence", "max.in.flight.requests.per.connection",
	"delivery.timeout.ms", "request.timeout.ms", "linger.ms", "retry.backoff.ms",
	"transaction.timeout.ms", "batch.size", "transactional.id",
}

var modeWords = []string{"idempotent", "plain"}

func parseProducer(l *cmdLine) (Command, *Error) {
	name, err := l.nameArg()
	if err != nil {
		return nil, err
	}
	opts, err := l.options(optSpec{keys: producerKeys, flags: modeWords, noun: "config key"})
	if err != nil {
		return nil, err
	}
	p := &Producer{At: l.at, Name: name}
	var modeTok *token
	for i, t := range opts {
		mode := modeOf(t)
		if mode == ModeDefault {
			p.Config = append(p.Config, KV{Key: t.key, Value: t.val, At: t.pos})
			continue
		}
		if modeTok != nil {
			return nil, modeConflict(l, *modeTok, t)
		}
		if mode == ModeTransactional && t.val == "" {
			return nil, l.errf(t.pos, "%s must not be empty", t.key)
		}
		modeTok = &opts[i]
		p.Mode = mode
		if mode == ModeTransactional {
			p.TxnID = t.val
		}
	}
	return p, nil
}

// modeOf returns the mode a token selects, or ModeDefault for a config.
func modeOf(t token) ProducerMode {
	switch {
	case !t.isPair && t.val == "idempotent":
		return ModeIdempotent
	case !t.isPair && t.val == "plain":
		return ModePlain
	case t.key == "transactional" || t.key == "transactional.id":
		return ModeTransactional
	}
	return ModeDefault
}

// modeConflict explains why a second mode token is rejected.
func modeConflict(l *cmdLine, first, second token) *Error {
	if modeOf(first) == ModeTransactional && modeOf(second) == ModeTransactional {
		return l.errf(second.pos, "%s and %s both set the transactional id; give only one", shown(first.text), shown(second.text))
	}
	return l.errf(second.pos, "%s conflicts with %s: give at most one of idempotent, plain, transactional=TXN_ID", shown(second.text), shown(first.text))
}

func (p *Producer) formatArgs(w *words) {
	w.value(p.Name)
	switch p.Mode {
	case ModeIdempotent, ModePlain:
		w.add(p.Mode.String())
	case ModeTransactional:
		w.kv("transactional", p.TxnID)
	}
	for _, kv := range p.Config {
		w.kv(kv.Key, kv.Value)
	}
}

// Feature is `feature transaction.version=N`: an operator's
// kafka-features.sh upgrade (or downgrade) of the cluster's finalized
// transaction.version.
type Feature struct {
	At                 Pos
	TransactionVersion int // 1 or 2
}

func (f *Feature) Position() Pos       { return f.At }
func (f *Feature) Verb() string        { return "feature" }
func (f *Feature) formatArgs(w *words) { w.num("transaction.version", int64(f.TransactionVersion)) }

func parseFeature(l *cmdLine) (Command, *Error) {
	opts, err := l.options(optSpec{keys: []string{"transaction.version"}})
	if err != nil {
		return nil, err
	}
	if len(opts) == 0 {
		return nil, l.missing("transaction.version=1|2")
	}
	t := opts[0]
	if t.val != "1" && t.val != "2" {
		return nil, l.errf(t.pos, "transaction.version must be 1 or 2, got %s", Quote(t.val))
	}
	return &Feature{At: l.at, TransactionVersion: int(t.val[0] - '0')}, nil
}
