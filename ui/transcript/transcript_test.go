package transcript

import (
	"fmt"
	"testing"

	"github.com/eoslab/eoslab/engine/trace"
)

// An event's line is what fmt wrote with "     %5d %9s  %-18s %s\n".
func TestEventLine(t *testing.T) {
	for _, e := range []trace.Event{
		{Step: 0, TimeMs: 0, Kind: "message.send", Text: "p1 sends"},
		{Step: 12, TimeMs: 1_004, Kind: "produce.decision", Text: "broker 1 appends"},
		{Step: 123_456, TimeMs: 12_345_678_901, Kind: "a.kind.longer.than.eighteen", Text: ""},
		{Step: 7, TimeMs: 5, Kind: "é.kind", Text: "ünïcode"},
	} {
		want := fmt.Sprintf("     %5d %9s  %-18s %s\n", e.Step, trace.FormatTime(e.TimeMs), e.Kind, e.Text)
		if got := string(appendEvent(nil, &e)); got != want {
			t.Fatalf("got  %q\nwant %q", got, want)
		}
	}
}
