package trace

import "testing"

// BenchmarkPackAttrs packs the fifteen attributes of a produce.decision,
// the largest event of the produce path: as a []Attr packed into a slab
// (Slab.Attrs), and written straight into it by a Builder, as the
// produce path does.
func BenchmarkPackAttrs(b *testing.B) {
	b.Run("slab", func(b *testing.B) {
		var s Slab
		b.ReportAllocs()
		for i := range b.N {
			attrs := [...]Attr{
				{"broker", Int(1)}, {"partition", Str("orders-0")}, {"producer_id", Int(0)},
				{"producer_epoch", Int(0)}, {"base_sequence", Int(int64(i))}, {"last_sequence", Int(int64(i))},
				{"record_count", Int(1)}, {"transactional", Bool(false)}, {"outcome", Str("append")},
				{"error", Str("NONE")}, {"base_offset", Int(int64(i))}, {"producer", Str("p1")},
				{"batch", Int(int64(i))}, {"request", Int(int64(2 * i))},
				{"path", Str("producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-next")}}
			if a := s.Attrs(attrs[:]...); len(a) == 0 {
				b.Fatal("nothing packed")
			}
		}
	})
	b.Run("builder", func(b *testing.B) {
		var s Slab
		b.ReportAllocs()
		for i := range b.N {
			a := s.Begin(256)
			a = a.Int(KeyBroker, 1)
			a = a.Str(KeyPartition, "orders-0")
			a = a.Int(KeyProducerID, 0)
			a = a.Int(KeyProducerEpoch, 0)
			a = a.Int(KeyBaseSequence, int64(i))
			a = a.Int(KeyLastSequence, int64(i))
			a = a.Int(KeyRecordCount, 1)
			a = a.Bool(KeyTransactional, false)
			a = a.Str(KeyOutcome, "append")
			a = a.Str(KeyError, "NONE")
			a = a.Int(KeyBaseOffset, int64(i))
			a = a.Str(KeyProducer, "p1")
			a = a.Int(KeyBatch, int64(i))
			a = a.Int(KeyRequest, int64(2*i))
			a = a.Str(KeyPath, "producer=known duplicate=not-duplicate epoch=epoch-equal sequence=seq-next")
			if s.Done(a) == "" {
				b.Fatal("nothing packed")
			}
		}
	})
}
