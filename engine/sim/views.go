package sim

import (
	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/record"
)

// Snapshots are incremental: what a log holds and a producer's finished
// batches only grow, so their views are decoded once, kept, and shared by
// every snapshot (and every copy of the world) that shows them. A view
// kept knows what it was made from, so that a world that went another way
// (a fork) makes its own from where they part.

// logViews is the decoded form of a prefix of a log: its batches and
// their records. The slices only grow; snapshots get them cut to length.
type logViews struct {
	src     []*partition.Stored // what each batch view was made from
	batches []StoredBatch
	recs    []RecordView
	recEnd  []int // len(recs) once batch i was decoded
	dec     record.Decoder
	scratch record.Batch
}

// valid is how many of the views hold for log l: every batch the log
// shares with the one they were made from (the same stored batch at the
// same index, which a log never has but for the same append).
func (v *logViews) valid(l *partition.Log) int {
	n := min(len(v.src), l.NumBatches())
	if n > 0 && v.src[n-1] == l.Batch(n-1) {
		return n
	}
	lo, hi := 0, n // the first index that differs: everything before it is shared
	for lo < hi {
		m := (lo + hi) / 2
		if v.src[m] == l.Batch(m) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// of returns the views of log l's batches and records, decoding only what
// no snapshot has decoded before.
func (w *World) logViewsOf(l *partition.Log) ([]StoredBatch, []RecordView) {
	if w.views == nil {
		w.views = map[*partition.Log]*logViews{}
	}
	v := w.views[l]
	n := 0
	if v != nil {
		n = v.valid(l)
		if n < len(v.src) {
			// This world went another way: views of its own, from where they part.
			v = &logViews{src: append([]*partition.Stored(nil), v.src[:n]...), batches: append([]StoredBatch(nil), v.batches[:n]...),
				recEnd: append([]int(nil), v.recEnd[:n]...)}
			if n > 0 {
				v.recs = append([]RecordView(nil), w.views[l].recs[:v.recEnd[n-1]]...)
			}
			w.views[l] = v
		}
	} else {
		v = &logViews{}
		w.views[l] = v
	}
	l.EachBatch(n, func(_ int, st *partition.Stored) bool {
		v.src = append(v.src, st)
		v.batches = append(v.batches, StoredBatch{Header: st.Header, Bytes: st.Bytes})
		if v.dec.Decode(st.Bytes, &v.scratch) == nil {
			v.recs = appendRecordViews(v.recs, &v.scratch)
		}
		v.recEnd = append(v.recEnd, len(v.recs))
		return true
	})
	k := l.NumBatches()
	if k == 0 {
		return nil, nil
	}
	r := v.recEnd[k-1]
	var recs []RecordView
	if r > 0 {
		recs = v.recs[:r:r]
	}
	return v.batches[:k:k], recs
}

// producerViews is the view of a prefix of a producer's settled batches.
type producerViews struct {
	src   []client.Batch // what each view was made from
	views []ClientBatchView
}

// batchViewsOf returns the views of every batch of producer p.
func (w *World) batchViewsOf(name string, p *client.Producer) []ClientBatchView {
	if w.pviews == nil {
		w.pviews = map[string]*producerViews{}
	}
	v := w.pviews[name]
	settled := p.Settled()
	n := 0
	if v != nil {
		n = min(len(v.src), settled)
		for n > 0 && !sameBatch(&v.src[n-1], p, n-1) {
			n-- // another way from here (a fork)
		}
		if n < len(v.src) {
			v = &producerViews{src: append([]client.Batch(nil), v.src[:n]...), views: append([]ClientBatchView(nil), v.views[:n]...)}
			w.pviews[name] = v
		}
	} else {
		v = &producerViews{}
		w.pviews[name] = v
	}
	for i := n; i < settled; i++ {
		b := p.BatchAt(i)
		v.src = append(v.src, b)
		v.views = append(v.views, clientBatchView(&b))
	}
	total := p.NumBatches()
	if total == 0 {
		return nil
	}
	if total == settled {
		return v.views[:settled:settled]
	}
	out := make([]ClientBatchView, settled, total)
	copy(out, v.views[:settled])
	for _, b := range p.Unsettled() {
		out = append(out, clientBatchView(b))
	}
	return out
}

func sameBatch(a *client.Batch, p *client.Producer, i int) bool {
	b := p.BatchAt(i)
	return a.ID == b.ID && a.TP == b.TP && a.Count == b.Count && a.FirstSerial == b.FirstSerial && a.Seq == b.Seq &&
		a.Sends == b.Sends && a.State == b.State && a.BaseOffset == b.BaseOffset && a.Err == b.Err &&
		len(a.Bytes) == len(b.Bytes) && (len(a.Bytes) == 0 || &a.Bytes[0] == &b.Bytes[0])
}

func clientBatchView(b *client.Batch) ClientBatchView {
	cb := ClientBatchView{ID: b.ID, Partition: b.TP.String(), BaseSeq: b.Seq, LastSeq: b.LastSeq(), Count: b.Count,
		FirstSerial: b.FirstSerial, State: b.State.String(), BaseOffset: b.BaseOffset, Sends: b.Sends, Bytes: b.Bytes}
	if b.Err != 0 || b.State == client.Expired {
		cb.Error = b.Err.Name()
		if b.State == client.Expired {
			cb.Error = "TIMEOUT"
		}
	}
	return cb
}

// cloneViews gives a copy of the world the views it can share.
func (cl *cloner) cloneViews(w, c *World) {
	c.views = make(map[*partition.Log]*logViews, len(w.views))
	for l, v := range w.views {
		if cl2, ok := cl.logs[l]; ok {
			c.views[cl2] = v
		}
	}
	c.pviews = make(map[string]*producerViews, len(w.pviews))
	for name, v := range w.pviews {
		c.pviews[name] = v
	}
}
