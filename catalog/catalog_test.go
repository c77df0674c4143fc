package catalog

import (
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
	// 18 primary Data API routes + /v1/chains, /v1/chains/{chainId}, listValidators,
	// getSubnetById, listL1Validators, the P/X block and transaction routes (4) and getBlock,
	// getTransaction, listErc20Balances; 4 metrics routes; 13 info + 11 avm
	// methods, the EVM endpoint and its 5 priced methods.
	if data != 30 || metrics != 4 || node != 30 {
		t.Fatalf("catalogue has %d data, %d metrics, %d node routes; want 30, 4, 30", data, metrics, node)
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
	routes := Catalogue()
	f.Fuzz(func(t *testing.T, name, pv, qk, qv, body string) {
		for i := range routes {
			if routes[i].Name == name {
				routes[i].Validate(PathFunc(func(string) string { return pv }), map[string][]string{qk: {qv}}, []byte(body))
			}
		}
	})
}

// TestPublished: only GETs of the real services' published read routes are
// forwarded, at their published cost; account-scoped routes, writes and path
// variants are not.
func TestPublished(t *testing.T) {
	tests := []struct {
		method, path string
		want         int64 // 0: not published
	}{
		{"GET", "/v1/networks/fuji/blockchains/x-chain/assets/abc", 100},
		{"GET", "/v1/networks/fuji/blockchains/p-chain/transactions:listStaking", 100},
		{"GET", "/v1/chains/allBlocks", 1},
		{"GET", "/v1/chains/43114/blocks/12", 10},
		{"GET", "/v2/icm/summary", 7},
		{"POST", "/v1/chains/43114/nfts/collections/0xa/tokens/1:reindex", 0},
		{"GET", "/v2/lookingGlass/compositeQuery", 0},
		{"POST", "/v2/lookingGlass/compositeQuery", 0},
		{"GET", "/v1/unknown/route", 0},
		{"GET", "/v1/webhooks", 0},
		{"DELETE", "/v1/webhooks/abc", 0},
		{"GET", "/v1/webhooks:getSharedSecret", 0},
		{"GET", "/v1/apiLogs", 0},
		{"GET", "/v1/apiUsageMetrics", 0},
		{"GET", "/v1/rpcUsageMetrics", 0},
		{"GET", "/v1/operations/abc", 0},
		{"GET", "/v1/chains/allBlocks/", 0},
		{"GET", "/V1/CHAINS/ALLBLOCKS", 0},
		{"GET", "/v1/chains//blocks/12", 0},
	}
	for _, tt := range tests {
		got, ok := Published(tt.method, tt.path, 7)
		if ok != (tt.want != 0) || got.Cost != tt.want {
			t.Errorf("Published(%s %s) = %d, %v; want %d", tt.method, tt.path, got.Cost, ok, tt.want)
		}
	}
	// A wildcard holds one segment: an encoded slash is refused, and the
	// upstream path is built from the pattern.
	m, ok := Published("GET", "/v2/chains/43114%2Fcontracts%2F0xabc/contracts/0xdef/balances", 7)
	if !ok || m.Pattern != "/v2/chains/{chainId}/contracts/{address}/balances" || strings.Join(m.Problems(m.Pattern), ";") != "chainId must not contain '/'" {
		t.Fatalf("encoded slash: %+v %v problems %q", m, ok, m.Problems(m.Pattern))
	}
	m, ok = Published("GET", "/v1/chains/%34%33114/addresses/0x%61bc/balances:listErc20", 7)
	if !ok || len(m.Problems(m.Pattern)) != 0 || m.Path(m.Pattern) != "/v1/chains/43114/addresses/0xabc/balances:listErc20" {
		t.Fatalf("verb route: %+v %v -> %q", m, ok, m.Path(m.Pattern))
	}
}

func TestEndpointOf(t *testing.T) {
	for path, want := range map[string]string{
		"/ext/info": "info", "/ext/bc/X": "avm", "/ext/avm": "avm", "/ext/bc/C/rpc": "evm",
		"/ext/bc/2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM": "avm",
		"/ext/bc/P": "", "/ext/bc/C/avax": "", "/ext/admin": "", "/ext/bc/2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByMx": "",
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
