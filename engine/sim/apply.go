package sim

import (
	"fmt"
	"math"
	"strconv"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
)

// Apply performs one command of the command language and returns every
// event it caused (for step, run and advance: the events of the steps).
// An error means the command cannot apply to this world (an unknown
// producer, partition or broker; a cluster change after the start); the
// world is unchanged. What Kafka's client would refuse at run time (a
// ConfigException, a send on a fenced producer) is an event, not an error.
func (w *World) Apply(c script.Command) ([]trace.Event, error) {
	if takesSteps(c) { // asked first: most commands take none, and a Job need not be made for them
		var j Job
		w.startJob(c, &j)
		evs, _ := j.Continue(math.MaxInt)
		if len(j.started) == 0 {
			return evs, nil
		}
		return append(j.started, evs...), nil
	}
	if err := w.applyNow(c); err != nil {
		w.discardPending()
		return nil, err
	}
	w.recordCommand(actApply, w.remembered(c))
	w.check.run(w) // a failover or a restart can lose acknowledged data at once
	return w.flush(), nil
}

// Job is a command that takes steps — step N, run, advance — performed a
// slice at a time, so that a front end can draw between slices, show
// progress and stop it. Run and advance stop by themselves after RunLimit
// steps, when something keeps retrying.
type Job struct {
	w        *World
	kind     jobKind
	left     int   // steps left (step N; run and advance: up to RunLimit)
	deadline int64 // advance: the clock it moves to
	done     bool
	started  []trace.Event // what starting it said (advance's announcement)
	replay   *replayRun    // replay: the scratch world under way
	cmd      script.Command
	// Steps is how many steps it has performed so far (a replay: steps of
	// the world it replays on).
	Steps int
}

type jobKind uint8

const (
	jobStep jobKind = iota + 1
	jobRun
	jobAdvance
	jobReplay
)

// StartJob begins c if it takes steps (step, run, advance); otherwise it
// reports false and does nothing.
func (w *World) StartJob(c script.Command) (*Job, bool) {
	if !takesSteps(c) {
		return nil, false
	}
	j := &Job{}
	w.startJob(c, j)
	return j, true
}

// StartReplay begins a replay (`replay NAME ...`) as a job: Continue
// plays the history again on a scratch world a slice at a time, and only
// when it is done does the world keep the result, as Apply would, and
// record the command in its history. Stopped before that, it leaves the
// world exactly as it was: nothing applied, recorded or traced. An error
// (the history creates no such producer) is Apply's, and changes nothing.
func (w *World) StartReplay(c *script.Replay) (*Job, error) {
	rr, err := w.startReplay(c)
	if err != nil {
		return nil, err
	}
	return &Job{w: w, kind: jobReplay, replay: rr, cmd: c}, nil
}

// Replay reports, for a replay, the steps played so far on the scratch
// world and the steps of the history it plays again (the replay may take
// more or fewer); ok is false for other jobs.
func (j *Job) Replay() (steps, of int, ok bool) {
	if j.kind != jobReplay {
		return 0, 0, false
	}
	return j.replay.r.steps, j.replay.of, true
}

// continueReplay is Continue for a replay: the world changes only at the
// end, when it keeps the result and records the command as Apply does.
func (j *Job) continueReplay(maxSteps int) ([]trace.Event, bool) {
	if j.done {
		return nil, true
	}
	rr := j.replay
	finished := rr.advance(maxSteps)
	j.Steps = rr.r.steps
	if !finished {
		return nil, false
	}
	j.done = true
	w := j.w
	w.keepReplay(rr.result())
	w.recordCommand(actApply, w.remembered(j.cmd))
	w.check.run(w)
	return w.flush(), true
}

// takesSteps reports whether c is performed as a job of steps.
func takesSteps(c script.Command) bool {
	switch c.(type) {
	case *script.Step, *script.Run, *script.Advance:
		return true
	}
	return false
}

// startJob fills j for c if c takes steps, and reports whether it does.
func (w *World) startJob(c script.Command, j *Job) bool {
	*j = Job{w: w, left: RunLimit}
	switch c := c.(type) {
	case *script.Step:
		j.kind, j.left = jobStep, max(c.N, 1)
		w.recordCommand(actInput, c)
	case *script.Run:
		j.kind = jobRun
		w.recordCommand(actInput, c)
	case *script.Advance:
		j.kind, j.deadline = jobAdvance, w.now+c.Ms
		w.announceAdvance(c.Ms)
		w.record(action{kind: actAdvance, at: c.Ms})
		j.started = w.flush()
	default:
		return false
	}
	return true
}

