package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eoslab/eoslab/engine/client"
	"github.com/eoslab/eoslab/engine/internal/hist"
	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/engine/trace"
)

// Anomaly is a violation of exactly-once delivery the checker found, in
// Jepsen's vocabulary.
type Anomaly struct {
	Name      string // duplicate, lost, reordered
	Partition string
	Producer  string
	Offsets   []int64
	Serials   []int64
	Count     int32 // reordered, zombie write: the records of the batch at Offsets[0] (Covers)
	Step      int
	Text      string
}

// source says which records a sent batch holds. A record's identity is its
// producer's serial number or, when the application chose the value
// (value=...), that value: the same business event sent twice — even by a
// restarted producer with a new id — is a duplicate. Producers and values
// are numbered, so identities hash without strings.
type source struct {
	firstSerial int64
	who         int32 // producer number
	value       int32 // value number for an application-chosen value, else -1
}

// identity is what makes a record the same record.
type identity struct {
	who   int32 // -1 for an application-chosen value
	value int32
	n     int64 // the serial, or the index within the batch for a value
}

func (s source) identity(i int64) identity {
	if s.value >= 0 {
		return identity{who: -1, value: s.value, n: i}
	}
	return identity{who: s.who, value: -1, n: s.firstSerial + i}
}

// batchKey identifies a batch's content: a retry of the same batch has the
// same bytes (same CRC), a re-sequenced one does not.
type batchKey struct {
	crc  uint32
	pid  int64
	seq  int32
	size int32
}

// keyOf reads the key's four fields in place: it is asked twice a batch
// (sent, then judged), and the whole header is not needed.
func keyOf(data []byte) (batchKey, bool) {
	if !record.HeaderParses(data) {
		return batchKey{}, false
	}
	return batchKey{record.CRCOf(data), record.ProducerIDOf(data), record.BaseSequenceOf(data), record.BatchLengthOf(data)}, true
}

// ackRec is an acknowledged batch, as the checker keeps every one, in 24
// bytes: its offset shares a word with the index of its partition (below
// MaxPartitions) and a mark for a batch of an application-chosen value,
// whose number is kept apart (checker.ackValues), since most batches'
// records are told apart by their serials alone.
type ackRec struct {
	firstSerial int64
	at          int64 // offset<<ackShift | ackValue when it has a value | partition
	who         int32
	count       int32
}

const (
	ackPartBits = 6
	ackValue    = 1 << ackPartBits
	ackShift    = ackPartBits + 1
)

// Every partition's index fits its bits.
var _ [1<<ackPartBits - MaxPartitions]struct{}

// offset is the offset the batch was acknowledged at.
func (a *ackRec) offset() int64 { return a.at >> ackShift }

// partition is the index of the batch's partition in the world's.
func (a *ackRec) partition() int { return int(a.at & (1<<ackPartBits - 1)) }

// seenAt is where a partition's judged log holds a record of a producer
// (by serial): at the serial plus shift. A batch's records have
// consecutive serials at consecutive offsets, so they share one shift: a
// batch is marked as one run (hist.Runs.SetRange), and so are batches
// that follow each other in serials and offsets. gen names the
// partition's check it belongs to (checker.gens counts the checks, so a
// check's gen is its own and names its partition too), so that a check
// started over forgets everything at once.
type seenAt struct {
	shift int64 // offset - serial
	gen   uint32
}

// seenRecs is where the judged logs hold one producer's records, by
// serial (seenAt), and the highest serial each partition's check has
// marked (to find records out of order). The first serials, 0 to n-1,
// marked as one run, are kept inline: a producer of a large world has
// sent a batch or two, and keeps no vector of its own until it needs one.
type seenRecs struct {
	// Serials 0 to n-1 are at seenAt{shift, gen} (n is 0 once rest is
	// used): a seenAt's fields and n, unpadded.
	shift int64
	gen   uint32
	n     uint32
	rest  *seenRest // once the records are not one run from 0 (nil before)
}

