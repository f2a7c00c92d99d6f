package sim

import (
	"bytes"
	"maps"

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
	batches []StoredBatch
	recs    []RecordView
	recEnd  []int // len(recs) once batch i was decoded
	dec     record.Decoder
	scratch record.Batch
}

// valid is how many of the views hold for log l: the batches l holds with
// the same bytes. Batches the log shares with the one the views were made
// from (the same stored bytes, which only the same history has) are found
// by halving; past them (a world replayed from a checkpoint stores its
// batches anew) the bytes are compared.
func (v *logViews) valid(l *partition.Log) int {
	n := min(len(v.batches), l.NumBatches())
	same := func(i int) bool { return &v.batches[i].Bytes[0] == &l.Batch(i).Bytes()[0] }
	lo := n
	if n > 0 && !same(n-1) {
		lo, hi := 0, n-1
		for lo < hi {
			m := (lo + hi) / 2
			if same(m) {
				lo = m + 1
			} else {
				hi = m
			}
		}
		for lo < n && bytes.Equal(v.batches[lo].Bytes, l.Batch(lo).Bytes()) {
			lo++
		}
		return lo
	}
	return lo
}

// viewShare holds the views every copy of a world shares: the world and
// its checkpoints, clones and rewound worlds decode a history once between
// them. A copy that went another way keeps views of its own (World.views).
type viewShare struct {
	logs  map[replicaKey]*logViews
	prods map[string]*producerViews
}

// replicaKey names a log: the broker holding it and the partition.
type replicaKey struct{ broker, partition int }

func (w *World) share() *viewShare {
	if w.vshare == nil {
		w.vshare = &viewShare{logs: map[replicaKey]*logViews{}, prods: map[string]*producerViews{}}
	}
	return w.vshare
}

// logViewsOf returns the views of the batches and records of broker b's
// log l of partition p, decoding only what no snapshot has decoded before.
func (w *World) logViewsOf(b, p int, l *partition.Log) ([]StoredBatch, []RecordView) {
	k := replicaKey{b, p}
	v := w.views[k]
	if v == nil {
		v = w.share().logs[k]
	}
	n := 0
	if v != nil {
		n = v.valid(l)
		if n < len(v.batches) && n < l.NumBatches() {
			// This world went another way: views of its own, from where they part.
			old := v
			v = &logViews{batches: append([]StoredBatch(nil), old.batches[:n]...), recEnd: append([]int(nil), old.recEnd[:n]...)}
			if n > 0 {
				v.recs = append([]RecordView(nil), old.recs[:v.recEnd[n-1]]...)
			}
			if w.views == nil {
				w.views = map[replicaKey]*logViews{}
			}
			w.views[k] = v
		}
	} else {
		v = &logViews{}
		w.share().logs[k] = v
	}
	l.EachBatch(min(n, len(v.batches)), func(_ int, st *partition.Stored) bool {
		err := v.dec.Decode(st.Bytes(), &v.scratch) // fills the header, which a stored batch does not keep apart
		v.batches = append(v.batches, StoredBatch{Header: v.scratch.Header, Bytes: st.Bytes()})
		if err == nil {
			v.recs = appendRecordViews(v.recs, &v.scratch)
		}
		v.recEnd = append(v.recEnd, len(v.recs))
		return true
	})
	nb := l.NumBatches()
	if nb == 0 {
		return nil, nil
	}
	r := v.recEnd[nb-1]
	var recs []RecordView
	if r > 0 {
		recs = v.recs[:r:r]
	}
	return v.batches[:nb:nb], recs
}

// producerViews is the view of a prefix of a producer's settled batches.
type producerViews struct {
	refs  []client.DoneRef // where each batch was kept (client.Producer.SettledRef)
	src   []client.Batch   // what each view was made from
	views []ClientBatchView
}

