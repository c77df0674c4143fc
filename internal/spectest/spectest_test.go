package spectest

import (
	"sync"
	"testing"
)

// TestDocuments checks that both embedded documents compile and that their
// schemas tell a valid answer from an invalid one.
func TestDocuments(t *testing.T) {
	tests := []struct {
		name   string
		spec   *Spec
		schema string
		body   string
		valid  bool
	}{
		{"metrics page", MetricsAPI(nil), "MetricsApiResponse", `{"results":[{"value":1.5,"timestamp":1700000000}],"nextPageToken":"t"}`, true},
		{"metrics without results", MetricsAPI(nil), "MetricsApiResponse", `{"nextPageToken":"t"}`, false},
		{"metrics value as string", MetricsAPI(nil), "MetricsApiResponse", `{"results":[{"value":"1","timestamp":1700000000}]}`, false},
		{"chain status", DataAPI(nil), "ChainStatus", `"OK"`, true},
		{"chain status lowercase", DataAPI(nil), "ChainStatus", `"ok"`, false},
		{"chain info missing fields", DataAPI(nil), "ChainInfo", `{"chainId":"43114"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.Validate(t, tc.schema, []byte(tc.body))
			if (err == nil) != tc.valid {
				t.Errorf("Validate(%s, %s) = %v; want valid %v", tc.schema, tc.body, err, tc.valid)
			}
		})
	}
}

// TestConcurrentSchema compiles schemas of one Spec from several goroutines
// (run with -race).
func TestConcurrentSchema(t *testing.T) {
	s := DataAPI(nil)
	var wg sync.WaitGroup
	for _, name := range []string{"ChainInfo", "ChainStatus", "ListChainsResponse", "VmName"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Schema(t, name)
		}()
	}
	wg.Wait()
}

// TestOperations reads both documents' operations with their parameters,
// $refs resolved.
func TestOperations(t *testing.T) {
	ops, err := DataAPI(nil).Operations()
	if err != nil {
		t.Fatal(err)
	}
	var utxos *Operation
	for i := range ops {
		if ops[i].ID == "getUtxosByAddressesV2" {
			utxos = &ops[i]
		}
	}
	if len(ops) < 80 || utxos == nil || utxos.Method != "POST" || utxos.Path != "/v1/networks/{network}/blockchains/{blockchainId}/utxos" {
		t.Fatalf("%d operations; getUtxosByAddressesV2 = %+v", len(ops), utxos)
	}
	params := map[string]Parameter{}
	for _, p := range utxos.Params {
		params[p.In+" "+p.Name] = p
	}
	if p := params["query pageSize"]; p.Type != "integer" || *p.Minimum != 1 || *p.Maximum != 1024 || p.Default != "10" || p.Required {
		t.Errorf("pageSize = %+v", p)
	}
	if p := params["path blockchainId"]; len(p.Enum) != 8 || p.Enum[5] != "p-chain" || !p.Required || p.Example != `"p-chain"` {
		t.Errorf("blockchainId (a $ref) = %+v", p)
	}
	if p := params["body addresses"]; p.Type != "string" || !p.Required {
		t.Errorf("body addresses = %+v", p)
	}
	metrics, err := MetricsAPI(nil).Operations()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range metrics {
		if op.ID == "getEvmChainMetrics" {
			for _, p := range op.Params {
				if p.Name == "metric" && (len(p.Enum) != 17 || p.In != "path") {
					t.Errorf("metric = %+v", p)
				}
			}
			return
		}
	}
	t.Fatal("no getEvmChainMetrics in popsicle.json")
}