// run is where serials 0 to n-1 are.
func (s *seenRecs) run() seenAt { return seenAt{s.shift, s.gen} }

type seenRest struct {
	v    hist.Runs[seenAt] // every serial, a run of equal marks at a time
	most []genMax          // the highest serial marked, per check (gen), the latest checks last
	// No serial from top on is marked. Serials lastFirst to lastEnd-1
	// were marked last, at last: a batch is judged past every serial
	// marked before it, and its ack comes in once it was judged, so both
	// are mostly answered without reading v.
	top                int64
	lastFirst, lastEnd int64
	last               seenAt
}

type genMax struct {
	gen uint32
	max int64
}

func (s *seenRecs) get(i int) seenAt {
	switch {
	case i < int(s.n):
		return s.run()
	case s.rest == nil:
		return seenAt{}
	}
	return s.rest.v.Get(i)
}

// setRange marks serials i to i+k-1 at x, as hist.Runs.SetRange.
func (s *seenRecs) setRange(i, k int, x seenAt) {
	if k <= 0 {
		return
	}
	if s.rest == nil && i == int(s.n) && (s.n == 0 || x == s.run()) && i+k <= math.MaxUint32 {
		s.shift, s.gen, s.n = x.shift, x.gen, uint32(i+k)
		return
	}
	if s.rest == nil {
		s.rest = &seenRest{}
		if s.n > 0 {
			s.rest.v.SetRange(0, int(s.n), s.run())
			s.rest.most = []genMax{{s.gen, int64(s.n) - 1}}
			s.rest.top = int64(s.n)
		}
		s.n = 0
	}
	s.rest.v.SetRange(i, k, x)
	r := s.rest
	r.top = max(r.top, int64(i+k))
	r.lastFirst, r.lastEnd, r.last = int64(i), int64(i+k), x
	for j := len(r.most) - 1; j >= 0; j-- {
		if r.most[j].gen == x.gen {
			r.most[j].max = max(r.most[j].max, int64(i+k-1))
			return
		}
	}
	r.most = append(r.most, genMax{x.gen, int64(i + k - 1)})
}

// maxOf returns the highest serial marked with gen, if any. A check's gen
// is its own (checker.gens counts them), so the inline run, all marked
// at once, holds the check's marks if it is of its gen.
func (s *seenRecs) maxOf(gen uint32) (int64, bool) {
	if s.rest == nil {
		return int64(s.n) - 1, s.n > 0 && s.gen == gen
	}
	for j := len(s.rest.most) - 1; j >= 0; j-- {
		if s.rest.most[j].gen == gen {
			return s.rest.most[j].max, true
		}
	}
	return 0, false
}

// runOf returns serial i's mark and how many serials from i on, k ≤ n,
// are marked alike (k ≥ 1 when n ≥ 1).
func (s *seenRecs) runOf(i, n int) (seenAt, int) {
	if i < int(s.n) {
		return s.run(), min(n, int(s.n)-i)
	}
	r := s.rest
	switch {
	case r == nil || int64(i) >= r.top:
		return seenAt{}, n
	case int64(i) >= r.lastFirst && int64(i) < r.lastEnd:
		return r.last, min(n, int(r.lastEnd)-i)
	}
	return r.v.Run(i, n)
}

func (s *seenRecs) clone() seenRecs {
	d := *s
	if s.rest != nil {
		r := *s.rest
		r.v, r.most = s.rest.v.Clone(), slices.Clone(s.rest.most)
		d.rest = &r
	}
	return d
}

