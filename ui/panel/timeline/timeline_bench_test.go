package timeline

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
)

// BenchmarkTimelineLongTrace is one frame of the timeline over a trace of
// 100 000 events (a long sandbox session): its cost is the fold of the
// events into rows; the trace is read in place, not copied.
func BenchmarkTimelineLongTrace(b *testing.B) {
	var log trace.Log
	for i := range 100_000 {
		kind := trace.Kind("produce.decision")
		if i%3 != 0 {
			kind = "replica.append"
		}
		e := trace.Event{Kind: kind, Step: i}
		e.SetText("an event")
		log.Add(e)
	}
	log.Commit()
	m := New(styles.New(lipgloss.DefaultRenderer(), styles.DefaultPalette()), keymap.Default())
	m.SetSize(100, 12)
	d := panel.Data{Snap: &sim.Snapshot{Step: 100_000}, Trace: log, Steps: 100_000, Motion: panel.Forward}
	b.ReportAllocs()
	for b.Loop() {
		m.SetData(d)
	}
}
