package e2e

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	avawarp "github.com/ava-labs/avalanchego/vms/platformvm/warp"
)

// Each test here shows one finding of issue 17 fixed, on the real binary.

// TestAggregateWarpSDK (finding 1): in local mode the official SDK's
// signatureAggregator.aggregate with a valid unsigned Warp message gets 201
// and a signed message that avalanchego's warp package verifies against the
// validator set the binary lists. The same holds in proxy fallback for a
// network named in AVAEDGE_LOCAL_NETWORKS.
func TestAggregateWarpSDK(t *testing.T) {
	failing := newRecorder(t, "")
	failing.setFail(http.StatusInternalServerError)
	modes := []struct {
		name string
		edge func(t *testing.T) *edge
	}{
		{"local", func(t *testing.T) *edge { return noKeysLocal(t) }},
		{"fallback", func(t *testing.T) *edge {
			return startEdge(t, map[string]string{"AVAEDGE_DATA_UPSTREAM": failing.URL, "AVAEDGE_LOCAL_NETWORKS": "fuji"})
		}},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			e := m.edge(t)
			msg := warpMessage(t, "fuji")
			body := []byte(fmt.Sprintf(`{"message":"%x"}`, msg))
			rep := do(t, "POST", e.URL+"/v1/signatureAggregator/fuji/aggregateSignatures", body, nil)
			checkAnswer(t, routeNamed(t, "aggregateSignatures"), call{Method: "POST"}, rep, http.StatusCreated)
			if rep.Status != http.StatusCreated {
				t.FailNow()
			}
			out := nodeScript(t, "", "warp.mjs", e.URL, "fuji", hex.EncodeToString(msg))
			var res struct {
				SignedMessage string `json:"signedMessage"`
			}
			if err := json.Unmarshal(out, &res); err != nil || res.SignedMessage == "" {
				t.Fatalf("SDK answer %s: %v", out, err)
			}
			verifyWarp(t, e, "fuji", msg, res.SignedMessage)
		})
	}
}

// verifyWarp parses signedHex with avalanchego and verifies its signature
// against the active primary-network validators the edge lists (weight:
// own stake plus delegations), at the default quorum of 67%.
func verifyWarp(t testing.TB, e *edge, network string, unsigned []byte, signedHex string) {
	t.Helper()
	verifyWarpAs(t, e, network, constants.NetworkNameToNetworkID[network], unsigned, signedHex)
}

// verifyWarpAs is verifyWarp for a message carrying networkID, with the
// validators the edge lists under network.
func verifyWarpAs(t testing.TB, e *edge, network string, networkID uint32, unsigned []byte, signedHex string) {
	t.Helper()
	raw, err := hex.DecodeString(strings.TrimPrefix(signedHex, "0x"))
	if err != nil {
		t.Fatalf("signedMessage is not hex: %v", err)
	}
	m, err := avawarp.ParseMessage(raw)
	if err != nil {
		t.Fatalf("avalanchego cannot parse the signed message: %v", err)
	}
	if string(m.UnsignedMessage.Bytes()) != string(unsigned) {
		t.Fatal("the signed message carries another unsigned message")
	}
	set := map[ids.NodeID]*validators.GetValidatorOutput{}
	page := ""
	for {
		var vs struct {
			NextPageToken string `json:"nextPageToken"`
			Validators    []struct {
				NodeID          string `json:"nodeId"`
				AmountStaked    string `json:"amountStaked"`
				AmountDelegated string `json:"amountDelegated"`
				BLSCredentials  *struct {
					PublicKey string `json:"publicKey"`
				} `json:"blsCredentials"`
			} `json:"validators"`
		}
		// The primary network's: listValidators lists every subnet's and
		// L1's too, whose validators would shift the canonical order.
		u := e.URL + "/v1/networks/" + network + "/validators?pageSize=100&validationStatus=active&subnetId=" + constants.PrimaryNetworkID.String()
		if page != "" {
			u += "&pageToken=" + page
		}
		getJSON(t, u, &vs)
		for _, v := range vs.Validators {
			id, err := ids.NodeIDFromString(v.NodeID)
			if err != nil {
				t.Fatal(err)
			}
			staked, _ := strconv.ParseUint(v.AmountStaked, 10, 64)
			delegated, _ := strconv.ParseUint(v.AmountDelegated, 10, 64)
			out := &validators.GetValidatorOutput{NodeID: id, Weight: staked + delegated}
			if v.BLSCredentials != nil {
				pk, err := hex.DecodeString(strings.TrimPrefix(v.BLSCredentials.PublicKey, "0x"))
				if err != nil {
					t.Fatal(err)
				}
				if out.PublicKey, err = bls.PublicKeyFromCompressedBytes(pk); err != nil {
					t.Fatalf("%s: BLS key: %v", v.NodeID, err)
				}
			}
			set[id] = out
		}
		if vs.NextPageToken == "" {
			break
		}
		page = vs.NextPageToken
	}
	ws, err := validators.FlattenValidatorSet(set)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Signature.Verify(&m.UnsignedMessage, networkID, ws, 67, 100); err != nil {
		t.Fatalf("avalanchego rejects the aggregated signature over the listed validators (%d, total weight %d): %v",
			len(ws.Validators), ws.TotalWeight, err)
	}
}

