package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
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
		}
	})
}

func TestHTTPErrorNoBodyRead(t *testing.T) {
	r := httptest.NewRequest(http.MethodPut, "/", nil)
	if s, _ := HTTPError(r); s != 405 {
		t.Fatalf("status %d; want 405", s)
	}
}
