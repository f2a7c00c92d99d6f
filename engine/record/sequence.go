package record

import "math"

// IncrementSequence adds n to s, wrapping from MaxInt32 to 0 as Kafka does
// (DefaultRecordBatch.incrementSequence). Every value 0..MaxInt32 is valid.
func IncrementSequence(s, n int32) int32 {
	if s > math.MaxInt32-n {
		return n - (math.MaxInt32 - s) - 1
	}
	return s + n
}

// DecrementSequence subtracts n from s, wrapping below 0 to MaxInt32.
func DecrementSequence(s, n int32) int32 {
	if s < n {
		return math.MaxInt32 - (n - s) + 1
	}
	return s - n
}

// InSequence reports whether next directly follows last (ProducerAppendInfo.inSequence):
// compared in 64 bits, with MaxInt32 followed by 0.
func InSequence(last, next int32) bool {
	return int64(next) == int64(last)+1 || (next == 0 && last == math.MaxInt32)
}
