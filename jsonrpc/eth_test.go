package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/rpc"
)

// echoService is served by a real go-ethereum rpc.Server as eth_echo.
type echoService struct{}

func (echoService) Echo(v json.RawMessage) json.RawMessage { return v }

// gethAnswer posts body to a go-ethereum server serving eth_echo.
func gethAnswer(t *testing.T, body string) string {
	t.Helper()
	srv := rpc.NewServer()
	t.Cleanup(srv.Stop)
	if err := srv.RegisterName("eth", echoService{}); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Body)
	return string(b)
}

// edgeAnswer assembles, from ParseEth's reading of body, the answer
// go-ethereum gives: each element in order, a dispatched eth_echo as its
// result, an invalid element or another method as the edge answers it.
func edgeAnswer(t *testing.T, body string) string {
	t.Helper()
	calls, batch, err := ParseEth([]byte(body), 100)
	if err != nil {
		return `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}` + "\n"
	}
	if batch && len(calls) == 0 {
		return string(AppendEthError(nil, nil, &EthError{Code: EthCodeInvalidRequest, Message: "empty batch"})) + "\n"
	}
	var elems []string
	for _, c := range calls {
		switch {
		case c.Response:
		case c.Invalid != nil:
			elems = append(elems, string(c.AppendError(nil, c.Invalid)))
		case c.IsNotification():
		case c.Method == "eth_echo":
			var p []json.RawMessage
			if json.Unmarshal(c.Params, &p) != nil || len(p) != 1 {
				t.Fatalf("test bodies give eth_echo one param: %s", c.Params)
			}
			var compact bytes.Buffer
			json.Compact(&compact, p[0])
			elems = append(elems, `{"jsonrpc":"2.0","id":`+string(c.ID)+`,"result":`+compact.String()+`}`)
		default:
			elems = append(elems, string(c.AppendError(nil, EthMethodNotFound(c.Method))))
		}
	}
	switch {
	case len(elems) == 0:
		return ""
	case !batch:
		return elems[0] + "\n"
	}
	return "[" + strings.Join(elems, ",") + "]\n"
}

// TestParseEthAsGeth: for every body on which go-ethereum and ParseEth read
// the same calls, the answer ParseEth's reading implies is go-ethereum's,
// byte for byte: invalid elements, unknown methods, notifications,
// responses, ids of every type, batches.
func TestParseEthAsGeth(t *testing.T) {
	long := strings.Repeat("x", MaxEthMethodLength+1)
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_echo","params":[7]}`,
		`{"jsonrpc":"2.0","id":"a","method":"debug_traceTransaction","params":[]}`,
		`{"jsonrpc":"2.0","id":null,"method":"txpool_content"}`,
		`{"jsonrpc":"2.0","id":1.5e3,"method":"admin_peers"}`,
		`{"jsonrpc":"2.0","method":"personal_unlockAccount"}`,
		`{"jsonrpc":"1.0","id":1,"method":"eth_echo","params":[1]}`,
		`{"id":1,"method":"eth_echo","params":[1]}`,
		`{"jsonrpc":"2.0","id":{},"method":"eth_echo","params":[1]}`,
		`{"jsonrpc":"2.0","id":[1],"method":"eth_echo","params":[1]}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"method":""}`,
		`{"jsonrpc":"2.0","id":1,"method":"` + long + `"}`,
		`null`, `42`, `"x"`, `[]`, `[null]`, `[1,"a",[],{}]`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_echo","params":[1],"extra":true}`,
		`{"jsonrpc":"2.0","id":5,"result":"0x1"}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_echo","params":[{"a":[1,2]}]},{"jsonrpc":"2.0","id":2,"method":"debug_x"},` +
			`{"jsonrpc":"2.0","method":"eth_echo","params":[3]},{"jsonrpc":"2.0","id":4,"result":1},5,` +
			`{"jsonrpc":"2.0","id":"six","method":"trace_block","params":["latest"]},{"jsonrpc":"2.0","id":7,"method":"eth_echo","params":["s"]}]`,
		`[{"jsonrpc":"2.0","method":"debug_x"},{"jsonrpc":"2.0","method":"eth_echo","params":[1]}]`,
		` [ {"jsonrpc" : "2.0", "id" : 1 , "method" : "eth_echo", "params" : [ true ] } ] `,
		`{"jsonrpc":"2.0","id":1,"method":"eth_echo","params":[1]} trailing`,
		`{"jsonrpc":"2.0","id":1,"m\u0065thod":"eth_echo","params":[2]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_echo","Method":"debug_x","params":[3]}`,
		`{"jsonrpc":"2.0","id":1,"method":"debug_x","method":"eth_echo","params":[4],"params":[5]}`,
		`{"jsonrpc":"2.0","jsonrpc":1,"id":1,"id":2,"method":"eth_echo","params":[6]}`,
	}
	for _, body := range bodies {
		// go-ethereum v1.17's HTTP server ends an answer without the
		// newline that the C-Chain's (libevm, json.Encoder) and the edge's
		// end with.
		if geth, edge := gethAnswer(t, body), strings.TrimSuffix(edgeAnswer(t, body), "\n"); geth != edge {
			t.Errorf("body %.200s:\ngeth: %q\nedge: %q", body, geth, edge)
		}
	}
}

