package sim

import (
	"math"
	"reflect"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

// The history gives back every command as it was given, whether it keeps
// it compact or not; a world rewound replays the compact ones.
func TestHistoryGivesCommandsBack(t *testing.T) {
	tp := script.TopicPartition{Topic: "orders", Partition: 2}
	cmds := []script.Command{
		&script.Producer{Name: "a"},
		&script.Producer{At: script.Pos{Line: 3, Col: 1}, Name: "b", Mode: script.ModePlain},
		&script.Producer{Name: "c", Config: []script.KV{{Key: "acks", Value: "1"}}},
		&script.Producer{Name: "d", Config: []script.KV{}},
		&script.Producer{Name: "t", Mode: script.ModeTransactional, TxnID: "tx"},
		&script.Send{Producer: "a", TP: tp, Count: 3},
		&script.Send{At: script.Pos{Line: 7, Col: 2}, Producer: "b", TP: script.TopicPartition{Topic: "orders"}, Count: 1},
		&script.Send{Producer: "a", TP: tp, Count: 1, Key: "k", HasKey: true},
		&script.Send{Producer: "a", TP: tp, Count: 1, HasKey: true},
		&script.Send{Producer: "c", TP: tp, Count: 2, Value: "v", HasValue: true},
		&script.Run{},
	}
	w := New(1)
	for _, c := range cmds {
		if _, err := w.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	compact := 0
	for i := range w.actions.Len() {
		switch w.actions.At(i).cmd.(type) {
		case *sentRecords, *madeProducer:
			compact++
		}
	}
	if compact != 4 {
		t.Fatalf("%d commands kept compact, want 4 (two producers, two sends)", compact)
	}
	if got := w.inputs(); !reflect.DeepEqual(got, cmds) {
		t.Fatalf("the history gives back\n%#v\nwant\n%#v", got, cmds)
	}
	// Replayed from the start (no checkpoints), the compact commands give
	// the world played forward.
	k := w.Steps() - 1
	live := newLive(New(1), map[int]bool{k: true}, nil)
	for _, c := range cmds {
		live.apply(c)
	}
	none := w.Clone()
	none.ckpts = nil
	r, err := none.Rewind(k)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Snapshot().StateJSON(); string(got) != string(live.byStep[k]) {
		t.Fatalf("replayed from the start to step %d, the history's compact commands give another world", k)
	}
}

// A command is kept compact only when its numbers fit the compact form's
// fields; either way the history gives it back as it was given.
func TestCompactFormBounds(t *testing.T) {
	w := New(1)
	send := func(partition, count, line, col int) *script.Send {
		return &script.Send{At: script.Pos{Line: line, Col: col}, Producer: "p",
			TP: script.TopicPartition{Topic: "orders", Partition: partition}, Count: count}
	}
	producer := func(mode script.ProducerMode, line, col int) *script.Producer {
		return &script.Producer{At: script.Pos{Line: line, Col: col}, Name: "p", Mode: mode}
	}
	for _, tc := range []struct {
		cmd     script.Command
		compact bool
	}{
		{send(255, 65535, math.MaxInt32, 255), true},
		{send(256, 1, 1, 1), false},
		{send(0, 65536, 1, 1), false},
		{send(0, 1, math.MaxInt32+1, 1), false},
		{send(0, 1, 1, 256), false},
		{send(-1, 1, 1, 1), false},
		{send(0, 1, -1, 1), false},
		{producer(script.ModeTransactional, math.MaxInt32, 65535), true},
		{producer(script.ModeDefault, 1, 65536), false},
		{producer(script.ModeDefault, -1, 1), false},
		{producer(script.ProducerMode(256), 1, 1), false},
	} {
		kept := w.compactForm(tc.cmd)
		if compact := kept != tc.cmd; compact != tc.compact {
			t.Errorf("%#v: compact %v, want %v", tc.cmd, compact, tc.compact)
		}
		if got := w.command(&action{kind: actApply, cmd: kept}); !reflect.DeepEqual(got, tc.cmd) {
			t.Errorf("the history gives back %#v for %#v", got, tc.cmd)
		}
	}
}
