// Package panel holds what every engine panel receives: one snapshot, the
// events around it and what is in focus. The panels themselves live in
// the sub-packages (batchbytes, window, producer, network, partition,
// coordinator, consumers, timeline, anomalies); each is a small model with New, SetSize, SetData,
// Update where it takes keys, and View. Panels read snapshots only; they
// never hold a world and never ask the engine anything.
package panel

import (
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/story"
)

// Motion says how the shown world got where it is since the last Data.
type Motion uint8

const (
	// Same: the same world (focus or size changed).
	Same Motion = iota
	// Forward: one move forward (a step, a command, a lesson segment).
	Forward
	// Jump: time travel (back, start, end, a click on the timeline).
	Jump
)

// Data is one frame of the engine for the panels.
type Data struct {
	Snap      *sim.Snapshot
	Trace     trace.Log // every event up to the shown step (shared)
	Future    trace.Log // while travelling back, the timeline's trace: its events from Trace.Len() on come after (shared)
	Partition string    // partition in focus, e.g. "orders-0"
	Producer  string    // producer (client name) in focus, "" if none
	Motion    Motion

	// For the timeline: the whole timeline's landmarks and length, and
	// whether replication traffic is shown unfolded.
	Landmarks   []story.Landmark
	Steps       int
	Replication bool
}

// PartitionView returns the partition in focus, or nil.
func (d *Data) PartitionView() *sim.PartitionView {
	if d.Snap == nil {
		return nil
	}
	for i := range d.Snap.Partitions {
		if d.Snap.Partitions[i].Name == d.Partition {
			return &d.Snap.Partitions[i]
		}
	}
	return nil
}

// ProducerView returns the named producer client, or nil.
func (d *Data) ProducerView(name string) *sim.ProducerView {
	if d.Snap == nil {
		return nil
	}
	for i := range d.Snap.Producers {
		if d.Snap.Producers[i].Name == name {
			return &d.Snap.Producers[i]
		}
	}
	return nil
}

// ProducerIndex is the position of a producer client in the snapshot, for
// its colour; -1 if unknown.
func (d *Data) ProducerIndex(name string) int {
	if d.Snap == nil {
		return -1
	}
	for i := range d.Snap.Producers {
		if d.Snap.Producers[i].Name == name {
			return i
		}
	}
	return -1
}

// ProducerOf names the client that holds a producer id at an epoch, with
// its index; ("", -1) for plain batches and ids no client holds now.
//
// Two clients can hold the same id: a transactional id's new instance
// gets the id of the one it fences, at a higher epoch, while the old one
// (a zombie) keeps its own. A client's epoch only grows, and each new
// instance starts above the last, so what was written at an epoch comes
// from the holder whose epoch is that one, or else the lowest above it.
func (d *Data) ProducerOf(pid int64, epoch int16) (string, int) {
	if d.Snap == nil || pid < 0 {
		return "", -1
	}
	best := -1
	for i := range d.Snap.Producers {
		p := &d.Snap.Producers[i]
		if p.ProducerID != pid || p.Epoch < epoch {
			continue
		}
		if best < 0 || p.Epoch < d.Snap.Producers[best].Epoch {
			best = i
		}
	}
	if best < 0 {
		return "", -1
	}
	return d.Snap.Producers[best].Name, best
}

// Need is the room a panel's content asks for, measured when it renders
// at the size it was given: Width is the widest line it draws before any
// cut or wrap forced by that size (0: the content flows to any width),
// Height how many lines it has there. The workbench gives spare columns
// and rows to the panels whose needs exceed their boxes.
type Need struct {
	Width, Height int
}
