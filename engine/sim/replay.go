package sim

import (
	"fmt"
	"sort"

	"github.com/eoslab/eoslab/engine/script"
)

type actionKind uint8

const (
	actApply   actionKind = iota + 1 // a command that takes no steps
	actStep                          // steps, run-length encoded: at = how many
	actAdvance                       // the start of an advance (its announcement)
	actClock                         // an idle clock move to at (the end of an advance)
	// actIdle is a step that found nothing to do within limit. It is
	// history too: looking drops spent timers, holds a paused producer's
	// items and moves the periodic tasks past boundaries where they did
	// nothing, and the world replayed must look the same way.
	actIdle
	// actInput is a command that takes steps (step, run), noted when it
	// starts: its steps follow as actStep entries. Replaying it changes
	// nothing; it keeps the commands as given, for `replay`.
	actInput
)

// action is one entry of the world's history; replaying the history on a
// fresh world with the same seed reproduces it exactly.
type action struct {
	kind  actionKind
	cmd   script.Command
	at    int64
	after int   // steps performed once this action was done
	limit int64 // actStep: the horizon the steps were taken within
}

// The history is w.actions followed by w.run, the open run of steps (when
// run.at > 0): entries of the list are never changed once appended, so
// that copies of the world share them.

func (w *World) record(a action) {
	if w.unrecorded {
		return
	}
	a.after = w.steps
	if a.kind == actApply {
		a.cmd = w.compactCommand(a.cmd)
	}
	switch a.kind {
	case actStep:
		if w.run.at > 0 && w.run.limit == a.limit {
			w.run.at++ // consecutive steps share one entry
			w.run.after = a.after
			return
		}
		w.closeRun()
		a.at = 1
		w.run = a
		return
	case actIdle:
		if w.run.at == 0 && w.actions.endsIdle(a.limit) {
			return // looking again finds the same nothing
		}
	}
	w.closeRun()
	w.actions.Append(a)
}

// recordStep is record(action{kind: actStep, limit: limit}) for the step
// just taken, without building the action: every step is recorded.
func (w *World) recordStep(limit int64) {
	if w.unrecorded {
		return
	}
	if w.run.at > 0 && w.run.limit == limit {
		w.run.at++ // consecutive steps share one entry
		w.run.after = w.steps
		return
	}
	w.closeRun()
	w.run = action{kind: actStep, at: 1, after: w.steps, limit: limit}
}

// recordCommand is record(action{kind: kind, cmd: c}) for an actApply or
// actInput, written straight as its entry (entryOf's first case).
func (w *World) recordCommand(kind actionKind, c script.Command) {
	if w.unrecorded {
		return
	}
	if kind == actApply {
		c = w.compactCommand(c)
	}
	w.closeRun()
	w.actions.Append(action{kind: kind, cmd: c, after: w.steps})
}

// recordIdle is record(action{kind: actIdle, limit: limit}), written
// straight as its entry.
func (w *World) recordIdle(limit int64) {
	if w.unrecorded {
		return
	}
	if w.run.at == 0 && w.actions.endsIdle(limit) {
		return // looking again finds the same nothing
	}
	w.closeRun()
	w.actions.Append(action{kind: actIdle, after: w.steps, limit: limit})
}

// closeRun moves the open run of steps into the history.
func (w *World) closeRun() {
	if w.run.at > 0 { // mostly not: small enough to be inlined at every record
		w.appendRun()
	}
}

func (w *World) appendRun() {
	w.actions.Append(w.run)
	w.run = action{}
}

// numActions is the length of the history, the open run included.
func (w *World) numActions() int {
	if w.run.at > 0 {
		return w.actions.Len() + 1
	}
	return w.actions.Len()
}

// actionAt is entry i of the history.
func (w *World) actionAt(i int) action {
	if i < w.actions.Len() {
		return w.actions.At(i)
	}
	return w.run
}

