package catalog

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestCatalogueComplete(t *testing.T) {
	names := map[string]bool{}
	patterns := map[string]bool{}
	for _, r := range Catalogue() {
		if names[r.Name] {
			t.Errorf("duplicate route name %s", r.Name)
		}
		names[r.Name] = true
		if r.Cost <= 0 || r.Cache == "" {
			t.Errorf("%s: cost %d, cache %q", r.Name, r.Cost, r.Cache)
		}
		if !r.IsRPC() {
			if patterns[r.Pattern()] {
				t.Errorf("duplicate pattern %s", r.Pattern())
			}
			patterns[r.Pattern()] = true
		}
	}
	var data, metrics, node int
	for _, r := range Catalogue() {
		switch r.Service {
		case Data:
			data++
		case Metrics:
			metrics++
		case Node:
			node++
		}
	}
	// glacier.json's 64 public reads and 6 legacy Data API reads;
	// popsicle.json's 15 and 4 legacy Metrics API reads; 13 info + 11 avm
	// methods, platformvm.yaml's 30 and getAllValidatorsAt, the 4 avax.*
	// methods, the EVM endpoint and its 5 priced methods.
	if data != 70 || metrics != 19 || node != 65 {
		t.Fatalf("catalogue has %d data, %d metrics, %d node routes; want 70, 19, 65", data, metrics, node)
	}
}

func route(t *testing.T, name string) *Route {
	for _, r := range Catalogue() {
		if r.Name == name {
			return &r
		}
	}
	t.Fatalf("no route %s", name)
	return nil
}

