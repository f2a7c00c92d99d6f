package lesson

import (
	"fmt"
	"io"
	"strings"

	"github.com/eoslab/eoslab/engine/script"
)

// WriteTranscript prints a headless run: each step's title and narration,
// its commands with the events they caused, the prediction marked by the
// engine, the goals and expectations with ✓ or ✗ (or [ok]/[FAIL] when
// ascii is set).
func WriteTranscript(w io.Writer, l *Lesson, reports []StepReport, ascii bool) {
	WriteTranscriptWith(w, l, reports, TranscriptOptions{ASCII: ascii})
}

// TranscriptOptions choose what a transcript shows besides the run.
type TranscriptOptions struct {
	ASCII bool
	// Notes prints each step's presenter notes after its narration, for
	// an instructor's copy (`play --headless --presenter`).
	Notes bool
}

// WriteTranscriptWith is WriteTranscript with options.
func WriteTranscriptWith(w io.Writer, l *Lesson, reports []StepReport, o TranscriptOptions) {
	ascii := o.ASCII
	yes, no := "✓", "✗"
	if ascii {
		yes, no = "[ok]", "[FAIL]"
	}
	mark := func(ok bool) string {
		if ok {
			return yes
		}
		return no
	}
	fmt.Fprintf(w, "Chapter %d: %s\n%s\n", l.Number, l.Title, l.Summary)
	if l.Intro != "" {
		fmt.Fprintf(w, "\n%s\n", indent(l.Intro))
	}
	for _, r := range reports {
		st := r.Step
		title := st.Title
		if title == "" {
			title = fmt.Sprintf("Step %d", r.Index+1)
		}
		fmt.Fprintf(w, "\n== %d/%d %s", r.Index+1, len(l.Steps), title)
		if st.Kind != Narrate {
			fmt.Fprintf(w, " (%s)", st.Kind)
		}
		fmt.Fprintln(w)
		if st.Narration != "" {
			fmt.Fprintf(w, "%s\n", indent(st.Narration))
		}
		if n := st.Notes; o.Notes && n != nil {
			for _, f := range [][2]string{{"misconception", n.Misconception}, {"ask the room", n.Ask}, {"answers", n.Answers}} {
				if f[1] != "" {
					fmt.Fprintf(w, "  | presenter, %s: %s\n", f[0], f[1])
				}
			}
		}
		if st.Kind == Predict {
			fmt.Fprintf(w, "  ? %s\n", st.Prediction.Question)
			for i, c := range st.Prediction.Choices {
				fmt.Fprintf(w, "    %c) %s\n", 'a'+i, c.Text)
			}
		}
		for _, p := range r.Commands {
			fmt.Fprintf(w, "  > %s\n", script.Format(p.Command))
			for _, e := range p.Events {
				fmt.Fprintf(w, "    %s\n", e.Describe())
			}
			if p.Err != nil {
				fmt.Fprintf(w, "    error: %v\n", p.Err)
			}
		}
		for i, c := range r.Choices {
			verdict := "not what happened"
			if c.Right {
				verdict = "what the engine did"
			}
			fmt.Fprintf(w, "  %s %c) %s: %s\n", mark(c.Right), 'a'+i, c.Choice.Text, verdict)
		}
		for _, g := range r.Goals {
			fmt.Fprintf(w, "  %s goal: %s\n", mark(g.OK), g.Label)
		}
		for _, c := range r.Checks {
			fmt.Fprintf(w, "  %s expect %s (got %s)\n", mark(c.OK), c.Label, c.Got)
		}
	}
}

func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n")
}
