package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func testServer() *Server {
	return NewServer(map[string]Method{
		"info.getNetworkID": func(ctx context.Context, p json.RawMessage) (any, error) {
			return map[string]string{"networkID": "12345"}, nil
		},
		"info.isBootstrapped": func(ctx context.Context, p json.RawMessage) (any, error) {
			var args struct{ Chain string }
			if err := UnmarshalParams(p, &args); err != nil {
				return nil, err
			}
			if args.Chain == "" {
				return nil, errors.New("there is no chain with alias/ID ''")
			}
			return map[string]bool{"isBootstrapped": true}, nil
		},
	})
}

func TestServerWire(t *testing.T) {
	tests := []struct {
		name, method, ctype, body string
		status                    int
		want                      string
	}{
		{"get", "GET", "application/json", "", 405, "rpc: POST method required, received GET"},
		{"no content type", "POST", "", `{}`, 415, "rpc: unrecognized Content-Type: "},
		{"text", "POST", "text/plain", `{}`, 415, "rpc: unrecognized Content-Type: text/plain"},
		{"ok", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.getNetworkID","id":7}`, 200,
			`{"jsonrpc":"2.0","result":{"networkID":"12345"},"id":7}` + "\n"},
		{"charset upper", "POST", "Application/JSON; charset=UTF-8", `{"jsonrpc":"2.0","method":"info.getNetworkID","id":"a"}`, 200,
			`{"jsonrpc":"2.0","result":{"networkID":"12345"},"id":"a"}` + "\n"},
		{"capital method", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.GetNetworkID","id":1}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"method must start with a non-uppercase letter","data":null},"id":1}` + "\n"},
		{"capital method notification", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.GetNetworkID"}`, 200, ""},
		{"capital after version error", "POST", "application/json", `{"jsonrpc":"1.0","method":"info.GetNetworkID","id":1}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"jsonrpc must be 2.0","data":{"jsonrpc":"1.0","method":"info.GetNetworkID","params":null,"id":1}},"id":1}` + "\n"},
		{"two dots", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.get.networkID","id":1}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: service/method request ill-formed: \"info.Get.networkID\"","data":null},"id":1}` + "\n"},
		{"bad json", "POST", "application/json", `{"jsonrpc":`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"unexpected EOF","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}` + "\n"},
		{"no version", "POST", "application/json", `{"method":"info.getNetworkID","id":1}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"jsonrpc must be 2.0","data":{"jsonrpc":"","method":"info.getNetworkID","params":null,"id":1}},"id":1}` + "\n"},
		{"unknown method", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.nope","id":1}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can't find method \"info.Nope\"","data":null},"id":1}` + "\n"},
		{"unknown service", "POST", "application/json", `{"jsonrpc":"2.0","method":"Info.getNetworkID","id":1}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can't find service \"Info.GetNetworkID\"","data":null},"id":1}` + "\n"},
		{"handler error", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.isBootstrapped","params":{},"id":2}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"there is no chain with alias/ID ''","data":null},"id":2}` + "\n"},
		{"params array, case-insensitive", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.isBootstrapped","params":[{"CHAIN":"X"}],"id":2}`, 200,
			`{"jsonrpc":"2.0","result":{"isBootstrapped":true},"id":2}` + "\n"},
		{"params wrong type", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.isBootstrapped","params":"x","id":2}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"json: cannot unmarshal string into Go value of type [1]interface {}","data":"x"},"id":2}` + "\n"},
		{"notification", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.getNetworkID"}`, 200, ""},
		{"batch", "POST", "application/json", `[{"jsonrpc":"2.0","method":"info.getNetworkID","id":1}]`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"json: cannot unmarshal array into Go value of type json2.serverRequest","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}` + "\n"},
	}
	s := testServer()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/ext/info", strings.NewReader(tt.body))
			if tt.ctype != "" {
				r.Header.Set("Content-Type", tt.ctype)
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status = %d; want %d", w.Code, tt.status)
			}
			if got := w.Body.String(); got != tt.want {
				t.Fatalf("body = %s; want %s", got, tt.want)
			}
		})
	}
}

// TestDecodeLikeTheNode: the node supports no batches; an array, like a
// number, is its -32700 naming its json2.serverRequest type.
func TestDecodeLikeTheNode(t *testing.T) {
	for body, want := range map[string]string{
		`[{"jsonrpc":"2.0","method":"a.b","id":1}]`: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"json: cannot unmarshal array into Go value of type json2.serverRequest","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}`,
		`42`: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"json: cannot unmarshal number into Go value of type json2.serverRequest","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}`,
	} {
		_, errResp := Decode([]byte(body))
		if errResp == nil {
			t.Fatalf("Decode(%s): no error", body)
		}
		if got := string(Marshal(errResp)); strings.TrimSpace(got) != want {
			t.Errorf("Decode(%s) = %s; want %s", body, got, want)
		}
	}
}

func TestLookupName(t *testing.T) {
	for in, want := range map[string]string{
		"info.getNetworkID": "info.GetNetworkID",
		"avm.getUTXOs":      "avm.GetUTXOs",
		"nodot":             "nodot",
		"a.b.c":             "a.B.c",
		"info.":             "info.",
	} {
		if got := LookupName(in); got != want {
			t.Errorf("LookupName(%q) = %q; want %q", in, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"info.getNetworkID","id":1}`,
		`[{"jsonrpc":"2.0","method":"a.b","id":1},{"id":null}]`,
		`{"jsonrpc":"2.0","method":"x","params":[{"a":1}],"id":"s"}`,
		`[]`, `{`, `null`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, errResp := Decode(body)
		if errResp != nil {
			if errResp.Error == nil {
				t.Fatal("error response without error")
			}
			Marshal(errResp)
			return
		}
		if c.Err != nil {
			out := Marshal(c.ErrorResponse())
			if !json.Valid(out) {
				t.Fatalf("invalid JSON answer %s", out)
			}
			return
		}
		// The re-encoded call is read back as the same call, and its
		// canonical params are a fixed point: what is keyed is what is sent.
		params := Canonical(c.RawParams())
		req := c.AppendRequest(nil, params)
		again, errResp := Decode(req)
		if errResp != nil || again.Err != nil || again.Method != c.Method || !bytes.Equal(again.RawParams(), params) ||
			(again.ID == nil) != (c.ID == nil) || again.ID != nil && !bytes.Equal(*again.ID, Canonical(*c.ID)) {
			t.Fatalf("%s re-encoded as %s, read back as %+v", body, req, again)
		}
		if params != nil && !bytes.Equal(Canonical(params), params) {
			t.Fatalf("Canonical(%s) = %s, not a fixed point", params, Canonical(params))
		}
		// The node reads the canonical params as it reads the client's
		// (json2 decodes them into a struct: keys case-insensitive, the last
		// one assigned).
		type args struct{ Alias, TxID, A, K any }
		var fromClient, fromCanon args
		if UnmarshalParams(c.RawParams(), &fromClient) == nil {
			if err := UnmarshalParams(params, &fromCanon); err != nil || !reflect.DeepEqual(fromClient, fromCanon) {
				t.Fatalf("params %s read as %+v, canonical %s as %+v (%v)", c.RawParams(), fromClient, params, fromCanon, err)
			}
		}
	})
}

// TestReencodeNodeCall: a call whose members a case-folding reader (the
// node's encoding/json) and a case-sensitive one take differently is sent
// as the one call the edge read and keyed; params that differ only in
// formatting or key order share a canonical form, params the node reads
// differently (numbers past float64's precision, the last of keys equal
// but for case) do not, and the canonical form keeps what the node reads.
func TestReencodeNodeCall(t *testing.T) {
	c, errResp := Decode([]byte(`{"jsonrpc":"2.0","method":"info.getNodeVersion","Method":"info.getVMs","id":1,"ID":"two","params":{"b":1},"Params":{"a": [1, 2]}}`))
	if errResp != nil || c.Err != nil {
		t.Fatalf("%+v %+v", c, errResp)
	}
	want := `{"jsonrpc":"2.0","id":"two","method":"info.getVMs","params":{"a":[1,2]}}`
	if got := string(c.AppendRequest(nil, Canonical(c.RawParams()))); got != want {
		t.Errorf("re-encoded as %s; want %s", got, want)
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`{"b": 2, "a": [1, {"y":1, "x":2}]}`, `{"a":[1,{"x":2,"y":1}],"b":2}`, true},
		{`{"a":1,"a":2}`, `{"a":2}`, true},
		{`{"n":9007199254740993}`, `{"n":9007199254740992}`, false},
		{`{"n":1.0}`, `{"n":1}`, false},
		{`{"assetID":"A","AssetID":"B"}`, `{"AssetID":"B"}`, true}, // the node reads the last
		{`{"assetID":"A","AssetID":"B"}`, `{"AssetID":"B","assetID":"A"}`, false},
		{`{"x":{"k":1,"K":2,"\u212a":3},"y":[{"a":1,"A":2}]}`, `{"x":{"\u212a":3},"y":[{"A":2}]}`, true}, // the Kelvin sign folds to k
	} {
		if same := bytes.Equal(Canonical([]byte(tc.a)), Canonical([]byte(tc.b))); same != tc.same {
			t.Errorf("Canonical(%s) = %s, Canonical(%s) = %s; want equal %v", tc.a, Canonical([]byte(tc.a)), tc.b, Canonical([]byte(tc.b)), tc.same)
		}
	}
}

func TestHTTPErrorNoBodyRead(t *testing.T) {
	r := httptest.NewRequest(http.MethodPut, "/", nil)
	if s, _ := HTTPError(r); s != 405 {
		t.Fatalf("status %d; want 405", s)
	}
}