// Started is what starting the job said (an advance announces itself).
func (j *Job) Started() []trace.Event { return j.started }

// Done reports whether the job has finished.
func (j *Job) Done() bool { return j.done }

// Deadline is the clock an advance moves to (0 for other jobs).
func (j *Job) Deadline() int64 { return j.deadline }

// Continue performs at most maxSteps more steps and returns their events,
// and whether the job is done.
func (j *Job) Continue(maxSteps int) ([]trace.Event, bool) {
	if j.kind == jobReplay {
		return j.continueReplay(maxSteps)
	}
	w := j.w
	start := w.trace.Len() // the steps' events follow each other in the trace
	var out []trace.Event  // unless the trace is not kept
	for n := 0; n < maxSteps && !j.done; {
		if j.left == 0 {
			j.done = true
			if j.kind != jobStep && w.tracing() {
				what := "run"
				if j.kind == jobAdvance {
					what = "advance"
				}
				w.emit(trace.New("run.limit", fmt.Sprintf("%s stopped after %d steps: something keeps retrying (the clock is at %s)", what, RunLimit, trace.FormatTime(w.now))))
				out = w.collect(out, w.flush())
			}
			break
		}
		limit := noLimit
		if j.kind == jobAdvance {
			limit = j.deadline
		}
		want := min(maxSteps-n, j.left)
		k, evs := w.stepsWithin(limit, want)
		out = w.collect(out, evs)
		n += k
		j.left -= k
		j.Steps += k
		if k < want { // nothing more was due
			j.done = true
			if j.kind == jobAdvance {
				w.now = max(w.now, j.deadline)
				w.record(action{kind: actClock, at: j.deadline})
			}
			break
		}
	}
	if w.dropTrace {
		return out, j.done
	}
	return w.trace.From(start), j.done
}

// collect gathers a job's events when the trace does not keep them.
func (w *World) collect(out, evs []trace.Event) []trace.Event {
	switch {
	case !w.dropTrace:
		return out
	case out == nil:
		return evs // handed over by flush: no copy needed
	}
	return append(out, evs...)
}

// Stop ends the job where it is: an advance leaves the clock at its last
// step. It says so in the trace. A replay stopped is dropped: the world is
// left as it was before it, its trace included.
func (j *Job) Stop() []trace.Event {
	if j.done {
		return nil
	}
	j.done = true
	if j.kind == jobReplay {
		return nil
	}
	w := j.w
	if w.tracing() {
		w.emit(trace.New("command.stopped", fmt.Sprintf("stopped after %d step(s), at %s", j.Steps, trace.FormatTime(w.now))).
			With("steps", trace.Int(int64(j.Steps))))
	}
	return w.flush()
}

// Run performs events until nothing is due (at most RunLimit steps).
func (w *World) Run() []trace.Event {
	evs, _ := w.Apply(runCommand)
	return evs
}

// runCommand is the command Run applies (commands are never modified).
var runCommand = &script.Run{}

// Advance moves the clock by ms, performing every event that falls due
// (at most RunLimit steps).
func (w *World) Advance(ms int64) []trace.Event {
	evs, _ := w.Apply(&script.Advance{Ms: ms})
	return evs
}

func (w *World) announceAdvance(ms int64) {
	if w.tracing() {
		w.emit(trace.New("clock.advance", fmt.Sprintf("the clock moves forward %s, to %s", FormatDuration(ms), trace.FormatTime(w.now+ms))).
			With("by_ms", trace.Int(ms)))
	}
}

// applyNow changes the world for a command that takes no steps.
func (w *World) applyNow(c script.Command) error {
	if done, err := w.txnCommand(c); done {
		return err
	}
	switch c := c.(type) {
	case *script.Cluster:
		return w.applyCluster(c)
	case *script.Feature:
		w.applyFeature(c.TransactionVersion)
		return nil
	case *script.Producer:
		return w.createProducer(c)
	case *script.Send:
		return w.applySend(c)
	case *script.Inject:
		return w.inject(c)
	case *script.Fault:
		return w.arm(c)
	case *script.FailRequest:
		return w.armRefusal(c)
	case *script.ResetConnection:
		return w.resetConnection(c.Name, c.Broker)
	case *script.RestartProducer:
		return w.restartProducer(c.Name)
	case *script.Pause:
		return w.pause(c.Name, true)
	case *script.Resume:
		return w.pause(c.Name, false)
	case *script.RestartBroker:
		w.started = true
		return w.restart(c.ID, c.Clean)
	case *script.KillBroker:
		w.started = true
		return w.kill(c.ID)
	case *script.Failover:
		w.started = true
		return w.failover(msg.TP{Topic: c.TP.Topic, Partition: c.TP.Partition}, c.Unclean)
	case *script.Arrive:
		return w.arrive(c)
	case *script.Hangup:
		return w.hangup(c)
	case *script.Diagnose:
		return w.diagnose(c)
	case *script.Replay:
		return w.replayWith(c)
	}
	return fmt.Errorf("%s is not supported by this world", c.Verb())
}

