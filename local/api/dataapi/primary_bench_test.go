package dataapi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The primary-network benchmark's world, a synthetic follow: the P- and
// X-Chain blocks a node would give, appended through the index's own write
// path. Each chain's genesis gives a faucet address every AVAX, and the
// faucet's funding transactions (benchFunding outputs each, as an exchange
// batches its withdrawals) give every one of benchAddrs addresses one AVAX
// UTXO; then benchTxs BaseTxs (PINDEX_BENCH_TXS, default 1,000,000),
// four in five on the X-Chain, ten a block, each spending its sender's
// change UTXO to pay a random recipient and itself the change, burning a
// fee. Address 0, the whale, sends one transaction in twenty (about 50,000).
// The P-Chain's genesis also holds benchValidators validators with two
// delegations each, all current.
const (
	benchAddrs      = 100_000
	benchValidators = 1_000
	benchPerBlock   = 10
	benchSeed       = 26
	benchFee        = 1_000
	benchFunding    = 50
)

var benchStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func benchAddr(i int) avax.ShortID {
	var a avax.ShortID
	binary.BigEndian.PutUint64(a[12:], uint64(i)+1)
	a[0] = 0xbe
	return a
}

func benchNode(i int) avax.NodeID {
	var n avax.NodeID
	binary.BigEndian.PutUint64(n[12:], uint64(i)+1)
	n[0] = 0x0d
	return n
}

// benchUTXO is an address's change UTXO, the one its next transaction
// spends.
type benchUTXO struct {
	tx     string
	index  uint32
	amount uint64
}

