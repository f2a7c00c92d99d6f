// Package keymap defines every key of the lab once, with its help text.
// Models match keys with key.Matches against these bindings and list them
// in their help, so the help bar, the full help overlay and the behaviour
// cannot drift apart. The KeyMap is a value handed down from the app: no
// package-level map exists to be mutated.
package keymap

import "github.com/charmbracelet/bubbles/key"

// KeyMap is every binding of the lab, grouped by where it acts.
type KeyMap struct {
	// Everywhere.
	ForceQuit, Quit, Back, Help, Command key.Binding

	// Menus and lists: a page at a time, and typing a filter (the
	// chapter list); the help overlay scrolls with them too.
	Up, Down, Select         key.Binding
	PageUp, PageDown, Filter key.Binding

	// Time travel on the lesson and sandbox screens.
	Forward, Backward, Start, End, Autoplay, Faster, Slower key.Binding

	// Stepping by story: the next or previous decision, the end or start
	// of the lesson step; back to the future a fork left; a challenge
	// restarted; replication traffic shown or folded in the timeline.
	NextDecision, PrevDecision, StepEnd, StepStart, Abandoned, Restart, Replication key.Binding

	// Panels.
	FocusNext, FocusPrev, Zoom, NextPartition, PrevPartition, NextProducer key.Binding
	NarrationUp, NarrationDown                                             key.Binding

	// The header-bytes cursor.
	FieldNext, FieldPrev, ByteNext, BytePrev key.Binding

	// Faults: each shows what it will act on, then waits for Confirm.
	LoseResponse, LoseRequest, Delay, Reset, Refuse, RestartProducer, Pause, RestartBroker, Failover, Advance key.Binding
	Confirm, Cancel                                                                                           key.Binding

	// Lessons: answer a prediction; a challenge's next hint, its solution
	// loaded into the command bar (not run); at a lesson's end, the next
	// chapter; the presenter view (the instructor's notes) on or off.
	Answer, Hint, Solution, NextChapter, Presenter key.Binding

	// The inspect screen: j/k walk the batch list as ← → do (they are a
	// list's keys everywhere else), so the byte rows are ↑ ↓ only there.
	NextBatch, PrevBatch, RowUp, RowDown key.Binding
}

func bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// Default is the lab's standard key map.
func Default() KeyMap {
	return KeyMap{
		ForceQuit: bind("ctrl+c", "quit", "ctrl+c"),
		Quit:      bind("q", "quit", "q"),
		Back:      bind("esc", "back", "esc"),
		Help:      bind("?", "help", "?"),
		Command:   bind(":", "command", ":"),

		Up:     bind("↑/k", "up", "up", "k"),
		Down:   bind("↓/j", "down", "down", "j"),
		Select: bind("enter", "open", "enter"),

		PageUp:   bind("pgup", "page up", "pgup"),
		PageDown: bind("pgdown", "page down", "pgdown"),
		Filter:   bind("/", "filter", "/"),

		Forward:  bind("→/l/space", "next", "right", "l", " "),
		Backward: bind("←/h", "back a step", "left", "h"),
		Start:    bind("home/g", "start", "home", "g"),
		End:      bind("end/G", "end", "end", "G"),
		Autoplay: bind("p", "autoplay", "p"),
		Faster:   bind("+", "faster", "+", "="),
		Slower:   bind("-", "slower", "-", "_"),

		NextDecision: bind(")", "next decision", ")"),
		PrevDecision: bind("(", "previous decision", "("),
		StepEnd:      bind("}", "end of lesson step", "}"),
		StepStart:    bind("{", "start of lesson step", "{"),
		Abandoned:    bind("u", "future a fork left", "u"),
		Restart:      bind("C", "restart challenge", "C"),
		Replication:  bind("f", "fold replication", "f"),

		FocusNext:     bind("tab", "next panel", "tab"),
		FocusPrev:     bind("shift+tab", "previous panel", "shift+tab"),
		Zoom:          bind("z", "zoom panel", "z"),
		NextPartition: bind("]", "next partition", "]"),
		PrevPartition: bind("[", "previous partition", "["),
		NextProducer:  bind("o", "next producer", "o"),
		NarrationUp:   bind("pgup", "narration up", "pgup"),
		NarrationDown: bind("pgdown", "narration down", "pgdown"),

		FieldNext: bind("w", "next field", "w"),
		FieldPrev: bind("b", "previous field", "b"),
		ByteNext:  bind(".", "next byte", "."),
		BytePrev:  bind(",", "previous byte", ","),

		LoseResponse:    bind("a", "lose the ack", "a"),
		LoseRequest:     bind("x", "lose the request", "x"),
		Delay:           bind("d", "delay the request", "d"),
		Reset:           bind("X", "reset the connection", "X"),
		Refuse:          bind("r", "leader refuses the next batch", "r"),
		RestartProducer: bind("R", "restart producer", "R"),
		Pause:           bind("Z", "pause/resume producer", "Z"),
		RestartBroker:   bind("B", "restart leader broker", "B"),
		Failover:        bind("F", "fail over partition", "F"),
		Advance:         bind("t", "clock +30s", "t"),
		Confirm:         bind("enter/y", "apply", "enter", "y"),
		Cancel:          bind("esc/n", "cancel", "esc", "n"),

		Answer:      bind("1-9", "answer the prediction", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
		Hint:        bind("H", "next hint", "H"),
		Solution:    bind("S", "solution into the command bar", "S"),
		NextChapter: bind("n", "next chapter", "n"),
		Presenter:   bind("P", "presenter notes", "P"),

		NextBatch: bind("→/l/j", "next batch", "right", "l", "j"),
		PrevBatch: bind("←/h/k", "previous batch", "left", "h", "k"),
		RowUp:     bind("↑", "row up", "up"),
		RowDown:   bind("↓", "row down", "down"),
	}
}

// Help is a ready-made help.KeyMap: the short line and the full columns.
type Help struct {
	Short []key.Binding
	Full  [][]key.Binding
}

// ShortHelp implements help.KeyMap.
func (h Help) ShortHelp() []key.Binding { return h.Short }

// FullHelp implements help.KeyMap.
func (h Help) FullHelp() [][]key.Binding { return h.Full }

// Relabel returns b with another description, for a key whose meaning
// depends on the screen (q quits from Home and goes back elsewhere).
func Relabel(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}