type partCheck struct {
	log     *partition.Log
	gen     uint32
	scanned int
	// What the log looked like when scan last returned (unchanged).
	seenBatches     int
	seenHW          int64
	seenTruncations int
	// quietOf is the pass token (checker.token) of the checker whose pass
	// last left the check with nothing to judge, under leader: while the
	// leader is the same, log is the leader's log (a world's brokers and
	// partitions are the same objects for as long as its checker lives,
	// and a broker keeps its replica of a partition, and the replica its
	// log), and a pass that finds it unchanged passes the partition by
	// without looking the log up. A copy of the checker has a token of
	// its own, so its checks start by looking their logs up (they are the
	// copy's).
	quietOf *passToken
	leader  int
	// What the judged log holds: records of producers are found by
	// serial in checker.at; records with an application-chosen value here.
	values hist.Map[identity, int64]
	open   map[int64][]int // producer id -> indexes of its batches in an undecided transaction
	// withheld holds records that are in the log but not visible to a
	// read_committed reader: in an undecided or an aborted transaction. An
	// acknowledged record there is not lost: its fate is the transaction's.
	withheld hist.Map[identity, int64]
}

// at returns where the judged log holds the record, if it does.
func (c *checker) at(pc *partCheck, id identity) (int64, bool) {
	if id.who < 0 {
		return pc.values.Get(id)
	}
	if int(id.who) >= c.seen.len() {
		return 0, false
	}
	e := c.seen.at(int(id.who)).get(int(id.n))
	if e.gen != pc.gen {
		return 0, false
	}
	return id.n + e.shift, true
}

// span counts the records from serial first on, at most n, that the
// check of gen holds (held) or does not hold (!held), reading the marks a
// run at a time (hist.Runs.Run).
func (s *seenRecs) span(first, n int64, gen uint32, held bool) int64 {
	var m int64
	if s.rest == nil && n > 0 {
		// One run from serial 0, and nothing marked past it.
		if first < int64(s.n) {
			if (s.gen == gen) != held {
				return 0
			}
			m = min(n, int64(s.n)-first)
		}
		if held {
			return m
		}
		return n
	}
	for m < n {
		x, k := s.runOf(int(first+m), int(n-m))
		if in := x.gen == gen; in != held {
			return m
		}
		m += int64(k)
	}
	return m
}

// seenOf returns where the judged logs hold producer who's records,
// making room for them if none were marked yet.
func (c *checker) seenOf(who int32) *seenRecs {
	if int(who) >= c.seen.len() {
		c.growSeen(who)
	}
	return c.seen.at(int(who))
}

func (c *checker) growSeen(who int32) {
	for int(who) >= c.seen.len() {
		c.seen.append(seenRecs{})
	}
}

// newPartCheck starts checking a partition's leader log from its start.
func (c *checker) newPartCheck(log *partition.Log) *partCheck {
	c.gens++
	return &partCheck{log: log, gen: c.gens, open: map[int64][]int{}}
}

// restart forgets what a check has judged (its log was truncated under it).
func (c *checker) restart(pc *partCheck) {
	c.gens++
	pc.gen, pc.scanned = c.gens, 0
	pc.values, pc.withheld = hist.Map[identity, int64]{}, hist.Map[identity, int64]{}
	clear(pc.open)
}

// checker watches every leader log after every step for duplicates,
// reordering and acknowledged records that are no longer there. It only
// reads what producers sent and what logs hold: the same check a Jepsen
// test makes from the outside.
type checker struct {
	names     chunks[string]   // producer numbers to names; the numbers are in the producers' slots (slotWho)
	byName    map[string]int32 // the numbers of names first numbered with no world producer (nameWho)
	values    hist.List[string]
	valueNums hist.Map[string, int32]
	sources   sourceIndex
	seen      chunks[seenRecs] // by producer number, by serial: where a judged log holds the record
	gens      uint32           // partition checks started so far
	parts     []*partCheck     // by index in the world's partitions
	acks      hist.List[ackRec]
	ackValues hist.Map[int, int32]    // the value numbers of the acks of application-chosen values (by index)
	lost      hist.Map[int, struct{}] // acks found lost (by index): reported once
	fresh     []int                   // acks not checked yet
	rescan    []bool                  // by index in the world's partitions: its leader changed, check the whole log again
	readsSeen map[string]int          // per consumer: reads already checked
	reported  hist.Map[string, struct{}]
	anomalies []Anomaly  // appended to, never changed in place
	token     *passToken // this checker's, made by its first pass (see partCheck.quietOf)
	// changes counts the changes of the batches or the high watermark of
	// the logs the checks judge: a pass that looks a leader's log up
	// makes the log count here (partition.Log.CountChangesIn), and a log
	// a check stops judging counts nowhere. A follower's append, most of
	// a run's log changes, moves nothing. A copy of the checker counts
	// from 0: its first pass looks every log up (see partCheck.quietOf).
	changes uint64
	// calm: the last pass left every partition with nothing to judge,
	// when changes was calmChanges and the world had calmParts
	// partitions. Until a judged log changes, an ack comes in or a
	// leader changes, the next pass would find the same. A copy of the
	// checker starts without it.
	calm        bool
	calmChanges uint64
	calmParts   int
}