// benchFixture writes the world, with n transactions, into ix.
func benchFixture(b *testing.B, ix *pindex.Index, net avanet.Network, n int) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(benchSeed, benchSeed))
	// Address benchAddrs is the faucet.
	addrStr := map[avanet.Chain][]string{avanet.ChainP: make([]string, benchAddrs+1), avanet.ChainX: make([]string, benchAddrs+1)}
	for i := range benchAddrs + 1 {
		for c := range addrStr {
			addrStr[c][i] = avax.FormatAddress(string(c), net.HRP, benchAddr(i))
		}
	}
	out := func(c avanet.Chain, addr int, amount uint64) map[string]any {
		return map[string]any{"assetID": net.AVAXAssetID, "fxID": avax.SECP256K1FxID.String(),
			"output": map[string]any{"addresses": []string{addrStr[c][addr]}, "amount": amount, "locktime": 0, "threshold": 1}}
	}
	owner := func(addr int) map[string]any {
		return map[string]any{"addresses": []string{addrStr[avanet.ChainP][addr]}, "locktime": 0, "threshold": 1}
	}
	txID := func(c avanet.Chain, k int) string {
		return avax.Hash256([]byte(fmt.Sprintf("bench %s tx %d", c, k))).String()
	}
	blockID := func(c avanet.Chain, h uint64) string {
		return avax.Hash256([]byte(fmt.Sprintf("bench %s block %d", c, h))).String()
	}
	mustJSON := func(v any) json.RawMessage {
		raw, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		return raw
	}
	const allocation = 1_000 * 1_000_000_000
	change := map[avanet.Chain][]benchUTXO{}
	heights := map[avanet.Chain]uint64{}
	start := uint64(benchStart.Unix())

	// The genesis: the X-Chain's AVAX CreateAssetTx and a P-Chain tx each
	// allocating the faucet; the P-Chain's stakers.
	var current []apiValidatorJSON
	for _, c := range []avanet.Chain{avanet.ChainX, avanet.ChainP} {
		change[c] = make([]benchUTXO, benchAddrs+1)
		id := net.AVAXAssetID
		if c == avanet.ChainP {
			id = txID(c, -1)
		}
		outs := []any{out(c, benchAddrs, allocation*(benchAddrs+1))["output"]}
		change[c][benchAddrs] = benchUTXO{tx: id, index: 0, amount: allocation * (benchAddrs + 1)}
		var genesis []json.RawMessage
		if c == avanet.ChainX {
			genesis = append(genesis, mustJSON(map[string]any{"id": id, "unsignedTx": map[string]any{"networkID": net.ID, "blockchainID": net.XChainID,
				"outputs": []any{}, "inputs": []any{}, "memo": "0x", "name": "Avalanche", "symbol": "AVAX", "denomination": 9,
				"initialStates": []any{map[string]any{"fxIndex": 0, "fxID": avax.SECP256K1FxID.String(), "outputs": outs}}}}))
		} else {
			wrapped := make([]any, len(outs))
			for i := range outs {
				wrapped[i] = map[string]any{"assetID": net.AVAXAssetID, "fxID": avax.SECP256K1FxID.String(), "output": outs[i]}
			}
			genesis = append(genesis, mustJSON(map[string]any{"id": id, "unsignedTx": map[string]any{"networkID": net.ID,
				"blockchainID": avax.EmptyID.String(), "outputs": wrapped, "inputs": []any{}, "memo": "0x"}}))
			for v := range benchValidators {
				node := benchNode(v).String()
				end := start + 365*24*3600
				weight := uint64(2_000+v) * 1_000_000_000
				vid := txID(c, -2-3*v)
				genesis = append(genesis, mustJSON(map[string]any{"id": vid, "unsignedTx": map[string]any{"networkID": net.ID,
					"blockchainID": avax.EmptyID.String(), "outputs": []any{}, "inputs": []any{}, "memo": "0x",
					"validator": map[string]any{"nodeID": node, "start": start, "end": end, "weight": weight}, "subnetID": avax.EmptyID.String(),
					"signer": map[string]any{"publicKey": "0x01", "proofOfPossession": "0x02"}, "stake": []any{out(c, v, weight)},
					"validationRewardsOwner": owner(v), "delegationRewardsOwner": owner(v), "shares": 20_000}}))
				cur := apiValidatorJSON{TxID: vid, NodeID: node, StartTime: strconv.FormatUint(start, 10), EndTime: strconv.FormatUint(end, 10),
					Weight: strconv.FormatUint(weight, 10), PotentialReward: "1000000000", AccruedDelegateeReward: "0", DelegationFee: "2.0000",
					Uptime: "99.5000", Connected: true, ValidationRewardOwner: apiOwnerJSON{"0", "1", []string{addrStr[c][v]}},
					DelegationRewardOwner: apiOwnerJSON{"0", "1", []string{addrStr[c][v]}}, DelegatorCount: "2"}
				var delegated uint64
				for d := range 2 {
					did := txID(c, -3-3*v-d)
					who := benchValidators + 2*v + d
					dw := uint64(25+d) * 1_000_000_000
					delegated += dw
					genesis = append(genesis, mustJSON(map[string]any{"id": did, "unsignedTx": map[string]any{"networkID": net.ID,
						"blockchainID": avax.EmptyID.String(), "outputs": []any{}, "inputs": []any{}, "memo": "0x",
						"validator": map[string]any{"nodeID": node, "start": start, "end": end, "weight": dw}, "subnetID": avax.EmptyID.String(),
						"stake": []any{out(c, who, dw)}, "rewardsOwner": owner(who)}}))
					cur.Delegators = append(cur.Delegators, apiDelegatorJSON{TxID: did, NodeID: node, StartTime: cur.StartTime, EndTime: cur.EndTime,
						Weight: strconv.FormatUint(dw, 10), PotentialReward: "10000000", RewardOwner: apiOwnerJSON{"0", "1", []string{addrStr[c][who]}}})
				}
				cur.DelegatorWeight = strconv.FormatUint(delegated, 10)
				current = append(current, cur)
			}
		}
		b0 := &pindex.RawBlock{Height: 0, JSON: mustJSON(map[string]any{"id": blockID(c, 0), "parentID": avax.EmptyID.String(), "height": 0,
			"time": start, "txs": []any{}}), Genesis: genesis, Type: "BanffStandardBlock", Size: 100}
		if err := ix.Append(ctx, c, []*pindex.RawBlock{b0}); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.SetCurrentValidators(ctx, pindex.PrimaryNetworkID, mustJSON(map[string]any{"validators": current})); err != nil {
		b.Fatal(err)
	}

	// The transactions, in batches of 1,000 blocks per chain.
	pending := map[avanet.Chain][]*pindex.RawBlock{}
	txs := map[avanet.Chain][]any{}
	flush := func(c avanet.Chain, force bool) {
		if len(txs[c]) == benchPerBlock || (force && len(txs[c]) > 0) {
			heights[c]++
			h := heights[c]
			pending[c] = append(pending[c], &pindex.RawBlock{Height: h, JSON: mustJSON(map[string]any{"id": blockID(c, h), "parentID": blockID(c, h-1),
				"height": h, "time": start + 2*h, "txs": txs[c]}), Type: "BanffStandardBlock", Size: 200})
			txs[c] = nil
		}
		if len(pending[c]) == 1_000 || (force && len(pending[c]) > 0) {
			if err := ix.Append(ctx, c, pending[c]); err != nil {
				b.Fatal(err)
			}
			pending[c] = pending[c][:0]
		}
	}
	// The faucet's funding transactions, a chain of them on each chain.
	for _, c := range []avanet.Chain{avanet.ChainX, avanet.ChainP} {
		blockchain := net.XChainID
		if c == avanet.ChainP {
			blockchain = avax.EmptyID.String()
		}
		for first := 0; first < benchAddrs; first += benchFunding {
			u := change[c][benchAddrs]
			id := txID(c, -1_000_000-first)
			var outs []any
			for i := first; i < min(first+benchFunding, benchAddrs); i++ {
				change[c][i] = benchUTXO{tx: id, index: uint32(len(outs)), amount: allocation}
				outs = append(outs, out(c, i, allocation))
			}
			rest := u.amount - uint64(len(outs))*allocation - benchFee
			change[c][benchAddrs] = benchUTXO{tx: id, index: uint32(len(outs)), amount: rest}
			outs = append(outs, out(c, benchAddrs, rest))
			txs[c] = append(txs[c], map[string]any{"id": id, "unsignedTx": map[string]any{"networkID": net.ID, "blockchainID": blockchain,
				"outputs": outs, "inputs": []any{map[string]any{"txID": u.tx, "outputIndex": u.index, "assetID": net.AVAXAssetID,
					"fxID": avax.SECP256K1FxID.String(), "input": map[string]any{"amount": u.amount, "signatureIndices": []int{0}}}},
				"memo": "0x"}, "credentials": []any{}})
			flush(c, false)
		}
	}
	for k := range n {
		c := avanet.ChainX
		if k%5 == 4 {
			c = avanet.ChainP
		}
		from := 1 + r.IntN(benchAddrs-1)
		if r.IntN(20) == 0 {
			from = 0
		}
		to := r.IntN(benchAddrs)
		if to == from {
			to = (to + 1) % benchAddrs
		}
		u := change[c][from]
		paid := uint64(1_000 + r.IntN(1_000_000))
		id := txID(c, k)
		blockchain := net.XChainID
		if c == avanet.ChainP {
			blockchain = avax.EmptyID.String()
		}
		txs[c] = append(txs[c], map[string]any{"id": id, "unsignedTx": map[string]any{"networkID": net.ID, "blockchainID": blockchain,
			"outputs": []any{out(c, to, paid), out(c, from, u.amount-paid-benchFee)},
			"inputs": []any{map[string]any{"txID": u.tx, "outputIndex": u.index, "assetID": net.AVAXAssetID, "fxID": avax.SECP256K1FxID.String(),
				"input": map[string]any{"amount": u.amount, "signatureIndices": []int{0}}}}, "memo": "0x"}, "credentials": []any{}})
		change[c][from] = benchUTXO{tx: id, index: 1, amount: u.amount - paid - benchFee}
		flush(c, false)
	}
	flush(avanet.ChainX, true)
	flush(avanet.ChainP, true)
}