// TestClientKeyWithoutKeysFile (finding 2): with no keys file, an app that
// sends its API key is served, metered by its key on its own, and the key
// never goes upstream or into the log.
func TestClientKeyWithoutKeysFile(t *testing.T) {
	keyA, keyB := "e2e-arbitrary-key-A-91c2", "e2e-arbitrary-key-B-04d7"
	t.Run("local", func(t *testing.T) { meteredApart(t, noKeysLocal(t, keyA, keyB), keyA, keyB) })
	t.Run("sdk", func(t *testing.T) {
		const key = "any-string-as-api-key"
		conformance(t, noKeysLocal(t, key).URL, key, "fuji")
	})
	t.Run("proxy", func(t *testing.T) {
		rec := newRecorder(t, localEdge(t).URL)
		e := startEdge(t, map[string]string{"AVAEDGE_DATA_UPSTREAM": rec.URL, "AVAEDGE_METRICS_UPSTREAM": rec.URL}, keyA, keyB)
		meteredApart(t, e, keyA, keyB)
		for _, r := range rec.requests("") {
			for _, vs := range r.Header {
				for _, v := range vs {
					if strings.Contains(v, keyA) || strings.Contains(v, keyB) {
						t.Fatalf("a client key went upstream on %s %s", r.Method, r.URI)
					}
				}
			}
		}
	})
}

// meteredApart checks two keys and the anonymous client draw on separate
// quotas: each key's first answer shows the same remaining quota, and the
// second call of one key leaves the other's untouched.
func meteredApart(t *testing.T, e *edge, keyA, keyB string) {
	t.Helper()
	path := "/v1/networks/fuji/validators?pageSize=1" // 20 CU: the per-minute refill between calls stays below one call
	rem := func(hdr map[string]string) int64 {
		t.Helper()
		r := do(t, "GET", e.URL+path, nil, hdr)
		if r.Status != 200 {
			t.Fatalf("GET %s with %v = %s", path, keysOf(hdr), r)
		}
		v := r.Header.Get("ratelimit-remaining")
		n, err := strconv.ParseInt(firstNumber(v), 10, 64)
		if err != nil || r.Header.Get("ratelimit-policy") == "" {
			t.Fatalf("GET %s: ratelimit-remaining %q, ratelimit-policy %q", path, v, r.Header.Get("ratelimit-policy"))
		}
		return n
	}
	a1 := rem(map[string]string{"x-glacier-api-key": keyA})
	a2 := rem(map[string]string{"x-glacier-api-key": keyA})
	b1 := rem(map[string]string{"x-glacier-api-key": keyB})
	b2 := rem(map[string]string{"x-data-api-key": keyB})
	// The anonymous client is served too (without rate-limit headers on a
	// success, as the real Data API answers anonymous clients).
	if r := do(t, "GET", e.URL+path, nil, nil); r.Status != 200 {
		t.Fatalf("anonymous GET %s = %s", path, r)
	}
	if a2 >= a1 {
		t.Errorf("key A: remaining %d then %d; want it to fall", a1, a2)
	}
	if b1 != a1 {
		t.Errorf("key B's first call shows %d remaining, key A's first %d: the keys share a quota", b1, a1)
	}
	if b2 >= b1 {
		t.Errorf("key B under x-data-api-key: remaining %d then %d; want the same key's quota to fall", b1, b2)
	}
}

func keysOf(h map[string]string) []string {
	var out []string
	for k := range h {
		out = append(out, k)
	}
	return out
}

