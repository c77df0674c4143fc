package dataapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/spectest"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/devnet"
)

var patterns = map[string]string{
	"listSubnets":                      "GET /v1/networks/{network}/subnets",
	"getSubnetById":                    "GET /v1/networks/{network}/subnets/{subnetId}",
	"getUtxosByAddresses":              "GET /v1/networks/{network}/blockchains/{blockchainId}/utxos",
	"listPendingPrimaryNetworkRewards": "GET /v1/networks/{network}/rewards:listPending",
	"getSingleValidatorDetails":        "GET /v1/networks/{network}/validators/{nodeId}",
	"listValidators":                   "GET /v1/networks/{network}/validators",
	"listDelegators":                   "GET /v1/networks/{network}/delegators",
	"getVertexByHeight":                "GET /v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight",
	"listPrimaryNetworkBlocksByNodeId": "GET /v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks",
	"getChainIdsForAddresses":          "GET /v1/networks/{network}/addresses:listChainIds",
}

var clock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

type fixture struct {
	w   *devnet.World
	mux *http.ServeMux
}

var (
	fixOnce sync.Once
	fix     *fixture
)

func newFixture(t testing.TB) *fixture {
	w, err := devnet.New(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	hs := Handlers(w, func() time.Time { return clock })
	// The handlers take validated values: mount them through the catalogue,
	// as the local world does without the edge.
	mux := catalog.NewMux(catalog.Catalogue(), hs)
	for op := range patterns {
		if _, ok := hs[op]; !ok {
			t.Fatalf("no handler for %s", op)
		}
	}
	return &fixture{w: w, mux: mux}
}

func shared(t testing.TB) *fixture {
	fixOnce.Do(func() { fix = newFixture(t) })
	return fix
}

func (f *fixture) get(t testing.TB, path string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	f.mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.Bytes()
}

func (f *fixture) getOK(t testing.TB, path string) map[string]any {
	t.Helper()
	code, body := f.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %s; want 200", path, code, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

var spec = spectest.DataAPI(fixExamples)

func schema(t *testing.T, name string) *jsonschema.Schema { return spec.Schema(t, name) }

func validate(t *testing.T, name string, body []byte) {
	t.Helper()
	if err := spec.Validate(t, name, body); err != nil {
		t.Fatalf("%s: %v\nbody: %.2000s", name, err, body)
	}
	if bytes.Contains(body, []byte(":null")) && name != "Subnet" && name != "ListSubnetsResponse" {
		t.Fatalf("%s: answer holds a null: %.500s", name, body)
	}
}

// fixExamples drops the few "examples" annotations of the spec that are
// objects instead of arrays (OpenAPI 3.0 style), which the 2020-12
// metaschema rejects; they have no bearing on validation.
func fixExamples(v any) {
	switch x := v.(type) {
	case map[string]any:
		if ex, ok := x["examples"].(map[string]any); ok && ex != nil {
			_, isProp := x["examples"].(map[string]any)["type"]
			if !isProp {
				delete(x, "examples")
			}
		}
		for _, c := range x {
			fixExamples(c)
		}
	case []any:
		for _, c := range x {
			fixExamples(c)
		}
	}
}

// cases returns one request per route, with the response schema and the
// list that must not be empty.
func cases(f *fixture, network string) []struct{ name, path, schema, list string } {
	n, _ := f.w.Network(network)
	ewoqP := avax.FormatAddress("P", n.HRP, f.w.Ewoq())
	ewoqX := avax.FormatAddress("X", n.HRP, f.w.Ewoq())
	node := f.w.Validations()[0].NodeID.String()
	subnet := f.w.Subnets()[1].ID.String()
	base := "/v1/networks/" + network
	return []struct{ name, path, schema, list string }{
		{"listSubnets", base + "/subnets", "ListSubnetsResponse", "subnets"},
		{"getSubnetById", base + "/subnets/" + subnet, "Subnet", "blockchains"},
		{"utxos P", base + "/blockchains/p-chain/utxos?includeSpent=true&addresses=" + ewoqP, "ListPChainUtxosResponse", "utxos"},
		{"utxos X", base + "/blockchains/x-chain/utxos?includeSpent=true&addresses=" + ewoqX, "ListUtxosResponse", "utxos"},
		{"utxos X id", base + "/blockchains/" + n.XChain.String() + "/utxos?addresses=" + ewoqX[2:], "ListUtxosResponse", "utxos"},
		{"utxos C", base + "/blockchains/c-chain/utxos?addresses=" + ewoqX, "ListUtxosResponse", ""},
		{"rewards", base + "/rewards:listPending?pageSize=100&nodeIds=" + node, "ListPendingRewardsResponse", "pendingRewards"},
		{"validator", base + "/validators/" + node + "?pageSize=100", "ListValidatorDetailsResponse", "validators"},
		{"validators", base + "/validators?pageSize=100", "ListValidatorDetailsResponse", "validators"},
		{"delegators", base + "/delegators?pageSize=100", "ListDelegatorDetailsResponse", "delegators"},
		{"vertices", base + "/blockchains/x-chain/vertices:listByHeight?vertexHeight=3", "ListXChainVerticesResponse", "vertices"},
		{"blocks P", base + "/blockchains/p-chain/nodes/" + node + "/blocks", "ListPrimaryNetworkBlocksResponse", "blocks"},
		{"blocks X", base + "/blockchains/x-chain/nodes/" + node + "/blocks", "ListPrimaryNetworkBlocksResponse", "blocks"},
		{"chain ids", base + "/addresses:listChainIds?addresses=" + ewoqP + "," + ewoqX, "ChainAddressChainIdMapListResponse", "addresses"},
	}
}

func TestSchemas(t *testing.T) {
	f := shared(t)
	for _, network := range []string{"mainnet", "fuji", "testnet"} {
		for _, c := range cases(f, network) {
			t.Run(network+"/"+c.name, func(t *testing.T) {
				code, body := f.get(t, c.path)
				if code != http.StatusOK {
					t.Fatalf("GET %s = %d %s", c.path, code, body)
				}
				validate(t, c.schema, body)
				if c.list != "" {
					var m map[string]any
					json.Unmarshal(body, &m)
					if l, _ := m[c.list].([]any); len(l) == 0 {
						t.Fatalf("%s is empty", c.list)
					}
				}
			})
		}
	}
}

// TestEveryStatusValid validates one validator and one delegator of every
// status (each one is a different branch of the oneOf).
func TestEveryStatusValid(t *testing.T) {
	f := shared(t)
	for _, s := range []string{"active", "pending", "completed", "removed"} {
		code, body := f.get(t, "/v1/networks/fuji/validators?validationStatus="+s)
		if code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		validate(t, "ListValidatorDetailsResponse", body)
		var r listValidatorsResponse
		json.Unmarshal(body, &r)
		if len(r.Validators) == 0 {
			t.Errorf("no %s validators", s)
		}
		for _, v := range r.Validators {
			if got := v.(map[string]any)["validationStatus"]; got != s {
				t.Errorf("validationStatus %v in a %s listing", got, s)
			}
		}
	}
	for _, s := range []string{"active", "pending", "completed"} {
		m := f.getOK(t, "/v1/networks/fuji/delegators?delegationStatus="+s)
		ds := m["delegators"].([]any)
		if len(ds) == 0 {
			t.Errorf("no %s delegators", s)
		}
		for _, d := range ds {
			if got := d.(map[string]any)["delegationStatus"]; got != s {
				t.Errorf("delegationStatus %v in a %s listing", got, s)
			}
		}
	}
}

func TestDeterministicAnswers(t *testing.T) {
	a, b := newFixture(t), newFixture(t)
	for _, c := range cases(a, "mainnet") {
		_, x := a.get(t, c.path)
		_, y := b.get(t, c.path)
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two worlds from one seed", c.name)
		}
	}
}

// walk follows nextPageToken from path and returns every item's JSON.
func walk(t *testing.T, f *fixture, path, list string) []string {
	t.Helper()
	var items []string
	next := ""
	for i := 0; ; i++ {
		p := path
		if next != "" {
			p += "&pageToken=" + url.QueryEscape(next)
		}
		m := f.getOK(t, p)
		for _, it := range m[list].([]any) {
			b, _ := json.Marshal(it)
			items = append(items, string(b))
		}
		tok, ok := m["nextPageToken"].(string)
		if !ok {
			return items
		}
		if tok == "" || i > 1000 {
			t.Fatalf("bad nextPageToken %q", tok)
		}
		next = tok
	}
}

func TestPaginationWalk(t *testing.T) {
	f := shared(t)
	n, _ := f.w.Network("fuji")
	ewoqP := avax.FormatAddress("P", n.HRP, f.w.Ewoq())
	node := f.w.Validations()[0].NodeID.String()
	var all []string
	for _, a := range f.w.Addresses() {
		all = append(all, avax.FormatBech32(n.HRP, a))
	}
	addrs := strings.Join(all, ",")
	base := "/v1/networks/fuji"
	lists := []struct{ path, list string }{
		{base + "/subnets?", "subnets"},
		{base + "/blockchains/p-chain/utxos?includeSpent=true&addresses=" + ewoqP, "utxos"},
		{base + "/blockchains/x-chain/utxos?sortBy=amount&addresses=" + addrs, "utxos"},
		{base + "/rewards:listPending?addresses=" + addrs, "pendingRewards"},
		{base + "/validators/" + node + "?sortOrder=asc", "validators"},
		{base + "/validators?sortBy=uptimePerformance", "validators"},
		{base + "/delegators?sortOrder=asc", "delegators"},
		{base + "/blockchains/x-chain/vertices:listByHeight?vertexHeight=4", "vertices"},
		{base + "/blockchains/p-chain/nodes/" + node + "/blocks?", "blocks"},
		{base + "/blockchains/x-chain/nodes/" + node + "/blocks?", "blocks"},
	}
	for _, l := range lists {
		t.Run(l.path, func(t *testing.T) {
			full := walk(t, f, l.path+"&pageSize=100", l.list)
			for _, size := range []string{"1", "3"} {
				got := walk(t, f, l.path+"&pageSize="+size, l.list)
				if !slices.Equal(got, full) {
					t.Fatalf("pageSize %s: walked %d items; want the %d of one page, in order", size, len(got), len(full))
				}
				seen := map[string]bool{}
				for _, it := range got {
					if seen[it] {
						t.Fatalf("item visited twice: %s", it)
					}
					seen[it] = true
				}
			}
			if len(full) == 0 {
				t.Fatal("empty list")
			}
		})
	}
}

func TestFilters(t *testing.T) {
	f := shared(t)
	base := "/v1/networks/mainnet"
	n, _ := f.w.Network("mainnet")
	ewoqX := avax.FormatAddress("X", n.HRP, f.w.Ewoq())
	count := func(path, list string) int { return len(walk(t, f, path, list)) }

	t.Run("includeSpent", func(t *testing.T) {
		unspent := count(base+"/blockchains/x-chain/utxos?pageSize=100&addresses="+ewoqX, "utxos")
		all := count(base+"/blockchains/x-chain/utxos?pageSize=100&includeSpent=true&addresses="+ewoqX, "utxos")
		if all <= unspent || unspent == 0 {
			t.Fatalf("unspent %d, with spent %d", unspent, all)
		}
		var sum uint64
		for _, it := range walk(t, f, base+"/blockchains/x-chain/utxos?pageSize=100&addresses="+ewoqX, "utxos") {
			var u xUTXO
			json.Unmarshal([]byte(it), &u)
			if u.ConsumingTxHash != "" {
				t.Fatal("spent UTXO without includeSpent")
			}
			var a uint64
			for _, c := range u.Asset.Amount {
				a = a*10 + uint64(c-'0')
			}
			sum += a
		}
		if want := f.w.Balance(devnet.XChainID, f.w.Ewoq(), devnet.AVAXAssetID); sum != want {
			t.Fatalf("UTXO sum %d; balance %d", sum, want)
		}
	})
	t.Run("minUtxoAmount and sortBy amount", func(t *testing.T) {
		items := walk(t, f, base+"/blockchains/x-chain/utxos?pageSize=100&sortBy=amount&sortOrder=asc&minUtxoAmount=1000000000000&addresses="+ewoqX, "utxos")
		var prev string
		for _, it := range items {
			var u xUTXO
			json.Unmarshal([]byte(it), &u)
			if len(u.Asset.Amount) < 13 {
				t.Fatalf("amount %s below minUtxoAmount", u.Asset.Amount)
			}
			if prev != "" && (len(u.Asset.Amount) < len(prev) || (len(u.Asset.Amount) == len(prev) && u.Asset.Amount < prev)) {
				t.Fatalf("not ascending: %s after %s", u.Asset.Amount, prev)
			}
			prev = u.Asset.Amount
		}
	})
	t.Run("assetId", func(t *testing.T) {
		if got := count(base+"/blockchains/x-chain/utxos?pageSize=100&assetId="+n.AVAX.String()+"&addresses="+ewoqX, "utxos"); got == 0 {
			t.Fatal("no AVAX UTXOs")
		}
		if got := count(base+"/blockchains/x-chain/utxos?pageSize=100&assetId="+devnet.CChainID.String()+"&addresses="+ewoqX, "utxos"); got != 0 {
			t.Fatalf("%d UTXOs of an unknown asset", got)
		}
	})
	t.Run("sortOrder reverses", func(t *testing.T) {
		asc := walk(t, f, base+"/delegators?pageSize=100&sortOrder=asc", "delegators")
		desc := walk(t, f, base+"/delegators?pageSize=100&sortOrder=desc", "delegators")
		slices.Reverse(desc)
		if !slices.Equal(asc, desc) {
			t.Fatal("desc is not asc reversed")
		}
	})
	t.Run("validators subnetId and fee", func(t *testing.T) {
		sub := f.w.Subnets()[0].ID.String()
		items := walk(t, f, base+"/validators?pageSize=100&subnetId="+sub, "validators")
		if len(items) < 3 {
			t.Fatalf("%d subnet validators", len(items))
		}
		for _, it := range items {
			if !strings.Contains(it, sub) || strings.Contains(it, "delegationFee") {
				t.Fatalf("foreign or fee-carrying item: %s", it)
			}
		}
		if got := count(base+"/validators?pageSize=100&subnetId="+sub+"&minFeePercentage=2", "validators"); got != 0 {
			t.Fatalf("fee filter kept %d subnet validations", got)
		}
		prim := count(base+"/validators?pageSize=100&subnetId=11111111111111111111111111111111LpoYY", "validators")
		all := count(base+"/validators?pageSize=100", "validators")
		if prim == 0 || prim+len(items) != all {
			t.Fatalf("primary %d + subnet %d != all %d", prim, len(items), all)
		}
	})
	t.Run("validators nodeIds substring and ranges", func(t *testing.T) {
		node := f.w.Validations()[0].NodeID.String()
		items := walk(t, f, base+"/validators?pageSize=100&nodeIds="+node[7:20], "validators")
		for _, it := range items {
			if !strings.Contains(it, node) {
				t.Fatalf("item of another node: %s", it)
			}
		}
		if len(items) == 0 {
			t.Fatal("substring matched nothing")
		}
		capped := walk(t, f, base+"/validators?pageSize=100&minDelegationCapacity=1&sortBy=delegationCapacity&sortOrder=asc", "validators")
		var prev float64
		for _, it := range capped {
			var v activeValidator
			json.Unmarshal([]byte(it), &v)
			if v.ValidationStatus != "active" || v.DelegationCapacity == "" {
				t.Fatalf("capacity filter kept %s", it)
			}
			var c float64
			json.Unmarshal([]byte(v.DelegationCapacity), &c)
			if c < prev {
				t.Fatal("not sorted by capacity")
			}
			prev = c
		}
		if len(capped) == 0 {
			t.Fatal("no validator with capacity")
		}
		if got := count(base+"/validators?pageSize=100&maxTimeRemaining=0&validationStatus=active", "validators"); got != 0 {
			t.Fatalf("%d active validators with no time remaining", got)
		}
		if got := count(base+"/validators?pageSize=100&minUptimePerformance=100", "validators"); got != 0 {
			t.Fatalf("%d validators at 100%% uptime", got)
		}
	})
	t.Run("delegators by node and reward address", func(t *testing.T) {
		d := f.w.Delegations()[0]
		items := walk(t, f, base+"/delegators?pageSize=100&nodeIds="+d.NodeID.String(), "delegators")
		for _, it := range items {
			if !strings.Contains(it, d.NodeID.String()) {
				t.Fatalf("foreign delegator %s", it)
			}
		}
		addr := avax.FormatAddress("P", n.HRP, d.RewardOwner[0])
		items = walk(t, f, base+"/delegators?pageSize=100&rewardAddresses="+addr, "delegators")
		if len(items) == 0 {
			t.Fatal("no delegator for its own reward address")
		}
		for _, it := range items {
			if !strings.Contains(it, addr) {
				t.Fatalf("foreign delegator %s", it)
			}
		}
	})
	t.Run("blocks time window", func(t *testing.T) {
		node := f.w.Validations()[0].NodeID.String()
		all := walk(t, f, base+"/blockchains/p-chain/nodes/"+node+"/blocks?pageSize=100", "blocks")
		if len(all) < 3 {
			t.Fatalf("%d blocks", len(all))
		}
		var mid primaryBlock
		json.Unmarshal([]byte(all[len(all)/2]), &mid)
		ts := mid.BlockTimestamp
		after := walk(t, f, base+"/blockchains/p-chain/nodes/"+node+"/blocks?pageSize=100&startTimestamp="+itoa(ts), "blocks")
		before := walk(t, f, base+"/blockchains/p-chain/nodes/"+node+"/blocks?pageSize=100&endTimestamp="+itoa(ts-1), "blocks")
		if len(after)+len(before) != len(all) || len(after) == 0 || len(before) == 0 {
			t.Fatalf("after %d + before %d != %d", len(after), len(before), len(all))
		}
		for _, it := range all {
			var b primaryBlock
			json.Unmarshal([]byte(it), &b)
			if b.ProposerDetails == nil || b.ProposerDetails.ProposerNodeID != node {
				t.Fatalf("block of another proposer: %s", it)
			}
		}
	})
	t.Run("pending rewards by address", func(t *testing.T) {
		addr := avax.FormatBech32(n.HRP, f.w.PendingRewards()[0].Addresses[0])
		items := walk(t, f, base+"/rewards:listPending?pageSize=100&addresses="+addr, "pendingRewards")
		if len(items) == 0 {
			t.Fatal("no rewards")
		}
		for _, it := range items {
			if !strings.Contains(it, addr) {
				t.Fatalf("foreign reward %s", it)
			}
		}
	})
	t.Run("chain ids", func(t *testing.T) {
		m := f.getOK(t, base+"/addresses:listChainIds?addresses="+ewoqX)
		got := m["addresses"].([]any)[0].(map[string]any)["blockchainIds"].([]any)
		if len(got) != 3 || got[1] != n.XChain.String() {
			t.Fatalf("blockchainIds = %v", got)
		}
	})
}

func itoa(v int64) string { b, _ := json.Marshal(v); return string(b) }

func TestErrors(t *testing.T) {
	f := shared(t)
	node := f.w.Validations()[0].NodeID.String()
	tests := []struct {
		name, path string
		code       int
		msg        string
	}{
		{"bad network", "/v1/networks/devnet/subnets", 400, "network must be one of"},
		{"bad token", "/v1/networks/fuji/subnets?pageToken=nope", 400, "Invalid page token"},
		{"foreign token", "/v1/networks/fuji/delegators?pageToken=00000000-0000-0000-0000-000000000000", 400, "Invalid page token"},
		{"page size", "/v1/networks/fuji/delegators?pageSize=101", 400, "pageSize must not be greater than 100"},
		{"page size text", "/v1/networks/fuji/delegators?pageSize=x", 400, "pageSize must be an integer"},
		{"sort order", "/v1/networks/fuji/delegators?sortOrder=up", 400, "sortOrder must be one of"},
		{"status", "/v1/networks/fuji/validators?validationStatus=done", 400, "validationStatus must be one of"},
		{"unknown node", "/v1/networks/fuji/validators/NodeID-111111111111111111116DBWJs", 404, "not found"},
		{"bad node", "/v1/networks/fuji/validators/NodeID-xyz", 400, "nodeId"},
		{"unknown node blocks", "/v1/networks/fuji/blockchains/p-chain/nodes/NodeID-111111111111111111116DBWJs/blocks", 404, "not found"},
		{"vertex height missing", "/v1/networks/fuji/blockchains/x-chain/vertices:listByHeight", 400, "vertexHeight should not be empty"},
		{"vertex height negative", "/v1/networks/fuji/blockchains/x-chain/vertices:listByHeight?vertexHeight=-1", 400, "vertexHeight"},
		{"vertex on P", "/v1/networks/fuji/blockchains/p-chain/vertices:listByHeight?vertexHeight=1", 400, "blockchainId"},
		{"utxo chain", "/v1/networks/fuji/blockchains/q-chain/utxos", 400, "blockchainId"},
		{"bad address", "/v1/networks/fuji/blockchains/p-chain/utxos?addresses=P-fuji1xyz", 400, "invalid address"},
		{"includeSpent", "/v1/networks/fuji/blockchains/p-chain/utxos?includeSpent=yes", 400, "includeSpent"},
		{"minUtxoAmount", "/v1/networks/fuji/blockchains/p-chain/utxos?minUtxoAmount=-1", 400, "minUtxoAmount"},
		{"rewards need a filter", "/v1/networks/fuji/rewards:listPending", 400, "at least one of addresses, nodeIds"},
		{"chain ids need addresses", "/v1/networks/fuji/addresses:listChainIds", 400, "addresses should not be empty"},
		{"unknown subnet", "/v1/networks/fuji/subnets/11111111111111111111111111111111LpoYY", 404, "not found"},
		{"bad subnet", "/v1/networks/fuji/subnets/zzz", 400, "subnetId"},
		{"fee range", "/v1/networks/fuji/validators?minFeePercentage=1", 400, "minFeePercentage"},
		{"capacity", "/v1/networks/fuji/validators?minDelegationCapacity=-5", 400, "minDelegationCapacity"},
		{"empty list item", "/v1/networks/fuji/validators?nodeIds=a,,b", 400, "comma-separated"},
		{"bad node filter", "/v1/networks/fuji/delegators?nodeIds=" + node + "x", 400, "invalid node id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := f.get(t, tt.path)
			if code != tt.code {
				t.Fatalf("status = %d %s; want %d", code, body, tt.code)
			}
			var b struct {
				Message    any    `json:"message"`
				StatusCode int    `json:"statusCode"`
				Error      string `json:"error"`
			}
			if err := json.Unmarshal(body, &b); err != nil || b.StatusCode != tt.code || b.Error == "" {
				t.Fatalf("error body %s", body)
			}
			if !strings.Contains(string(body), tt.msg) {
				t.Fatalf("body %s; want it to mention %q", body, tt.msg)
			}
		})
	}
}