// The platform.getCurrentValidators shapes the fixture stores.
type apiOwnerJSON struct {
	Locktime  string   `json:"locktime"`
	Threshold string   `json:"threshold"`
	Addresses []string `json:"addresses"`
}

type apiDelegatorJSON struct {
	TxID            string       `json:"txID"`
	StartTime       string       `json:"startTime"`
	EndTime         string       `json:"endTime"`
	Weight          string       `json:"weight"`
	NodeID          string       `json:"nodeID"`
	RewardOwner     apiOwnerJSON `json:"rewardOwner"`
	PotentialReward string       `json:"potentialReward"`
}

type apiValidatorJSON struct {
	TxID                   string             `json:"txID"`
	StartTime              string             `json:"startTime"`
	EndTime                string             `json:"endTime"`
	Weight                 string             `json:"weight"`
	NodeID                 string             `json:"nodeID"`
	ValidationRewardOwner  apiOwnerJSON       `json:"validationRewardOwner"`
	DelegationRewardOwner  apiOwnerJSON       `json:"delegationRewardOwner"`
	PotentialReward        string             `json:"potentialReward"`
	AccruedDelegateeReward string             `json:"accruedDelegateeReward"`
	DelegationFee          string             `json:"delegationFee"`
	Uptime                 string             `json:"uptime"`
	Connected              bool               `json:"connected"`
	DelegatorCount         string             `json:"delegatorCount"`
	DelegatorWeight        string             `json:"delegatorWeight"`
	Delegators             []apiDelegatorJSON `json:"delegators"`
}