func (w *World) applyCluster(c *script.Cluster) error {
	if w.started {
		return fmt.Errorf("cluster must come before any producer, batch or fault")
	}
	cfg := w.cluster
	set := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	set(&cfg.Brokers, c.Brokers)
	set(&cfg.Partitions, c.Partitions)
	set(&cfg.RF, c.RF)
	set(&cfg.MinInsync, c.MinInsync)
	set(&cfg.TransactionVersion, c.TransactionVersion)
	set(&cfg.SegmentBytes, c.SegmentBytes)
	if c.TransactionVersion != 0 {
		cfg.TransactionVersion = c.TransactionVersion
	}
	if c.Topic != "" {
		cfg.Topic = c.Topic
	}
	if c.ProducerIDStart != 0 {
		cfg.ProducerIDStart = int64(c.ProducerIDStart)
	}
	if c.TxnMaxTimeoutMs != 0 {
		cfg.TxnMaxTimeoutMs = int32(c.TxnMaxTimeoutMs)
	}
	if c.LatencyGiven {
		cfg.BrokerLatencyMs = c.BrokerLatencyMs
	}
	if cfg.RF > cfg.Brokers {
		return fmt.Errorf("rf=%d needs at least %d brokers, the cluster has %d", cfg.RF, cfg.RF, cfg.Brokers)
	}
	w.reset(cfg)
	if w.tracing() {
		w.emit(trace.New("cluster", fmt.Sprintf("%d broker(s); topic %s with %d partition(s), replication factor %d, min.insync.replicas %d",
			cfg.Brokers, cfg.Topic, cfg.Partitions, cfg.RF, cfg.MinInsync)).
			With("brokers", trace.Int(int64(cfg.Brokers))).With("topic", trace.Str(cfg.Topic)).
			With("partitions", trace.Int(int64(cfg.Partitions))).With("rf", trace.Int(int64(cfg.RF))).
			With("min_insync", trace.Int(int64(cfg.MinInsync))))
	}
	return nil
}

func (w *World) unknownProducer(name string) error {
	if w.isExternal(name) {
		return fmt.Errorf("%s is a real client (eoslab serve): the lab acts on its connections (lose, delay, reset) and on the brokers, never on the client itself", name)
	}
	return fmt.Errorf("unknown producer %q (create it first with: producer %s)", name, name)
}

func (w *World) unknownPartition(tp msg.TP) error {
	return fmt.Errorf("unknown partition %s (topic %s has partitions 0-%d)", tp, w.cluster.Topic, len(w.topicPartitions(w.cluster.Topic))-1)
}

func modeOf(m script.ProducerMode) client.Mode {
	return [...]client.Mode{client.ModeDefault, client.ModeIdempotent, client.ModePlain, client.ModeTransactional}[m]
}

func (w *World) createProducer(c *script.Producer) error {
	old, at := w.producers.locate(c.Name)
	if old != nil && !old.removed {
		return fmt.Errorf("producer %q exists already (use: restart producer %s)", c.Name, c.Name)
	}
	if _, ok := w.tx.cons[c.Name]; ok {
		return fmt.Errorf("%q is a consumer's name", c.Name)
	}
	if isAdmin(c.Name) {
		return fmt.Errorf("%q is the name of the operator's transactions tool", c.Name)
	}
	w.started = true
	var settings []client.Setting
	for _, kv := range c.Config {
		settings = append(settings, client.Setting{Key: kv.Key, Value: kv.Value})
	}
	s := w.slots.New()
	s.w, s.mode = w, modeOf(c.Mode)
	if c.TxnID != "" || settings != nil {
		s.extra = &slotExtra{id: c.TxnID, config: settings}
	}
	if old != nil {
		s.life = old.life + 1
		s.who = old.who     // the checker's records of the name go on
		s.pairs = old.pairs // the name's connections go on being numbered
	} else {
		s.pairs = w.clientPairs(c.Name)
	}
	w.producers.putAt(at, c.Name, s)
	for i := range s.pairs {
		if pc := s.pairs[i].c; pc != nil {
			pc.ps, pc.slot = &s.pairs[i], s
		}
	}
	return w.startProducer(c.Name, s)
}

