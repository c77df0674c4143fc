package dataapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/spectest"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

var clock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// world is one source the handlers answer from, with what the tests know
// of it. Both worlds hold the devnet's history: "devnet" is the devnet
// itself (its index, answering as any network, knowing its nodes and
// blocks' proposers); "followed" is an index filled with what a follower
// gets from a node running that network (its blocks, the genesis's chains
// and the reward UTXOs the node gives for each reward; not the genesis
// stakers, which no block lists, nor the balances DisableL1ValidatorTxs
// return, which no block holds), answering as itself.
type world struct {
	name   string
	dev    *devnet.World
	src    Source
	mux    *http.ServeMux
	devnet bool
}

// hrp is the HRP the world's answers print for network.
func (w *world) hrp(network string) string {
	if w.devnet {
		n, _ := avanet.ByName(network)
		return n.HRP
	}
	return avanet.Local.HRP
}

// avaxID is the AVAX id the world's answers print for network.
func (w *world) avaxID(network string) avax.ID {
	if w.devnet {
		n, _ := avanet.ByName(network)
		return avax.MustParseID(n.AVAXAssetID)
	}
	return devnet.AVAXAssetID
}

// xChain is the X-Chain id the world's answers print for network.
func (w *world) xChain(network string) avax.ID {
	if w.devnet {
		n, _ := avanet.ByName(network)
		return avax.MustParseID(n.XChainID)
	}
	return devnet.XChainID
}

// cChain is the C-Chain id the world's answers print for network.
func (w *world) cChain(network string) avax.ID {
	if w.devnet {
		n, _ := avanet.ByName(network)
		return avax.MustParseID(n.CChainID)
	}
	return devnet.CChainID
}

// named is the network a name names (the ids of the catalogue's enums).
func named(network string) avanet.Network {
	n, _ := avanet.ByName(network)
	return n
}

