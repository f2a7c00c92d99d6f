package script_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/internal/mdblock"
)

// fragment is the refusal of an example that uses a producer or consumer
// an earlier example of its section created: it is a fragment, not a
// script of its own.
var fragment = regexp.MustCompile(`^(unknown (producer|consumer) "|replay: this history creates no producer ")`)

// Every example of docs/commands.md that is a script of its own plays on
// a fresh world without a refusal; one that names a client it does not
// create is a fragment, refused for that and for nothing else.
func TestCommandExamplesPlay(t *testing.T) {
	src, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	complete := 0
	for _, b := range mdblock.Blocks(string(src)) {
		if b.Tag != "" || b.First {
			continue // output, or a section's syntax
		}
		cmds, err := script.ParseAt("docs/commands.md", b.Line+1, []byte(b.Text()))
		if err != nil {
			continue // TestCommandExamplesParse reports it
		}
		w := sim.New(1)
		ok := true
		for _, c := range cmds {
			if _, err := w.Apply(c); err != nil {
				if !fragment.MatchString(err.Error()) {
					t.Errorf("docs/commands.md:%s (under %q): %v", c.Position(), b.Heading, err)
				}
				ok = false
				break
			}
		}
		if ok {
			complete++
		}
	}
	if complete < 15 {
		t.Fatalf("only %d examples of docs/commands.md play as scripts of their own", complete)
	}
}

// The page's example of a command the scratch world refuses is what
// `eoslab play` reports for it.
func TestRefusalExampleIsTheWorlds(t *testing.T) {
	src, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	var shown string
	for _, b := range mdblock.Blocks(string(src)) {
		if b.Tag == "text" && len(b.Lines) == 1 && strings.HasPrefix(b.Lines[0], "demo.eos:") {
			shown = b.Lines[0]
		}
	}
	cmds, err := script.Parse("demo.eos", []byte(strings.Repeat("\n", 11)+"poll reader\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.New(1).Apply(cmds[0])
	if err == nil {
		t.Fatal("poll of an unknown consumer applies")
	}
	got := (&script.Error{File: "demo.eos", Pos: cmds[0].Position(), Msg: err.Error()}).Error()
	if got != shown {
		t.Errorf("docs/commands.md shows\n%s\n`eoslab play` says\n%s", shown, got)
	}
}
