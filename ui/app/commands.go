package app

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/widget/box"
	"github.com/eoslab/eoslab/ui/widget/commandbar"
	"github.com/eoslab/eoslab/ui/widget/statusbar"
)

// labVerbs are the command bar's own commands, next to the command
// language's verbs, written as the language's verbs are (script.Usage),
// so that completion and help read them the same way.
func labVerbs() []commandbar.Verb {
	return []commandbar.Verb{
		{Verb: "help", Syntax: "help [VERB]", Summary: "the commands with their summaries, or one command's syntax"},
		{Verb: "save", Syntax: "save FILE", Summary: "write what happened on the shown timeline as a script"},
		{Verb: "load", Syntax: "load FILE", Summary: "play a script in (forking first when back in time)"},
		{Verb: "goto", Syntax: "goto STEP", Summary: "travel to a step of the timeline"},
		{Verb: "quit", Syntax: "quit", Summary: "quit the lab"},
		{Verb: "release", Syntax: "release", Summary: "eoslab serve --hold: let the oldest held request in"},
	}
}

// barVerbs are every verb the command bar knows: the language's, then the
// lab's.
func barVerbs() []commandbar.Verb {
	var out []commandbar.Verb
	for _, u := range script.Verbs() {
		out = append(out, commandbar.Verb{Verb: u.Verb, Syntax: u.Syntax, Summary: u.Summary})
	}
	return append(out, labVerbs()...)
}

// producerConfigKeys are the producer settings the language accepts as
// KEY=VALUE (docs/commands.md#producer), for completion; the mode keys
// (transactional, transactional.id) complete from the syntax's own
// [idempotent | plain | transactional=TXN_ID]. engine/script keeps its
// list unexported; a test checks this one against the parser.
var producerConfigKeys = []string{
	"acks", "retries", "enable.idempotence", "max.in.flight.requests.per.connection",
	"delivery.timeout.ms", "request.timeout.ms", "linger.ms", "retry.backoff.ms",
	"transaction.timeout.ms", "batch.size",
}

// barWords are the command bar's fixed vocabularies: what some
// placeholders stand for, and a few typical values to start from.
func barWords() commandbar.Words {
	return commandbar.Words{
		"ERROR":               script.RefusalErrors,
		"ANOMALY":             script.AnomalyNames,
		"KEY":                 producerConfigKeys,
		"COUNT":               {"1", "2", "3", "5", "10"},
		"N":                   {"1", "5", "10", "50"},
		"DURATION":            {"100ms", "1s", "30s", "1m", "25h"},
		"acks=":               {"all", "1", "0"},
		"enable.idempotence=": {"true", "false"},
	}
}

// barWorld is what the command bar completes names from: the shown
// world's producers, consumers, partitions, brokers, transactional ids
// and groups, and the timeline's two ends for goto.
func (m *Model) barWorld() commandbar.World {
	snap := m.sess.Snapshot()
	var w commandbar.World
	for _, p := range snap.Producers {
		w.Producers = append(w.Producers, p.Name)
		if id := p.Config.TransactionalID; id != "" && !slices.Contains(w.TxnIDs, id) {
			w.TxnIDs = append(w.TxnIDs, id)
		}
	}
	for _, c := range snap.Consumers {
		w.Consumers = append(w.Consumers, c.Name)
		if c.Group != "" && !slices.Contains(w.Groups, c.Group) {
			w.Groups = append(w.Groups, c.Group)
		}
	}
	for _, g := range snap.Groups {
		if !slices.Contains(w.Groups, g.Group) {
			w.Groups = append(w.Groups, g.Group)
		}
	}
	for _, p := range snap.Partitions {
		w.Partitions = append(w.Partitions, p.Name)
	}
	for _, b := range snap.Brokers {
		w.Brokers = append(w.Brokers, strconv.Itoa(b.ID))
	}
	for _, t := range snap.Transactions {
		if !slices.Contains(w.TxnIDs, t.TransactionalID) {
			w.TxnIDs = append(w.TxnIDs, t.TransactionalID)
		}
	}
	w.Steps = []string{"0", strconv.Itoa(m.sess.TimelineSteps())}
	return w
}

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
			return m.cmdbar.Fail(line, "goto: a step number, e.g. goto 12", argCol(line, arg))
		}
		// Past the end is refused, not taken as the end: the line stays
		// on the bar to be corrected, and nothing moves.
		if end := m.sess.TimelineSteps(); n > end {
			msg := fmt.Sprintf("goto: no step %d: the timeline ends at step %d (goto %d or End goes there)", n, end, end)
			return m.cmdbar.Fail(line, msg, argCol(line, arg))
		}
		m.sess.TravelTo(n)
		m.setStatus(m.travelNote(), statusbar.Plain)
		m.refresh(panel.Jump)
		return nil
	case "quit", "q":
		return tea.Quit
	case "release":
		m.release()
		return nil
	case "help":
		return m.commandHelp(line, strings.Join(strings.Fields(arg), " "))
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
	if !m.served() { // the served session applies at its present, at once
		cmd, ok, err := m.startJob(c)
		if err != nil {
			m.setStatus(line+": "+err.Error(), statusbar.Bad)
			return m.cmdbar.Fail(line, err.Error(), 0)
		}
		if ok {
			return cmd
		}
	}
	if err := m.apply(c, script.Format(c)); err != nil {
		return m.cmdbar.Fail(line, err.Error(), 0)
	}
	return nil
}

