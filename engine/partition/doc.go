// Package partition is one replica of one partition: the log of stored
// batches in segments, offset assignment, log start offset, log end offset,
// high watermark, last stable offset, the transaction index of aborted
// transactions, producer-state snapshots written on every segment roll, and
// rebuilding producer state from snapshot + log after a restart or a
// truncation.
//
// A leader appends with AppendAsLeader (full validation, Kafka's order), a
// follower with AppendAsFollower (the leader's bytes, replication origin),
// the coordinator's markers arrive through AppendMarker.
//
// Faithful to (shared/docs/kafka-facts.md §1.9, §2.2, §2.8-2.9, §6): client
// batches need base offset 0, fit max.message.bytes, pass the CRC and
// record-count checks and may not be control batches; the leader stamps
// base offset and leader epoch without touching the CRC, except in a
// compressed batch whose records' offset deltas are not 0, 1, 2, …, which
// it rebuilds at consecutive offsets with a new CRC, as Kafka's
// LogValidator does, and stores rebuilt, and in a batch whose attributes
// say LogAppendTime or whose maxTimestamp is not its records' largest
// timestamp, where it writes CreateTime and that timestamp with a new CRC,
// as LogValidator's batch.setMaxTimestamp does; the LSO is the first unstable
// offset (open transactions and completed ones whose marker is not yet
// below the high watermark) capped by the high watermark; aborted
// transactions are indexed with their LSO; segment files are the batches
// back to back.
//
// Simplified: no disk. Segments and snapshot files are byte slices the
// caller may write out; there are no offset or time indexes; timestamps are
// CreateTime only; retention never deletes segments.
package partition