func (w *World) startProducer(name string, s *producerSlot) error {
	next := int64(0)
	if s.p != nil {
		next = s.p.NextSerial()
	}
	s.wakePending = false
	rc := w.resolve(s)
	warnings, err := rc.warnings, rc.err
	if err != nil {
		s.removed = true
		if w.tracing() {
			w.emit(trace.New("producer.config_error", fmt.Sprintf("%s cannot be created: %v", name, err)).
				With("producer", trace.Str(name)).With("error", trace.Str(err.Error())))
		}
		return nil
	}
	p := client.NewResolved(name, s.mode, rc.cfg, s)
	s.p, s.removed = p, false
	p.ContinueSerials(next)
	if w.tracing() {
		cfg := p.Config() // a copy: only the event needs it
		w.emit(trace.New("producer.create", fmt.Sprintf("%s starts: %s, acks=%s, max.in.flight=%d, retries=%d, delivery.timeout.ms=%d",
			name, p.ModeName(), acksText(cfg.Acks), cfg.MaxInFlight, cfg.Retries, cfg.DeliveryTimeoutMs)).
			With("producer", trace.Str(name)).With("mode", trace.Str(p.ModeName())).
			With("acks", trace.Int(int64(cfg.Acks))).With("idempotent", trace.Bool(cfg.Idempotent)))
	}
	for _, warn := range warnings {
		if w.tracing() {
			w.emit(trace.New("producer.warning", name+": "+warn).With("producer", trace.Str(name)).With("warning", trace.Str(warn)))
		}
	}
	return nil
}

func acksText(a int16) string {
	if a == -1 {
		return "all"
	}
	return fmt.Sprint(a)
}

func (w *World) slot(name string) (*producerSlot, error) {
	s := w.producers.get(name)
	if s == nil {
		return nil, w.unknownProducer(name)
	}
	return s, nil
}

func (w *World) applySend(c *script.Send) error {
	s, err := w.slot(c.Producer)
	if err != nil {
		return err
	}
	tp := msg.TP{Topic: c.TP.Topic, Partition: c.TP.Partition}
	if w.meta(tp) == nil {
		return w.unknownPartition(tp)
	}
	if tp.Topic == w.cluster.Topic {
		// The cluster's own string, not the command's copy of its bytes:
		// the batch's partition is compared with the cluster's topic at
		// every turn of the sender and the brokers, and equal strings that
		// share their bytes compare without reading them.
		tp.Topic = w.cluster.Topic
	}
	switch {
	case s.removed:
		if w.tracing() {
			w.emit(trace.New("producer.refused", fmt.Sprintf("%s does not exist: it failed to start", c.Producer)).With("producer", trace.Str(c.Producer)))
		}
		return nil
	case s.p.Fatal() != "":
		if w.tracing() {
			w.emit(trace.New("producer.refused", fmt.Sprintf("%s.send fails: the producer hit the fatal error %s", c.Producer, s.p.Fatal())).
				With("producer", trace.Str(c.Producer)).With("error", trace.Str(s.p.Fatal())))
		}
		return nil
	}
	var key []byte
	if c.HasKey {
		key = []byte(c.Key)
	}
	var value []byte
	if c.HasValue {
		value = []byte(c.Value)
	}
	s.p.Send(tp, int32(c.Count), key, value, c.HasValue, s)
	return nil
}

// inject hands a hand-built batch straight to the partition's leader.
func (w *World) inject(c *script.Inject) error {
	tp := msg.TP{Topic: c.TP.Topic, Partition: c.TP.Partition}
	m := w.meta(tp)
	if m == nil {
		return w.unknownPartition(tp)
	}
	w.started = true
	if m.leader == 0 {
		if w.tracing() {
			w.emit(trace.New("inject.refused", fmt.Sprintf("%s has no leader to inject into", tp)).With("partition", trace.Str(tp.String())))
		}
		return nil
	}
	b := record.Batch{Header: record.Header{
		PartitionLeaderEpoch: -1, Magic: 2, LastOffsetDelta: c.Count - 1, BaseTimestamp: EpochMs + w.now, MaxTimestamp: EpochMs + w.now,
		ProducerID: c.PID, ProducerEpoch: c.Epoch, BaseSequence: c.Seq, RecordsCount: c.Count,
	}}
	if c.Txn {
		b.Attributes = record.TransactionalFlag
	}
	for i := range c.Count {
		b.Records = append(b.Records, record.Record{OffsetDelta: i, Value: fmt.Appendf(nil, "inject-%d", i)})
	}
	data, err := record.Encode(&b)
	if err != nil {
		return err
	}
	w.send(msg.ClientAddr("inject"), msg.BrokerAddr(m.leader), 0, 0,
		&msg.ProduceRequest{Acks: 1, TimeoutMs: 30_000, Batches: []msg.ProduceBatch{{TP: tp, Data: data, BaseSeq: c.Seq}}})
	return nil
}