// BenchmarkPrimaryRoutes measures the routes Core wallet and explorers ask
// most over the benchmark's world (the fixture above; a -bench only: `go
// test` never builds it): each call goes through the catalogue's validation
// and the handlers (no network), for a random address (…/address) or the
// whale (…/whale), b.N times. It reports p50 and p99 in ms.
// PINDEX_BENCH_STORE names a store file to build once and reuse;
// PINDEX_BENCH_PG a PostgreSQL database (a postgres:// URL, or "start": a
// server of the benchmark's own) to keep it in instead.
//
//	go test -run XXX -bench PrimaryRoutes -benchtime 1000x -timeout 60m ./local/api/dataapi
func BenchmarkPrimaryRoutes(b *testing.B) {
	ix, net, clock := benchIndex(b)
	hs := Handlers(Options{Source: reported{ix, pindex.Supply{}}, Now: func() time.Time { return clock }})
	mux := catalog.NewMux(catalog.Catalogue(), hs)
	r := rand.New(rand.NewPCG(benchSeed, 1))
	nets := "/v1/networks/fuji/blockchains/"
	addr := func(c string, whale bool) string {
		i := 1 + r.IntN(benchAddrs-1)
		if whale {
			i = 0
		}
		return avax.FormatAddress(c, net.HRP, benchAddr(i))
	}
	routes := []struct {
		name string
		path func(whale bool) string
	}{
		{"getBalancesByAddresses/P", func(w bool) string { return nets + "p-chain/balances?addresses=" + addr("P", w) }},
		{"getBalancesByAddresses/X", func(w bool) string { return nets + "x-chain/balances?addresses=" + addr("X", w) }},
		{"getUtxosByAddresses/P", func(w bool) string { return nets + "p-chain/utxos?pageSize=10&addresses=" + addr("P", w) }},
		{"getUtxosByAddresses/X", func(w bool) string { return nets + "x-chain/utxos?pageSize=10&addresses=" + addr("X", w) }},
		{"listLatestPrimaryNetworkTransactions/P", func(w bool) string { return nets + "p-chain/transactions?pageSize=10&addresses=" + addr("P", w) }},
		{"listLatestPrimaryNetworkTransactions/X", func(w bool) string { return nets + "x-chain/transactions?pageSize=10&addresses=" + addr("X", w) }},
		{"listValidators", func(bool) string { return "/v1/networks/fuji/validators?pageSize=10" }},
		{"listValidators/sortBy=delegationCapacity", func(bool) string {
			return "/v1/networks/fuji/validators?pageSize=10&validationStatus=active&sortBy=delegationCapacity"
		}},
	}
	for _, rt := range routes {
		for _, whale := range []bool{false, true} {
			name := rt.name + "/address"
			switch {
			case strings.HasPrefix(rt.name, "listValidators"):
				if whale {
					continue // no address
				}
				name = rt.name
			case whale:
				name = rt.name + "/whale"
			}
			b.Run(name, func(b *testing.B) { measure(b, mux, func() string { return rt.path(whale) }) })
		}
	}
	// A deep page of the whale's transactions (the 21st of 100), reached
	// by following the tokens as a client does.
	for _, c := range []string{"P", "X"} {
		path := nets + map[string]string{"P": "p-chain", "X": "x-chain"}[c] + "/transactions?pageSize=100&addresses=" + addr(c, true)
		deep := path
		for range 20 {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, deep, nil))
			var page struct{ NextPageToken string }
			if json.Unmarshal(rec.Body.Bytes(), &page); page.NextPageToken == "" {
				b.Fatalf("GET %s: %d, no next page", deep, rec.Code)
			}
			deep = path + "&pageToken=" + page.NextPageToken
		}
		b.Run("listLatestPrimaryNetworkTransactions/"+c+"/whale/deep", func(b *testing.B) { measure(b, mux, func() string { return deep }) })
	}
}

