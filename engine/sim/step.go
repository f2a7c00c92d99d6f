package sim

import (
	"fmt"
	"math"

	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/engine/txn"
)

// Step performs the next due event — deliver a message, fire a timer, run
// a producer's sender, a periodic broker task — and returns what happened.
// It returns false when nothing is due.
func (w *World) Step() ([]trace.Event, bool) {
	n, evs := w.stepsWithin(noLimit, 1)
	return evs, n == 1
}

// noLimit is the horizon of a plain step: the next due item, however far.
const noLimit = int64(1<<63 - 1)

// stepsWithin performs up to n steps, each the next event due at or
// before limit; with a limit (an advance), periodic tasks due by then
// count even when no item is. It records each step, and the look that
// found nothing when it stops short, in the history, and returns how many
// it took and their events: when the trace is not kept, all of them
// (handed over); when it is, the last step's (read them all in the trace).
// The steps of a job are taken in one call, not one call each.
func (w *World) stepsWithin(limit int64, n int) (taken int, evs []trace.Event) {
	for taken < n {
		var was int64 // the clock before the step, put back if it does nothing
		var did bool
		if q := &w.queue; q.regSet {
			// The register's wake, the head (most wakes): the step below,
			// for a wake, without an item's copy, kind or slot.
			r := &q.reg
			s, due := r.slot, r.due
			switch {
			case !wakeLive(s, r.life, r.ref):
				q.removeNext(true)
				continue
			case s.paused:
				s.hold(w.pop())
				continue
			}
			was = w.now
			if did = w.periodicFirst(due); !did {
				q.removeNext(true) // free for a wake the sender asks for
				w.now = max(was, due)
				did = w.wake(s)
			}
		} else {
			head, inLane := q.top()
			if len(q.later) > 0 && (head == nil || before(&q.laterMin, head)) {
				w.settleLater() // one of them may be next: w.top, without its call at every step
				continue
			}
			if head == nil || head.due > limit {
				if limit == noLimit {
					w.recordIdle(limit)
					return taken, evs
				}
				// Nothing queued before the limit: a periodic task may still be.
				was = w.now
				if did = w.periodicFirst(limit); !did {
					w.now = was
					w.steps--
					w.recordIdle(limit)
					return taken, evs
				}
			} else {
				next := &q.slab[head.at]
				if next.kind != itemDeliver && !w.live(next) { // a delivery is always live (live's default)
					if !inLane && len(q.heap) >= w.sweepAt {
						// Timers that can never act again come due one after
						// another (a request answered long before its timeout):
						// dropping them all in one pass costs less than taking
						// each off the heap's top. Either way nothing happens.
						w.compact()
						continue
					}
					q.release(head.at) // drop, with the head already at hand
					q.removeNext(inLane)
					continue
				}
				if s := w.pausedOwner(next); s != nil {
					// A paused process reads nothing and its timers wait with it;
					// holding them takes no time.
					s.hold(w.pop())
					continue
				}
				was = w.now
				if did = w.periodicFirst(next.due); !did {
					// A periodic task that did nothing scheduled nothing: the
					// head is still the item. It leaves the queue and is
					// performed where it lies in the slab, not copied out; its
					// slot is released once it has been performed. The pointer
					// stays valid meanwhile, even as the item schedules others:
					// the slot is not reused, and if the slab grows, the
					// pointer keeps the old array (whose copy of the item
					// nothing writes) alive.
					at, it := head.at, next
					q.removeNext(inLane)
					w.now = max(was, it.due)
					if it.kind == itemDeliver { // most items: perform's first case, without its call
						did = w.deliver(it)
					} else {
						did = w.perform(it)
					}
					q.release(at)
				}
			}
		}
		if did {
			// The step ends: the checker, its events, its entry in the
			// history and, when one is due, a checkpoint.
			e := w.finishStep()
			w.recordStep(limit)
			if w.steps >= w.nextCkpt && !w.replaying { // maybeCheckpoint's own test, without the call at every step
				w.maybeCheckpoint()
			}
			evs = w.gather(evs, e)
			taken++
			continue
		}
		// The step turned out to have nothing to do: time does not move for it.
		w.now = was
		w.steps--
	}
	return taken, evs
}

