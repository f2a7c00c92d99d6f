package broker

import (
	"fmt"
	"math"
	"slices"

	"github.com/eoslab/eoslab/engine/msg"
	"github.com/eoslab/eoslab/engine/partition"
	"github.com/eoslab/eoslab/engine/trace"
)

// Replica is one broker's copy of one partition.
type Replica struct {
	TP          msg.TP
	Log         *partition.Log
	IsLeader    bool
	Leader      int // the leader this replica follows (or itself)
	LeaderEpoch int32
	Replicas    []int
	ISR         []int
	followers   followers // leader only
	// The followers in the ISR, in its order, and whether the ISR names
	// a broker other than the leader that has no follower record: what
	// advanceHW reads at every fetch, kept when the ISR or the followers
	// change (isrChanged) instead of found again each time.
	isrFollowers []*follower
	isrUnknown   bool
	fetching     bool // follower only: a fetch is in flight
	fetchConn    int  // follower only: the connection it is in flight on
	refetch      bool // follower only: fetch again when the answer arrives
}

type follower struct {
	id          int
	leo         int64
	knownHW     int64 // the high watermark last sent to it
	caughtUpMs  int64
	everFetched bool
}

// followers are a leader's followers by broker id, in id order: a handful,
// looked through rather than hashed.
type followers []*follower

func (fs followers) get(id int) *follower {
	for _, f := range fs {
		if f.id == id {
			return f
		}
	}
	return nil
}

func (fs *followers) add(f *follower) {
	i := 0
	for i < len(*fs) && (*fs)[i].id < f.id {
		i++
	}
	*fs = slices.Insert(*fs, i, f)
}

// FollowerLEO is the log end offset the leader last heard from follower id.
func (r *Replica) FollowerLEO(id int) (int64, bool) {
	f := r.followers.get(id)
	if f == nil || !f.everFetched {
		return 0, false
	}
	return f.leo, true
}

// isrChanged updates isrFollowers and isrUnknown after r.ISR or
// r.followers changed on a leader (self is the leader's broker id; a
// follower's are left empty).
func (r *Replica) isrChanged(self int) {
	r.isrFollowers, r.isrUnknown = r.isrFollowers[:0], false
	if !r.IsLeader {
		return
	}
	for _, id := range r.ISR {
		if id == self {
			continue
		}
		if f := r.followers.get(id); f != nil {
			r.isrFollowers = append(r.isrFollowers, f)
		} else {
			r.isrUnknown = true
		}
	}
}

// InISR reports whether broker id is in the replica's view of the ISR.
func (r *Replica) InISR(id int) bool { return slices.Contains(r.ISR, id) }

// BecomeLeader makes this replica the leader at epoch with the given ISR.
// Followers are assumed caught up to nothing yet: they report on their
// next fetch.
func (b *Broker) BecomeLeader(tp msg.TP, epoch int32, replicas, isr []int, env Env) {
	r := b.replicas.get(tp)
	r.IsLeader, r.Leader, r.LeaderEpoch = true, b.ID, epoch
	r.Replicas, r.ISR = cloneBoth(replicas, isr)
	r.fetching = false
	r.Log.SetLeaderEpoch(epoch)
	r.followers = nil
	if n := len(replicas) - 1; n > 0 {
		// The followers' records are one allocation, and so is the list.
		fs := make([]follower, 0, n)
		r.followers = make(followers, 0, n)
		for _, id := range replicas {
			if id != b.ID {
				fs = append(fs, follower{id: id, caughtUpMs: env.Now(), knownHW: -1})
				r.followers.add(&fs[len(fs)-1])
			}
		}
	}
	r.isrChanged(b.ID)
	b.maybeAdvanceHW(r, env)
}

// cloneBoth copies a and b into one allocation, as slices.Clone copies
// each (nil stays nil). Each copy is capped at its length: appending to
// either copies it out.
func cloneBoth(a, b []int) ([]int, []int) {
	if a == nil || b == nil {
		return slices.Clone(a), slices.Clone(b)
	}
	ab := append(append(make([]int, 0, len(a)+len(b)), a...), b...)
	return ab[:len(a):len(a)], ab[len(a):]
}