// historyReader reads a world's history in order from an entry, the open
// run last.
type historyReader struct {
	w *World
	r logReader
	i int
}

func (w *World) historyFrom(i int) historyReader {
	h := historyReader{w: w, i: i}
	if i < w.actions.Len() {
		h.r = w.actions.reader(i)
	}
	return h
}

// next returns the entry at h and moves past it.
func (h *historyReader) next() action {
	h.i++
	if h.i <= h.w.actions.Len() {
		return h.r.next()
	}
	return h.w.run
}

// Checkpoints. Time travel replays the history from the nearest
// checkpoint before where it goes: a frozen copy of the world taken every
// few hundred steps. Copies share what only grows (logs, the history, the
// checker's records) and copy the rest, so a checkpoint costs about the
// world's state without its history, and checkpoints are spaced so that
// they cost less than the history they cover.

// Checkpoints are taken checkpointMost steps apart, or checkpointEvery
// once the logs have grown by checkpointRecords records since the last
// one. A seek replays at most that many steps: 8192 in the workload of
// BenchmarkSeek take about a millisecond, where the budget is 5 ms, and a
// world whose steps each store hundreds of records replays eight times
// fewer. Each checkpoint is a copy of the world's state that the
// collector marks and keeps: at every 1024 steps they cost a produce
// 5-6 % more (BenchmarkProducePath), at every 512 about 10 %, at every
// 4096 about 2.5 % (which 8192 halves).
const (
	checkpointEvery   = 1024
	checkpointMost    = 8192
	checkpointRecords = 64 << 10
)

// A world's checkpoints cost at most half its history (what it stored):
// a larger world's checkpoints are further apart.

type checkpoint struct {
	steps int    // the world's steps when it was taken
	acts  int    // entries of the history before the open run
	run   action // the open run of steps then (the step just taken is its last)
	w     *World // the frozen copy
	next  int    // the step after which the world took its next checkpoint
	hist  int    // the history's bytes then (historyBytes)
	recs  int64  // the records the logs held then (storedRecords)
	spent int    // the checkpoints' bytes then, this one included (cloneWeight)
}

// historyBytes estimates what the world's history holds: the commands and
// steps, the logs, the producers' finished batches and the checker's
// records of what was sent and acknowledged. The weights are what the
// heap holds of each (runtime.MemStats after a collection, in the
// workloads of BenchmarkCheckpointMemory and BenchmarkProducePath): the
// history's own bytes (actionLog.Bytes), a stored batch of a record or
// three about 72 with its bytes, and a settled batch about 64 besides the
// checker's records of it: a few bytes in its producer's log of done
// batches, and what else its produce keeps (the log's entry for it, the
// sequence index, checkpoints).
func (w *World) historyBytes() int {
	n := w.actions.Bytes()
	for _, b := range w.brokers {
		for _, r := range b.Replicas() {
			n += 72 * r.Log.NumBatches()
		}
	}
	for _, e := range w.producers.all.all() {
		if s := e.slot; s.p != nil {
			n += 64 * s.p.Settled()
		}
	}
	return n + 32*w.check.sources.entries.Len() + 24*w.check.acks.Len()
}

// storedRecords is how many records the world's logs hold, every
// replica's counted: what a replay mostly spends its time on.
func (w *World) storedRecords() int64 {
	var n int64
	for _, b := range w.brokers {
		for _, r := range b.Replicas() {
			n += r.Log.LogEndOffset()
		}
	}
	return n
}

