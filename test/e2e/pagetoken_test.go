package e2e

import (
	"encoding/json"
	"testing"

	"github.com/avaedge/avaedge/internal/redistest"
)

// TestSDKPagesAcrossReplicas (issue 35): two local replicas sharing one
// Redis (which shares their page-token secret): the SDKs follow a listing
// page by page, each page from the other replica, and find the items one
// page of them all holds, in order. The lists continue by key: the P-Chain's
// transactions, the EVM chains' transactions merged by time, a holder's
// ERC-1155 balances.
func TestSDKPagesAcrossReplicas(t *testing.T) {
	rs := redistest.Start(t)
	env := map[string]string{"AVAEDGE_REDIS": rs.URL(), "AVAEDGE_KEYS_FILE": bulkKeysFile(t)}
	replicas := []*edge{startEdge(t, env), startEdge(t, env)}
	for _, l := range []struct {
		sdk, op, items string
		args           map[string]any
		size           int
	}{
		{"avacloud", "data.primaryNetwork.transactions.listLatest", "transactions", map[string]any{"network": "fuji", "blockchainId": "p-chain"}, 3},
		{"chainkit", "data.evm.transactions.listLatestAllChains", "transactions", map[string]any{}, 3},
		{"chainkit", "data.evm.address.balances.listErc1155", "erc1155TokenBalances", map[string]any{"chainId": "43112", "address": ewoqEVM}, 1},
	} {
		t.Run(l.op, func(t *testing.T) {
			const pages = 4
			call := func(base string, size int, token string) ([]json.RawMessage, string) {
				t.Helper()
				args := map[string]any{"pageSize": size}
				for k, v := range l.args {
					args[k] = v
				}
				if token != "" {
					args["pageToken"] = token
				}
				res := sdkCallsWith(t, l.sdk, base, []sdkCall{{Name: "page", Op: l.op, Args: args}})["page"]
				var page map[string]json.RawMessage
				var items []json.RawMessage
				var next string
				if err := json.Unmarshal(res.Result, &page); err != nil || json.Unmarshal(page[l.items], &items) != nil {
					t.Fatalf("%s: %.500s: no %s", l.op, res.Result, l.items)
				}
				json.Unmarshal(page["nextPageToken"], &next)
				return items, next
			}
			want, _ := call(replicas[0].URL, pages*l.size, "")
			var got []json.RawMessage
			token := ""
			for i := range pages {
				items, next := call(replicas[i%2].URL, l.size, token)
				got = append(got, items...)
				if next == "" {
					break
				}
				token = next
			}
			if len(want) < 2 || len(got) != len(want) {
				t.Fatalf("%d items over %d pages taking turns between replicas; want the %d of one page (at least 2)", len(got), pages, len(want))
			}
			for i := range want {
				if sameListed(got[i]) != sameListed(want[i]) {
					t.Fatalf("item %d taking turns between replicas:\n%s\nwant\n%s", i, got[i], want[i])
				}
			}
		})
	}
}

// sameListed is a listed item without what each replica's own indexer
// stamps on it (when it read an NFT's metadata).
func sameListed(item json.RawMessage) string {
	var v map[string]any
	if json.Unmarshal(item, &v) != nil {
		return string(item)
	}
	if m, ok := v["metadata"].(map[string]any); ok {
		delete(m, "metadataLastUpdatedTimestamp")
	}
	b, _ := json.Marshal(v)
	return string(b)
}
