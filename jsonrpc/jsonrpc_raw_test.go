package jsonrpc

import (
	"encoding/json"
	"testing"
)

// TestMarshalRaw: a Raw result is written as encoding/json writes the same
// compact value, whatever the id.
func TestMarshalRaw(t *testing.T) {
	raw := `{"validators":[{"nodeID":"NodeID-1","weight":"20","a":"\u003c\u0026"}],"n":[1,2.5,null,true]}`
	for _, id := range []string{`1`, `"abc"`, `null`, `{"x":[1]}`} {
		rid := json.RawMessage(id)
		want := Marshal(&Response{Version: Version, Result: json.RawMessage(raw), ID: &rid})
		if got := Marshal(&Response{Version: Version, Result: Raw(raw), ID: &rid}); string(got) != string(want) {
			t.Errorf("id %s: Raw gives\n%s\nencoding/json\n%s", id, got, want)
		}
	}
	viaJSON, err := json.Marshal(&Response{Version: Version, Result: Raw(raw)})
	if err != nil || string(viaJSON)+"\n" != string(Marshal(&Response{Version: Version, Result: Raw(raw)})) {
		t.Errorf("encoding/json writes a Raw result as %s, %v", viaJSON, err)
	}
	want := Marshal(&Response{Version: Version, Result: json.RawMessage(raw)})
	if got := Marshal(&Response{Version: Version, Result: Raw(raw)}); string(got) != string(want) {
		t.Errorf("no id: Raw gives\n%s\nencoding/json\n%s", got, want)
	}
}