// maybeCheckpoint takes a checkpoint if one is due.
func (w *World) maybeCheckpoint() {
	if w.replaying || w.steps < w.nextCkpt {
		return
	}
	spent := 0 // what the checkpoints so far cost
	from, before, recsBefore := 0, 0, int64(0)
	if n := len(w.ckpts); n > 0 {
		c := &w.ckpts[n-1]
		spent, from, before, recsBefore = c.spent, c.steps, c.hist, c.recs
	}
	weight, hist, recs := w.cloneWeight(), w.historyBytes(), w.storedRecords()
	perStep := max(1, (hist-before)/max(1, w.steps-from)) // what a step stored lately
	if !w.ckptFixed && 2*(spent+weight) > hist {
		// Not yet: when the history will have grown enough.
		w.nextCkpt = w.steps + max(w.ckptEvery, (2*(spent+weight)-hist)/perStep)
		return
	}
	if grown := recs - recsBefore; !w.ckptFixed && w.steps-from < checkpointMost && grown < checkpointRecords {
		// Not yet: a replay from the last one is short still. Looked at
		// again when the logs will have grown enough at the rate since.
		perStep := max(1, grown/int64(max(1, w.steps-from)))
		w.nextCkpt = min(from+checkpointMost, w.steps+max(w.ckptEvery/4, int((checkpointRecords-grown)/perStep)))
		return
	}
	w.nextCkpt = w.steps + w.ckptEvery
	w.ckpts = append(w.ckpts, checkpoint{steps: w.steps, acts: w.actions.Len(), run: w.run, w: w.clone(false),
		next: w.nextCkpt, hist: hist, recs: recs, spent: spent + weight})
}

// Rewind returns a new world that has replayed this world's history up to
// its step-th step, including the commands given after that step and
// before the next one (time travel). The new world keeps the trace up to
// that point and can be driven on: a command applied to it starts a new
// timeline from there (a fork), leaving this world as it was.
func (w *World) Rewind(step int) (*World, error) {
	if step < 0 || step > w.steps {
		return nil, fmt.Errorf("no step %d: the world is at step %d", step, w.steps)
	}
	if step == w.steps {
		return w.Clone(), nil // the whole history: the world as it is
	}
	j := sort.Search(len(w.ckpts), func(i int) bool { return w.ckpts[i].steps > step }) - 1
	r, first, done := w.restore(j)
	last := -1 // the last entry replayed
	h := w.historyFrom(first)
	for i := first; i < w.numActions(); i++ {
		a := h.next()
		cut := a.after > step
		if cut {
			if a.kind != actStep {
				break
			}
			a.at -= int64(a.after - step) // part of a run of steps: take the ones up to step
			if a.at <= 0 {
				break
			}
		}
		if i == first {
			a.at -= done // the checkpoint was taken within this run
		}
		if a.kind != actStep || a.at > 0 {
			r.replay(a)
		}
		last = i
		if cut {
			break
		}
	}
	w.shareHistory(r, last, step)
	n := sort.Search(w.trace.Len(), func(i int) bool { return w.trace.At(i).Step > step })
	return w.restored(r, j, n), nil
}

// shareHistory gives r, which has replayed this world's history up to
// entry last and step upTo without recording it, the history recording
// would have given it: the entries before last, and last itself, a run
// of steps cut at upTo left open (recordStep). The entries are shared,
// as a copy of the world shares them. Nothing replayed (last -1): r
// keeps what restore gave it.
func (w *World) shareHistory(r *World, last, upTo int) {
	r.unrecorded = false
	if last < 0 {
		return
	}
	a := w.actionAt(last)
	r.actions = w.actions.Clone()
	if a.kind != actStep {
		r.actions.Truncate(last + 1)
		r.run = action{}
		return
	}
	if a.after > upTo {
		a.at -= int64(a.after - upTo)
		a.after = upTo
	}
	r.actions.Truncate(last)
	r.run = a
}

// restore starts a replay from checkpoint j (from the start for -1): the
// world to replay on, the first entry of the history to replay and how
// many steps of it the checkpoint has taken already.
func (w *World) restore(j int) (r *World, first int, done int64) {
	if j < 0 {
		r = New(w.seed)
		r.ckptEvery, r.nextCkpt, r.ckptFixed = w.ckptEvery, w.ckptEvery, w.ckptFixed
	} else {
		c := &w.ckpts[j]
		r = c.w.clone(true)
		r.actions = w.actions.Clone()
		r.actions.Truncate(c.acts)
		r.run = c.run
		first, done = c.acts, c.run.at
	}
	r.quiet, r.replaying = true, true // the events are known already: share them instead of rebuilding
	r.unrecorded = true               // and so is the history (shareHistory)
	return r, first, done
}

