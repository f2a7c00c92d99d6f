package partition

import (
	"bytes"
	"encoding/binary"

	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/ui/panel"
)

// writer is who wrote a batch: a producer client (name, and its index for
// its colour) or nobody the snapshot knows ("", -1).
type writer struct {
	name  string
	index int
}

// label is the writer's name before the batch's identity ("p2 id 0 e3"),
// or the identity alone when no client matches: an injected batch, or one
// written by an instance that has since gone.
func (w writer) label(id string) string {
	if w.name == "" {
		return id
	}
	return w.name + " " + id
}

// sentBatch is a batch as a client sent it, for matching with the log.
type sentBatch struct {
	body   []byte // from the attributes on: what the CRC covers
	writer writer
}

// writers finds the client that wrote each stored batch of a partition.
type writers struct {
	d     *panel.Data
	byCRC map[uint32][]sentBatch
}

// newWriters indexes the batches every client sent to the partition by
// their CRC.
func newWriters(d *panel.Data, pv *sim.PartitionView) writers {
	ws := writers{d: d, byCRC: map[uint32][]sentBatch{}}
	if d.Snap == nil {
		return ws
	}
	for i := range d.Snap.Producers {
		p := &d.Snap.Producers[i]
		for _, b := range p.AllBatches() {
			if b.Partition != pv.Name || len(b.Bytes) <= record.AttributesOffset {
				continue
			}
			crc := binary.BigEndian.Uint32(b.Bytes[record.CRCOffset:])
			ws.byCRC[crc] = append(ws.byCRC[crc], sentBatch{body: b.Bytes[record.AttributesOffset:], writer: writer{p.Name, i}})
		}
	}
	return ws
}

// of is the writer of a stored batch: the client that sent these very
// bytes — a leader rewrites only the offset and its epoch, which lie
// before the attributes, outside the CRC, so the rest is as it was sent —
// or else the holder of its producer id at its epoch (panel.ProducerOf).
func (ws writers) of(b *sim.StoredBatch) writer {
	if len(b.Bytes) > record.AttributesOffset {
		for _, s := range ws.byCRC[b.Header.CRC] {
			if bytes.Equal(s.body, b.Bytes[record.AttributesOffset:]) {
				return s.writer
			}
		}
	}
	return ws.byEpoch(&b.Header)
}

// byEpoch is the holder of a batch's producer id at its epoch.
func (ws writers) byEpoch(h *record.Header) writer {
	name, i := ws.d.ProducerOf(h.ProducerID, h.ProducerEpoch)
	return writer{name, i}
}
