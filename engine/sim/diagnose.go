package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/trace"
)

// A history's diagnosis, judged by the engine. `diagnose NAME TP OFFSET`
// names an anomaly; it is right when the checker has found, by that
// moment, an anomaly of that name on that partition that is about that
// offset. `replay NAME CONFIG...` plays the world's commands again from
// its start with one producer configured otherwise and reports what the
// checker finds there, so a fix can be proved on the same inputs.

// Diagnosis is one `diagnose`, as the engine judged it.
type Diagnosis struct {
	Name      string // as the command language spells it: duplicate, zombie_write, …
	Partition string
	Offset    int64
	Step      int
	Right     bool
	Anomaly   int // the index in Anomalies() of the anomaly it names; -1 when wrong
}

// checkerName is the checker's spelling of a name of the language
// ("zombie_write" is "zombie write").
func checkerName(name string) string { return strings.ReplaceAll(name, "_", " ") }

// Covers reports whether the anomaly is about the record at offset off of
// its partition: either copy of a duplicate, any of the acknowledged
// offsets of a loss, any record of the batch found out of order or of a
// zombie's batch (or its marker), the offset a consumer read.
func (a *Anomaly) Covers(off int64) bool {
	if len(a.Offsets) == 0 {
		return false
	}
	in := func(first, n int64) bool { return first <= off && off < first+max(n, 1) }
	switch a.Name {
	case "duplicate":
		return slices.Contains(a.Offsets, off)
	case "lost":
		return len(a.Offsets) == 2 && a.Offsets[0] <= off && off <= a.Offsets[1]
	case "reordered":
		return in(a.Offsets[0], int64(a.Count))
	case "zombie write":
		return in(a.Offsets[0], int64(a.Count)) || len(a.Offsets) > 1 && a.Offsets[1] == off
	}
	return a.Offsets[0] == off
}

// diagnose judges a diagnosis against the anomalies found so far.
func (w *World) diagnose(c *script.Diagnose) error {
	tp := c.TP.String()
	if mtp := (msg.TP{Topic: c.TP.Topic, Partition: c.TP.Partition}); w.meta(mtp) == nil {
		return w.unknownPartition(mtp)
	}
	d := Diagnosis{Name: c.Name, Partition: tp, Offset: c.Offset, Step: w.steps, Anomaly: -1}
	name := checkerName(c.Name)
	for i := range w.check.anomalies {
		a := &w.check.anomalies[i]
		if a.Name == name && a.Partition == tp && a.Covers(c.Offset) {
			d.Right, d.Anomaly = true, i
			break
		}
	}
	w.diagnoses = append(w.diagnoses, d)
	if !w.tracing() {
		return nil
	}
	what := fmt.Sprintf("%s at %s offset %d", c.Name, tp, c.Offset)
	text := fmt.Sprintf("diagnosis %s: wrong — the checker has found no %s there", what, name)
	anomaly := ""
	if d.Right {
		anomaly = w.check.anomalies[d.Anomaly].Text
		text = "diagnosis " + what + ": right — " + anomaly
	}
	w.emit(trace.New("diagnosis", text).With("name", trace.Str(c.Name)).With("partition", trace.Str(tp)).
		With("offset", trace.Int(c.Offset)).With("right", trace.Bool(d.Right)).With("anomaly", trace.Str(anomaly)))
	return nil
}

// Diagnoses returns every diagnosis given so far, in order.
func (w *World) Diagnoses() []Diagnosis { return slices.Clone(w.diagnoses) }

// ReplayResult is what the last `replay` found.
type ReplayResult struct {
	Command    string // the replacement producer command, as a script writes it
	Producer   string
	Steps      int    // steps the replay performed
	Errors     int    // commands the replayed world refused (e.g. a producer that no longer exists)
	FirstError string // the first of them, with its command
	Anomalies  []Anomaly
	Snap       *Snapshot // the replayed world at its end
}

// inputs lists the commands of the world's history, in the order they
// were given: those applied, those that took steps (step, run) and the
// advances. Diagnoses and replays are left out: they change nothing.
func (w *World) inputs() []script.Command {
	var out []script.Command
	h := w.historyFrom(0)
	for range w.actions.Len() {
		a := h.next()
		switch a.kind {
		case actApply, actInput:
			switch a.cmd.(type) {
			case *script.Diagnose, *script.Replay, *replayed:
				continue
			}
			out = append(out, w.command(&a))
		case actAdvance:
			out = append(out, &script.Advance{Ms: a.at})
		}
	}
	return out
}

// replayWith plays the world's inputs again on a fresh world with the same
// seed, producer c.Producer.Name created as c says, and keeps what its
// checker found. The world itself is not changed but for the result.
func (w *World) replayWith(c *script.Replay) error {
	rr, err := w.startReplay(c)
	if err != nil {
		return err
	}
	for !rr.advance(math.MaxInt) {
	}
	w.keepReplay(rr.result())
	return nil
}

