package sim

import (
	"encoding/json"
	"unicode/utf8"
)

// StateJSON renders the snapshot as the {"kind":"state", ...} object of
// `play --state json`. Its keys are a contract (docs/trace.md).
func (s *Snapshot) StateJSON() []byte {
	type window struct {
		FirstSeq    int32 `json:"first_sequence"`
		LastSeq     int32 `json:"last_sequence"`
		FirstOffset int64 `json:"first_offset"`
		LastOffset  int64 `json:"last_offset"`
	}
	type pstate struct {
		ProducerID int64    `json:"producer_id"`
		Epoch      int16    `json:"producer_epoch"`
		LastSeq    int32    `json:"last_sequence"`
		Batches    []window `json:"batches"`
	}
	type rec struct {
		Offset        int64   `json:"offset"`
		ProducerID    int64   `json:"producer_id"`
		Epoch         int16   `json:"producer_epoch"`
		Sequence      int32   `json:"sequence"`
		Key           *string `json:"key"`
		Value         *string `json:"value"`
		Transactional bool    `json:"transactional"`
		Control       bool    `json:"control"`
	}
	type part struct {
		Partition        string   `json:"partition"`
		Leader           int      `json:"leader"`
		LeaderEpoch      int32    `json:"leader_epoch"`
		ISR              []int    `json:"isr"`
		HighWatermark    int64    `json:"high_watermark"`
		LastStableOffset int64    `json:"last_stable_offset"`
		LogStartOffset   int64    `json:"log_start_offset"`
		LogEndOffset     int64    `json:"log_end_offset"`
		Log              []rec    `json:"log"`
		Producers        []pstate `json:"producers"`
	}
	type prod struct {
		Name       string `json:"name"`
		Mode       string `json:"mode"`
		ProducerID int64  `json:"producer_id"`
		Epoch      int16  `json:"producer_epoch"`
		Fatal      string `json:"fatal_error"`
	}
	type anomaly struct {
		Name      string  `json:"name"`
		Partition string  `json:"partition"`
		Producer  string  `json:"producer"`
		Offsets   []int64 `json:"offsets"`
		Serials   []int64 `json:"serials"`
	}
	out := struct {
		Kind       string    `json:"kind"`
		Step       int       `json:"step"`
		TimeMs     int64     `json:"time_ms"`
		Seed       uint64    `json:"seed"`
		Producers  []prod    `json:"producers"`
		Partitions []part    `json:"partitions"`
		Anomalies  []anomaly `json:"anomalies"`
	}{Kind: "state", Step: s.Step, TimeMs: s.TimeMs, Seed: s.Seed, Producers: []prod{}, Partitions: []part{}, Anomalies: []anomaly{}}
	for _, p := range s.Producers {
		out.Producers = append(out.Producers, prod{p.Name, p.Mode, p.ProducerID, p.Epoch, p.FatalError})
	}
	for _, p := range s.Partitions {
		pp := part{Partition: p.Name, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, ISR: p.ISR, HighWatermark: p.HighWatermark,
			LastStableOffset: p.LastStableOffset, LogStartOffset: p.LogStartOffset, LogEndOffset: p.LogEndOffset, Log: []rec{}, Producers: []pstate{}}
		for _, r := range p.Log {
			pp.Log = append(pp.Log, rec{r.Offset, r.ProducerID, r.ProducerEpoch, r.Sequence, text(r.Key), text(r.Value), r.Transactional, r.Control})
		}
		for _, ps := range p.Producers {
			st := pstate{ProducerID: ps.ProducerID, Epoch: ps.Epoch, LastSeq: ps.LastSeq, Batches: []window{}}
			for _, b := range ps.Batches {
				st.Batches = append(st.Batches, window{b.FirstSeq, b.LastSeq, b.FirstOffset, b.LastOffset})
			}
			pp.Producers = append(pp.Producers, st)
		}
		out.Partitions = append(out.Partitions, pp)
	}
	for _, a := range s.Anomalies {
		out.Anomalies = append(out.Anomalies, anomaly{a.Name, a.Partition, a.Producer, a.Offsets, a.Serials})
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic("state JSON: " + err.Error())
	}
	return b
}

// text shows bytes as a string when they are UTF-8 (else as \x escapes), nil as null.
func text(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	if !utf8.Valid(b) {
		s = ""
		for _, c := range b {
			s += `\x` + string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15])
		}
	}
	return &s
}