// BecomeFollower makes this replica follow leader at epoch. Whatever this
// replica has beyond the point where it agrees with the leader's log is
// truncated (Kafka finds that point with OffsetsForLeaderEpoch; comparing
// the batches gives the same answer here). It returns the truncated offsets.
func (b *Broker) BecomeFollower(tp msg.TP, leader int, epoch int32, replicas []int, leaderLog *partition.Log, env Env) (from, to int64) {
	r := b.replicas.get(tp)
	wasLeader := r.IsLeader
	if r.Leader != leader || r.LeaderEpoch != epoch {
		// A new leader epoch restarts the fetcher (Kafka removes the
		// partition from its fetcher and adds it back): a fetch to the old
		// leader may never be answered, so the leader is fetched from at
		// once; a late answer from an older epoch is dropped as stale.
		r.fetching = false
	}
	r.IsLeader, r.Leader, r.LeaderEpoch, r.Replicas = false, leader, epoch, slices.Clone(replicas)
	r.followers = nil
	r.isrChanged(b.ID)
	if wasLeader {
		b.failPending(tp, env)
	}
	keep := agreedPrefix(r.Log, leaderLog)
	from, to = keep, r.Log.LogEndOffset()
	if keep < to {
		if _, err := r.Log.TruncateTo(keep, env.Timestamp()); err != nil {
			panic(fmt.Sprintf("truncating %s on broker %d: %v", tp, b.ID, err))
		}
		if env.Tracing() {
			env.Emit(b.ev("replica.truncate", fmt.Sprintf("truncates %s to offset %d: offsets %d-%d were not on the new leader (broker %d)", tp, keep, keep, to-1, leader)).
				With("partition", trace.Str(tp.String())).With("from_offset", trace.Int(keep)).With("to_offset", trace.Int(to)))
		}
	}
	r.Log.SetHighWatermark(min(r.Log.HighWatermark(), leaderLog.HighWatermark()))
	return from, to
}

// agreedPrefix is the offset up to which follower and leader hold the same batches.
func agreedPrefix(f, l *partition.Log) int64 {
	nf, nl := f.NumBatches(), l.NumBatches()
	i := 0
	for i < nf && i < nl && string(f.Batch(i).Bytes()) == string(l.Batch(i).Bytes()) {
		i++
	}
	if i < nf {
		return f.Batch(i).BaseOffset()
	}
	return f.LogEndOffset()
}

// maybeAdvanceHW moves the leader's high watermark to the smallest log end
// offset among the ISR (never while the ISR is under min.insync.replicas), tells followers that have not seen it (except the
// one being answered right now, whose answer carries it), then completes
// produce requests it now covers. Like Kafka (Partition.updateFollowerFetchState
// calls tryCompleteDelayedRequests only if leaderHWIncremented), purgatory is
// looked at only when the high watermark moved: an entry waits for high
// watermarks only, and leadership moving away settles it through
// failPending.
func (b *Broker) maybeAdvanceHW(r *Replica, env Env) { b.advanceHW(r, env, 0, false) }

// advanceHW is maybeAdvanceHW answering follower answering, if answers,
// whose answer carries the high watermark. (Not variadic: the slice built
// at each call, and the search of it, were on every fetch's path.)
func (b *Broker) advanceHW(r *Replica, env Env, answering int, answers bool) {
	if b.underMinIsr(r) {
		// Kafka 3.7+ (KAFKA-15583): under min.insync.replicas the high
		// watermark stays where it is, so nothing written now is visible
		// or acknowledged to acks=all until the ISR recovers
		// (Partition.maybeIncrementLeaderHW).
		b.completeSatisfied(env)
		return
	}
	hw := r.Log.LogEndOffset()
	if r.isrUnknown {
		hw = min(hw, r.Log.HighWatermark())
	}
	for _, f := range r.isrFollowers {
		if !f.everFetched {
			hw = min(hw, r.Log.HighWatermark())
			continue
		}
		hw = min(hw, f.leo)
	}
	before := r.Log.HighWatermark()
	r.Log.SetHighWatermark(hw)
	if after := r.Log.HighWatermark(); after > before {
		if env.Tracing() {
			b.emitHWAdvance(r, after, env)
		}
		for _, f := range r.followers {
			if f.knownHW < after && (!answers || f.id != answering) {
				env.Fetch(f.id, r.TP)
			}
		}
		b.completeSatisfied(env)
	}
}