// calmAt reports whether the last pass found nothing to judge and
// nothing has changed since: the pass would return at once.
func (c *checker) calmAt(w *World) bool {
	return c.calm && c.changes == c.calmChanges && len(c.fresh) == 0 && len(w.parts) == c.calmParts
}

// passToken tells one checker's passes from another's (partCheck.quietOf).
type passToken struct{ _ byte }

func newChecker() *checker {
	return &checker{readsSeen: map[string]int{}}
}

// slotWho returns the number of a simulated producer, which its slot
// keeps (who) once it has one: every send asks, and a large world's
// producers are not looked up by name. A restart's new slot takes the
// old one's (createProducer); a name first numbered without a slot
// (byName) keeps its number when a producer of that name is created.
func (c *checker) slotWho(s *producerSlot) int32 {
	if s.who == 0 {
		c.number(s, s.name())
	}
	return s.who - 1
}

// nameWho returns the number of a producer known only by name (a real
// client's client.id): the number of the world's producer of that name,
// if there is one, which numbers it if it had none.
func (c *checker) nameWho(w *World, name string) int32 {
	if s := w.producers.get(name); s != nil {
		if s.who == 0 {
			c.number(s, name)
		}
		return s.who - 1
	}
	who, ok := c.byName[name]
	if !ok {
		who = c.addName(name)
		if c.byName == nil {
			c.byName = map[string]int32{}
		}
		c.byName[name] = who
	}
	return who
}

// number gives slot s, of the producer named name, its number: the one
// the name took without a slot (byName), or a new one.
func (c *checker) number(s *producerSlot, name string) {
	who, ok := c.byName[name]
	if !ok {
		who = c.addName(name)
	}
	s.who = who + 1
}

func (c *checker) sourceOf(who int32, b *client.Batch) source {
	s := source{firstSerial: b.FirstSerial, who: who, value: -1}
	if b.Explicit {
		s.value = c.valueNum(b.Value)
	}
	return s
}

// valueNum returns the number of an application-chosen value, numbering
// it if it is new.
func (c *checker) valueNum(value []byte) int32 {
	v, ok := c.valueNums.Get(string(value))
	if !ok {
		v = int32(c.values.Len())
		c.valueNums.Set(string(value), v)
		c.values.Append(string(value))
	}
	return v
}

// addName numbers a producer not numbered yet.
func (c *checker) addName(name string) int32 {
	c.names.append(name)
	return int32(c.names.len() - 1)
}

func (c *checker) describe(s source, i int64) string {
	if s.value >= 0 {
		return fmt.Sprintf("value %q #%d", c.values.At(int(s.value)), i)
	}
	return fmt.Sprintf("%s serial %d", *c.names.at(int(s.who)), s.firstSerial+i)
}

// noteSent remembers which records a batch's bytes hold.
func (c *checker) noteSent(data []byte, s source) {
	if k, ok := keyOf(data); ok {
		c.sources.set(k, s)
	}
}

