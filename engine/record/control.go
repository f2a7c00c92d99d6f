package record

import (
	"encoding/binary"
	"fmt"
)

// ControlType is the type in a control record's key (ControlRecordType.java).
type ControlType int16

// Control record types. eoslab writes ABORT and COMMIT; the others are KRaft's.
const (
	ControlAbort  ControlType = 0
	ControlCommit ControlType = 1
)

func (t ControlType) String() string {
	switch t {
	case ControlAbort:
		return "ABORT"
	case ControlCommit:
		return "COMMIT"
	case 2:
		return "LEADER_CHANGE"
	case 3:
		return "SNAPSHOT_HEADER"
	case 4:
		return "SNAPSHOT_FOOTER"
	case 5:
		return "KRAFT_VERSION"
	case 6:
		return "KRAFT_VOTERS"
	}
	return "UNKNOWN"
}

// Marker is the content of a transaction marker (EndTransactionMarker.java).
type Marker struct {
	Type             ControlType
	CoordinatorEpoch int32
}

// MarkerRecordSize is the encoded size of a marker record (1 length byte + 16).
const MarkerRecordSize = 17

// NewMarker builds the control batch a partition leader appends when the
// coordinator's WriteTxnMarkers arrives: attributes transactional|control,
// base sequence -1, one record whose 4-byte key is (version 0, type) and whose
// 6-byte value is (version 0, coordinator epoch).
func NewMarker(producerID int64, producerEpoch int16, m Marker, timestamp int64) Batch {
	key := binary.BigEndian.AppendUint16(nil, 0)
	key = binary.BigEndian.AppendUint16(key, uint16(m.Type))
	value := binary.BigEndian.AppendUint16(nil, 0)
	value = binary.BigEndian.AppendUint32(value, uint32(m.CoordinatorEpoch))
	return Batch{
		Header: Header{
			PartitionLeaderEpoch: NoPartitionLeaderEpoch,
			Magic:                Magic,
			Attributes:           TransactionalFlag | ControlFlag,
			BaseTimestamp:        timestamp,
			MaxTimestamp:         timestamp,
			ProducerID:           producerID,
			ProducerEpoch:        producerEpoch,
			BaseSequence:         NoSequence,
			RecordsCount:         1,
		},
		Records: []Record{{Key: key, Value: value}},
	}
}

// ParseControlType reads a control record key. Like Kafka's reader it
// rejects keys shorter than 4 bytes and negative versions, and reads a
// higher version as version 0.
func ParseControlType(key []byte) (ControlType, error) {
	if len(key) < 4 {
		return 0, fmt.Errorf("control record key has %d bytes, need 4", len(key))
	}
	if v := int16(binary.BigEndian.Uint16(key)); v < 0 {
		return 0, fmt.Errorf("control record key version %d is negative", v)
	}
	return ControlType(binary.BigEndian.Uint16(key[2:])), nil
}

// ParseMarker reads the marker of a decoded control batch.
func ParseMarker(b *Batch) (Marker, error) {
	if !b.Attributes.Control() {
		return Marker{}, fmt.Errorf("not a control batch")
	}
	if len(b.Records) != 1 {
		return Marker{}, fmt.Errorf("control batch has %d records, want 1", len(b.Records))
	}
	r := &b.Records[0]
	t, err := ParseControlType(r.Key)
	if err != nil {
		return Marker{}, err
	}
	if t != ControlAbort && t != ControlCommit {
		return Marker{Type: t}, nil
	}
	if len(r.Value) < 6 {
		return Marker{}, fmt.Errorf("end transaction marker value has %d bytes, need 6", len(r.Value))
	}
	return Marker{Type: t, CoordinatorEpoch: int32(binary.BigEndian.Uint32(r.Value[2:]))}, nil
}
