// Package transcript runs command-language scripts on a world and writes
// what happens: a readable transcript for people, or JSON Lines for
// scripts and CI (`eoslab play`).
package transcript

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
)

// Format selects the output.
type Format int

const (
	Text Format = iota // a readable transcript
	JSON               // one JSON object per event
)

// Options control a run.
type Options struct {
	Format Format
	State  bool // end with the final state ({"kind":"state"} in JSON)
}

// Check runs the script on a scratch world without output, so that a
// command the world cannot apply (an unknown producer, partition or
// broker) is reported with its position before anything is shown.
func Check(file string, seed uint64, cmds []script.Command) error {
	w := sim.New(seed)
	for _, c := range cmds {
		if _, err := w.Apply(c); err != nil {
			return &script.Error{File: file, Pos: c.Position(), Msg: err.Error()}
		}
	}
	return nil
}

// Run applies the commands to w and writes what happens.
func Run(out io.Writer, w *sim.World, cmds []script.Command, opt Options) error {
	var buf []byte
	for _, c := range cmds {
		if opt.Format == Text {
			buf = append(appendPos(buf, c), "> "...)
			buf = append(append(buf, script.Format(c)...), '\n')
		}
		evs, err := w.Apply(c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Position(), err)
		}
		buf = appendEvents(buf, evs, opt.Format)
		if _, err := out.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
	}
	if opt.State {
		s := w.Snapshot()
		if opt.Format == JSON {
			buf = append(s.StateJSON(), '\n')
		} else {
			buf = []byte(Summary(s))
		}
	}
	_, err := out.Write(buf)
	return err
}

// appendPos appends the command's line number, as fmt's "%4d " would.
func appendPos(buf []byte, c script.Command) []byte {
	var num [24]byte
	line := strconv.AppendInt(num[:0], int64(c.Position().Line), 10)
	return append(append(pad(buf, 4-len(line)), line...), ' ')
}

func appendEvents(buf []byte, evs []trace.Event, f Format) []byte {
	for i := range evs {
		e := &evs[i]
		if f == JSON {
			buf = append(e.AppendJSON(buf), '\n')
			continue
		}
		buf = appendEvent(buf, e)
	}
	return buf
}

// appendEvent appends the text line of an event, as
// fmt.Appendf(buf, "     %5d %9s  %-18s %s\n", step, time, kind, text) would.
func appendEvent(buf []byte, e *trace.Event) []byte {
	buf = append(buf, "     "...)
	var num [24]byte
	step := strconv.AppendInt(num[:0], int64(e.Step), 10)
	buf = append(pad(buf, 5-len(step)), step...)
	buf = append(buf, ' ')
	t := trace.AppendTime(num[:0], e.TimeMs)
	buf = append(pad(buf, 9-len(t)), t...)
	buf = append(append(buf, "  "...), e.Kind...)
	buf = pad(buf, 18-utf8.RuneCountInString(string(e.Kind)))
	buf = e.AppendText(append(buf, ' '))
	return append(buf, '\n')
}

// pad appends n spaces (none when n <= 0).
func pad(buf []byte, n int) []byte {
	for ; n > 0; n-- {
		buf = append(buf, ' ')
	}
	return buf
}

// Summary describes the final state in a few lines.
func Summary(s *sim.Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nafter %d steps at %s (seed %d):\n", s.Step, trace.FormatTime(s.TimeMs), s.Seed)
	for _, p := range s.Partitions {
		if p.LogEndOffset == 0 && len(p.Producers) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %s leader %d (epoch %d) ISR %v: log end %d, high watermark %d, last stable %d, %d producer(s) remembered\n",
			p.Name, p.Leader, p.LeaderEpoch, p.ISR, p.LogEndOffset, p.HighWatermark, p.LastStableOffset, len(p.Producers))
	}
	for _, p := range s.Producers {
		if p.Failed {
			fmt.Fprintf(&b, "  %s could not start\n", p.Name)
			continue
		}
		acked, failed := 0, 0
		for _, bt := range p.AllBatches() {
			switch bt.State {
			case "acked":
				acked++
			case "failed", "expired":
				failed++
			}
		}
		fmt.Fprintf(&b, "  %s (%s) pid %d epoch %d: %d batch(es) acknowledged, %d failed", p.Name, p.Mode, p.ProducerID, p.Epoch, acked, failed)
		if p.FatalError != "" {
			b.WriteString(", fatal: " + p.FatalError)
		}
		b.WriteByte('\n')
	}
	if len(s.Anomalies) == 0 {
		b.WriteString("  no anomaly: every record at most once, in order, nothing acknowledged lost\n")
	}
	for _, a := range s.Anomalies {
		fmt.Fprintf(&b, "  ANOMALY %s: %s\n", a.Name, a.Text)
	}
	return b.String()
}
