package warp

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// newTestServer mounts the handlers through the catalogue, the way the local
// world serves them without the edge, with the Data API's 404 for paths and
// methods no route knows.
func newTestServer(t *testing.T, a *Aggregator) *httptest.Server {
	t.Helper()
	mux := catalog.NewMux(catalog.Catalogue(), a.Handlers())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apierror.Write(w, http.StatusNotFound, "Cannot "+r.Method+" "+r.URL.Path)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

type testWorld struct {
	src     *fakeSource
	primary []*fakeValidator
	msg     []byte
	txHash  [warpmsg.IDLen]byte
	l1Msg   []byte
}

func newTestWorld() *testWorld {
	w := &testWorld{primary: newFakeValidators(0, equalWeights(4, 25)...)}
	w.src = newFakeSource(w.primary)
	w.msg = testMessage(cChainID, "http")
	w.txHash = idOf("conversion tx")
	w.l1Msg = warpmsg.NewL1Unsigned(fujiID, &warpmsg.SubnetToL1Conversion{ID: idOf("conversion")}).Bytes()
	w.src.l1[string(w.txHash[:])] = w.l1Msg
	return w
}

func TestHandlersSuccess(t *testing.T) {
	w := newTestWorld()
	srv := newTestServer(t, NewAggregator(w.src, Options{Logger: slog.New(slog.DiscardHandler)}))
	tests := []struct {
		name     string
		method   string
		path     string
		body     string
		unsigned []byte
		quorum   uint64
	}{
		{"POST message", "POST", "/v1/signatureAggregator/fuji/aggregateSignatures",
			`{"message":"` + hex.EncodeToString(w.msg) + `"}`, w.msg, 67},
		{"POST 0x message with options", "POST", "/v1/signatureAggregator/testnet/aggregateSignatures",
			`{"message":"0x` + hex.EncodeToString(w.msg) + `","justification":"","signingSubnetId":"11111111111111111111111111111111LpoYY",` +
				`"quorumPercentage":50,"quorumPercentageBuffer":50,"pChainHeight":0,"extra":true}`, w.msg, 100},
		{"POST hex signingSubnetId", "POST", "/v1/signatureAggregator/fuji/aggregateSignatures",
			`{"message":"` + hex.EncodeToString(w.msg) + `","signingSubnetId":"0x` + strings.Repeat("00", 32) + `","quorumPercentage":75.0}`, w.msg, 75},
		{"POST justification", "POST", "/v1/signatureAggregator/fuji/aggregateSignatures",
			`{"justification":"` + hex.EncodeToString(w.txHash[:]) + `"}`, w.l1Msg, 67},
		{"GET by cb58 tx hash", "GET", "/v1/signatureAggregator/fuji/aggregateSignatures/" + avax.CB58Encode(w.txHash[:]), "", w.l1Msg, 67},
		{"GET by hex tx hash", "GET", "/v1/signatureAggregator/fuji/aggregateSignatures/0x" + hex.EncodeToString(w.txHash[:]), "", w.l1Msg, 67},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("status = %d; want 201", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Fatalf("content type = %q", ct)
			}
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if len(body) != 1 {
				t.Fatalf("body = %v; want only signedMessage", body)
			}
			s, _ := body["signedMessage"].(string)
			signed, err := hex.DecodeString(s)
			if err != nil {
				t.Fatalf("signedMessage %q is not plain hex: %v", s, err)
			}
			checkSigned(t, signed, tt.unsigned, w.primary, tt.quorum)
		})
	}
}