// firstNumber returns the leading integer of a header value such as
// "5999" or "5999, 1199999".
func firstNumber(s string) string {
	s = strings.TrimSpace(s)
	for i, c := range s {
		if c < '0' || c > '9' {
			return s[:i]
		}
	}
	return s
}

// TestMethodCase (finding 3): info.GetNetworkID gets the node's error
// (JSON-RPC -32000, HTTP 200), in local mode and through the proxy, and is
// never answered from info.getNetworkID's cache entry.
func TestMethodCase(t *testing.T) {
	const want = "method must start with a non-uppercase letter"
	check := func(t *testing.T, r reply) {
		t.Helper()
		var env struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			ID json.RawMessage `json:"id"`
		}
		if r.Status != 200 || json.Unmarshal(r.Body, &env) != nil || env.Error == nil || env.Result != nil ||
			env.Error.Code != -32000 || !strings.Contains(env.Error.Message, want) || string(env.ID) != "2" {
			t.Errorf("info.GetNetworkID = %s; want HTTP 200 and error -32000 %q with id 2", r, want)
		}
		if r.Header.Get("X-Cache-Status") == "HIT" {
			t.Errorf("info.GetNetworkID answered from the cache")
		}
	}
	t.Run("local", func(t *testing.T) {
		e := noKeysLocal(t)
		do(t, "POST", e.URL+"/ext/info", rpcBody(1, "info.getNetworkID", ""), nil)
		check(t, do(t, "POST", e.URL+"/ext/info", rpcBody(2, "info.GetNetworkID", ""), nil))
	})
	t.Run("proxy", func(t *testing.T) {
		rec := newRecorder(t, localEdge(t).URL)
		// The upstream answers as avalanchego does (utils/json/codec.go).
		rec.setHandle(func(w http.ResponseWriter, r *http.Request, body []byte) bool {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(body, &req) != nil {
				return false
			}
			if i := strings.IndexByte(req.Method, '.'); i >= 0 && i+1 < len(req.Method) && req.Method[i+1] >= 'A' && req.Method[i+1] <= 'Z' {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":%q,"data":null},"id":%s}`+"\n", want, req.ID)
				return true
			}
			return false
		})
		e := startEdge(t, map[string]string{"AVAEDGE_NODE_UPSTREAM": rec.URL})
		for i := 0; i < 2; i++ {
			first := do(t, "POST", e.URL+"/ext/info", rpcBody(1, "info.getNetworkID", ""), nil)
			if first.Status != 200 || !strings.Contains(string(first.Body), `"networkID"`) {
				t.Fatalf("info.getNetworkID = %s", first)
			}
			check(t, do(t, "POST", e.URL+"/ext/info", rpcBody(2, "info.GetNetworkID", ""), nil))
		}
	})
}

// TestDataDirCreated (finding 4): AVAEDGE_DATA_DIR naming a directory that
// does not exist: avaedge creates it (0700) and starts.
func TestDataDirCreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	e := startEdge(t, map[string]string{"AVAEDGE_DATA_DIR": dir})
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		t.Fatalf("data directory not created: %v", err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("data directory mode %o; want 700", perm)
	}
	if r := do(t, "GET", e.URL+"/v1/chains/43112/blocks?pageSize=1", nil, nil); r.Status != 200 {
		t.Errorf("GET blocks with a data directory = %s", r)
	}
}

