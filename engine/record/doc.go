// Package record encodes and decodes Kafka's Record Batch v2 (magic 2): the
// 61-byte header, records with zig-zag varint fields, control batches that
// carry transaction markers, compressed record areas, and segment files
// (batches back to back, as Kafka stores them in NNN.log).
//
// It also publishes the header field table (HeaderFields) that the UI walks
// byte by byte.
//
// Faithful to (see shared/docs/kafka-facts.md §1): byte layout, CRC-32C over
// bytes [21, end), attribute bits, sequence wraparound, control record key
// and value layout, snappy-java (xerial) framing and LZ4 frames as the Java
// client writes them. Encodings are checked byte for byte against franz-go's
// kmsg in tests.
//
// Simplified: only magic 2 is read or written (Kafka's own files written
// since 0.11 use it); legacy message sets (magic 0 and 1) are reported as
// unsupported rather than decoded.
package record
