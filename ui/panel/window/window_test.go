package window

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/paneltest"
)

// The decision tree lights the path the engine recorded: for a retry
// after a lost answer, known producer → duplicate, nothing else asked.
func TestDuplicatePath(t *testing.T) {
	w := paneltest.World(t, "producer p1", "send p1 orders-0 2", "lose response p1", "run")
	m := New(paneltest.Styles())
	m.SetSize(52, 14)
	m.SetData(panel.Data{Snap: w.Snapshot(), Trace: w.Trace(), Partition: "orders-0", Producer: "p1"})
	view := ansi.Strip(m.View())
	for _, want := range []string{"▸✓ known", "▸= duplicate", "├ epoch?        — not asked", "= incoming: duplicate", "original offsets 0-1"} {
		if !strings.Contains(view, want) {
			t.Errorf("missing %q in\n%s", want, view)
		}
	}
	golden.RequireEqual(t, []byte(m.View()))
}