// replayRun is a replay under way: the scratch world and the history's
// inputs still to play on it. It performs them a bounded amount at a time
// (advance), each step-taking input as a job of its own, so that a front
// end can draw between slices and drop the replay unfinished; the world
// it replays is not touched until the result is kept (keepReplay).
type replayRun struct {
	res   *ReplayResult
	r     *World           // the scratch world
	in    []script.Command // the history's inputs, the producer replaced
	next  int              // the input to play next
	job   Job              // the input in progress when it takes steps
	inJob bool
	of    int // the replayed history's steps
}

// startReplay prepares c's replay: it refuses a producer the history
// never creates, and changes nothing.
func (w *World) startReplay(c *script.Replay) (*replayRun, error) {
	name := c.Producer.Name
	in := w.inputs()
	found := false
	for i, cmd := range in {
		if p, ok := cmd.(*script.Producer); ok && p.Name == name {
			np := c.Producer
			np.At = p.At
			in[i], found = &np, true
		}
	}
	if !found {
		return nil, fmt.Errorf("replay: this history creates no producer %q (its producers: %s)", name, strings.Join(w.producers.names(), ", "))
	}
	r := New(w.seed)
	r.quiet = true     // only its state and its checker are kept
	r.replaying = true // and it is never travelled in: no checkpoints
	return &replayRun{res: &ReplayResult{Command: script.Format(&c.Producer), Producer: name}, r: r, in: in, of: w.steps}, nil
}

// advance plays at most budget more steps of the scratch world (a command
// that takes no steps counts as one, so that a slice stays bounded) and
// reports whether every input has been played. Played in slices of any
// size, it gives what Apply of each input in turn gives: a step-taking
// input's job continued in slices does what it does at once.
func (rr *replayRun) advance(budget int) bool {
	r := rr.r
	for budget > 0 && rr.next < len(rr.in) {
		if rr.inJob {
			before := rr.job.Steps
			_, done := rr.job.Continue(budget)
			budget -= max(rr.job.Steps-before, 1)
			if done {
				rr.inJob = false
				rr.next++
			}
			continue
		}
		cmd := rr.in[rr.next]
		if r.startJob(cmd, &rr.job) {
			rr.inJob = true
			continue
		}
		if _, err := r.Apply(cmd); err != nil {
			rr.res.Errors++
			if rr.res.FirstError == "" {
				rr.res.FirstError = script.Format(cmd) + ": " + err.Error()
			}
		}
		rr.next++
		budget--
	}
	return rr.next == len(rr.in)
}

// result is what the finished replay found.
func (rr *replayRun) result() *ReplayResult {
	res, r := rr.res, rr.r
	res.Steps, res.Anomalies, res.Snap = r.steps, r.Anomalies(), r.Snapshot()
	return res
}

// keepReplay makes res the world's last replay and says what it found.
func (w *World) keepReplay(res *ReplayResult) {
	w.lastReplay = res
	if w.tracing() {
		w.emit(trace.New("replay", replayText(res, len(w.check.anomalies))).
			With("producer", trace.Str(res.Producer)).With("command", trace.Str(res.Command)).With("steps", trace.Int(int64(res.Steps))).
			With("anomalies", trace.Int(int64(len(res.Anomalies)))).With("errors", trace.Int(int64(res.Errors))))
	}
}

func replayText(r *ReplayResult, here int) string {
	found := "no anomalies"
	if n := len(r.Anomalies); n > 0 {
		var names []string
		for _, a := range r.Anomalies {
			if !slices.Contains(names, a.Name) {
				names = append(names, a.Name)
			}
		}
		found = fmt.Sprintf("%d anomaly(ies): %s", n, strings.Join(names, ", "))
	}
	text := fmt.Sprintf("replayed the history from its start with %s: %d steps, %s (this history: %d)", r.Command, r.Steps, found, here)
	if r.Errors > 0 {
		text += fmt.Sprintf("; %d command(s) refused, the first: %s", r.Errors, r.FirstError)
	}
	return text
}

// replayed is a `replay` command as the history keeps it: with what it
// found. Its result is a function of the history before it, which every
// replay of the history plays the same way, so time travel keeps the
// result instead of playing the whole history again — a replay costs the
// history's length, and without this each seek past one would pay it.
type replayed struct {
	*script.Replay
	res *ReplayResult
}

// remembered is the command as the history records it once applied: a
// replay with its result.
func (w *World) remembered(c script.Command) script.Command {
	if r, ok := c.(*script.Replay); ok && w.lastReplay != nil {
		return &replayed{Replay: r, res: w.lastReplay}
	}
	return c
}

// LastReplay is what the last `replay` found, nil if none.
func (w *World) LastReplay() *ReplayResult { return w.lastReplay }

// replayJSON is the replayed world's state object with what the replay
// was: {"kind":"replay","command":…,"steps":…,"errors":…, the state's keys}.
func (r *ReplayResult) replayJSON() json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(r.Snap.StateJSON(), &m); err != nil {
		panic("replay state JSON: " + err.Error())
	}
	m["kind"], m["command"], m["producer"], m["steps"], m["errors"], m["first_error"] = "replay", r.Command, r.Producer, r.Steps, r.Errors, r.FirstError
	b, err := json.Marshal(m)
	if err != nil {
		panic("replay state JSON: " + err.Error())
	}
	return b
}
