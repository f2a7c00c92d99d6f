// Package lesson defines what a lesson is — chapters of steps, each with
// narration, commands in the command language, the panels to show and
// expectations on the engine's state — and turns sources into lessons.
//
// A lesson never reaches into the engine: it sends commands and reads
// snapshots, exactly as a user at the keyboard does.
package lesson

import (
	"strings"

	"github.com/eoslab/eoslab/engine/script"
)

// Panel names a panel of the lesson screen.
type Panel string

// The panels a step can show or focus.
const (
	PanelBytes       Panel = "bytes"       // the current batch's header, byte by byte
	PanelProducer    Panel = "producer"    // each producer: pid, epoch, sequences, batches in flight
	PanelNetwork     Panel = "network"     // messages on the wire
	PanelPartition   Panel = "partition"   // the leader's log, high watermark, LSO, replicas
	PanelWindow      Panel = "window"      // the leader's five remembered batches and the decision tree
	PanelCoordinator Panel = "coordinator" // transaction coordinator state
	PanelConsumers   Panel = "consumers"   // read_committed and read_uncommitted side by side
	PanelTimeline    Panel = "timeline"    // the event trace
	PanelAnomalies   Panel = "anomalies"   // what the checker found
)

// Panels lists every panel in display order.
func Panels() []Panel {
	return []Panel{PanelBytes, PanelWindow, PanelProducer, PanelNetwork, PanelPartition,
		PanelCoordinator, PanelConsumers, PanelTimeline, PanelAnomalies}
}

// Lesson is one chapter.
type Lesson struct {
	Number  int
	Title   string
	Summary string
	Intro   string  // Markdown before the first step
	Panels  []Panel // the lesson's default layout (empty: all)
	File    string  // where it was read from, for errors
	Steps   []Step
}

// Step is one screen of a lesson: narration, then commands the engine
// performs when the learner moves on.
type Step struct {
	Line       int    // source line of the step, for errors
	Title      string // "" for steps made from scripts
	Kind       Kind
	Narration  string // Markdown
	Commands   []script.Command
	Panels     []Panel // shown (empty: the lesson's default layout)
	Focus      Panel   // focused ("" : the first shown)
	Expect     []Expect
	Prediction *Prediction    // Kind Predict
	Challenge  *ChallengeSpec // Kind Challenge
	Notes      *Notes         // presenter notes, nil if none (never shown to the learner)
}

// FromScript makes a lesson of a command-language script: each group of
// commands becomes a step, narrated by the comment lines just above it. A
// comment block at the top (before any command) is the lesson's summary;
// its first sentence or clause is the title (see scriptTitle). This lets
// any `eoslab play` script be stepped through on the lesson screen.
func FromScript(file string, src []byte) (Lesson, error) {
	cmds, err := script.Parse(file, src)
	if err != nil {
		return Lesson{}, err
	}
	l := Lesson{File: file}
	lines := strings.Split(string(src), "\n")
	var comment []string
	var step *Step
	ci := 0
	for i, line := range lines {
		text := strings.TrimSpace(line)
		switch {
		case text == "":
			if l.Summary == "" && len(comment) > 0 && len(l.Steps) == 0 && step == nil {
				l.Summary = strings.Join(comment, "\n")
				comment = nil
			}
			step = nil
		case strings.HasPrefix(text, "#"):
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(text, "#")))
			step = nil
		default:
			if step == nil || len(comment) > 0 {
				l.Steps = append(l.Steps, Step{Line: i + 1, Narration: strings.Join(comment, "\n")})
				step = &l.Steps[len(l.Steps)-1]
				comment = nil
			}
			for ci < len(cmds) && cmds[ci].Position().Line == i+1 {
				step.Commands = append(step.Commands, cmds[ci])
				ci++
			}
		}
	}
	if l.Summary == "" && len(l.Steps) > 0 {
		l.Summary = l.Steps[0].Narration
	}
	l.Title = scriptTitle(l.Summary)
	return l, nil
}

// maxTitle is the longest title scriptTitle makes, in characters.
const maxTitle = 70

// scriptTitle makes a title of a script's top comment: its lines joined,
// cut at the first ": " or ". " (whichever comes first), without a final
// full stop or colon, and at most maxTitle characters — longer ones end
// at a word with an ellipsis. A comment's line breaks fall anywhere, so
// the first line alone would often stop mid-sentence.
func scriptTitle(comment string) string {
	text := strings.Join(strings.Fields(comment), " ")
	cut := len(text)
	for _, sep := range []string{": ", ". "} {
		if i := strings.Index(text, sep); i >= 0 && i < cut {
			cut = i
		}
	}
	title := strings.TrimSpace(strings.TrimRight(text[:cut], ".:"))
	r := []rune(title)
	if len(r) <= maxTitle {
		return title
	}
	short := string(r[:maxTitle-1])
	if i := strings.LastIndexByte(short, ' '); i > maxTitle/2 {
		short = short[:i]
	}
	return strings.TrimRight(short, " ,;:.-") + "…"
}
