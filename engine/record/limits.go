package record

import "fmt"

// MaxRecordsSize is the most a compressed batch's record area may
// decompress to. Kafka sets no such bound (DefaultRecord.readFrom allocates
// whatever a record's length varint says, up to 2 GiB), but a few kilobytes
// of zstd or gzip can announce gigabytes. 64 MiB is 64 times Kafka's default
// max.message.bytes, room for a 60 MiB value, and equal to MaxBatchSize.
const MaxRecordsSize = maxRecordsArea

// RecordsTooLargeError reports a compressed record area that decompresses
// to more than MaxRecordsSize bytes. Decoding stops at the limit; the rest
// is never allocated.
type RecordsTooLargeError struct {
	Codec Compression
	Limit int
}

func (e *RecordsTooLargeError) Error() string {
	return fmt.Sprintf("%s records decompress to more than %d bytes, the most eoslab decompresses (a limit of its own: Kafka has none)", e.Codec, e.Limit)
}

// UnknownCompressionError reports compression bits (attributes 0-2) that
// name no codec: 5, 6 or 7. Kafka's DefaultRecordBatch.compressionType calls
// CompressionType.forId, which throws IllegalArgumentException; a broker
// meets it in UnifiedLog.analyzeAndValidateRecords and, the exception being
// no ApiException, answers the produce with UNKNOWN_SERVER_ERROR (-1).
type UnknownCompressionError struct {
	ID Compression
}

func (e *UnknownCompressionError) Error() string {
	return fmt.Sprintf("Unknown compression type id: %d (IllegalArgumentException from Kafka's CompressionType.forId; a broker answers UNKNOWN_SERVER_ERROR)", uint8(e.ID))
}
