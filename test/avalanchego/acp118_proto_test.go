package avalanchego

import (
	"testing"

	pbp2p "github.com/ava-labs/avalanchego/proto/pb/p2p"
	pbsdk "github.com/ava-labs/avalanchego/proto/pb/sdk"
	"google.golang.org/protobuf/reflect/protoreflect"

	ourp2p "github.com/avaedge/avaedge/local/source/acp118/pb/p2p"
	oursdk "github.com/avaedge/avaedge/local/source/acp118/pb/sdk"
)

// TestACP118ProtoCopies checks the .proto files local/source/acp118 copied
// from avalanchego against the ones avalanchego links: the same messages
// and enums, each field with the same number, name, kind, cardinality and
// oneof, so that the generated code speaks avalanchego's wire format.
func TestACP118ProtoCopies(t *testing.T) {
	for _, c := range []struct{ ours, theirs protoreflect.FileDescriptor }{
		{ourp2p.File_avaedge_acp118_p2p_proto, pbp2p.File_p2p_p2p_proto},
		{oursdk.File_avaedge_acp118_sdk_proto, pbsdk.File_sdk_sdk_proto},
	} {
		t.Run(string(c.theirs.Path()), func(t *testing.T) {
			om, tm := c.ours.Messages(), c.theirs.Messages()
			if om.Len() != tm.Len() || c.ours.Enums().Len() != c.theirs.Enums().Len() {
				t.Fatalf("%d messages, %d enums; avalanchego %d, %d", om.Len(), c.ours.Enums().Len(), tm.Len(), c.theirs.Enums().Len())
			}
			for i := range tm.Len() {
				theirs, ours := tm.Get(i), om.ByName(tm.Get(i).Name())
				if ours == nil {
					t.Errorf("message %s is missing", theirs.Name())
					continue
				}
				if ours.Fields().Len() != theirs.Fields().Len() {
					t.Errorf("%s: %d fields; avalanchego %d", theirs.Name(), ours.Fields().Len(), theirs.Fields().Len())
				}
				for j := range theirs.Fields().Len() {
					tf := theirs.Fields().Get(j)
					of := ours.Fields().ByNumber(tf.Number())
					if of == nil || of.Name() != tf.Name() || of.Kind() != tf.Kind() || of.Cardinality() != tf.Cardinality() ||
						of.IsPacked() != tf.IsPacked() || (of.ContainingOneof() == nil) != (tf.ContainingOneof() == nil) ||
						(of.Message() != nil) != (tf.Message() != nil) || (of.Message() != nil && of.Message().Name() != tf.Message().Name()) {
						t.Errorf("%s field %d: ours %v; avalanchego %v", theirs.Name(), tf.Number(), of, tf)
					}
				}
			}
		})
	}
}
