// Package producerstate is the broker's memory of producers, per partition
// replica: for each producer id its epoch, its last five batches (sequence
// range to offsets), its coordinator epoch, its last timestamp and whether a
// transaction is open; plus the partition's open and not-yet-replicated
// transactions that hold back the last stable offset.
//
// Validate is a pure function returning a Decision — the outcome (append,
// duplicate, reject with a Kafka error code) and the path of checks taken —
// and Manager.Append commits an appended batch, after the staged-update
// shape of Kafka's ProducerAppendInfo / ProducerStateManager.
//
// Faithful to (shared/docs/kafka-facts.md §2): the check order (duplicate,
// epoch, sequence, transaction); exact (first, last) sequence matching
// against five remembered batches; INVALID_PRODUCER_EPOCH (never
// PRODUCER_FENCED) for a lower epoch; OUT_OF_ORDER_SEQUENCE_NUMBER for gaps,
// overlaps and retries older than the window; any first sequence for an
// unknown or expired producer id (Kafka 2.5+); sequence 0 for a new epoch
// and for an equal epoch with nothing remembered; wraparound at MaxInt32;
// marker epoch rules for transaction versions 0-1 and 2 (KAFKA-19999);
// expiry after producer.id.expiration.ms measured from the batch's own
// timestamp; snapshot files byte for byte in Kafka's format, which keep only
// each producer's newest batch.
//
// Simplified: the KIP-890 verification entry (the leader asking the
// coordinator before a partition's first transactional write) is not
// modelled here; the transaction coordinator adds partitions explicitly.
package producerstate