// periodicFirst counts a step and runs the periodic tasks due by at (the
// next item's due time, or the limit): whether one did something, which
// is then the step. Mostly none is due by then: runPeriodic would find so
// at once, and is not called.
func (w *World) periodicFirst(at int64) bool {
	w.steps++
	return w.nextPeriodic <= at && w.runPeriodic(at)
}

// gather adds a step's events e to those of the steps before it, evs (see
// stepsWithin): a trace that is not kept hands the events over, so the
// first step's may be added to; a kept trace's are read from it.
func (w *World) gather(evs, e []trace.Event) []trace.Event {
	if w.dropTrace && evs != nil {
		return append(evs, e...)
	}
	return e
}

// finishStep runs the anomaly checker and closes the step's events.
func (w *World) finishStep() []trace.Event {
	if c := w.check; !c.calmAt(w) { // check.run, without its call at every calm step
		c.pass(w)
	}
	if !w.dropTrace && w.trace.Pending() == 0 {
		return nil // flush's first case, most steps of an untraced world, without its call
	}
	return w.flush()
}

// pausedOwner returns the paused producer an item is for, if any.
func (w *World) pausedOwner(it *item) *producerSlot {
	s := it.slot
	if it.kind == itemDeliver {
		s = it.fl.to
	}
	if s != nil && s.paused {
		return s
	}
	return nil
}

// wakeLive reports whether a wake of slot s, asked for by its incarnation
// life as its wake gen, is still the sender's pending one.
func wakeLive(s *producerSlot, life, gen int) bool {
	return s.life == life && !s.removed && s.wakeGen == gen
}

// live reports whether an item still has something to do, without doing
// it, so that stale timers are dropped without moving the clock.
func (w *World) live(it *item) bool {
	switch it.kind {
	case itemWake:
		return wakeLive(it.slot, it.life, it.ref)
	case itemProducerTimer:
		s := it.slot
		return s.life == it.life && !s.removed && s.p.TimerLive(it.timer, it.ref)
	case itemProduceTimer:
		b := w.broker(it.broker)
		return b.Alive() && b.HasPending(it.ref)
	case itemFence:
		return !w.broker(it.broker).Alive() && w.fenceAt[it.broker] == it.due
	case itemCoordTimer:
		return w.broker(it.broker).CoordinatorTimerLive(it.txnID, it.ref)
	case itemConnClosed:
		if s := it.slot; s != nil {
			return s.life == it.life && !s.removed
		}
	case itemFetch:
		return w.broker(it.broker).FetchDue(it.tp)
	case itemGroupTimer:
		return w.groupTimerLive(it)
	}
	return true
}

// runPeriodic performs the periodic tasks whose time comes at or before
// limit: producer-id expiration and the leaders' ISR checks. It reports
// whether any of them did something (which then is this step).
func (w *World) runPeriodic(limit int64) bool {
	w.skipIdlePeriods(limit)
	for {
		next := w.nextPeriodic
		if next > limit {
			return false
		}
		w.periodicRuns++
		w.now = max(w.now, next)
		did := false
		env := w.benv
		if next == w.nextTxn {
			w.setPeriodic(w.nextExpiry, w.nextISR, w.nextTxn+txn.AbortScanIntervalMs)
			for _, b := range w.brokers {
				if b.Alive() && b.AbortTimedOut(env) {
					did = true
				}
			}
		} else if next == w.nextISR {
			w.setPeriodic(w.nextExpiry, w.nextISR+ISRCheckMs, w.nextTxn)
			for _, b := range w.brokers {
				if b.Alive() && b.CheckISR(env) {
					did = true
				}
			}
		} else {
			w.setPeriodic(w.nextExpiry+ExpirationCheckMs, w.nextISR, w.nextTxn)
			for _, b := range w.brokers {
				if b.Alive() && b.RemoveExpiredProducers(env) {
					did = true
				}
			}
		}
		if did {
			return true
		}
	}
}

