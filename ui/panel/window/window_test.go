package window

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
)

// The decision tree lights the path the engine recorded: for a retry
// after a lost answer, known producer → duplicate, nothing else asked.
func TestDuplicatePath(t *testing.T) {
	w := sim.New(1)
	for _, l := range []string{"producer p1", "send p1 orders-0 2", "lose response p1", "run"} {
		c, _ := script.ParseLine(l)
		if _, err := w.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	m := New(styles.New(r, styles.DefaultPalette()))
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