func TestValidate(t *testing.T) {
	path := func(m map[string]string) PathFunc { return func(k string) string { return m[k] } }
	tests := []struct {
		name, route string
		path        map[string]string
		query       map[string][]string
		body        string
		want        string // "" = valid
	}{
		{"ok", "listSubnets", map[string]string{"network": "fuji"}, nil, "", ""},
		{"bad network", "listSubnets", map[string]string{"network": "devnet"}, nil, "", "network must be one of the following values: mainnet, fuji, testnet"},
		{"subnets max", "listSubnets", map[string]string{"network": "fuji"}, map[string][]string{"pageSize": {"10001"}}, "", "pageSize must not be greater than 10000"},
		{"subnets min", "listSubnets", map[string]string{"network": "fuji"}, map[string][]string{"pageSize": {"0"}}, "", "pageSize must not be less than 1"},
		{"not integer", "listSubnets", map[string]string{"network": "fuji"}, map[string][]string{"pageSize": {"1.5"}}, "", "pageSize must be an integer number"},
		{"sortOrder", "listSubnets", map[string]string{"network": "fuji"}, map[string][]string{"sortOrder": {"up"}}, "", "sortOrder must be one of the following values: asc, desc"},
		{"balances 500", "listErc721Balances", map[string]string{"chainId": "43114", "address": "0x1"}, map[string][]string{"pageSize": {"501"}}, "", "pageSize must not be greater than 500"},
		{"metrics 2160", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "txCount"}, map[string][]string{"pageSize": {"2161"}}, "", "pageSize must not be greater than 2160"},
		{"metric enum", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "tps"}, nil, "", "metric must be one of the following values"},
		{"day only", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "avgTps"}, map[string][]string{"timeInterval": {"hour"}}, "", "timeInterval must be day for metric avgTps"},
		{"contracts day only", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "contracts"}, map[string][]string{"timeInterval": {"hour"}}, "", "timeInterval must be day for metric contracts"},
		{"deployers day only", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "deployers"}, map[string][]string{"timeInterval": {"week"}}, "", "timeInterval must be day for metric deployers"},
		{"feesPaid day only", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "feesPaid"}, map[string][]string{"timeInterval": {"month"}}, "", "timeInterval must be day for metric feesPaid"},
		{"txCount any interval", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "txCount"}, map[string][]string{"timeInterval": {"hour"}}, "", ""},
		{"day ok", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "cumulativeTxCount"}, map[string][]string{"timeInterval": {"day"}}, "", ""},
		{"vertexHeight missing", "getVertexByHeight", map[string]string{"network": "fuji", "blockchainId": "x-chain"}, nil, "", "vertexHeight should not be empty"},
		{"vertex chain", "getVertexByHeight", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"vertexHeight": {"1"}}, "", "blockchainId must be one of the following values"},
		{"listChainIds addresses", "getChainIdsForAddresses", map[string]string{"network": "fuji"}, nil, "", "addresses should not be empty"},
		{"rewards one of", "listPendingPrimaryNetworkRewards", map[string]string{"network": "fuji"}, nil, "", "at least one of addresses, nodeIds must be provided"},
		{"validationStatus", "listValidators", map[string]string{"network": "fuji"}, map[string][]string{"validationStatus": {"done"}}, "", "validationStatus must be one of"},
		{"delegationStatus", "listDelegators", map[string]string{"network": "fuji"}, map[string][]string{"delegationStatus": {"removed"}}, "", "delegationStatus must be one of"},
		{"currency", "getNativeBalance", map[string]string{"chainId": "1", "address": "0x1"}, map[string][]string{"currency": {"btc"}}, "", "currency must be one of"},
		{"minUtxoAmount", "getUtxosByAddresses", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"minUtxoAmount": {"-1"}}, "", "minUtxoAmount must not be less than 0"},
		{"endTimestamp past 2^53-1", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "txCount"}, map[string][]string{"endTimestamp": {"9223372036854775807"}}, "", "endTimestamp must not be greater than 9007199254740991"},
		{"startTimestamp past 2^53-1", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "txCount"}, map[string][]string{"startTimestamp": {"9007199254740992"}}, "", "startTimestamp must not be greater than 9007199254740991"},
		{"endTimestamp 2^53-1", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "txCount"}, map[string][]string{"endTimestamp": {"9007199254740991"}}, "", ""},
		{"endTimestamp past int64", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "txCount"}, map[string][]string{"endTimestamp": {"9223372036854775808"}}, "", "endTimestamp must be an integer number"},
		{"blockTimestamp below -(2^53-1)", "getBalancesByAddresses", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"blockTimestamp": {"-9223372036854775808"}}, "", "blockTimestamp must not be less than -9007199254740991"},
		{"includeSpent", "getUtxosByAddresses", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"includeSpent": {"yes"}}, "", "includeSpent must be a boolean value"},
		{"quorum sum", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"00","quorumPercentage":67,"quorumPercentageBuffer":34}`, "quorumPercentage + quorumPercentageBuffer must not be greater than 100"},
		{"quorum zero is the default 67", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"00","quorumPercentage":0,"quorumPercentageBuffer":50}`, "quorumPercentage + quorumPercentageBuffer must not be greater than 100"},
		{"quorum zero within 100", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"00","quorumPercentage":0,"quorumPercentageBuffer":33}`, ""},
		{"empty body is {}", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, ``, "Must provide either message or justification"},
		{"neither", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{}`, "Must provide either message or justification"},
		{"non hex", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"0xzz"}`, "message must be a hexadecimal number"},
		{"malformed", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":`, "body must be a JSON object"},
		{"quorum type", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"00","quorumPercentage":"x"}`, "quorumPercentage must be an integer number"},
		{"quorum ok", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"0x00ff","quorumPercentage":50,"quorumPercentageBuffer":50}`, ""},
		{"integral float is an integer", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"00","quorumPercentage":75.0,"pChainHeight":1e6}`, ""},
		{"number as string", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"00","quorumPercentage":"67"}`, "quorumPercentage must be an integer number"},
		{"fraction", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"00","pChainHeight":1.5}`, "pChainHeight must be an integer number"},
		{"empty justification", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"00","justification":""}`, ""},
		{"empty list item", "listValidators", map[string]string{"network": "fuji"}, map[string][]string{"nodeIds": {"a,,b"}}, "", "nodeIds must be a comma-separated list"},
		{"array repeated", "listLatestPrimaryNetworkTransactions", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"txTypes": {"BaseTx", "ImportTx,ExportTx"}}, "", ""},
		{"array repeated bad item", "listLatestPrimaryNetworkTransactions", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"txTypes": {"BaseTx", "Nope"}}, "", "each value in txTypes must be one of the following values: AddValidatorTx"},
		{"p-chain only", "listActivePrimaryNetworkStakingTransactions", map[string]string{"network": "fuji", "blockchainId": "x-chain"}, nil, "", "blockchainId must be one of the following values: 11111111111111111111111111111111LpoYY, p-chain"},
		{"v2 body addresses", "getUtxosByAddressesV2", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"pageSize": {"1024"}}, `{"addresses":"P-fuji1a,P-fuji1b"}`, ""},
		{"v2 body without addresses", "getLastActivityTimestampByAddressesV2", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, nil, `{}`, "addresses should not be empty"},
		{"v2 body addresses not a string", "getUtxosByAddressesV2", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, nil, `{"addresses":["a"]}`, "addresses must be a string"},
		{"v2 body too many addresses", "getUtxosByAddressesV2", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, nil, `{"addresses":"` + strings.Repeat("a,", 1024) + `a"}`, "addresses must contain no more than 1024 elements"},
		{"v2 body 1024 addresses", "getLastActivityTimestampByAddressesV2", map[string]string{"network": "fuji", "blockchainId": "x-chain"}, nil, `{"addresses":"` + strings.Repeat("a,", 1023) + `a"}`, ""},
		{"v2 page size", "getUtxosByAddressesV2", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"pageSize": {"1025"}}, `{"addresses":"a"}`, "pageSize must not be greater than 1024"},
		{"block page size 0", "getTransactionsForBlock", map[string]string{"chainId": "43114", "blockId": "1"}, map[string][]string{"pageSize": {"0"}}, "", ""},
		{"block page size -1", "getTransactionsForBlock", map[string]string{"chainId": "43114", "blockId": "1"}, map[string][]string{"pageSize": {"-1"}}, "", "pageSize must not be less than 0"},
		{"tx status", "listLatestTransactions", map[string]string{"chainId": "43114"}, map[string][]string{"status": {"pending"}}, "", "status must be one of the following values: failed, success"},
		{"btcb threshold", "getAddressesByBtcbBridged", nil, nil, "", "threshold should not be empty"},
		{"l1 fee metric", "getMetricsBySubnetId", map[string]string{"subnetId": "x", "metric": "txCount"}, nil, "", "metric must be one of the following values: perSubnetDailyFeesPaid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, msgs := route(t, tt.route).Validate(path(tt.path), tt.query, []byte(tt.body))
			got := strings.Join(msgs, "; ")
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("messages = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestValidateValues checks that Validate hands back every parameter, with
// the route's defaults filled in for absent ones.
func TestValidateValues(t *testing.T) {
	v, msgs := route(t, "listSubnets").Validate(PathFunc(func(string) string { return "fuji" }), map[string][]string{"sortOrder": {"asc"}, "other": {"x"}}, nil)
	if msgs != nil {
		t.Fatal(msgs)
	}
	want := Values{"network": "fuji", "pageSize": "100", "sortOrder": "asc"}
	if len(v) != len(want) {
		t.Fatalf("values = %v; want %v", v, want)
	}
	for k, w := range want {
		if v[k] != w {
			t.Fatalf("values = %v; want %v", v, want)
		}
	}
	v, msgs = route(t, "aggregateSignatures").Validate(PathFunc(func(string) string { return "fuji" }), nil, []byte(`{"message":"0x00ff","quorumPercentageBuffer":5}`))
	if msgs != nil || v["message"] != "0x00ff" || v["quorumPercentage"] != "67" || v["quorumPercentageBuffer"] != "5" || v["pChainHeight"] != "0" || v.Has("justification") {
		t.Fatalf("body values = %v, %v", v, msgs)
	}
	v, msgs = route(t, "listAssetTransactions").Validate(PathFunc(func(k string) string {
		return map[string]string{"network": "fuji", "blockchainId": "x-chain", "assetId": "a"}[k]
	}),
		map[string][]string{"txTypes": {"BaseTx", "ImportTx,ExportTx"}}, nil)
	if msgs != nil || v["txTypes"] != "BaseTx,ImportTx,ExportTx" {
		t.Fatalf("array values = %v, %v; want the repeated values joined", v, msgs)
	}
	v, msgs = route(t, "getStakingMetrics").Validate(PathFunc(func(k string) string { return map[string]string{"network": "fuji", "metric": "validatorCount"}[k] }), nil, nil)
	if msgs != nil || v["subnetId"] != "11111111111111111111111111111111LpoYY" || v["pageSize"] != "100" {
		t.Fatalf("staking metrics defaults = %v, %v", v, msgs)
	}
	if v, msgs := route(t, "listSubnets").Validate(PathFunc(func(string) string { return "x" }), nil, nil); v != nil || len(msgs) != 1 {
		t.Fatalf("invalid: values %v, msgs %v", v, msgs)
	}
}

func TestCanonicalQuery(t *testing.T) {
	r := route(t, "listSubnets")
	a := r.CanonicalQuery(map[string][]string{})
	b := r.CanonicalQuery(map[string][]string{"pageSize": {"100"}})
	if a != b || a != "pageSize=100" {
		t.Fatalf("canonical %q vs %q", a, b)
	}
	c := r.CanonicalQuery(map[string][]string{"sortOrder": {"asc"}, "pageToken": {"t 1"}})
	if c != "pageSize=100&pageToken=t+1&sortOrder=asc" {
		t.Fatalf("canonical = %q", c)
	}
}

func FuzzValidate(f *testing.F) {
	f.Add("listSubnets", "fuji", "pageSize", "10", "")
	f.Add("aggregateSignatures", "fuji", "", "", `{"message":"00","quorumPercentage":1e400}`)
	f.Add("getEvmChainMetrics", "43114", "timeInterval", "hour", "")
	f.Add("getUtxosByAddressesV2", "fuji", "pageSize", "1024", `{"addresses":"P-fuji1a,,b"}`)
	f.Add("listAssetTransactions", "x-chain", "txTypes", "BaseTx,,Nope", "")
	routes := Catalogue()
	f.Fuzz(func(t *testing.T, name, pv, qk, qv, body string) {
		for i := range routes {
			if routes[i].Name == name {
				routes[i].Validate(PathFunc(func(string) string { return pv }), map[string][]string{qk: {qv}}, []byte(body))
			}
		}
	})
}

// TestMatchPath: an operator's publish: pattern matches exactly, a literal
// segment counting over a wildcard; path variants do not match.
func TestMatchPath(t *testing.T) {
	tests := []struct {
		pattern, path string
		literals      int // -1: no match
	}{
		{"/v1/webhooks/{id}", "/v1/webhooks/abc", 2},
		{"/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex", "/v1/chains/43114/nfts/collections/0xa/tokens/1:reindex", 6},
		{"/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex", "/v1/chains/43114/nfts/collections/0xa/tokens/1", -1},
		{"/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex", "/v1/chains/43114/nfts/collections/0xa/tokens/:reindex", -1},
		{"/v1/webhooks/{id}", "/v1/webhooks/abc/", -1},
		{"/v1/webhooks/{id}", "/V1/WEBHOOKS/abc", -1},
		{"/v1/webhooks/{id}", "/v1/webhooks/", -1},
		{"/v1/webhooks", "/v1/webhooks", 2},
	}
	for _, tt := range tests {
		m, ok := MatchPath(tt.pattern, tt.path)
		if n := m.Literals; ok != (tt.literals >= 0) || ok && n != tt.literals {
			t.Errorf("MatchPath(%s, %s) = %d, %v; want %d", tt.pattern, tt.path, n, ok, tt.literals)
		}
	}
}

// TestConflicts: Route.Conflicts says exactly which pairs of catalogued
// patterns ServeMux refuses to hold together.
func TestConflicts(t *testing.T) {
	routes := Catalogue()
	var rest []*Route
	for i := range routes {
		if !routes[i].IsRPC() {
			rest = append(rest, &routes[i])
		}
	}
	extra := []*Route{
		{Method: "GET", Path: "/v1/chains/{chainId}/{x}"},
		{Method: "GET", Path: "/v1/chains/{a}/{b}"},
		{Method: "POST", Path: "/v1/chains/address/{address}"},
	}
	rest = append(rest, extra...)
	var conflicts []string
	for i, a := range rest {
		for _, b := range rest[i+1:] {
			refused := func() (refused bool) {
				defer func() { refused = recover() != nil }()
				mux := http.NewServeMux()
				mux.Handle(a.Pattern(), http.NotFoundHandler())
				mux.Handle(b.Pattern(), http.NotFoundHandler())
				return false
			}()
			if got := a.Conflicts(b); got != refused || b.Conflicts(a) != refused {
				t.Errorf("Conflicts(%s, %s) = %v; ServeMux refuses them: %v", a.Pattern(), b.Pattern(), got, refused)
			}
			if refused && !slices.Contains(extra, a) && !slices.Contains(extra, b) {
				conflicts = append(conflicts, a.Name+" "+b.Name)
			}
		}
	}
	// The one pair of the catalogue: the legacy /v1/chains/address/{address}
	// and the EVM chain's latest blocks and transactions.
	want := []string{"getLatestBlocks getAddressChains", "listLatestTransactions getAddressChains"}
	if !slices.Equal(conflicts, want) {
		t.Fatalf("conflicting catalogue routes %v; want %v", conflicts, want)
	}
}

// TestMount: every REST route is served on its pattern, those ServeMux
// cannot hold beside another included, with its path values; other paths
// get the fallback.
func TestMount(t *testing.T) {
	mux := http.NewServeMux()
	Mount(mux, Catalogue(), func(rt *Route) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, rt.Name+" "+r.PathValue("chainId")+r.PathValue("address"))
		})
	}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "fallback") }))
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/v1/chains/address/0xabc", "getAddressChains 0xabc"},
		{"GET", "/v1/chains/address/blocks", "getLatestBlocks address"},
		{"GET", "/v1/chains/address/transactions", "listLatestTransactions address"},
		{"GET", "/v1/chains/43114/blocks", "getLatestBlocks 43114"},
		{"GET", "/v1/chains/allBlocks", "listAllLatestBlocks "},
		{"GET", "/v1/chains/43114", "getChainInfo 43114"},
		{"POST", "/v1/networks/fuji/blockchains/p-chain/utxos", "getUtxosByAddressesV2 "},
		{"GET", "/v1/networks/fuji/blockchains/p-chain/utxos", "getUtxosByAddresses "},
		{"POST", "/v1/chains/address/0xabc", "fallback"},
		{"GET", "/v1/webhooks", "fallback"},
		{"GET", "/v1/chains/address/0xabc/x", "fallback"},
	} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		if w.Body.String() != tc.want {
			t.Errorf("%s %s = %q; want %q", tc.method, tc.path, w.Body, tc.want)
		}
	}
}