// noteAck records a batch the producer was told is written (simulated
// producers write to the cluster's topic, whose partition numbers are
// their indexes in the world's partitions).
func (c *checker) noteAck(s *producerSlot, b *client.Batch) {
	c.noteAckAt(c.slotWho(s), b, b.TP.Partition)
}

// noteAckAt is noteAck for the producer numbered who and the partition at
// index part of the world's partitions (World.partIndex).
func (c *checker) noteAckAt(who int32, b *client.Batch, part int) {
	j := c.acks.Len()
	s := c.sourceOf(who, b)
	at := b.BaseOffset<<ackShift | int64(part)
	if s.value >= 0 {
		at |= ackValue
		c.ackValues.Set(j, s.value)
	}
	c.fresh = append(c.fresh, j)
	c.acks.Append(ackRec{firstSerial: s.firstSerial, at: at, who: s.who, count: b.Count})
}

// ackSource is the source of ack j.
func (c *checker) ackSource(j int, a *ackRec) source {
	s := source{firstSerial: a.firstSerial, who: a.who, value: -1}
	if a.at&ackValue != 0 {
		s.value, _ = c.ackValues.Get(j)
	}
	return s
}

// leaderChanged notes that the partition at index part of the world's
// partitions (World.partIndex) has a new leader.
func (c *checker) leaderChanged(part int) {
	for len(c.rescan) <= part {
		c.rescan = append(c.rescan, false)
	}
	c.rescan[part] = true
	c.calm = false
}

// run scans what changed in this step. Most steps change no leader log
// (a request sent, a timer set, a follower's fetch that brought nothing),
// and a partition whose leader, check and log are as the last pass left
// them is passed by: scanning it would judge nothing.
func (c *checker) run(w *World) {
	if !c.calmAt(w) {
		c.pass(w)
	}
}

// pass is run once it has found something may have changed. After a
// calm pass, a step that changed no log and no leader but brought acks
// (an answer delivered) would pass every partition by: only the acks
// are checked.
func (c *checker) pass(w *World) {
	if c.calm && c.changes == c.calmChanges && len(w.parts) == c.calmParts {
		c.checkFresh(w)
		return
	}
	n := len(w.parts)
	if len(c.parts) < n || len(c.rescan) < n || c.token == nil {
		c.grow(n)
	}
	parts, rescans, token := c.parts[:n], c.rescan[:n], c.token
	for i, m := range w.parts {
		pc := parts[i]
		if pc != nil && pc.quietOf == token && pc.leader == m.leader && !rescans[i] {
			// The leader's log, as this checker's last pass left it:
			// scanned only if it changed since.
			if !pc.unchanged() {
				c.scan(w, m.tp, pc)
			}
			continue
		}
		log := w.leaderLog(m)
		if log == nil {
			continue
		}
		rescan := rescans[i]
		if pc == nil || pc.log != log || rescan {
			if pc != nil && pc.quietOf == token && pc.log != log {
				// A log of this world that no check judges now. (A
				// copy's first pass leaves the logs its checks had
				// alone: they may be the original's.)
				pc.log.CountChangesIn(nil)
			}
			pc = c.newPartCheck(log)
			parts[i] = pc
		}
		log.CountChangesIn(&c.changes)
		c.scan(w, m.tp, pc)
		if rescan {
			for j := range c.acks.Len() {
				if a := c.acks.Ptr(j); a.partition() == i {
					c.checkAck(w, j, pc)
				}
			}
			rescans[i] = false
		}
		pc.quietOf, pc.leader = token, m.leader
	}
	c.checkFresh(w)
	c.calm, c.calmChanges, c.calmParts = true, c.changes, len(w.parts)
}

// grow gives the checker's lists by partition n entries, and the
// checker its pass token.
func (c *checker) grow(n int) {
	for len(c.parts) < n {
		c.parts = append(c.parts, nil)
	}
	for len(c.rescan) < n {
		c.rescan = append(c.rescan, false)
	}
	if c.token == nil {
		c.token = &passToken{}
	}
}

