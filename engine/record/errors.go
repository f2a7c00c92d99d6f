package record

import "fmt"

// TruncatedError reports input that ends before the batch it announces.
type TruncatedError struct {
	Need, Have int
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("truncated batch: need %d bytes, have %d", e.Need, e.Have)
}

// MagicError reports a batch that is not Record Batch v2.
type MagicError struct{ Magic int8 }

func (e *MagicError) Error() string {
	return fmt.Sprintf("unsupported magic %d (only record batch v2, magic 2, is supported)", e.Magic)
}

// CRCError reports a batch whose stored CRC-32C differs from the one
// computed over bytes 21 to the end. Kafka answers such a batch with
// CORRUPT_MESSAGE (2).
type CRCError struct {
	Stored, Computed uint32
}

func (e *CRCError) Error() string {
	return fmt.Sprintf("crc mismatch: stored 0x%08x, computed 0x%08x", e.Stored, e.Computed)
}

// CorruptError reports a structural problem at a byte offset within the batch.
type CorruptError struct {
	Offset int
	Reason string
	// Stream is set when the compressed records did not decompress (Kafka:
	// a KafkaException, "Failed to decompress record stream"), rather
	// than decompressing to records that do not parse.
	Stream bool
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("corrupt batch at byte %d: %s", e.Offset, e.Reason)
}