// TestTokenScope checks that a token of one listing is refused by another.
func TestTokenScope(t *testing.T) {
	f := shared(t)
	m := f.getOK(t, "/v1/networks/fuji/delegators?pageSize=1")
	tok := m["nextPageToken"].(string)
	if code, _ := f.get(t, "/v1/networks/fuji/delegators?pageSize=1&delegationStatus=active&pageToken="+tok); code != 400 {
		t.Fatalf("token reused with other filters: %d; want 400", code)
	}
	if code, _ := f.get(t, "/v1/networks/fuji/delegators?pageSize=5&pageToken="+tok); code != 200 {
		t.Fatalf("token with another pageSize: %d; want 200", code)
	}
}

func FuzzHandlers(f *testing.F) {
	f.Add("/v1/networks/fuji/validators", "pageSize=3&sortBy=delegationFee&minTimeRemaining=5")
	f.Add("/v1/networks/mainnet/blockchains/x-chain/utxos", "addresses=avax1xyz&minUtxoAmount=1e400")
	f.Add("/v1/networks/testnet/blockchains/x-chain/vertices:listByHeight", "vertexHeight=99999999999999999999")
	f.Add("/v1/networks/fuji/rewards:listPending", "nodeIds=NodeID-&pageToken=%00")
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, path, query string) {
		if !strings.HasPrefix(path, "/") {
			return
		}
		u := &url.URL{Path: path, RawQuery: query}
		rec := httptest.NewRecorder()
		fx.mux.ServeHTTP(rec, &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}})
		if rec.Code == http.StatusInternalServerError {
			t.Fatalf("500 for %s", u)
		}
	})
}

// TestSchemaRejects makes sure the validator is live: wrong types and
// unknown enum values fail.
func TestSchemaRejects(t *testing.T) {
	for _, body := range []string{
		`{"subnets":[{"isL1":"yes"}]}`,
		`{"validators":[{"validationStatus":"ACTIVE"}]}`,
		`{"utxos":[],"chainInfo":{"chainName":"x-chain","network":"devnet"}}`,
	} {
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(body))
		name := map[byte]string{'s': "ListSubnetsResponse", 'v': "ListValidatorDetailsResponse", 'u': "ListUtxosResponse"}[body[2]]
		if err := schema(t, name).Validate(inst); err == nil {
			t.Errorf("%s accepted %s", name, body)
		}
	}
}
