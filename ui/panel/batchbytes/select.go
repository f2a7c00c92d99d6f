package batchbytes

import (
	"encoding/json"
	"fmt"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/ui/panel"
)

// Choice is the batch the panel shows. Sent is set when a leader stored
// the batch in the step shown: the bytes its producer sent, to compare.
type Choice struct {
	Label string
	Bytes []byte
	Sent  []byte
}

// Select picks the batch the panel follows: whichever happened last on
// the partition in focus — a producer sending a batch (its bytes as
// sent), or a leader deciding on one (the stored batch, the original for
// a duplicate). Without either, the partition's newest stored batch.
func Select(d *panel.Data) Choice {
	pv := d.PartitionView()
	if pv == nil {
		return Choice{}
	}
	for _, e := range d.Trace.Backward() {
		switch e.Kind {
		case "produce.decision":
			if e.Str("partition") != pv.Name {
				continue
			}
			if c := decided(d, pv, e); c.Bytes != nil {
				return c
			}
		case "message.send":
			if e.Str("api") != "Produce" || e.Bool("response") {
				continue
			}
			if label, b := sent(d, pv.Name, e); b != nil {
				return Choice{Label: label, Bytes: b}
			}
		}
	}
	if n := len(pv.Batches); n > 0 {
		b := pv.Batches[n-1]
		return Choice{Label: stored(pv, b), Bytes: b.Bytes}
	}
	return Choice{}
}

// decided is the batch a decision was about: as stored for an append or
// a duplicate (with the bytes as sent when the decision is this step's),
// as sent for a reject.
func decided(d *panel.Data, pv *sim.PartitionView, e *trace.Event) Choice {
	var sentBytes []byte
	if p := d.ProducerView(e.Str("producer")); p != nil {
		for _, cb := range p.AllBatches() {
			if cb.ID == int(e.Int("batch")) {
				sentBytes = cb.Bytes
			}
		}
	}
	if e.Str("outcome") != "reject" {
		off := e.Int("base_offset")
		for _, b := range pv.Batches {
			if b.Header.BaseOffset != off {
				continue
			}
			c := Choice{Label: stored(pv, b), Bytes: b.Bytes}
			if d.Snap != nil && e.Step == d.Snap.Step {
				c.Sent = sentBytes
			}
			return c
		}
	}
	if sentBytes == nil {
		return Choice{}
	}
	return Choice{Label: fmt.Sprintf("%s batch #%d as sent · refused %s", e.Str("producer"), e.Int("batch"), e.Str("error")), Bytes: sentBytes}
}

func stored(pv *sim.PartitionView, b sim.StoredBatch) string {
	return fmt.Sprintf("%s offsets %d-%d as stored by broker %d · %d bytes",
		pv.Name, b.Header.BaseOffset, b.Header.LastOffset(), max(pv.Leader, 0), len(b.Bytes))
}

// sent is the batch for partition tp in a produce request just sent. The
// event lists the client's batches it carries (its "batches" attribute);
// the client keeps the bytes of each batch's last send.
func sent(d *panel.Data, tp string, e *trace.Event) (string, []byte) {
	p := d.ProducerView(e.Str("from"))
	if p == nil {
		return "", nil
	}
	id, ok := batchIn(e, tp)
	if !ok {
		return "", nil
	}
	for _, cb := range p.AllBatches() {
		if cb.ID == id && cb.Bytes != nil {
			return fmt.Sprintf("%s batch #%d as sent in Produce #%d · %d bytes", p.Name, id, e.Int("message"), len(cb.Bytes)), cb.Bytes
		}
	}
	return "", nil
}

// batchIn finds the batch for tp among a produce request's batches.
func batchIn(e *trace.Event, tp string) (int, bool) {
	v, ok := e.Get("batches")
	if !ok {
		return 0, false
	}
	var refs []struct {
		Partition string `json:"partition"`
		Batch     int    `json:"batch"`
	}
	if json.Unmarshal([]byte(v.JSON()), &refs) != nil {
		return 0, false
	}
	for _, r := range refs {
		if r.Partition == tp {
			return r.Batch, true
		}
	}
	return 0, false
}