// restartProducer replaces a producer by a new instance with the same
// configuration: a new producer id (or, transactional, a bumped epoch),
// fresh sequences, and nothing of the old one's queue.
func (w *World) restartProducer(name string) error {
	s, err := w.slot(name)
	if err != nil {
		return err
	}
	s.life++
	s.paused = false
	if s.extra != nil {
		s.extra.held = nil
	}
	if w.tracing() {
		w.emit(trace.New("producer.restart", fmt.Sprintf("%s restarts: the old instance is gone with its unsent batches; the new one starts from scratch", name)).
			With("producer", trace.Str(name)))
	}
	// The old process's sockets close with it: what it sent still arrives,
	// and nothing comes back to it.
	w.closeConnsOf(msg.ClientAddr(name), "the process that opened it ended")
	return w.startProducer(name, s)
}

func (w *World) pause(name string, paused bool) error {
	s, err := w.slot(name)
	if err != nil {
		return err
	}
	if s.paused == paused {
		return nil
	}
	s.paused = paused
	if paused {
		if w.tracing() {
			w.emit(trace.New("producer.pause", fmt.Sprintf("%s is paused: it sends nothing and reads nothing until resumed", name)).With("producer", trace.Str(name)))
		}
		return nil
	}
	if w.tracing() {
		w.emit(trace.New("producer.resume", fmt.Sprintf("%s resumes after %d held event(s)", name, len(s.held()))).With("producer", trace.Str(name)))
	}
	w.release(s)
	return nil
}

// FormatDuration writes a duration the way the command language reads it:
// "25h", "1h30m", "10s", "500ms".
func FormatDuration(ms int64) string {
	if ms <= 0 {
		return "0ms"
	}
	units := []struct {
		name string
		ms   int64
	}{{"d", 86_400_000}, {"h", 3_600_000}, {"m", 60_000}, {"s", 1000}, {"ms", 1}}
	out := ""
	for _, u := range units {
		if ms >= u.ms {
			out += fmt.Sprintf("%d%s", ms/u.ms, u.name)
			ms %= u.ms
		}
	}
	return out
}

// resolvedConfig is a producer configuration as client.ResolveFor made it,
// kept for every producer created with the same mode, transactional id and
// settings: a world of a million producers with the defaults resolves
// (and holds) one.
type resolvedConfig struct {
	cfg      *client.Config
	warnings []string
	err      error
}

// maxResolvedConfigs bounds the cache: transactional producers have a key
// each, and a script may make any number of them.
const maxResolvedConfigs = 256

func (w *World) resolve(s *producerSlot) resolvedConfig {
	// Most producers of a large world have neither settings nor a
	// transactional id: their mode alone finds them, without a key.
	plain := s.extra == nil && int(s.mode) < len(w.plainCfgs)
	if plain && w.plainCfgs[s.mode] != nil {
		return *w.plainCfgs[s.mode]
	}
	var buf [64]byte // the key, on the stack: made a string only to be kept
	b := append(strconv.AppendInt(buf[:0], int64(s.mode), 10), 0)
	b = append(b, s.txnID()...)
	for _, kv := range s.config() {
		b = append(append(append(append(b, 0), kv.Key...), 1), kv.Value...)
	}
	if rc, ok := w.configs[string(b)]; ok {
		return rc
	}
	cfg, warnings, err := client.ResolveFor(s.mode, s.txnID(), s.config())
	rc := resolvedConfig{cfg: &cfg, warnings: warnings, err: err}
	if plain {
		w.plainCfgs[s.mode] = &rc
	}
	if w.configs == nil {
		w.configs = map[string]resolvedConfig{}
	}
	if len(w.configs) < maxResolvedConfigs {
		w.configs[string(b)] = rc
	}
	return rc
}