// skipIdlePeriods moves each periodic task past the boundaries at which it
// would find nothing to do. Between steps nothing changes, and each task's
// condition only becomes true as time passes (an idle producer, a lagging
// follower, an old transaction), so the first boundary at which it acts
// can be computed: idle time costs nothing, however long (`advance 100y`).
func (w *World) skipIdlePeriods(limit int64) {
	if w.nextPeriodic > limit || limit == noLimit || w.everyPeriod {
		return
	}
	txnAt, isrAt, expiryAt := int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64)
	// A task whose next boundary is past limit stays where it is, whatever
	// it would find (firstBoundary): when it would act is asked only of the
	// tasks due by limit (the expiration check, every ten minutes, rarely is).
	txnDue, isrDue, expiryDue := w.nextTxn <= limit, w.nextISR <= limit, w.nextExpiry <= limit
	for _, b := range w.brokers {
		if !b.Alive() {
			continue
		}
		if txnDue {
			txnAt = min(txnAt, b.NextTxnTimeout(w.benv))
		}
		if isrDue {
			isrAt = min(isrAt, b.NextISRShrink())
		}
		if !expiryDue {
			continue
		}
		if ts := b.NextExpiry(); ts != math.MaxInt64 {
			expiryAt = min(expiryAt, ts-EpochMs)
		}
	}
	w.setPeriodic(firstBoundary(w.nextExpiry, ExpirationCheckMs, expiryAt, limit),
		firstBoundary(w.nextISR, ISRCheckMs, isrAt, limit),
		firstBoundary(w.nextTxn, txn.AbortScanIntervalMs, txnAt, limit))
}

// setPeriodic sets the periodic tasks' next times, and their earliest.
func (w *World) setPeriodic(expiry, isr, abort int64) {
	w.nextExpiry, w.nextISR, w.nextTxn = expiry, isr, abort
	w.nextPeriodic = min(expiry, isr, abort)
}

// firstBoundary is the first boundary (next + k·interval) at or after the
// time a task would act; when that is past limit, the first one past limit.
func firstBoundary(next, interval, acts, limit int64) int64 {
	target := min(acts, limit+1)
	if next >= target {
		return next
	}
	return next + (target-next+interval-1)/interval*interval
}

// wake runs producer s's sender, woken.
func (w *World) wake(s *producerSlot) bool {
	s.wakePending = false
	did := s.p.RunSender(s)
	if n, _ := s.p.TxnEnds(); n != 0 || s.extra != nil { // settleTxnAcks has nothing to do otherwise: not called
		w.settleTxnAcks(s) // what the run settled (no defer: a wake is most steps' half)
	}
	return did
}

// perform does one item; false means it turned out to have nothing to do.
func (w *World) perform(it *item) bool {
	switch it.kind {
	case itemDeliver:
		return w.deliver(it)
	case itemWake, itemProducerTimer:
		s := it.slot
		if it.kind == itemWake {
			return w.wake(s)
		}
		return s.p.OnTimer(it.timer, it.ref, s)
	case itemProduceTimer:
		return w.broker(it.broker).OnProduceTimeout(it.ref, w.benv)
	case itemFence:
		w.fence(it.broker)
		return true
	case itemCoordTimer:
		return w.broker(it.broker).OnCoordinatorTimer(it.txnID, it.ref, w.benv)
	case itemConnClosed:
		return w.connClosed(it)
	case itemFetch:
		w.benv.Fetch(it.broker, it.tp)
		return true
	case itemGroupTimer:
		return w.groupTimer(it.txnID)
	}
	return false
}

