package sim

import (
	"fmt"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

func runScript(t *testing.T, w *World, src string) {
	t.Helper()
	cmds, err := script.Parse("t", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		evs, err := w.Apply(c)
		if err != nil {
			t.Fatalf("%s: %v", script.Format(c), err)
		}
		for _, e := range evs {
			fmt.Println(e.Describe())
		}
	}
}

func TestSmoke(t *testing.T) {
	w := New(1)
	runScript(t, w, `
producer p1
send p1 orders-0 2
lose response p1 orders-0 seq=0
run
`)
}
