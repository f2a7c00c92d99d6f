package transcript

import (
	"fmt"
	"testing"

	"github.com/eoslab/eoslab/engine/trace"
)

// An event's line is what fmt wrote with "     %5d %9s  %-18s %s\n".
func TestEventLine(t *testing.T) {
	for _, c := range []struct {
		e    trace.Event
		text string
	}{
		{trace.Event{Step: 0, TimeMs: 0, Kind: "message.send"}, "p1 sends"},
		{trace.Event{Step: 12, TimeMs: 1_004, Kind: "produce.decision"}, "broker 1 appends"},
		{trace.Event{Step: 123_456, TimeMs: 12_345_678_901, Kind: "a.kind.longer.than.eighteen"}, ""},
		{trace.Event{Step: 7, TimeMs: 5, Kind: "é.kind"}, "ünïcode"},
	} {
		e := c.e
		e.SetText(c.text)
		want := fmt.Sprintf("     %5d %9s  %-18s %s\n", e.Step, trace.FormatTime(e.TimeMs), e.Kind, c.text)
		if got := string(appendEvent(nil, &e)); got != want {
			t.Fatalf("got  %q\nwant %q", got, want)
		}
	}
}