// deliver hands a message to its receiver, unless its connection lost it:
// it broke at or before this message, was reset, or the receiving end is
// gone.
func (w *World) deliver(it *item) bool {
	f := &it.fl
	m := &f.m
	c := f.cn
	lost := f.lost
	if !lost && f.dir == toBroker && c.closed == connOpen && c.busy != 0 && c.busy != m.ID {
		// The broker reads a connection's next request only once it has
		// answered the one before (Kafka mutes the channel meanwhile), and
		// in the order they were sent: this one waits in the socket buffer.
		c.inbox = append(c.inbox, *f)
		return false
	}
	readNext := false
	if f.dir == toBroker && c.busy == m.ID {
		// The request the connection was reserved for is read now; one
		// that needs no answer (acks=0) unmutes the channel at once.
		c.busy = 0
		readNext = lost || !expectsAnswer(m.Body)
	}
	c.wire--
	// Off the wire: the message is lost after all, or its receiver
	// handles it (written here rather than called, at every delivery).
	arrived := !lost // on the wire: why it is lost now is put into words only for the trace
	if arrived {
		lost = c.closed == closedReset || c.closed == closedByOpener && f.dir == toOpener ||
			c.closed == closedByBroker && f.dir == toBroker || f.dir == toBroker && !w.broker(m.To.Broker).Alive()
	}
	var did bool
	if lost {
		did = w.lost(f, arrived)
	} else {
		if f.dir == toBroker && expectsAnswer(m.Body) {
			c.busy = m.ID
		}
		if m.To.Broker > 0 {
			did = w.deliverToBroker(f)
		} else {
			did = w.deliverToClient(f)
		}
	}
	if c.closed != connOpen || w.conns.len() > w.connsKept { // afterDeliver, without its call when it has nothing to do
		w.afterDeliver(c)
	}
	if readNext {
		w.readNext(c)
	}
	return did
}

// lost tells of a message lost on its way; arrived is whether it left the
// wire first (its connection closed, or its broker is down, meanwhile).
func (w *World) lost(f *flight, arrived bool) bool {
	m := &f.m
	c := f.cn
	if w.tracing() {
		why := f.lostWhy()
		if arrived {
			switch {
			case c.closed == closedReset:
				why = "the connection was reset"
			case c.closed == closedByOpener && f.dir == toOpener:
				why = fmt.Sprintf("%s closed the connection", c.key.opener)
			case c.closed == closedByBroker && f.dir == toBroker:
				why = fmt.Sprintf("the broker %d process that held the connection ended", m.To.Broker)
			default:
				why = fmt.Sprintf("broker %d is down", m.To.Broker)
			}
		}
		w.emit(trace.New("message.lost", fmt.Sprintf("%s #%d from %s to %s is lost: %s (%s)", m.Body.Name(), m.ID, m.From, m.To, why, summarize(m)),
			lostAttrs(m, m.Body.IsResponse(), c, why)...))
	}
	return true
}

// expectsAnswer reports whether a broker answers the request: all do but
// an acks=0 produce (for which Kafka unmutes the channel at once).
func expectsAnswer(body msg.Body) bool {
	if p, ok := body.(*msg.ProduceRequest); ok {
		return p.Acks != 0
	}
	return true
}

// appendHead appends the attributes a message's events begin with: its
// number, API, whether it answers, and its ends. A message.send and its
// message.deliver write the same bytes (flight.head).
func appendHead(a trace.Builder, id int, api string, resp bool, from, to msg.Addr) trace.Builder {
	a = a.Int(trace.KeyMessage, int64(id))
	a = a.API(trace.KeyAPI, api)
	a = a.Bool(trace.KeyResponse, resp)
	a = a.Addr(trace.KeyFrom, from.Broker, from.Client)
	return a.Addr(trace.KeyTo, to.Broker, to.Client)
}

// emitDelivered emits the message.deliver of f, note ending its text.
func (w *World) emitDelivered(f *flight, note string) {
	var a trace.Builder
	if h := f.head; h != "" {
		a = w.slab.Begin(len(h) + 2 + len(note))
		a = append(a, h...)
	} else { // sent while the world did not trace, or replayed
		m := &f.m
		api := m.Body.Name()
		a = w.slab.Begin(34 + len(api) + len(m.From.Client) + len(m.To.Client) + len(note)) // a broker's end: a byte or two
		a = appendHead(a, m.ID, api, m.Body.IsResponse(), m.From, m.To)
	}
	a = a.Say(trace.SentenceDeliver).ArgText(note)
	w.event("message.deliver").Attrs = w.slab.Done(a)
}

// spareFetches is how many read fetches of followers a world keeps for
// reuse: about as many as its followers have in flight at once.
const spareFetches = 16

