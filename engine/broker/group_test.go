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
	static := NewGroup()
	static.Generation, static.Members["i-2"], static.Instances = 4, "c3", map[string]string{"inst": "i-2"}
	cases := []struct {
		name       string
		g          *GroupOffsets
		member     string
		instance   string
		generation int32
		want       kerr.Code
	}{
		{"no group, no generation: a simple group is created", nil, "", "", -1, kerr.None},
		{"no group, a member id but no generation", nil, "m-1", "", -1, kerr.None},
		{"no group, a generation", nil, "m-1", "", 1, kerr.IllegalGeneration},
		{"empty group, no generation", empty, "", "", -1, kerr.None},
		{"empty group, a member id without generation", empty, "m-1", "", -1, kerr.None},
		{"empty group, a generation", empty, "m-1", "", 3, kerr.UnknownMemberID},
		{"the member at its generation", one, "m-2", "", 2, kerr.None},
		{"the member at an old generation", one, "m-2", "", 1, kerr.IllegalGeneration},
		{"a member that left the group", one, "m-1", "", 1, kerr.UnknownMemberID},
		{"a member that left, naming the current generation", one, "m-1", "", 2, kerr.UnknownMemberID},
		{"a member id without generation", one, "m-1", "", -1, kerr.UnknownMemberID},
		{"no group metadata (an older client)", one, "", "", -1, kerr.None},
		{"the static member at its generation", static, "i-2", "inst", 4, kerr.None},
		{"an older instance of the static member (another member id holds it)", static, "i-1", "inst", 4, kerr.FencedInstanceID},
		{"the older instance, a generation behind: fenced first", static, "i-1", "inst", 3, kerr.FencedInstanceID},
		{"an instance id the group does not know", static, "i-2", "other", 4, kerr.UnknownMemberID},
		{"an instance id without a generation is still checked", static, "i-1", "inst", -1, kerr.FencedInstanceID},
	}
	for _, c := range cases {
		if got := c.g.ValidateTxnCommit(c.member, c.instance, c.generation); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got.Name(), c.want.Name())
		}
	}
}