func TestEndpointOf(t *testing.T) {
	for path, want := range map[string]string{
		"/ext/info": "info", "/ext/bc/X": "avm", "/ext/avm": "avm", "/ext/bc/C/rpc": "evm",
		"/ext/bc/2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM": "avm",
		"/ext/bc/P": "platform", "/ext/P": "platform", "/ext/bc/11111111111111111111111111111111LpoYY": "platform",
		"/ext/bc/C/avax": "avax", "/ext/bc/C/avax/": "", "/ext/bc/Q": "", "/ext/admin": "", "/ext/bc/2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByMx": "",
	} {
		if got := EndpointOf(path); got != want {
			t.Errorf("EndpointOf(%q) = %q; want %q", path, got, want)
		}
	}
}

func TestEVMServes(t *testing.T) {
	for m, want := range map[string]bool{
		"eth_call": true, "net_version": true, "web3_clientVersion": true, "eth_sendRawTransaction": true,
		"eth_": false, "eth": false, "ETH_call": false, "Eth_call": false, "debug_traceTransaction": false,
		"trace_block": false, "txpool_content": false, "admin_peers": false, "personal_sign": false, "ethx_call": false,
	} {
		if got := EVMServes(m); got != want {
			t.Errorf("EVMServes(%q) = %v; want %v", m, got, want)
		}
	}
}
