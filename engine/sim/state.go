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
	type aborted struct {
		ProducerID  int64 `json:"producer_id"`
		FirstOffset int64 `json:"first_offset"`
		LastOffset  int64 `json:"last_offset"`
	}
	type part struct {
		Partition        string    `json:"partition"`
		Leader           int       `json:"leader"`
		LeaderEpoch      int32     `json:"leader_epoch"`
		ISR              []int     `json:"isr"`
		HighWatermark    int64     `json:"high_watermark"`
		LastStableOffset int64     `json:"last_stable_offset"`
		LSO              int64     `json:"lso"`
		LogStartOffset   int64     `json:"log_start_offset"`
		LogEndOffset     int64     `json:"log_end_offset"`
		Log              []rec     `json:"log"`
		Producers        []pstate  `json:"producers"`
		Aborted          []aborted `json:"aborted"`
	}
	type txnState struct {
		TransactionalID  string   `json:"transactional_id"`
		ProducerID       int64    `json:"producer_id"`
		Epoch            int16    `json:"producer_epoch"`
		State            string   `json:"state"`
		Partitions       []string `json:"partitions"`
		TimeoutMs        int32    `json:"timeout_ms"`
		Coordinator      int      `json:"coordinator"`
		CoordinatorEpoch int32    `json:"coordinator_epoch"`
		PendingMarkers   []string `json:"pending_markers"`
	}
	type read struct {
		Partition string  `json:"partition"`
		Offset    int64   `json:"offset"`
		Key       *string `json:"key"`
		Value     *string `json:"value"`
	}
	type consumer struct {
		Name      string           `json:"name"`
		Isolation string           `json:"isolation"`
		Group     string           `json:"group"`
		Positions map[string]int64 `json:"positions"`
		Read      []read           `json:"read"`
	}
	type group struct {
		Group      string           `json:"group"`
		Committed  map[string]int64 `json:"committed"`
		Generation int32            `json:"generation"`
		Members    []string         `json:"members"`
	}
	type effect struct {
		Step  int    `json:"step"`
		App   string `json:"app"`
		Label string `json:"label"`
	}
	type prod struct {
		Name       string `json:"name"`
		Mode       string `json:"mode"`
		ProducerID int64  `json:"producer_id"`
		Epoch      int16  `json:"producer_epoch"`
		Fatal      string `json:"fatal_error"`
		TxnState   string `json:"txn_state,omitempty"`
	}
	type diagnosis struct {
		Name      string `json:"name"`
		Partition string `json:"partition"`
		Offset    int64  `json:"offset"`
		Step      int    `json:"step"`
		Right     bool   `json:"right"`
		Anomaly   int    `json:"anomaly"`
	}
	type anomaly struct {
		Name      string  `json:"name"`
		Partition string  `json:"partition"`
		Producer  string  `json:"producer"`
		Offsets   []int64 `json:"offsets"`
		Serials   []int64 `json:"serials"`
	}
	out := struct {
		Kind         string     `json:"kind"`
		Step         int        `json:"step"`
		TimeMs       int64      `json:"time_ms"`
		Seed         uint64     `json:"seed"`
		Producers    []prod     `json:"producers"`
		Partitions   []part     `json:"partitions"`
		Transactions []txnState `json:"transactions"`
		Consumers    []consumer `json:"consumers"`
		Groups       []group    `json:"groups"`
		Effects      []effect   `json:"effects"`
		Anomalies    []anomaly  `json:"anomalies"`
		// Only once a history is diagnosed or replayed (docs/trace.md).
		Diagnoses []diagnosis     `json:"diagnoses,omitempty"`
		Replay    json.RawMessage `json:"replay,omitempty"`
	}{Kind: "state", Step: s.Step, TimeMs: s.TimeMs, Seed: s.Seed, Producers: []prod{}, Partitions: []part{},
		Transactions: []txnState{}, Consumers: []consumer{}, Groups: []group{}, Effects: []effect{}, Anomalies: []anomaly{}}
	for _, p := range s.Producers {
		out.Producers = append(out.Producers, prod{p.Name, p.Mode, p.ProducerID, p.Epoch, p.FatalError, p.TxnState})
	}
	for _, t := range s.Transactions {
		ts := txnState{TransactionalID: t.TransactionalID, ProducerID: t.ProducerID, Epoch: t.Epoch, State: t.State,
			Partitions: nonNil(t.Partitions), TimeoutMs: t.TimeoutMs, Coordinator: t.Coordinator, CoordinatorEpoch: t.CoordinatorEpoch,
			PendingMarkers: nonNil(t.PendingMarkers)}
		out.Transactions = append(out.Transactions, ts)
	}
	for _, c := range s.Consumers {
		cs := consumer{Name: c.Name, Isolation: c.Isolation, Group: c.Group, Positions: map[string]int64{}, Read: []read{}}
		for _, p := range c.Positions {
			cs.Positions[p.Partition] = p.Offset
		}
		for _, r := range c.Read {
			cs.Read = append(cs.Read, read{r.TP.String(), r.Offset, text(r.Key), text(r.Value)})
		}
		out.Consumers = append(out.Consumers, cs)
	}
	for _, g := range s.Groups {
		gs := group{Group: g.Group, Committed: map[string]int64{}, Generation: g.Generation, Members: append([]string{}, g.Members...)}
		for _, p := range g.Committed {
			gs.Committed[p.Partition] = p.Offset
		}
		out.Groups = append(out.Groups, gs)
	}
	for _, e := range s.Effects {
		out.Effects = append(out.Effects, effect{e.Step, e.App, e.Label})
	}
	for _, p := range s.Partitions {
		pp := part{Partition: p.Name, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, ISR: p.ISR, HighWatermark: p.HighWatermark,
			LastStableOffset: p.LastStableOffset, LSO: p.LastStableOffset, LogStartOffset: p.LogStartOffset, LogEndOffset: p.LogEndOffset,
			Log: []rec{}, Producers: []pstate{}, Aborted: []aborted{}}
		for _, a := range p.AbortedTxns {
			pp.Aborted = append(pp.Aborted, aborted{a.ProducerID, a.FirstOffset, a.LastOffset})
		}
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
	for _, d := range s.Diagnoses {
		out.Diagnoses = append(out.Diagnoses, diagnosis{d.Name, d.Partition, d.Offset, d.Step, d.Right, d.Anomaly})
	}
	if s.Replay != nil {
		out.Replay = s.Replay.replayJSON()
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic("state JSON: " + err.Error())
	}
	return b
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
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
