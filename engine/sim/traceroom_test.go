package sim

import (
	"testing"

	"github.com/eoslab/eoslab/engine/trace"
)

// Pending events are written where the trace will keep them (emit).
// Events handed out, with the trace kept or not, never change afterwards,
// and a clone never sees the trace's later writes.
func TestTraceRoomNeverRewritten(t *testing.T) {
	w := New(1)
	w.emit(trace.New("a", "kept"))
	kept := w.flush()
	c := w.Clone()
	w.emit(trace.New("b", "handed out while the trace is not kept"))
	w.KeepTrace(false)
	out := w.flush()
	w.KeepTrace(true)
	w.emit(trace.New("c", "kept after"))
	w.flush()
	c.emit(trace.New("d", "the clone's own"))
	c.flush()
	if kept[0].Text() != "kept" || out[0].Text() != "handed out while the trace is not kept" {
		t.Fatalf("events handed out changed: %q, %q", kept[0].Text(), out[0].Text())
	}
	if got := w.Trace().Events(); len(got) != 2 || got[0].Kind != "a" || got[1].Kind != "c" {
		t.Fatalf("the trace is %v", got)
	}
	if got := c.Trace().Events(); len(got) != 2 || got[0].Kind != "a" || got[1].Kind != "d" {
		t.Fatalf("the clone's trace is %v", got)
	}
}
