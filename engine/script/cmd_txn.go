package script

import "strconv"

// TxnOp is a transactional producer call.
type TxnOp int

const (
	Begin  TxnOp = iota // beginTransaction
	Commit              // commitTransaction
	Abort               // abortTransaction
)

func (o TxnOp) String() string { return [...]string{"begin", "commit", "abort"}[o] }

// Txn is `begin NAME`, `commit NAME` or `abort NAME`.
type Txn struct {
	At   Pos
	Op   TxnOp
	Name string
}

func (t *Txn) Position() Pos       { return t.At }
func (t *Txn) Verb() string        { return t.Op.String() }
func (t *Txn) formatArgs(w *words) { w.add(t.Name) }

func txnParser(op TxnOp) func(*cmdLine) (Command, *Error) {
	return func(l *cmdLine) (Command, *Error) {
		name, err := l.onlyName()
		if err != nil {
			return nil, err
		}
		return &Txn{At: l.at, Op: op, Name: name}, nil
	}
}

// Isolation levels of a consumer.
const (
	ReadCommitted   = "read_committed"
	ReadUncommitted = "read_uncommitted"
)

// Consumer creates a consumer reading the given partitions with an
// isolation level, in a consumer group.
type Consumer struct {
	At        Pos
	Name      string
	Isolation string
	TPs       []TopicPartition
	Group     string // "" when not given
	MaxPoll   int    // max.poll.records; 0 when not given (Kafka's 500)
	// max.poll.interval.ms; 0 when not given (Kafka's 300000)
	MaxPollIntervalMs int
}

func (c *Consumer) Position() Pos { return c.At }
func (c *Consumer) Verb() string  { return "consumer" }

