package app

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// labVerbs are the command bar's own commands, next to the command
// language's verbs.
func labVerbs() []string { return []string{"save", "load", "goto", "quit"} }

type savedMsg struct {
	file string
	err  error
}

type loadedMsg struct {
	file string
	data []byte
	err  error
}

type progressMsg struct{ err error }

// submit runs a line from the command bar. A malformed line reopens the
// bar with the error under its column; nothing is applied.
func (m *Model) submit(line string) tea.Cmd {
	if m.sess == nil {
		return nil
	}
	verb, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch verb {
	case "save", "load":
		if arg == "" {
			return m.cmdbar.Fail(line, verb+": which file? e.g. "+verb+" demo.eos", len(line)+1)
		}
		if verb == "save" {
			return m.save(arg)
		}
		read := m.opt.ReadFile
		return func() tea.Msg { data, err := read(arg); return loadedMsg{arg, data, err} }
	case "goto":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return m.cmdbar.Fail(line, "goto: a step number, e.g. goto 12", len("goto ")+1)
		}
		m.sess.TravelTo(n)
		m.setStatus(m.travelNote(), statusbar.Plain)
		m.refresh(panel.Jump)
		return nil
	case "quit", "q":
		return tea.Quit
	}
	c, err := script.ParseLine(line)
	var perr *script.Error
	switch {
	case errors.As(err, &perr):
		return m.cmdbar.Fail(line, perr.Msg, perr.Pos.Col)
	case err != nil:
		return m.cmdbar.Fail(line, err.Error(), 0)
	case c == nil:
		return nil // a comment
	}
	if cmd, ok := m.startJob(c); ok {
		return cmd
	}
	if err := m.apply(c, script.Format(c)); err != nil {
		return m.cmdbar.Fail(line, err.Error(), 0)
	}
	return nil
}

// save writes the shown world's history as a script, off the UI loop.
func (m *Model) save(file string) tea.Cmd {
	src := []byte(m.sess.Script())
	write := m.opt.WriteFile
	m.setStatus("saving "+file+"…", statusbar.Plain)
	return func() tea.Msg { return savedMsg{file, write(file, src)} }
}

// fileDone reports the end of a save, a load or a progress write, and
// plays a loaded script in.
func (m Model) fileDone(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case savedMsg:
		if msg.err != nil {
			m.setStatus("save: "+msg.err.Error(), statusbar.Bad)
		} else {
			m.setStatus(fmt.Sprintf("saved %s: replay it with eoslab play --seed %d %s", msg.file, m.opt.Seed, msg.file), statusbar.Plain)
		}
	case loadedMsg:
		return m, m.load(msg)
	case progressMsg:
		m.progressSaved(msg.err)
	}
	return m, nil
}

// load plays a read script in, a slice at a time (a script may run long).
func (m *Model) load(msg loadedMsg) tea.Cmd {
	if msg.err != nil {
		m.setStatus("load: "+msg.err.Error(), statusbar.Bad)
		return nil
	}
	if m.sess == nil || m.job != nil {
		return nil
	}
	cmds, err := script.Parse(msg.file, msg.data)
	if err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		m.setStatus("load: "+first+" (nothing applied)", statusbar.Bad)
		return nil
	}
	return m.startLoad(msg.file, cmds)
}
