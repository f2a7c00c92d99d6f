package app

import (
	tea "github.com/charmbracelet/bubbletea"
)

// Run starts the lab on the terminal and returns when the learner quits.
// progOpts are Bubble Tea's program options (alternate screen, mouse,
// input and output), chosen by the caller.
func Run(opt Options, progOpts ...tea.ProgramOption) error {
	m, err := New(opt)
	if err != nil {
		return err
	}
	_, err = tea.NewProgram(m, progOpts...).Run()
	return err
}