func TestHandlersErrors(t *testing.T) {
	w := newTestWorld()
	w.primary[0].offline = true
	w.primary[1].offline = true
	msgHex := hex.EncodeToString(w.msg)
	srv := newTestServer(t, NewAggregator(w.src, Options{Logger: slog.New(slog.DiscardHandler)}))
	post := "/v1/signatureAggregator/fuji/aggregateSignatures"
	nowhereID, otherTx := idOf("nowhere"), idOf("other tx")
	nowhere := avax.CB58Encode(nowhereID[:])
	tests := []struct {
		name   string
		method string
		path   string
		body   string
		status int
		want   string // exact JSON body
	}{
		{"not JSON", "POST", post, `{"message":`, 400,
			`{"message":["body must be a JSON object"],"statusCode":400,"error":"Bad Request"}`},
		{"JSON array", "POST", post, `[]`, 400,
			`{"message":["body must be a JSON object"],"statusCode":400,"error":"Bad Request"}`},
		{"empty body", "POST", post, ``, 400,
			`{"message":["Must provide either message or justification"],"statusCode":400,"error":"Bad Request"}`},
		{"null fields", "POST", post, `{"message":null,"justification":null}`, 400,
			`{"message":["Must provide either message or justification"],"statusCode":400,"error":"Bad Request"}`},
		{"field errors", "POST", post,
			`{"message":"zz","justification":5,"signingSubnetId":"nope","quorumPercentage":101,"quorumPercentageBuffer":-1,"pChainHeight":1.5}`, 400,
			`{"message":["justification must be a string","message must be a hexadecimal number",` +
				`"quorumPercentage must not be greater than 100",` +
				`"quorumPercentageBuffer must not be less than 0","pChainHeight must be an integer number"],"statusCode":400,"error":"Bad Request"}`},
		{"signing subnet not an id", "POST", post, `{"message":"` + msgHex + `","signingSubnetId":"nope"}`, 400,
			`{"message":["signingSubnetId must be a hex or cb58 encoded subnet ID"],"statusCode":400,"error":"Bad Request"}`},
		{"quorum 0 is the default 67", "POST", post, `{"message":"` + msgHex + `","quorumPercentage":0,"quorumPercentageBuffer":50}`, 400,
			`{"message":["quorumPercentage + quorumPercentageBuffer must not be greater than 100"],"statusCode":400,"error":"Bad Request"}`},
		{"quorum as string", "POST", post, `{"message":"` + msgHex + `","quorumPercentage":"67"}`, 400,
			`{"message":["quorumPercentage must be an integer number"],"statusCode":400,"error":"Bad Request"}`},
		{"quorum plus buffer", "POST", post, `{"message":"` + msgHex + `","quorumPercentage":70,"quorumPercentageBuffer":31}`, 400,
			`{"message":["quorumPercentage + quorumPercentageBuffer must not be greater than 100"],"statusCode":400,"error":"Bad Request"}`},
		{"malformed message", "POST", post, `{"message":"0000"}`, 400,
			`{"message":["message must be an Avalanche Warp unsigned message: parse unsigned message: warp: input truncated"],"statusCode":400,"error":"Bad Request"}`},
		{"unknown network", "POST", "/v1/signatureAggregator/devnet/aggregateSignatures", `{"message":"` + msgHex + `"}`, 400,
			`{"message":["network must be one of the following values: mainnet, fuji, testnet"],"statusCode":400,"error":"Bad Request"}`},
		{"network mismatch", "POST", "/v1/signatureAggregator/mainnet/aggregateSignatures", `{"message":"` + msgHex + `"}`, 400,
			`{"message":"Message network ID 5 does not match network mainnet (network ID 1)","statusCode":400,"error":"Bad Request"}`},
		{"unknown source chain", "POST", post, `{"message":"` + hex.EncodeToString(testMessage(idOf("nowhere"), "x")) + `"}`, 404,
			`{"message":"Source blockchain ` + nowhere + ` not found","statusCode":404,"error":"Not Found"}`},
		{"unknown signing subnet", "POST", post, `{"message":"` + msgHex + `","signingSubnetId":"` + nowhere + `"}`, 404,
			`{"message":"Subnet ` + nowhere + ` not found","statusCode":404,"error":"Not Found"}`},
		{"unknown height", "POST", post, `{"message":"` + msgHex + `","pChainHeight":1e6}`, 400,
			`{"message":"P-Chain height 1000000 has not been reached","statusCode":400,"error":"Bad Request"}`},
		{"quorum unreachable", "POST", post, `{"message":"` + msgHex + `"}`, 400,
			`{"message":"Failed to reach quorum: validators holding 50.00% of the weight of subnet 11111111111111111111111111111111LpoYY signed; 67% required","statusCode":400,"error":"Bad Request"}`},
		{"unknown justification", "POST", post, `{"justification":"0x0102"}`, 404,
			`{"message":"No P-Chain L1 message found for 0x0102","statusCode":404,"error":"Not Found"}`},
		{"body too large", "POST", post, `{"message":"` + strings.Repeat("00", catalog.MaxBody) + `"}`, 413,
			`{"message":"request entity too large","statusCode":413,"error":"Payload Too Large"}`},
		{"GET on the POST route", "GET", post, ``, 404,
			`{"message":"Cannot GET /v1/signatureAggregator/fuji/aggregateSignatures","statusCode":404,"error":"Not Found"}`},
		{"GET bad tx hash", "GET", post + "/notahash", ``, 400,
			`{"message":["txHash must be a cb58 or hex encoded transaction hash"],"statusCode":400,"error":"Bad Request"}`},
		{"GET unknown tx hash", "GET", post + "/" + avax.CB58Encode(otherTx[:]), ``, 404,
			`{"message":"No P-Chain L1 message found for 0x` + hex.EncodeToString(otherTx[:]) + `","statusCode":404,"error":"Not Found"}`},
		{"GET unknown network", "GET", "/v1/signatureAggregator/devnet/aggregateSignatures/" + avax.CB58Encode(w.txHash[:]), ``, 400,
			`{"message":["network must be one of the following values: mainnet, fuji, testnet"],"statusCode":400,"error":"Bad Request"}`},
		{"GET quorum unreachable", "GET", post + "/" + avax.CB58Encode(w.txHash[:]), ``, 400,
			`{"message":"Failed to reach quorum: validators holding 50.00% of the weight of subnet 11111111111111111111111111111111LpoYY signed; 67% required","statusCode":400,"error":"Bad Request"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got bytes.Buffer
			if _, err := got.ReadFrom(resp.Body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d; want %d (body %s)", resp.StatusCode, tt.status, got.String())
			}
			if got.String() != tt.want {
				t.Fatalf("body = %s\nwant   %s", got.String(), tt.want)
			}
		})
	}
}

func TestHandlerInternalError(t *testing.T) {
	w := newTestWorld()
	w.src.subnets[primaryID] = []*fakeValidator{{weight: 1, pk: seq(1, 48)}} // not a G1 point
	srv := newTestServer(t, NewAggregator(w.src, Options{Logger: slog.New(slog.DiscardHandler)}))
	resp, err := http.Post(srv.URL+"/v1/signatureAggregator/fuji/aggregateSignatures", "application/json",
		strings.NewReader(`{"message":"`+hex.EncodeToString(w.msg)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got bytes.Buffer
	got.ReadFrom(resp.Body)
	want := `{"message":"Failed to aggregate signatures","statusCode":500,"error":"Internal Server Error"}`
	if resp.StatusCode != 500 || got.String() != want {
		t.Fatalf("got %d %s; want 500 %s", resp.StatusCode, got.String(), want)
	}
}