// benchIndex opens the benchmark's world: the store PINDEX_BENCH_STORE
// names, built first when there is none (of PINDEX_BENCH_TXS transactions,
// default 1,000,000), or a temporary one. It returns the index, closed when
// b ends, its network and the clock of its stake statuses.
func benchIndex(b *testing.B) (*pindex.Index, avanet.Network, time.Time) {
	ctx := context.Background()
	n := 1_000_000
	if s := os.Getenv("PINDEX_BENCH_TXS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		n = v
	}
	path := os.Getenv("PINDEX_BENCH_STORE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "pindex.db")
	}
	_, statErr := os.Stat(path)
	net := avanet.Local
	clock := benchStart.Add(30 * 24 * time.Hour)
	opts := pindex.Options{Network: &net, Path: path, Now: func() time.Time { return clock }}
	pgURL := os.Getenv("PINDEX_BENCH_PG")
	if pg := pgURL; pg != "" {
		if pg == "start" {
			pg = pgtest.Start(b).Database(b)
			pgURL = pg
		}
		st, err := pindex.OpenPostgres(ctx, pg, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		opts.Store, opts.Path = st, ""
		_, had, err := st.Head(avanet.ChainX)
		if err != nil {
			b.Fatal(err)
		}
		if statErr = nil; !had {
			statErr = os.ErrNotExist
		}
	}
	ix, err := pindex.Open(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if statErr != nil {
		t0 := time.Now()
		benchFixture(b, ix, net, n)
		b.Logf("fixture: %d transactions over %d addresses in %s", n, benchAddrs, time.Since(t0).Round(time.Second))
		if opts.Store != nil {
			pgtest.VacuumAnalyze(b, pgURL)
		}
	}
	return ix, net, clock
}

// measure serves the path of next b.N times and reports the latencies'
// p50 and p99 in ms.
func measure(b *testing.B, mux http.Handler, next func() string) {
	b.ReportAllocs()
	times := make([]time.Duration, 0, b.N)
	for b.Loop() {
		path := next()
		rec := httptest.NewRecorder()
		t0 := time.Now()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		times = append(times, time.Since(t0))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d %s", path, rec.Code, rec.Body)
		}
	}
	slices.Sort(times)
	q := func(p float64) float64 { return float64(times[int(p*float64(len(times)-1))]) / 1e6 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