// checkFresh checks the acks that came in since the last pass.
func (c *checker) checkFresh(w *World) {
	for _, i := range c.fresh {
		a := c.acks.Ptr(i)
		if pc := c.parts[a.partition()]; pc != nil {
			c.checkAck(w, i, pc)
		}
	}
	c.fresh = c.fresh[:0]
}

// scan judges the batches that became visible: below the high watermark,
// which is what consumers can read. A batch above it may still be
// truncated by a failover, so it is not judged yet.
func (c *checker) scan(w *World, tp msg.TP, pc *partCheck) {
	n := pc.log.NumBatches()
	hw := pc.log.HighWatermark()
	if pc.scanned > n {
		c.restart(pc) // truncated under us: start over
	}
	i := pc.scanned
	for ; i < n && pc.log.Batch(i).LastOffset() < hw; i++ {
		b := pc.log.Batch(i)
		switch a := b.Attributes(); {
		case a.Control():
			c.decide(w, tp, pc, b)
		case a.Transactional():
			// Invisible to read_committed until its marker: judged then.
			pid := b.ProducerID()
			pc.open[pid] = append(pc.open[pid], i)
			c.withhold(pc, b)
		default:
			c.judge(w, tp, pc, b)
		}
	}
	pc.scanned = i
	pc.seenBatches, pc.seenHW, pc.seenTruncations = n, hw, pc.log.Truncations()
}

// unchanged reports whether the log is as the last scan left it: the
// same batches (a log only appends, or truncates and counts it) and the
// same high watermark. Scanning it again would judge nothing.
func (pc *partCheck) unchanged() bool {
	l := pc.log
	return pc.seenBatches == l.NumBatches() && pc.seenHW == l.HighWatermark() && pc.seenTruncations == l.Truncations()
}

// withhold notes the records of a transactional batch as present but not
// (yet) visible.
func (c *checker) withhold(pc *partCheck, b *partition.Stored) {
	k, _ := keyOf(b.Bytes())
	src, ok := c.sources.get(k)
	if !ok {
		return
	}
	for i := int64(0); i < int64(b.RecordsCount()); i++ {
		pc.withheld.Set(src.identity(i), b.BaseOffset()+i)
	}
}

// decide applies a marker: a committed transaction's batches are judged
// like any visible record (and must not come from a fenced epoch); an
// aborted transaction's batches are not part of what readers see.
func (c *checker) decide(w *World, tp msg.TP, pc *partCheck, marker *partition.Stored) {
	h := marker.Header()
	open := pc.open[h.ProducerID]
	delete(pc.open, h.ProducerID)
	b, err := record.Decode(marker.Bytes())
	if err != nil {
		return
	}
	mk, perr := record.ParseMarker(&b)
	if perr != nil || mk.Type != record.ControlCommit {
		return
	}
	slack := int16(0)
	if w.markerTV2(h.ProducerID) {
		slack = 1 // version 2 markers carry the epoch after the bump
	}
	for _, i := range open {
		data := pc.log.Batch(i)
		if h.ProducerEpoch-data.ProducerEpoch() > slack {
			c.report(w, Anomaly{Name: "zombie write", Partition: tp.String(), Producer: fmt.Sprint(data.ProducerID()),
				Offsets: []int64{data.BaseOffset(), h.BaseOffset}, Count: data.RecordsCount(),
				Text: fmt.Sprintf("%s: a batch of producer id %d written with epoch %d at offset %d is committed by a marker of epoch %d: a fenced instance's write became visible",
					tp, data.ProducerID(), data.ProducerEpoch(), data.BaseOffset(), h.ProducerEpoch)})
		}
		c.judge(w, tp, pc, data)
	}
}

