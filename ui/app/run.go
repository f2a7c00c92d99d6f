package app

import (
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/term"
)

// Run starts the lab on the terminal and returns when the learner quits.
// progOpts are Bubble Tea's program options (alternate screen, mouse,
// input and output), chosen by the caller.
func Run(opt Options, progOpts ...tea.ProgramOption) error {
	m, err := New(opt)
	if err != nil {
		return err
	}
	return runProgram(m, os.Stdout, progOpts...)
}

// runProgram runs a model and, whatever way it ends — a quit, ctrl+c, a
// SIGINT or SIGTERM, a panic in Update, View or a command — leaves the
// terminal as it found it: off the alternate screen, cursor shown, mouse
// and bracketed paste reporting off. Bubble Tea does this itself on its
// own paths; saying it once more costs nothing and covers the rest.
func runProgram(m tea.Model, out io.Writer, opts ...tea.ProgramOption) (err error) {
	defer func() {
		if r := recover(); r != nil {
			restoreTerminal(out)
			panic(r)
		}
		restoreTerminal(out)
	}()
	_, err = tea.NewProgram(m, opts...).Run()
	return err
}

// terminalReset undoes everything the lab may have turned on.
const terminalReset = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l" + // mouse reporting off
	"\x1b[?2004l" + // bracketed paste off
	"\x1b[?1049l" + // the main screen again
	"\x1b[?25h" // the cursor shown

// restoreTerminal writes terminalReset to a terminal (and nothing to a
// pipe or a file, which have no screen to restore).
func restoreTerminal(out io.Writer) {
	if f, ok := out.(*os.File); ok && !term.IsTerminal(int(f.Fd())) {
		return
	}
	io.WriteString(out, terminalReset)
}
