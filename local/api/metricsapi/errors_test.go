package metricsapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestChains(t *testing.T) {
	e := newEngine(t)
	tests := []struct {
		target string
		want   []uint64
		code   int
	}{
		{"/v2/chains", []uint64{43112, 43113, 43114, 99999}, 200},
		{"/v2/chains?network=mainnet", []uint64{43114, 99999}, 200},
		{"/v2/chains?network=fuji", []uint64{43112, 43113}, 200},
		{"/v2/chains?network=testnet", []uint64{43112, 43113}, 200},
		{"/v2/chains?network=devnet", nil, 400},
		{"/v2/chains?pageToken=abc", nil, 400},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			rec := do(e, "listChains", tt.target)
			if rec.Code != tt.code {
				t.Fatalf("status %d; want %d: %s", rec.Code, tt.code, rec.Body)
			}
			if tt.code != 200 {
				return
			}
			var got struct{ Chains []chainJSON }
			decode(t, rec.Body.Bytes(), &got)
			var ids []uint64
			for _, c := range got.Chains {
				ids = append(ids, c.EVMChainID)
				if c.Network != "mainnet" && c.Network != "testnet" {
					t.Fatalf("network %q", c.Network)
				}
			}
			if len(ids) != len(tt.want) {
				t.Fatalf("chains %v; want %v", ids, tt.want)
			}
			for i := range ids {
				if ids[i] != tt.want[i] {
					t.Fatalf("chains %v; want %v", ids, tt.want)
				}
			}
		})
	}
	rec := do(e, "getChain", "/v2/chains/43113", "chainId", "43113")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"evmChainId":43113`) || !strings.Contains(rec.Body.String(), `"network":"testnet"`) {
		t.Fatalf("getChain: %d %s", rec.Code, rec.Body)
	}
	if rec := do(e, "getChain", "/v2/chains/1", "chainId", "1"); rec.Code != http.StatusNotFound {
		t.Fatalf("getChain unknown: %d", rec.Code)
	}
}

// TestErrors checks statuses and that every message is an array.
func TestErrors(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name, chain, metric, query string
		code                       int
	}{
		{"unknown chain", "1234", "txCount", "", 404},
		{"not a chain", "c-chain", "txCount", "", 404},
		{"unknown metric", "43112", "txcount", "", 400},
		{"unknown interval", "43112", "txCount", "timeInterval=year", 400},
		{"avg hourly", "43112", "avgTps", "timeInterval=hour", 400},
		{"cumulative weekly", "total", "cumulativeTxCount", "timeInterval=week", 400},
		{"max monthly", "43112", "maxGps", "timeInterval=month", 400},
		{"pageSize 0", "43112", "txCount", "pageSize=0", 400},
		{"pageSize 2161", "43112", "txCount", "pageSize=2161", 400},
		{"pageSize text", "43112", "txCount", "pageSize=ten", 400},
		{"negative start", "43112", "txCount", "startTimestamp=-1", 400},
		{"start after end", "43112", "txCount", "startTimestamp=10&endTimestamp=5", 400},
		{"bad token", "43112", "txCount", "pageToken=00000000-0000-0000-0000-000000000000", 400},
		{"pageSize 2160", "43112", "txCount", "pageSize=2160", 200},
		{"contracts hourly", "43112", "contracts", "timeInterval=hour", 400},
		{"deployers daily", "43112", "deployers", "timeInterval=day", 200},
		{"feesPaid weekly", "43112", "feesPaid", "timeInterval=week", 400},
		{"idle chain", "99999", "txCount", "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(w.e, "getEvmChainMetrics", "/v2/x?"+tt.query, "chainId", tt.chain, "metric", tt.metric)
			if rec.Code != tt.code {
				t.Fatalf("status %d; want %d: %s", rec.Code, tt.code, rec.Body)
			}
			if tt.code == 200 {
				return
			}
			var body struct {
				Message    []string `json:"message"`
				StatusCode int      `json:"statusCode"`
				Error      string   `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || len(body.Message) == 0 || body.StatusCode != tt.code || body.Error == "" {
				t.Fatalf("body %s (%v)", rec.Body, err)
			}
		})
	}
	if rec := do(w.e, "getEvmChainMetrics", "/v2/x", "chainId", "99999", "metric", "txCount"); rec.Body.String() != `{"results":[]}` {
		t.Fatalf("idle chain: %s", rec.Body)
	}
}

func TestApplyRejects(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	apply(t, e, []*Block{{ChainID: 43112, Number: 10, Timestamp: 1000}})
	tests := []struct {
		name string
		b    *Block
		want error
	}{
		{"unknown chain", &Block{ChainID: 5, Number: 11, Timestamp: 1000}, ErrUnknownChain},
		{"same number", &Block{ChainID: 43112, Number: 10, Timestamp: 1001}, ErrOutOfOrder},
		{"lower number", &Block{ChainID: 43112, Number: 9, Timestamp: 1001}, ErrOutOfOrder},
		{"earlier time", &Block{ChainID: 43112, Number: 11, Timestamp: 999}, ErrOutOfOrder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := e.Apply(ctx, tt.b); !errors.Is(err, tt.want) {
				t.Fatalf("Apply = %v; want %v", err, tt.want)
			}
		})
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := e.Apply(cctx, &Block{ChainID: 43112, Number: 11, Timestamp: 1000}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Apply with a cancelled context = %v", err)
	}
	if err := e.Apply(ctx, &Block{ChainID: 43112, Number: 11, Timestamp: 1000}); err != nil {
		t.Fatalf("Apply of a block with the same time = %v", err)
	}
}

func TestNewRejects(t *testing.T) {
	for name, chains := range map[string][]Chain{
		"bad network": {{EVMChainID: 1, Network: "devnet"}},
		"twice":       {{EVMChainID: 1, Network: "mainnet"}, {EVMChainID: 1, Network: "testnet"}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := New(Options{Chains: chains}); err == nil {
				t.Fatal("New = nil error")
			}
		})
	}
}

// FuzzMetricsQuery feeds arbitrary query strings to the metrics handler:
// it must answer 200 or 400 with a JSON body, never panic.
func FuzzMetricsQuery(f *testing.F) {
	e := newEngine(f)
	apply(f, e, genChain(43112, 50, time.Date(2026, 1, 28, 0, 0, 0, 0, time.UTC), 7))
	f.Add("timeInterval=hour&pageSize=3", "txCount")
	f.Add("startTimestamp=99999999999&endTimestamp=1", "avgGps")
	f.Add("pageToken=x&pageSize=-1", "nope")
	f.Fuzz(func(t *testing.T, query, metric string) {
		r := httptest.NewRequest(http.MethodGet, "/v2/x", nil)
		r.URL.RawQuery = query
		r.SetPathValue("chainId", "43112")
		r.SetPathValue("metric", metric)
		rec := httptest.NewRecorder()
		validating(e, "getEvmChainMetrics").ServeHTTP(rec, r)
		if rec.Code != 200 && rec.Code != 400 {
			t.Fatalf("status %d", rec.Code)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("invalid JSON %q", rec.Body)
		}
	})
}