// judge checks one visible batch against the records seen before it.
func (c *checker) judge(w *World, tp msg.TP, pc *partCheck, b *partition.Stored) {
	k, _ := keyOf(b.Bytes())
	src, ok := c.sources.get(k)
	if !ok {
		return
	}
	var d dupList
	reordered := false
	count := int64(b.RecordsCount())
	if src.value >= 0 {
		for i := int64(0); i < count; i++ {
			id := src.identity(i)
			if prev, seen := c.at(pc, id); seen {
				d.add(c, src, i, prev, b.BaseOffset()+i)
				continue
			}
			pc.values.Set(id, b.BaseOffset()+i)
		}
	}
	// A producer's records not seen before are marked a run at a time. Its
	// serials within a batch are distinct, so marking some never makes
	// another of the batch a duplicate; and they rise, so a run is out of
	// order exactly when its first serial is below the highest serial seen
	// before it.
	if src.value < 0 && count > 0 {
		v := c.seenOf(src.who)
		for i := int64(0); i < count; {
			first := src.firstSerial + i
			if n := v.span(first, count-i, pc.gen, false); n > 0 {
				if max, ok := v.maxOf(pc.gen); ok && first < max {
					reordered = true
				}
				v.setRange(int(first), int(n), seenAt{shift: b.BaseOffset() + i - first, gen: pc.gen})
				i += n
				continue
			}
			d.add(c, src, i, first+v.get(int(first)).shift, b.BaseOffset()+i) // held by this check: span found it
			i++
		}
	}
	if len(d.offsets) > 0 {
		c.report(w, Anomaly{Name: "duplicate", Partition: tp.String(), Producer: *c.names.at(int(src.who)), Offsets: d.offsets, Serials: d.serials,
			Text: fmt.Sprintf("%s holds a record twice: %s", tp, strings.Join(d.what, "; "))})
	}
	if reordered {
		producer := *c.names.at(int(src.who))
		c.report(w, Anomaly{Name: "reordered", Partition: tp.String(), Producer: producer,
			Offsets: []int64{b.BaseOffset()}, Serials: []int64{src.firstSerial}, Count: b.RecordsCount(),
			Text: fmt.Sprintf("%s: %s's serial %d at offset %d comes after a later serial of the same producer", tp, producer, src.firstSerial, b.BaseOffset())})
	}
}

// dupList gathers the records of a batch found twice (judge).
type dupList struct {
	offsets, serials []int64
	what             []string
}

// add notes record i of a batch from src, at offset off, as held before
// at prev.
func (d *dupList) add(c *checker, src source, i, prev, off int64) {
	d.offsets = append(d.offsets, prev, off)
	d.serials = append(d.serials, src.firstSerial+i)
	d.what = append(d.what, fmt.Sprintf("%s at %d and %d", c.describe(src, i), prev, off))
}

// checkAck reports an acknowledged batch whose records the leader's log
// no longer holds anywhere (Jepsen's "lost": acknowledged, then not read).
func (c *checker) checkAck(w *World, j int, pc *partCheck) {
	a := c.acks.Ptr(j)
	src := c.ackSource(j, a)
	if src.value < 0 && a.count > 0 && int(src.who) < c.seen.len() &&
		c.seen.at(int(src.who)).span(src.firstSerial, int64(a.count), pc.gen, true) == int64(a.count) {
		return // the judged log holds every record (most acks): nothing to report, lost before or not
	}
	if _, lost := c.lost.Get(j); lost {
		return
	}
	var pending map[identity]bool // in the leader's log above the high watermark: not visible yet, not lost
	lost := false
	for i := int64(0); i < int64(a.count); i++ {
		if src.value < 0 {
			// Skip what the judged log holds, a run at a time.
			if int(src.who) < c.seen.len() {
				i += c.seen.at(int(src.who)).span(src.firstSerial+i, int64(a.count)-i, pc.gen, true)
			}
			if i == int64(a.count) {
				break
			}
		}
		id := src.identity(i)
		if _, ok := c.at(pc, id); ok {
			continue
		}
		if _, ok := pc.withheld.Get(id); ok {
			continue
		}
		if pending == nil {
			pending = c.unjudged(pc)
		}
		if !pending[id] {
			lost = true
			break
		}
	}
	if !lost {
		return
	}
	c.lost.Set(j, struct{}{})
	tp := w.parts[a.partition()].tp
	producer := *c.names.at(int(src.who))
	last := int64(a.count) - 1
	c.report(w, Anomaly{Name: "lost", Partition: tp.String(), Producer: producer,
		Offsets: []int64{a.offset(), a.offset() + last}, Serials: []int64{src.firstSerial, src.firstSerial + last},
		Text: fmt.Sprintf("%s: %s's serials %d-%d were acknowledged at offsets %d-%d but the leader's log no longer has them",
			tp, producer, src.firstSerial, src.firstSerial+last, a.offset(), a.offset()+last)})
}

