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
