package hostile

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestUsageQueryStrict (issue 35, finding 7): the usage routes read their
// query as strictly as every other route: a malformed percent-encoding, a
// parameter given twice and a ';' separator are 400s in the Data API's
// format at the edge, not silently dropped or overridden.
func TestUsageQueryStrict(t *testing.T) {
	up := NewUpstream(t, nil)
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up), Keys: keysFile(1, false)})
	for _, c := range []struct{ target, msg string }{
		{"/v1/apiLogs?pageToken=%%%", "pageToken must be correctly percent-encoded"},
		{"/v1/apiLogs?pageSize=5&pageSize=100", "pageSize must not be given more than once"},
		{"/v1/apiLogs?pageSize=5;x=1", "query parameters must be separated by '&', not ';'"},
		{"/v1/apiLogs?requestType=data&requestType=rpc", "requestType must not be given more than once"},
		{"/v1/apiUsageMetrics?timeInterval=minute&timeInterval=daily", "timeInterval must not be given more than once"},
		{"/v1/apiUsageMetrics?groupBy=chainId;x=1", "query parameters must be separated by '&', not ';'"},
		{"/v1/apiUsageMetrics?chainId=%zz", "chainId must be correctly percent-encoded"},
		{"/v1/subnetRpcUsageMetrics?groupBy=rpcMethod&groupBy=responseCode", "groupBy must not be given more than once"},
		{"/v1/rpcUsageMetrics?rpcMethod=%E0%A4%A", "rpcMethod must be correctly percent-encoded"},
		{"/v1/primaryNetworkRpcUsageMetrics?network=mainnet&network=fuji", "network must not be given more than once"},
		{"/v1/primaryNetworkRpcUsageMetrics?network=mainnet;groupBy=country", "query parameters must be separated by '&', not ';'"},
	} {
		resp, body := rawGetWithKey(t, e.URL, c.target, "key-0")
		var got restError
		if resp.StatusCode != 400 || json.Unmarshal([]byte(body), &got) != nil || got.StatusCode != 400 || got.Error != "Bad Request" ||
			!slices.Contains(got.Message, c.msg) || resp.Header.Get("X-Avaedge-Source") != "edge" {
			t.Errorf("GET %s = %d %s %s; want 400 at the edge with %q", c.target, resp.StatusCode, resp.Header.Get("X-Avaedge-Source"), body, c.msg)
		}
	}
	// The same routes well asked still answer.
	for _, target := range []string{"/v1/apiLogs?pageSize=5", "/v1/apiUsageMetrics?timeInterval=minute&groupBy=chainId",
		"/v1/subnetRpcUsageMetrics?groupBy=rpcMethod", "/v1/primaryNetworkRpcUsageMetrics?network=mainnet"} {
		if resp, body := rawGetWithKey(t, e.URL, target, "key-0"); resp.StatusCode != 200 {
			t.Errorf("GET %s = %d %s; want 200", target, resp.StatusCode, body)
		}
	}
	if n := up.Calls(); n > 1 { // the node's network id, learned at start
		t.Errorf("the upstream was called %d times; want none beyond the start", n)
	}
}