func (w *World) deliverToBroker(f *flight) bool {
	m := &f.m
	b := w.broker(m.To.Broker)
	if w.tracing() {
		w.emitDelivered(f, "")
	}
	env := w.benv
	switch body := m.Body.(type) {
	case *msg.ProduceRequest:
		b.HandleProduce(m, body, env)
		if f.cn.slot != nil { // a producer of the world's: its request is read, and pointed to by nothing else (cloner.flight)
			w.scratch.TakeBack(body)
		}
	case msg.InitProducerIDRequest:
		b.HandleInitProducerID(m, body, env)
	case msg.AddPartitionsToTxnRequest:
		b.HandleAddPartitions(m, body, env)
	case msg.AddOffsetsToTxnRequest:
		b.HandleAddOffsets(m, body, env)
	case msg.TxnOffsetCommitRequest:
		w.expireMembers(body.Group) // what the group's heartbeats told its coordinator meanwhile
		b.HandleTxnOffsetCommit(m, body, env)
	case msg.EndTxnRequest:
		b.HandleEndTxn(m, body, env)
	case msg.WriteTxnMarkersRequest:
		b.HandleWriteTxnMarkers(m, body, env)
	case msg.WriteTxnMarkersResponse:
		b.OnMarkersResponse(body, env)
	case msg.ConsumerFetchRequest:
		b.HandleConsumerFetch(m, body, env)
	case *msg.FetchRequest:
		b.HandleFetch(m, body, env)
		w.spareFetchs.Give(body, spareFetches) // read, and pointed to by nothing else (cloner.flight)
	case *msg.FetchResponse:
		b.OnFetchResponse(m.From.Broker, body, env)
		if from := w.broker(m.From.Broker); from != nil {
			from.TakeBack(body)
		}
	case wireRequest:
		w.answerWire(m, body)
	}
	return true
}

func (w *World) deliverToClient(f *flight) bool {
	m := &f.m
	s := f.to
	if x := f.cn.ext; x != nil {
		return w.deliverExternal(f, x)
	}
	if cs := f.cn.cons; s == nil && cs != nil {
		if w.tracing() {
			w.emitDelivered(f, "")
		}
		cs.c.OnResponse(m, cs.env)
		w.check.noteReads(w, cs)
		return true
	}
	if s == nil && f.cn.cons == nil && m.To.Client == adminClient {
		if w.tracing() {
			w.emitDelivered(f, "")
		}
		w.adminAnswer(m)
		return true
	}
	if s == nil || s.removed {
		if w.tracing() {
			w.emitDelivered(f, " (nobody waits for it)")
		}
		return true
	}
	if w.tracing() {
		w.emitDelivered(f, "")
	}
	env := s
	handled := s.p.OnResponse(m, env)
	if r, ok := m.Body.(*msg.ProduceResponse); ok {
		// Read, and pointed to by nothing else (cloner.flight,
		// broker.cloneAnswers): its broker makes the next answers of it.
		if b := w.broker(m.From.Broker); b != nil {
			b.TakeBackProduce(r)
		}
	}
	if n, _ := s.p.TxnEnds(); n != 0 || s.extra != nil { // as after a run of the sender
		w.settleTxnAcks(s)
	}
	if !handled {
		if w.tracing() {
			w.discardLast() // not read after all: discarded
			w.emit(trace.New("message.discard", fmt.Sprintf("%s discards %s #%d from %s: it no longer waits for that answer (the connection was closed or the process restarted)",
				m.To, m.Body.Name(), m.ID, m.From)).
				With("message", trace.Int(int64(m.ID))).With("to", trace.Str(m.To.String())))
		}
		return true
	}
	return true
}

// release puts back the items a paused producer held: what fell due
// while it was paused happens now, the rest at its own time.
func (w *World) release(s *producerSlot) {
	for _, it := range s.held() {
		it.due = max(it.due, w.now)
		w.schedule(it)
	}
	if s.extra != nil {
		s.extra.held = nil
	}
}

// lostAttrs is a message.lost event's attributes, packed with its text at
// once (trace.New).
func lostAttrs(m *msg.Message, resp bool, c *connection, why string) []trace.Attr {
	return []trace.Attr{{Key: "message", Val: trace.Int(int64(m.ID))}, {Key: "api", Val: trace.Str(m.Body.Name())},
		{Key: "response", Val: trace.Bool(resp)}, {Key: "from", Val: trace.Str(m.From.String())}, {Key: "to", Val: trace.Str(m.To.String())},
		{Key: "connection", Val: trace.Str(c.key.String())}, {Key: "reason", Val: trace.Str(why)}}
}