func parseConsumer(l *cmdLine) (Command, *Error) {
	name, err := l.nameArg()
	if err != nil {
		return nil, err
	}
	t, err := l.positional("read_committed|read_uncommitted")
	if err != nil {
		return nil, err
	}
	if t.val != ReadCommitted && t.val != ReadUncommitted {
		return nil, l.errf(t.pos, "isolation level must be read_committed or read_uncommitted, got %s%s", Quote(t.val),
			didYouMean(t.val, []string{ReadCommitted, ReadUncommitted}))
	}
	c := &Consumer{At: l.at, Name: name, Isolation: t.val}
	for {
		pt, ok := l.optionalPositional()
		if !ok {
			break
		}
		tp, err := l.topicPartition(pt)
		if err != nil {
			return nil, err
		}
		c.TPs = append(c.TPs, tp)
	}
	if len(c.TPs) == 0 {
		return nil, l.missing("TOPIC-PARTITION")
	}
	opts, err := l.options(optSpec{keys: []string{"group", "max.poll.records", "max.poll.interval.ms"}})
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		switch o.key {
		case "max.poll.records":
			n, err := l.number(token{pos: o.pos, val: o.val}, o.key, limMaxPoll)
			if err != nil {
				return nil, err
			}
			c.MaxPoll = int(n)
			continue
		case "max.poll.interval.ms":
			n, err := l.number(token{pos: o.pos, val: o.val}, o.key, limMaxPollInterval)
			if err != nil {
				return nil, err
			}
			c.MaxPollIntervalMs = int(n)
			continue
		}
		if c.Group, err = l.name(token{pos: o.pos, val: o.val}, "group"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Consumer) formatArgs(w *words) {
	w.add(c.Name, c.Isolation)
	for _, tp := range c.TPs {
		w.add(tp.String())
	}
	if c.Group != "" {
		w.kv("group", c.Group)
	}
	if c.MaxPoll != 0 {
		w.kv("max.poll.records", strconv.Itoa(c.MaxPoll))
	}
	if c.MaxPollIntervalMs != 0 {
		w.kv("max.poll.interval.ms", strconv.Itoa(c.MaxPollIntervalMs))
	}
}

// Poll makes a consumer fetch from each of its partitions once.
type Poll struct {
	At   Pos
	Name string
}

func (p *Poll) Position() Pos       { return p.At }
func (p *Poll) Verb() string        { return "poll" }
func (p *Poll) formatArgs(w *words) { w.add(p.Name) }

func parsePoll(l *cmdLine) (Command, *Error) {
	name, err := l.onlyName()
	if err != nil {
		return nil, err
	}
	return &Poll{At: l.at, Name: name}, nil
}

// Seek is the application moving a consumer back to its group's committed
// offsets (`seek NAME committed`): KafkaConsumer.committed, then seek, as a
// consume-transform-produce application does after an abort. The consumer
// never does it by itself.
type Seek struct {
	At   Pos
	Name string
}

func (s *Seek) Position() Pos       { return s.At }
func (s *Seek) Verb() string        { return "seek" }
func (s *Seek) formatArgs(w *words) { w.add(s.Name, "committed") }

func parseSeek(l *cmdLine) (Command, *Error) {
	name, err := l.nameArg()
	if err != nil {
		return nil, err
	}
	t, err := l.positional("committed")
	if err != nil {
		return nil, err
	}
	if t.quoted || t.val != "committed" {
		return nil, l.errf(t.pos, "expected \"committed\" (the group's committed offsets), got %s%s", Quote(t.val),
			didYouMean(t.val, []string{"committed"}))
	}
	if _, err := l.options(optSpec{}); err != nil {
		return nil, err
	}
	return &Seek{At: l.at, Name: name}, nil
}

// SendOffsets is sendOffsetsToTransaction: the positions of the group's
// consumers (or of one of them) become part of the producer's transaction,
// with that consumer's group metadata — or, with legacy, with the group id
// only, as the API before KIP-447 had it.
type SendOffsets struct {
	At       Pos
	Producer string
	Group    string
	Consumer string // consumer=NAME; "" when not given
	Legacy   bool   // sendOffsetsToTransaction(offsets, groupId): no member id, no generation
}

func (s *SendOffsets) Position() Pos { return s.At }
func (s *SendOffsets) Verb() string  { return "send-offsets" }
func (s *SendOffsets) formatArgs(w *words) {
	w.add(s.Producer, s.Group)
	if s.Consumer != "" {
		w.kv("consumer", s.Consumer)
	}
	if s.Legacy {
		w.add("legacy")
	}
}

func parseSendOffsets(l *cmdLine) (Command, *Error) {
	name, err := l.nameArg()
	if err != nil {
		return nil, err
	}
	t, err := l.positional("GROUP")
	if err != nil {
		return nil, err
	}
	group, err := l.name(t, "GROUP")
	if err != nil {
		return nil, err
	}
	opts, err := l.options(optSpec{keys: []string{"consumer"}, flags: []string{"legacy"}})
	if err != nil {
		return nil, err
	}
	c := &SendOffsets{At: l.at, Producer: name, Group: group}
	for _, o := range opts {
		if !o.isPair {
			c.Legacy = true
			continue
		}
		if c.Consumer, err = l.name(token{pos: o.pos, val: o.val}, "consumer"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// MarkerFault loses or delays the next transaction markers written to a partition.
type MarkerFault struct {
	At     Pos
	Action FaultAction
	TP     TopicPartition
}

func (m *MarkerFault) Position() Pos       { return m.At }
func (m *MarkerFault) Verb() string        { return m.Action.String() + " markers" }
func (m *MarkerFault) formatArgs(w *words) { w.add(m.TP.String()) }

func markerParser(a FaultAction) func(*cmdLine) (Command, *Error) {
	return func(l *cmdLine) (Command, *Error) {
		tp, err := l.tpArg()
		if err != nil {
			return nil, err
		}
		if _, err := l.options(optSpec{}); err != nil {
			return nil, err
		}
		return &MarkerFault{At: l.at, Action: a, TP: tp}, nil
	}
}

// FailoverCoordinator moves the transaction coordinator of a transactional
// id to another broker (`failover coordinator TXN_ID`).
type FailoverCoordinator struct {
	At    Pos
	TxnID string
}

func (f *FailoverCoordinator) Position() Pos       { return f.At }
func (f *FailoverCoordinator) Verb() string        { return "failover coordinator" }
func (f *FailoverCoordinator) formatArgs(w *words) { w.value(f.TxnID) }

// Effect records an external side effect (an HTTP call, an e-mail) that
// the application named NAME performs: no transaction can take it back.
type Effect struct {
	At    Pos
	Name  string
	Label string
}

func (e *Effect) Position() Pos       { return e.At }
func (e *Effect) Verb() string        { return "effect" }
func (e *Effect) formatArgs(w *words) { w.add(e.Name); w.value(e.Label) }

func parseEffect(l *cmdLine) (Command, *Error) {
	name, err := l.nameArg()
	if err != nil {
		return nil, err
	}
	t, err := l.positional("LABEL")
	if err != nil {
		return nil, err
	}
	if _, err := l.options(optSpec{}); err != nil {
		return nil, err
	}
	return &Effect{At: l.at, Name: name, Label: t.val}, nil
}