// unjudged lists the records in the leader's log that are not judged yet.
func (c *checker) unjudged(pc *partCheck) map[identity]bool {
	out := map[identity]bool{}
	for i := pc.scanned; i < pc.log.NumBatches(); i++ {
		b := pc.log.Batch(i)
		k, _ := keyOf(b.Bytes())
		if src, ok := c.sources.get(k); ok {
			for j := int64(0); j < int64(b.RecordsCount()); j++ {
				out[src.identity(j)] = true
			}
		}
	}
	return out
}

func (c *checker) report(w *World, a Anomaly) {
	key := fmt.Sprint(a.Name, a.Partition, a.Offsets)
	if _, done := c.reported.Get(key); done {
		return
	}
	c.reported.Set(key, struct{}{})
	a.Step = w.steps
	c.anomalies = append(c.anomalies, a)
	if w.tracing() {
		w.emit(trace.New("anomaly", a.Text).
			With("name", trace.Str(a.Name)).With("partition", trace.Str(a.Partition)).
			With("producer", trace.Str(a.Producer)).With("offsets", trace.List(slices.Clone(a.Offsets))).
			With("serials", trace.List(slices.Clone(a.Serials))))
	}
}

// Anomalies returns what the checker has found so far.
func (w *World) Anomalies() []Anomaly { return slices.Clone(w.check.anomalies) }

// sharedAnomalies is Anomalies without the copy (the list only grows).
func (c *checker) sharedAnomalies() []Anomaly { return c.anomalies[:len(c.anomalies):len(c.anomalies)] }

// noteReads checks what a consumer handed its application since the last
// check: a read_committed reader must never see a record of an aborted
// transaction, nor anything at or past the last stable offset.
func (c *checker) noteReads(w *World, cs *consumerSlot) {
	reads := cs.c.Records()
	from := c.readsSeen[cs.c.Name()]
	c.readsSeen[cs.c.Name()] = len(reads)
	if !cs.c.ReadCommitted() {
		return
	}
	for _, r := range reads[from:] {
		m := w.meta(r.TP)
		log := w.leaderLog(m)
		if log == nil {
			continue
		}
		if r.Offset >= log.LastStableOffset() {
			c.report(w, Anomaly{Name: "read past LSO", Partition: r.TP.String(), Producer: cs.c.Name(), Offsets: []int64{r.Offset, log.LastStableOffset()},
				Text: fmt.Sprintf("%s (read_committed) read offset %d of %s, at or past the last stable offset %d", cs.c.Name(), r.Offset, r.TP, log.LastStableOffset())})
		}
		if !r.Transactional {
			continue
		}
		for _, a := range log.AbortedShared() {
			if a.ProducerID == r.ProducerID && a.FirstOffset <= r.Offset && r.Offset <= a.LastOffset {
				c.report(w, Anomaly{Name: "aborted read", Partition: r.TP.String(), Producer: cs.c.Name(), Offsets: []int64{r.Offset},
					Text: fmt.Sprintf("%s (read_committed) read offset %d of %s, written by producer id %d in a transaction that was aborted", cs.c.Name(), r.Offset, r.TP, r.ProducerID)})
			}
		}
	}
}