// TestParseEthMethods: a method is read as go-ethereum reads it (exact
// key, the last one winning; "Method" is just another member), a method
// that is not a string makes the element invalid, and what is forwarded is
// re-encoded from what was read: one lowercase member of each, whatever the
// upstream's parser makes of case.
func TestParseEthMethods(t *testing.T) {
	for _, c := range []struct{ body, method string }{
		{`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","Method":"debug_traceTransaction"}`, "eth_chainId"},
		{`{"jsonrpc":"2.0","id":1,"Method":"debug_traceTransaction","method":"eth_chainId"}`, "eth_chainId"},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","method":"debug_x"}`, "debug_x"},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[],"paramſ":[{"to":"0x0"}],"ID":2}`, "eth_call"},
		{`{"jsonrpc":"2.0","id":1,"Method":"debug_traceTransaction"}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"debug_x","method":1}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":1}`, ""},
		{`{"JSONRPC":"2.0","id":1,"method":"eth_call"}`, ""},
	} {
		calls, _, err := ParseEth([]byte(c.body), 1)
		switch {
		case err != nil || len(calls) != 1:
			t.Errorf("%s: %v", c.body, err)
		case c.method == "" && (calls[0].Invalid == nil || calls[0].Invalid.Code != EthCodeInvalidRequest):
			t.Errorf("%s: read as %+v; want an invalid request", c.body, calls[0])
		case c.method != "" && (calls[0].Invalid != nil || calls[0].Method != c.method):
			t.Errorf("%s: read as %+v; want method %s", c.body, calls[0], c.method)
		case c.method != "":
			var folded struct{ Method string }
			if req := calls[0].AppendRequest(nil); json.Unmarshal(req, &folded) != nil || folded.Method != c.method {
				t.Errorf("%s re-encoded as %s: encoding/json reads %q", c.body, req, folded.Method)
			}
		}
	}
	calls, _, _ := ParseEth([]byte(`{"params":[1, 2],"extra":{"method":"debug_x"},"method":"eth_getBalance","id":"q","jsonrpc":"2.0"}`), 1)
	if got := string(calls[0].AppendRequest(nil)); got != `{"jsonrpc":"2.0","id":"q","method":"eth_getBalance","params":[1, 2]}` {
		t.Fatalf("re-encoded: %s", got)
	}
}

// FuzzParseEth: every element ParseEth accepts as a call re-encodes into a
// request that ParseEth reads back as the same call, and that both
// go-ethereum's exact reading and encoding/json's case-folding reading see
// with that method.
func FuzzParseEth(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		calls, _, err := ParseEth(body, 100)
		if err != nil {
			return
		}
		for _, c := range calls {
			if c.Invalid != nil || c.Response {
				continue
			}
			req := c.AppendRequest(nil)
			again, batch, err := ParseEth(req, 1)
			if err != nil || batch || len(again) != 1 || again[0].Method != c.Method || !bytes.Equal(again[0].ID, c.ID) || again[0].Invalid != nil {
				t.Fatalf("%s re-encoded as %s, read back as %+v %v", body, req, again, err)
			}
			var folded struct{ Method string }
			if json.Unmarshal(req, &folded) != nil || folded.Method != c.Method {
				t.Fatalf("%s: encoding/json reads method %q; want %q", req, folded.Method, c.Method)
			}
		}
	})
}

// TestBatchOverStops: a batch over the limit is refused by a scan that
// stops at the limit: the elements after it are never read, so a batch of
// 499,999 elements costs what one of 101 does, and one that is not even
// JSON after its first 101 elements is refused alike.
func TestBatchOverStops(t *testing.T) {
	huge := "[" + strings.Repeat("1,", 499_998) + "1]"
	for _, tc := range []struct {
		name, body string
		over       bool
	}{
		{"100 calls", "[" + strings.Repeat(`{"a":"x,]}"},`, 99) + "{}]", false},
		{"101 calls", "[" + strings.Repeat(`{"a":[1,2]},`, 100) + "{}]", true},
		{"499,999 elements", huge, true},
		{"garbage after the limit", "[" + strings.Repeat("1,", 100) + `}}}"`, true},
		{"commas in strings and nested values", `[["` + strings.Repeat(`,\",`, 200) + `"],{"b":[` + strings.Repeat("1,", 200) + `1]}]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, batch, err := ParseEth([]byte(tc.body), 100)
			var tooLarge *EthBatchTooLarge
			if over := errors.As(err, &tooLarge); over != tc.over || !batch && tc.over {
				t.Fatalf("ParseEth = batch %v, %v; want over the limit %v", batch, err, tc.over)
			}
		})
	}
}

// FuzzBatchOver: for every valid JSON array, the bounded scan says it holds
// more than k elements exactly when it does.
func FuzzBatchOver(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		var elems []json.RawMessage
		t0 := bytes.TrimLeft(body, " \t\r\n")
		if json.Unmarshal(body, &elems) != nil || len(t0) == 0 || t0[0] != '[' {
			return
		}
		for k := 1; k <= 4; k++ {
			if got := batchOver(t0, k); got != (len(elems) > k) {
				t.Fatalf("batchOver(%s, %d) = %v with %d elements", body, k, got, len(elems))
			}
		}
	})
}
