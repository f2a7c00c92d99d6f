package producer

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/paneltest"
)

func view(t *testing.T, w, h int, lines ...string) string {
	t.Helper()
	world := paneltest.World(t, lines...)
	m := New(paneltest.Styles())
	m.SetSize(w, h)
	m.SetData(panel.Data{Snap: world.Snapshot(), Trace: world.Trace(), Partition: "orders-0", Producer: "p1"})
	return ansi.Strip(m.View())
}

// A line too long for a narrow panel continues under its text while the
// panel has rows for it; zero counts are left out. Before, "0 queued · 0
// in flight" was cut with "…" over blank rows.
func TestLongLinesWrapWhenThereIsRoom(t *testing.T) {
	v := view(t, 30, 10, "producer p1", "send p1 orders-0 2", "step 3")
	for _, l := range strings.Split(v, "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), "…") {
			t.Errorf("cut: %q\n%s", l, v)
		}
	}
	paneltest.RequireAll(t, v, "orders-0 next seq 0", "none acked · 1 queued")
	if strings.Contains(v, "0 in flight") {
		t.Errorf("zero counts should be left out:\n%s", v)
	}
}

// Short of rows, every producer keeps its lines in view, cut rather than
// wrapped.
func TestShortOfRowsEveryProducerStays(t *testing.T) {
	v := view(t, 30, 6, "producer p1", "producer p2", "send p1 orders-0 2", "send p2 orders-1 2", "step 3")
	paneltest.RequireAll(t, v, "p1 idempotent", "p2 idempotent")
}