// TestAggregatedSignaturesCached (finding 5): GET .../aggregateSignatures/
// {txHash} is answered 201 by the service; the second call through the edge
// is a cache HIT and the upstream is called once.
func TestAggregatedSignaturesCached(t *testing.T) {
	rec := newRecorder(t, "")
	rec.setHandle(func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"signedMessage":"00000000000500000000000000000000000000000000000000000000000000000000"}`))
		return true
	})
	e := startEdge(t, map[string]string{"AVAEDGE_DATA_UPSTREAM": rec.URL})
	const tx = "2bYcpg3dfbvvU4SYrzJZVdC3Dd6qw4J1NUUqJAPL8kF4bZXRrT"
	p := "/v1/signatureAggregator/fuji/aggregateSignatures/" + tx
	first := do(t, "GET", e.URL+p, nil, nil)
	second := do(t, "GET", e.URL+p, nil, nil)
	for i, r := range []reply{first, second} {
		if r.Status != http.StatusCreated || string(r.Body) != string(second.Body) {
			t.Errorf("call %d = %s; want the upstream's 201", i+1, r)
		}
	}
	if hs := second.Header.Get("X-Cache-Status"); hs != "HIT" {
		t.Errorf("second call X-Cache-Status %q; want HIT", hs)
	}
	if n := rec.count("GET", p); n != 1 {
		t.Errorf("upstream called %d times; want once", n)
	}
}

// TestCChainIDsLocal (finding 6): in local mode the EVM and Metrics routes
// answer for chain ids 43112, 43113 and 43114 and for the C-Chain's
// blockchain ids from the local C-Chain; in proxy fallback (upstream failing,
// AVAEDGE_LOCAL_NETWORKS=fuji) only an upstream failure comes back for them.
func TestCChainIDsLocal(t *testing.T) {
	local := startEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": bulkKeysFile(t)})
	var chains struct {
		Chains []struct{ ChainID, PlatformChainID string } `json:"chains"`
	}
	getJSON(t, local.URL+"/v1/chains", &chains)
	ids := []string{"43112", "43113", "43114", cChainIDs["mainnet"], cChainIDs["fuji"]}
	for _, c := range chains.Chains {
		if c.ChainID == "43112" { // the C-Chain; the devnet's other chains are TestDevnetChains'
			ids = append(ids, c.PlatformChainID)
		}
	}
	failing := newRecorder(t, "")
	failing.setFail(http.StatusInternalServerError)
	fallback := startEdge(t, map[string]string{"AVAEDGE_DATA_UPSTREAM": failing.URL, "AVAEDGE_METRICS_UPSTREAM": failing.URL,
		"AVAEDGE_LOCAL_NETWORKS": "fuji", "AVAEDGE_KEYS_FILE": bulkKeysFile(t)})
	base := discover(t, "fuji")
	for _, id := range ids {
		w := *base
		w.ChainID = id
		t.Run(id, func(t *testing.T) {
			for _, r := range catalogue() {
				if !strings.Contains(r.Path, "{chainId}") {
					continue
				}
				t.Run(r.Name, func(t *testing.T) {
					for _, c := range callsFor(t, r, &w) {
						checkAnswer(t, r, c, do(t, c.Method, local.URL+c.Path, c.Body, nil), localStatus(t, r, c))
						if id == "43112" {
							continue // the dev chain's own id; TestRoutesFailingUpstream covers its fallback
						}
						if rep := do(t, c.Method, fallback.URL+c.Path, c.Body, nil); rep.Status < 500 {
							t.Errorf("fallback %s = %s; want the upstream's failure, not devnet data", c.Path, rep)
						}
					}
				})
			}
		})
	}
}

// TestDayOnlyMetrics (finding 7): contracts and deployers with
// timeInterval=hour are refused 400 in the Metrics API's error format, at the
// edge (never reaching the upstream) and in local mode; day is answered.
func TestDayOnlyMetrics(t *testing.T) {
	rec := newRecorder(t, localEdge(t).URL)
	proxy := startEdge(t, map[string]string{"AVAEDGE_METRICS_UPSTREAM": rec.URL})
	for name, e := range map[string]*edge{"local": noKeysLocal(t), "edge": proxy} {
		t.Run(name, func(t *testing.T) {
			// cumulativeTxCount is day-only already: the control case.
			for _, metric := range []string{"contracts", "deployers", "cumulativeTxCount"} {
				p := "/v2/chains/43112/metrics/" + metric + "?timeInterval=hour"
				r := do(t, "GET", e.URL+p, nil, nil)
				if r.Status != http.StatusBadRequest {
					t.Errorf("GET %s = %s; want 400", p, r)
				} else if _, err := popsicleSpec.validate(t, "getEvmChainMetrics", 400, r.Body); err != nil {
					t.Errorf("GET %s: 400 body does not match the spec: %v", p, err)
				}
				// The day request of the other subtest is forwarded by the
				// edge: count the hour request, query included.
				if n := rec.countURI("GET", p); n != 0 {
					t.Errorf("GET %s reached the upstream %d times", p, n)
				}
				day := "/v2/chains/43112/metrics/" + metric + "?timeInterval=day"
				checkAnswer(t, routeNamed(t, "getEvmChainMetrics"), call{Method: "GET", Path: day}, do(t, "GET", e.URL+day, nil, nil), 200)
			}
		})
	}
}