func newDevnet(t testing.TB) *devnet.World {
	t.Helper()
	dw, err := devnet.New(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return dw
}

func devnetWorld(t testing.TB, dw *devnet.World) *world {
	hs := Handlers(Options{Source: dw.Index(), AnyNetwork: true, Nodes: dw, Proposers: dw, GenesisSupply: devnet.InitialSupply, Now: func() time.Time { return clock }})
	// The handlers take validated values: mount them through the catalogue,
	// as the local world does without the edge.
	return &world{name: "devnet", dev: dw, src: dw.Index(), mux: catalog.NewMux(catalog.Catalogue(), hs), devnet: true}
}

// followedIndexIn is the index a follower fills from a node running dw's
// network, kept in st (nil: SQLite in memory): the node's blocks as its
// getBlockByHeight gives them, and its current validators.
func followedIndexIn(t testing.TB, dw *devnet.World, st pindex.Store) *pindex.Index {
	t.Helper()
	ctx := context.Background()
	net := dw.Index().Network()
	ix, err := pindex.Open(ctx, pindex.Options{Network: &net, Path: pindex.Memory, Store: st, Now: dw.Now})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []avanet.Chain{avanet.ChainX, avanet.ChainP} {
		var blocks []*pindex.RawBlock
		for _, b := range dw.Blocks(c) {
			nb := *b
			nb.Paid = nil
			for tx, paid := range b.Paid {
				for _, p := range paid {
					if p.Reward != "" {
						if nb.Paid == nil {
							nb.Paid = map[string][]pindex.Paid{}
						}
						nb.Paid[tx] = append(nb.Paid[tx], p)
					}
				}
			}
			if c == avanet.ChainP {
				nb.Genesis = nil
				for _, g := range b.Genesis {
					if strings.Contains(string(g), `"chainName"`) {
						nb.Genesis = append(nb.Genesis, g)
					}
				}
			}
			blocks = append(blocks, &nb)
		}
		if err := ix.Append(ctx, c, blocks); err != nil {
			t.Fatal(err)
		}
	}
	subnets := []string{pindex.PrimaryNetworkID}
	for _, s := range dw.Subnets() {
		subnets = append(subnets, s.ID.String())
	}
	for _, s := range subnets {
		body, _, ok, err := dw.Index().CurrentValidators(ctx, s)
		if err != nil || !ok {
			t.Fatalf("the devnet's current validators of %s: %v, %v", s, ok, err)
		}
		if err := ix.SetCurrentValidators(ctx, s, body); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

func followedWorld(t testing.TB, dw *devnet.World) *world {
	return followedWorldIn(t, dw, nil)
}

// followedWorldIn is followedWorld kept in st (nil: SQLite in memory).
func followedWorldIn(t testing.TB, dw *devnet.World, st pindex.Store) *world {
	ix := followedIndexIn(t, dw, st)
	src := reported{ix, nodeSupply(t, dw, ix)}
	hs := Handlers(Options{Source: src, Now: func() time.Time { return clock }})
	return &world{name: "followed", dev: dw, src: src, mux: catalog.NewMux(catalog.Catalogue(), hs)}
}

// reported is a followed node's index that has recorded the node's
// supply.
type reported struct {
	*pindex.Index
	supply pindex.Supply
}

func (r reported) Supply(context.Context) (pindex.Supply, bool, error) { return r.supply, true, nil }

// nodeSupply is what platform.getCurrentSupply says on a node running dw's
// network: the genesis supply plus the potential rewards of every staker
// added (the completed ones' paid, the active ones' and their delegators',
// and the fees validators accrued from ended delegations).
func nodeSupply(t testing.TB, dw *devnet.World, ix *pindex.Index) pindex.Supply {
	tot, err := ix.Totals(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := devnet.InitialSupply + tot.Rewards
	now := dw.Now().Unix()
	for _, v := range dw.Validations() {
		if v.SubnetID.IsEmpty() && v.Status(now) == devnet.StatusActive {
			s += v.Reward
		}
	}
	for _, d := range dw.Delegations() {
		switch d.Status(now) {
		case devnet.StatusActive:
			s += d.GrossReward
		case devnet.StatusCompleted:
			for _, v := range dw.Validations() {
				if v.NodeID == d.NodeID && v.SubnetID.IsEmpty() && v.Status(now) == devnet.StatusActive && d.Start >= v.Start && d.End <= v.End {
					s += d.GrossReward - d.NetReward
				}
			}
		}
	}
	return pindex.Supply{Current: s, Height: dw.PHeight(), Time: now - 5}
}

var (
	worldsOnce sync.Once
	sharedDev  *devnet.World
	shared     []*world
)

// worlds returns both worlds, built once over one devnet.
func worlds(t testing.TB) []*world {
	worldsOnce.Do(func() {
		sharedDev = newDevnet(t)
		shared = []*world{devnetWorld(t, sharedDev), followedWorld(t, sharedDev)}
	})
	if len(shared) != 2 {
		t.Fatal("the worlds were not built")
	}
	return shared
}

// each runs f once per world, as a subtest named after it.
func each(t *testing.T, f func(t *testing.T, w *world)) {
	for _, w := range worlds(t) {
		t.Run(w.name, func(t *testing.T) { f(t, w) })
	}
}

func (w *world) get(t testing.TB, path string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	w.mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.Bytes()
}

func (w *world) getOK(t testing.TB, path string) map[string]any {
	t.Helper()
	code, body := w.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %s; want 200", path, code, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// walk follows nextPageToken from path and returns every item's JSON.
func (w *world) walk(t *testing.T, path, list string) []string {
	t.Helper()
	var items []string
	next := ""
	for i := 0; ; i++ {
		p := path
		if next != "" {
			p += "&pageToken=" + url.QueryEscape(next)
		}
		m := w.getOK(t, p)
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

var spec = spectest.DataAPI(spectest.OpenAPI30)

func schema(t *testing.T, name string) *jsonschema.Schema { return spec.Schema(t, name) }

// validate checks body against glacier.json's schema name, and that it
// holds no null but a validator's geolocation (required and nullable).
func validate(t *testing.T, name string, body []byte) {
	t.Helper()
	if err := spec.Validate(t, name, body); err != nil {
		t.Fatalf("%s: %v\nbody: %.2000s", name, err, body)
	}
	nulls := bytes.Count(body, []byte(":null"))
	// A validator's geolocation is required and nullable, and so are some
	// fields of an EVM genesis (genesisData).
	genesis := slices.Contains([]string{"Subnet", "ListSubnetsResponse", "Blockchain", "ListBlockchainsResponse"}, name)
	if geo := bytes.Count(body, []byte(`"geolocation":null`)); nulls != geo && !genesis {
		t.Fatalf("%s: answer holds a null: %.500s", name, body)
	}
}

// node is an active primary validator of the world, with delegators.
func (w *world) node(t testing.TB) string {
	t.Helper()
	now := w.dev.Now().Unix()
	for _, v := range w.dev.Validations() {
		if v.SubnetID.IsEmpty() && v.Status(now) == devnet.StatusActive && v.BLS != nil {
			return v.NodeID.String()
		}
	}
	t.Fatal("no active validator")
	return ""
}

// l1 returns the world's L1.
func (w *world) l1(t testing.TB) *devnet.Subnet {
	t.Helper()
	for _, s := range w.dev.Subnets() {
		if s.IsL1() {
			return s
		}
	}
	t.Fatal("no L1")
	return nil
}

// txOf returns the id of a transaction of kind on chain.
func (w *world) txOf(t testing.TB, chain avanet.Chain, kind string) string {
	t.Helper()
	txs, err := w.src.Txs(context.Background(), chain, pindex.TxFilter{Types: []string{kind}})
	if err != nil || len(txs) == 0 {
		t.Fatalf("no %s on the %s-Chain: %v", kind, chain, err)
	}
	return txs[0].ID
}

type testCase struct{ name, path, schema, list string }

// cases returns one request per route, with the response schema and the
// list that must not be empty.
func cases(t testing.TB, w *world, network string) []testCase {
	hrp := w.hrp(network)
	ewoqP := avax.FormatAddress("P", hrp, w.dev.Ewoq())
	ewoqX := avax.FormatAddress("X", hrp, w.dev.Ewoq())
	node := w.node(t)
	l1 := w.l1(t).ID.String()
	base := "/v1/networks/" + network
	cs := []testCase{
		{"listSubnets", base + "/subnets", "ListSubnetsResponse", "subnets"},
		{"getSubnetById", base + "/subnets/" + l1, "Subnet", "blockchains"},
		{"utxos P", base + "/blockchains/p-chain/utxos?includeSpent=true&addresses=" + ewoqP, "ListPChainUtxosResponse", "utxos"},
		{"utxos X", base + "/blockchains/x-chain/utxos?includeSpent=true&addresses=" + ewoqX, "ListUtxosResponse", "utxos"},
		{"utxos X id", base + "/blockchains/" + named(network).XChainID + "/utxos?addresses=" + ewoqX[2:], "ListUtxosResponse", "utxos"},
		{"utxos C", base + "/blockchains/c-chain/utxos?addresses=" + ewoqX, "ListUtxosResponse", "utxos"},
		{"rewards", base + "/rewards:listPending?pageSize=100&nodeIds=" + node, "ListPendingRewardsResponse", "pendingRewards"},
		{"validator", base + "/validators/" + node + "?pageSize=100", "ListValidatorDetailsResponse", "validators"},
		{"validators", base + "/validators?pageSize=100", "ListValidatorDetailsResponse", "validators"},
		{"delegators", base + "/delegators?pageSize=100", "ListDelegatorDetailsResponse", "delegators"},
		{"l1 validators", base + "/l1Validators?includeInactiveL1Validators=true", "ListL1ValidatorsResponse", "validators"},
		{"chain ids", base + "/addresses:listChainIds?addresses=" + ewoqP + "," + ewoqX, "ChainAddressChainIdMapListResponse", "addresses"},
		{"blocks P", base + "/blockchains/p-chain/blocks?pageSize=100", "ListPrimaryNetworkBlocksResponse", "blocks"},
		{"blocks X", base + "/blockchains/x-chain/blocks?pageSize=100", "ListPrimaryNetworkBlocksResponse", "blocks"},
		{"txs P", base + "/blockchains/p-chain/transactions?pageSize=100", "ListPChainTransactionsResponse", "transactions"},
		{"txs X", base + "/blockchains/x-chain/transactions?pageSize=100", "ListXChainTransactionsResponse", "transactions"},
		{"txs P of ewoq", base + "/blockchains/p-chain/transactions?addresses=" + ewoqP, "ListPChainTransactionsResponse", "transactions"},
		{"network", base, "GetNetworkDetailsResponse", ""},
		{"blockchains", base + "/blockchains", "ListBlockchainsResponse", "blockchains"},
		{"blockchain X", base + "/blockchains/" + w.xChain(network).String(), "Blockchain", ""},
		{"blockchain C", base + "/blockchains/" + w.cChain(network).String(), "Blockchain", ""},
		{"supply", "/v1/avax/supply", "AvaxSupplyResponse", ""},
		{"asset AVAX", base + "/blockchains/x-chain/assets/" + w.avaxID(network).String(), "XChainAssetDetails", ""},
		{"asset txs AVAX", base + "/blockchains/x-chain/assets/" + w.avaxID(network).String() + "/transactions?pageSize=100", "ListXChainTransactionsResponse", "transactions"},
		{"balances P", base + "/blockchains/p-chain/balances?addresses=" + ewoqP, "ListPChainBalancesResponse", ""},
		{"balances X", base + "/blockchains/x-chain/balances?addresses=" + ewoqX, "ListXChainBalancesResponse", ""},
		{"balances C", base + "/blockchains/c-chain/balances?addresses=" + ewoqX, "ListCChainAtomicBalancesResponse", ""},
		{"balances P then", base + "/blockchains/p-chain/balances?blockTimestamp=" + fmt.Sprint(w.dev.GenesisTime().Unix()+20*86400) + "&addresses=" + ewoqP,
			"ListPChainBalancesResponse", ""},
		{"last activity X", base + "/blockchains/x-chain/lastActivityTimestampByAddresses?addresses=" + ewoqX, "LastActivityTimestamp", ""},
		{"last activity P", base + "/blockchains/" + avanet.PChainID + "/lastActivityTimestampByAddresses?addresses=" + ewoqP,
			"LastActivityTimestamp", ""},
		{"staking txs", base + "/blockchains/p-chain/transactions:listStaking?pageSize=100", "ListPChainTransactionsResponse", "transactions"},
		{"rewards", base + "/rewards?pageSize=100", "ListHistoricalRewardsResponse", "historicalRewards"},
		{"vertices", base + "/blockchains/x-chain/vertices", "ListXChainVerticesResponse", ""},
		{"vertices by height", base + "/blockchains/x-chain/vertices:listByHeight?vertexHeight=0", "ListXChainVerticesResponse", ""},
		{"blocks of node P", base + "/blockchains/p-chain/nodes/" + node + "/blocks", "ListPrimaryNetworkBlocksResponse", ""},
	}
	for _, c := range []struct {
		chain avanet.Chain
		kind  string
	}{
		{avanet.ChainP, "ImportTx"}, {avanet.ChainP, "ExportTx"}, {avanet.ChainP, "BaseTx"}, {avanet.ChainP, "AddPermissionlessValidatorTx"},
		{avanet.ChainP, "AddPermissionlessDelegatorTx"}, {avanet.ChainP, "RewardValidatorTx"}, {avanet.ChainP, "CreateSubnetTx"},
		{avanet.ChainP, "CreateChainTx"}, {avanet.ChainP, "ConvertSubnetToL1Tx"}, {avanet.ChainP, "RegisterL1ValidatorTx"},
		{avanet.ChainP, "SetL1ValidatorWeightTx"}, {avanet.ChainP, "IncreaseL1ValidatorBalanceTx"}, {avanet.ChainP, "DisableL1ValidatorTx"},
		{avanet.ChainP, "AddSubnetValidatorTx"}, {avanet.ChainP, "RemoveSubnetValidatorTx"}, {avanet.ChainP, "AddValidatorTx"},
		{avanet.ChainX, "BaseTx"}, {avanet.ChainX, "CreateAssetTx"}, {avanet.ChainX, "ImportTx"}, {avanet.ChainX, "ExportTx"},
	} {
		schema := "PChainTransaction"
		if c.chain == avanet.ChainX {
			schema = "XChainLinearTransaction"
		}
		cs = append(cs, testCase{"tx " + string(c.chain) + " " + c.kind,
			base + "/blockchains/" + alias(c.chain) + "/transactions/" + w.txOf(t, c.chain, c.kind), schema, ""})
	}
	if w.devnet { // only the devnet knows its blocks' proposers
		cs = append(cs,
			testCase{"proposed P", base + "/blockchains/p-chain/nodes/" + node + "/blocks", "ListPrimaryNetworkBlocksResponse", "blocks"},
			testCase{"proposed X", base + "/blockchains/x-chain/nodes/" + node + "/blocks", "ListPrimaryNetworkBlocksResponse", "blocks"})
	}
	return cs
}

func TestSchemas(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		for _, network := range []string{"mainnet", "fuji", "testnet"} {
			for _, c := range cases(t, w, network) {
				t.Run(network+"/"+c.name, func(t *testing.T) {
					code, body := w.get(t, c.path)
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
	})
}

// TestRoutes: both worlds answer every primary-network route of the
// catalogue (glacier.json's "Primary Network" routes and the AVAX supply).
func TestRoutes(t *testing.T) {
	var names []string
	for _, rt := range catalog.Catalogue() {
		if rt.Service == catalog.Data && (strings.HasPrefix(rt.Path, "/v1/networks/") || rt.Path == "/v1/avax/supply") {
			names = append(names, rt.Name)
		}
	}
	if len(names) != 29 {
		t.Fatalf("the catalogue has %d primary-network routes: %v", len(names), names)
	}
	for _, w := range worlds(t) {
		hs := Handlers(Options{Source: w.src, AnyNetwork: w.devnet})
		for _, name := range names {
			if hs[name] == nil {
				t.Errorf("%s: no handler for %s", w.name, name)
			}
		}
	}
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