// argCol is the 1-based column (in characters) where arg starts in line,
// for the caret under it; just past the end when arg is empty.
func argCol(line, arg string) int {
	verb, _, _ := strings.Cut(line, " ")
	i := len(line)
	if arg != "" {
		if j := strings.Index(line[len(verb):], arg); j >= 0 {
			i = len(verb) + j
		}
	}
	return utf8.RuneCountInString(line[:i]) + 1
}

// commandHelp answers `help [VERB]` in the help overlay: every command
// with its summary, or the syntax and summary of one (of several, for a
// first word such as `lose`). An unknown VERB stays on the bar with the
// nearest command suggested.
func (m *Model) commandHelp(line, arg string) tea.Cmd {
	verbs := m.cmdbar.Verbs()
	if arg == "" {
		m.openHelpPage("commands · help VERB shows one", m.verbList(verbs))
		return nil
	}
	var match []commandbar.Verb
	for _, v := range verbs {
		if v.Verb == arg {
			match = []commandbar.Verb{v}
			break
		}
		if strings.HasPrefix(v.Verb, arg+" ") {
			match = append(match, v)
		}
	}
	if len(match) == 0 {
		spellings := make([]string, len(verbs))
		for i, v := range verbs {
			spellings[i] = v.Verb
		}
		msg := "help: unknown command " + script.Quote(arg)
		if s := script.Suggest(arg, spellings); s != "" {
			msg += fmt.Sprintf(", did you mean %s?", script.Quote(s))
		} else {
			msg += " (help alone lists them all)"
		}
		return m.cmdbar.Fail(line, msg, argCol(line, arg))
	}
	m.openHelpPage("help "+arg, m.verbDetail(match))
	return nil
}

// verbList is `help`: each command with its summary, the language's
// first, then the lab's own; summaries wrap under themselves.
func (m *Model) verbList(verbs []commandbar.Verb) []string {
	pad := 0
	for _, v := range verbs {
		pad = max(pad, len(v.Verb))
	}
	width := m.helpWidth() - pad - 2
	lines := []string{m.st.Muted.Render("The command language (docs/commands.md):")}
	lab := labVerbs()
	for i, v := range verbs {
		if i == len(verbs)-len(lab) {
			lines = append(lines, "", m.st.Muted.Render("The lab's own:"))
		}
		for j, l := range strings.Split(box.Wrap(v.Summary, width), "\n") {
			name := ""
			if j == 0 {
				name = v.Verb
			}
			lines = append(lines, m.st.Key.Render(fmt.Sprintf("%-*s", pad, name))+"  "+m.st.KeyDesc.Render(l))
		}
	}
	return append(lines, "", m.st.Muted.Render("help VERB: its syntax · tab completes each argument"))
}

// verbDetail is `help VERB`: the syntax (wrapped) and the summary of each
// command asked for.
func (m *Model) verbDetail(verbs []commandbar.Verb) []string {
	var lines []string
	for i, v := range verbs {
		if i > 0 {
			lines = append(lines, "")
		}
		for _, l := range strings.Split(box.Wrap(v.Syntax, m.helpWidth()), "\n") {
			lines = append(lines, m.st.Accent.Render(l))
		}
		for _, l := range strings.Split(box.Wrap(v.Summary, m.helpWidth()-2), "\n") {
			lines = append(lines, "  "+m.st.Text.Render(l))
		}
	}
	return append(lines, "", m.st.Muted.Render("CAPITALS are yours to fill in, [brackets] may be left out, | separates choices;"),
		m.st.Muted.Render("tab completes each argument, with the choices above the line (docs/commands.md)"))
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