// restored finishes a replay from checkpoint j: the world keeps the first
// events of the trace and the checkpoints up to j.
func (w *World) restored(r *World, j, events int) *World {
	r.quiet, r.replaying = false, false
	r.ckpts = w.ckpts[: j+1 : j+1]
	if j >= 0 {
		r.nextCkpt = w.ckpts[j].next
	}
	r.trace = w.trace.Prefix(events) // shared; the first event it adds copies the last chunk
	return r
}

// Moment is a point in a world's history. Several moments share a step
// count when commands were applied between two steps (a lesson's setup, a
// fault armed); a Moment tells them apart, so that travelling back goes
// to each of them and not only to the last one of a step.
type Moment struct {
	Steps   int // steps performed
	actions int // history entries, the last possibly a run of steps cut at Steps
	events  int // trace events
}

// After reports whether m comes later in the history than o.
func (m Moment) After(o Moment) bool {
	return m.actions > o.actions || m.actions == o.actions && m.Steps > o.Steps
}

// Events is how many trace events the world had at the moment.
func (m Moment) Events() int { return m.events }

// Moment is the world's present moment.
func (w *World) Moment() Moment {
	return Moment{Steps: w.steps, actions: w.numActions(), events: w.trace.Len()}
}

// RewindTo returns a new world that has replayed this world's history up
// to moment m, which must be one of its moments (see Rewind).
func (w *World) RewindTo(m Moment) (*World, error) {
	if m.Steps > w.steps || m.actions > w.numActions() || m.events > w.trace.Len() {
		return nil, fmt.Errorf("no such moment (step %d): the world is at step %d", m.Steps, w.steps)
	}
	if m == w.Moment() {
		return w.Clone(), nil
	}
	// The last checkpoint within the moment's history: before its last
	// entry, or within that entry's run up to the moment's step.
	j := sort.Search(len(w.ckpts), func(i int) bool {
		c := &w.ckpts[i]
		return c.acts >= m.actions || c.steps > m.Steps
	}) - 1
	r, first, done := w.restore(j)
	last := -1 // the last entry replayed
	h := w.historyFrom(first)
	for i := first; i < m.actions; i++ {
		a := h.next()
		if a.kind == actStep && a.after > m.Steps {
			a.at -= int64(a.after - m.Steps) // the run had grown since the moment
		}
		if a.kind == actStep && a.at <= 0 {
			break
		}
		last = i
		if i == first {
			a.at -= done // the checkpoint was taken within this run
			if a.kind == actStep && a.at == 0 {
				continue
			}
		}
		r.replay(a)
	}
	w.shareHistory(r, last, m.Steps)
	return w.restored(r, j, m.events), nil
}

func (r *World) replay(a action) {
	switch a.kind {
	case actApply:
		if rp, ok := a.cmd.(*replayed); ok {
			r.keepReplay(rp.res)
			r.check.run(r)
			break
		}
		if err := r.applyKept(a.cmd); err != nil {
			panic(fmt.Sprintf("replaying %s: %v (the history is not deterministic)", a.cmd.Verb(), err))
		}
		r.check.run(r)
	case actStep:
		r.stepsWithin(a.limit, int(a.at)) // recorded as they are taken
		r.flush()
		return
	case actIdle:
		if n, _ := r.stepsWithin(a.limit, 1); n > 0 {
			panic("replaying an idle step performed one (the history is not deterministic)")
		}
		r.flush() // recorded as it was looked for
		return
	case actAdvance:
		r.announceAdvance(a.at)
	case actClock:
		r.now = max(r.now, a.at)
	case actInput:
	}
	r.record(a)
	r.flush()
}
