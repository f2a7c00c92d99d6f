package broker

import (
	"testing"

	"github.com/eoslab/eoslab/engine/kerr"
)

// ValidateTxnCommit answers as Kafka's group coordinator does
// (OffsetMetadataManager.validateTransactionalOffsetCommit,
// ClassicGroup.validateOffsetCommit), for every shape of group metadata a
// TxnOffsetCommit can carry.
func TestValidateTxnCommit(t *testing.T) {
	empty := NewGroup()
	empty.Generation = 3
	one := NewGroup()
	one.Generation, one.Members["m-2"] = 2, "c2"
	cases := []struct {
		name       string
		g          *GroupOffsets
		member     string
		generation int32
		want       kerr.Code
	}{
		{"no group, no generation: a simple group is created", nil, "", -1, kerr.None},
		{"no group, a member id but no generation", nil, "m-1", -1, kerr.None},
		{"no group, a generation", nil, "m-1", 1, kerr.IllegalGeneration},
		{"empty group, no generation", empty, "", -1, kerr.None},
		{"empty group, a member id without generation", empty, "m-1", -1, kerr.None},
		{"empty group, a generation", empty, "m-1", 3, kerr.UnknownMemberID},
		{"the member at its generation", one, "m-2", 2, kerr.None},
		{"the member at an old generation", one, "m-2", 1, kerr.IllegalGeneration},
		{"a member that left (the last joiner holds the group)", one, "m-1", 1, kerr.UnknownMemberID},
		{"a member that left, naming the current generation", one, "m-1", 2, kerr.UnknownMemberID},
		{"a member id without generation", one, "m-1", -1, kerr.UnknownMemberID},
		{"no group metadata (an older client)", one, "", -1, kerr.None},
	}
	for _, c := range cases {
		if got := c.g.ValidateTxnCommit(c.member, c.generation); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got.Name(), c.want.Name())
		}
	}
}