// valid is how many of the views hold for producer p: the settled batches
// p shares with the one they were made from (the same entries, found by
// halving), then those equal to what they were made from.
func (v *producerViews) valid(p *client.Producer) int {
	n := min(len(v.src), p.Settled())
	lo := n
	if n > 0 && v.refs[n-1] != p.SettledRef(n-1) {
		hi := n - 1
		lo = 0
		for lo < hi {
			m := (lo + hi) / 2
			if v.refs[m] == p.SettledRef(m) {
				lo = m + 1
			} else {
				hi = m
			}
		}
		for lo < n && sameBatch(&v.src[lo], p, lo) {
			lo++
		}
	}
	return lo
}

// batchViewsOf returns the views of every batch of producer p: those
// settled, shared, and the recent ones, made anew.
func (w *World) batchViewsOf(name string, p *client.Producer) (settledViews, recent []ClientBatchView) {
	v := w.pviews[name]
	if v == nil {
		v = w.share().prods[name]
	}
	settled := p.Settled()
	n := 0
	if v != nil {
		n = v.valid(p)
		if n < len(v.src) && n < settled {
			// Another way from here (a fork, a restarted producer): views of its own.
			v = &producerViews{refs: append([]client.DoneRef(nil), v.refs[:n]...), src: append([]client.Batch(nil), v.src[:n]...),
				views: append([]ClientBatchView(nil), v.views[:n]...)}
			if w.pviews == nil {
				w.pviews = map[string]*producerViews{}
			}
			w.pviews[name] = v
		}
	} else {
		v = &producerViews{}
		w.share().prods[name] = v
	}
	for ref, b := range p.SettledFrom(len(v.src), true) {
		i := len(v.src)
		var name string
		if i > 0 && v.src[i-1].TP == b.TP {
			name = v.views[i-1].Partition
		}
		v.refs = append(v.refs, ref)
		v.src = append(v.src, b)
		v.views = append(v.views, clientBatchView(&b, name))
	}
	if settled > 0 {
		settledViews = v.views[:settled:settled]
	}
	if un := p.Unsettled(); len(un) > 0 {
		recent = make([]ClientBatchView, len(un))
		for i, b := range un {
			var name string
			if i > 0 && un[i-1].TP == b.TP {
				name = recent[i-1].Partition
			}
			c := *b
			c.Bytes = p.SentBytes(b) // the producer keeps none
			recent[i] = clientBatchView(&c, name)
		}
	}
	return settledViews, recent
}

func sameBatch(a *client.Batch, p *client.Producer, i int) bool {
	b := p.BatchAt(i)
	return a.ID == b.ID && a.TP == b.TP && a.Count == b.Count && a.FirstSerial == b.FirstSerial && a.Seq == b.Seq &&
		a.Sends == b.Sends && a.State == b.State && a.BaseOffset == b.BaseOffset && a.Err == b.Err &&
		bytes.Equal(a.Bytes, b.Bytes)
}

// clientBatchView is the view of b; partition is the name of b's
// partition, or "" to have it built. A producer's batches mostly go to
// the partition of the batch before, whose name their views then share.
func clientBatchView(b *client.Batch, partition string) ClientBatchView {
	if partition == "" {
		partition = b.TP.String()
	}
	cb := ClientBatchView{ID: b.ID, Partition: partition, BaseSeq: b.Seq, LastSeq: b.LastSeq(), Count: b.Count,
		FirstSerial: b.FirstSerial, State: b.State.String(), BaseOffset: b.BaseOffset, Sends: b.Sends, Bytes: b.Bytes}
	if b.Err != 0 || b.State == client.Expired {
		cb.Error = b.Err.Name()
		if b.State == client.Expired {
			cb.Error = "TIMEOUT"
		}
	}
	return cb
}

// cloneViews gives a copy of the world the views it shares.
func (cl *cloner) cloneViews(w, c *World) {
	c.vshare = w.share()
	if len(w.views) > 0 {
		c.views = maps.Clone(w.views)
	}
	if len(w.pviews) > 0 {
		c.pviews = maps.Clone(w.pviews)
	}
}