// emitHWAdvance emits the hw.advance event (keys: docs/trace.md). Apart
// from advanceHW, so that the untraced path keeps a small frame.
func (b *Broker) emitHWAdvance(r *Replica, after int64, env Env) {
	slab := env.Slab()
	tp := slab.Partition(r.TP.Topic, r.TP.Partition)
	a := slab.Begin(64 + len(tp) + 2*len(r.ISR))
	a = a.Int(trace.KeyBroker, int64(b.ID))
	a = a.Str(trace.KeyPartition, tp)
	a = a.Int(trace.KeyHighWatermark, after)
	a = a.Int(trace.KeyLastStableOffset, r.Log.LastStableOffset())
	a = a.Say(trace.SentenceHW)
	for _, id := range r.ISR {
		a = a.Arg(int64(id))
	}
	env.Event("hw.advance").Attrs = slab.Done(a)
}

// CheckISR removes followers that have not caught up within
// replica.lag.time.max.ms (the leader's periodic ISR expiration check) and
// reports whether it removed any.
func (b *Broker) CheckISR(env Env) bool {
	did := false
	for _, tp := range b.order {
		r := b.replicas.get(tp)
		if !r.IsLeader {
			continue
		}
		var isr []int
		var out []int
		for _, id := range r.ISR {
			f := r.followers.get(id)
			if id != b.ID && f != nil && f.leo < r.Log.LogEndOffset() && env.Now()-f.caughtUpMs > b.cfg.ReplicaLagTimeMaxMs {
				out = append(out, id)
				continue
			}
			isr = append(isr, id)
		}
		if len(out) == 0 {
			continue
		}
		did = true
		r.ISR = isr
		r.isrChanged(b.ID)
		env.AlterISR(tp, r.LeaderEpoch, isr)
		if env.Tracing() {
			env.Emit(b.ev("isr.shrink", fmt.Sprintf("removes broker(s) %v from the ISR of %s: not caught up for replica.lag.time.max.ms; ISR now %v", out, tp, isr)).
				With("partition", trace.Str(tp.String())).With("isr", trace.List(ints64(isr))))
		}
		b.maybeAdvanceHW(r, env)
	}
	return did
}

// NextISRShrink is the earliest time at which CheckISR would remove a
// follower, or math.MaxInt64 while every follower in an ISR is caught up.
func (b *Broker) NextISRShrink() int64 {
	next := int64(math.MaxInt64)
	for _, tp := range b.order {
		r := b.replicas.get(tp)
		if !r.IsLeader {
			continue
		}
		for _, id := range r.ISR {
			if f := r.followers.get(id); id != b.ID && f != nil && f.leo < r.Log.LogEndOffset() {
				next = min(next, f.caughtUpMs+b.cfg.ReplicaLagTimeMaxMs+1)
			}
		}
	}
	return next
}

// SetISR applies an ISR decided by the controller (a broker fenced or back).
func (b *Broker) SetISR(tp msg.TP, isr []int, env Env) {
	r := b.replicas.get(tp)
	r.ISR = slices.Clone(isr)
	r.isrChanged(b.ID)
	if r.IsLeader {
		b.maybeAdvanceHW(r, env)
	}
}

// intsText is fmt's %v of a list of ints: [1 2 3].
func intsText(xs []int) string {
	return string(appendInts(make([]byte, 0, 2+3*len(xs)), xs))
}

func appendInts(b []byte, xs []int) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = trace.AppendInt(b, int64(x))
	}
	return append(b, ']')
}

func ints64(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}
