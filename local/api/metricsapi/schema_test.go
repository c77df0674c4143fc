package metricsapi

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/avaedge/avaedge/internal/spectest"
)

// spec is the real Metrics API's OpenAPI document, popsicle.json.
var spec = spectest.MetricsAPI(nil)

func schema(t *testing.T, name string) *jsonschema.Schema { return spec.Schema(t, name) }

func validate(t *testing.T, name string, body []byte) {
	t.Helper()
	if err := spec.Validate(t, name, body); err != nil {
		t.Fatalf("%s: %v\nbody: %.1000s", name, err, body)
	}
}

// TestSchemas validates answers, errors included, against popsicle.json.
func TestSchemas(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name, op, target, schema string
		pv                       []string
		code                     int
	}{
		{"metrics page with token", "getEvmChainMetrics", "/x?pageSize=3", "MetricsApiResponse", []string{"chainId", "43112", "metric", "txCount"}, 200},
		{"metrics huge wei", "getEvmChainMetrics", "/x?timeInterval=day", "MetricsApiResponse", []string{"chainId", "total", "metric", "feesPaid"}, 200},
		{"metrics floats", "getEvmChainMetrics", "/x?pageSize=2160", "MetricsApiResponse", []string{"chainId", "testnet", "metric", "avgGasPrice"}, 200},
		{"metrics rates", "getEvmChainMetrics", "/x?pageSize=2160", "MetricsApiResponse", []string{"chainId", "43114", "metric", "maxGps"}, 200},
		{"metrics cumulative", "getEvmChainMetrics", "/x", "MetricsApiResponse", []string{"chainId", "mainnet", "metric", "cumulativeAddresses"}, 200},
		{"metrics empty", "getEvmChainMetrics", "/x", "MetricsApiResponse", []string{"chainId", "99999", "metric", "txCount"}, 200},
		{"metrics 400", "getEvmChainMetrics", "/x?pageSize=0", "BadRequest", []string{"chainId", "43112", "metric", "txCount"}, 400},
		{"metrics 404", "getEvmChainMetrics", "/x", "NotFound", []string{"chainId", "1", "metric", "txCount"}, 404},
		{"chains", "listChains", "/x", "ListChainsResponse", nil, 200},
		{"chains fuji", "listChains", "/x?network=fuji", "ListChainsResponse", nil, 200},
		{"chains 400", "listChains", "/x?network=x", "BadRequest", nil, 400},
		{"chain", "getChain", "/x", "Chain", []string{"chainId", "43113"}, 200},
		{"chain 404", "getChain", "/x", "NotFound", []string{"chainId", "5"}, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(w.e, tt.op, tt.target, tt.pv...)
			if rec.Code != tt.code {
				t.Fatalf("status %d; want %d: %s", rec.Code, tt.code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Fatalf("Content-Type %q", ct)
			}
			validate(t, tt.schema, rec.Body.Bytes())
		})
	}
	// The validator does reject what the SDK would.
	for _, bad := range []string{`{"results":[{"value":"1","timestamp":0}]}`, `{"results":[{"value":1}]}`, `{}`} {
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(bad)))
		if schema(t, "MetricsApiResponse").Validate(inst) == nil {
			t.Fatalf("schema accepts %s", bad)
		}
	}
	// The wei sums above 2^64 really are in the answer, as exact integers.
	rec := do(w.e, "getEvmChainMetrics", "/x?timeInterval=day", "chainId", "total", "metric", "feesPaid")
	var p page
	decode(t, rec.Body.Bytes(), &p)
	if rec.Code != http.StatusOK || len(p.Results) == 0 || len(p.Results[0].Value.String()) < 22 {
		t.Fatalf("feesPaid: %s", rec.Body)
	}
}
