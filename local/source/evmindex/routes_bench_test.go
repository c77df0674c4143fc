package evmindex_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// The route benchmark's world: benchTxs transactions (EVMINDEX_BENCH_TXS,
// default 1,000,000) over benchAddrs addresses, ten a block. One address in
// ten transactions is the whale (address 0), whose history is long enough
// for deep pages. By transaction number k: k%20 < 12 are native transfers,
// < 18 ERC-20 transfers of one token, 18 mints of one of ten ERC-721
// collections, 19 calls of a factory that pays the recipient in an internal
// transaction and, one call in ten, creates a contract; one transaction in a
// hundred fails.
const (
	benchAddrs  = 10_000
	perBlock    = 10
	benchChain  = 43112
	fixtureSeed = 25
)

var (
	benchToken   = common.HexToAddress("0x00000000000000000000000000000000000e2020")
	benchFactory = common.HexToAddress("0x00000000000000000000000000000000000fac70")
	benchWhale   = benchAddr(0)
)

func benchAddr(i int) common.Address { return common.BigToAddress(big.NewInt(int64(0x100000 + i))) }

func benchCollection(i int) common.Address {
	return common.BigToAddress(big.NewInt(int64(0x0c0110 + i)))
}

// buildFixture writes the benchmark's world into ix in transactions of
// 10,000 blocks, through the indexer's own write path.
func buildFixture(b testing.TB, ix *evmindex.Index, n int) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(fixtureSeed, fixtureSeed))
	pick := func() common.Address {
		if r.IntN(20) == 0 {
			return benchWhale
		}
		return benchAddr(1 + r.IntN(benchAddrs-1))
	}
	tokens := []evmindex.Token{{Address: benchToken, Kind: evmindex.ERC20, Name: "Bench Token", Symbol: "BNT", Decimals: 18}}
	for c := range 10 {
		tokens = append(tokens, evmindex.Token{Address: benchCollection(c), Kind: evmindex.ERC721, Name: "Bench NFT " + strconv.Itoa(c), Symbol: "BNF"})
	}
	minted := make([]int64, 10)
	price := big.NewInt(25e9)
	var batch []evmindex.FixtureBlock
	var nfts []evmindex.FixtureNFT
	flush := func() {
		if err := ix.WriteFixture(ctx, benchChain, batch, tokens, nfts); err != nil {
			b.Fatal(err)
		}
		batch, nfts, tokens = batch[:0], nfts[:0], nil
	}
	for k := 0; k < n; k++ {
		num := uint64(k/perBlock + 1)
		if k%perBlock == 0 {
			parent := crypto.Keccak256Hash(big.NewInt(int64(num - 1)).Bytes())
			batch = append(batch, evmindex.FixtureBlock{Block: evmindex.Block{ChainID: benchChain, Number: num,
				Hash: crypto.Keccak256Hash(big.NewInt(int64(num)).Bytes()), ParentHash: parent, Timestamp: 1_700_000_000 + 2*num,
				GasUsed: 1_000_000, GasLimit: 15_000_000, BaseFee: price}})
		}
		blk := &batch[len(batch)-1]
		from, to := pick(), pick()
		tx := evmindex.FixtureTx{Tx: evmindex.Tx{Hash: crypto.Keccak256Hash([]byte("bench tx"), big.NewInt(int64(k)).Bytes()), Index: uint(k % perBlock),
			Type: 2, From: from, Value: new(big.Int), Nonce: uint64(k), GasLimit: 100_000, GasUsed: 50_000, EffectiveGasPrice: price,
			Fee: new(big.Int).Mul(price, big.NewInt(50_000)), Status: 1}}
		if k%100 == 99 {
			tx.Status = 0
		}
		logIndex := uint(len(blk.Transfers))
		switch kind := k % 20; {
		case kind < 12:
			tx.To, tx.Value = &to, big.NewInt(int64(1+r.IntN(1e9)))
		case kind < 18:
			tx.To, tx.Input = &benchToken, []byte{0xa9, 0x05, 0x9c, 0xbb}
			if tx.Status == 1 {
				blk.Transfers = append(blk.Transfers, evmindex.Transfer{TxHash: tx.Hash, LogIndex: logIndex, Contract: benchToken,
					Kind: evmindex.ERC20, From: from, To: to, Value: big.NewInt(int64(1 + r.IntN(1e9)))})
			}
		case kind == 18:
			c := (k / 20) % 10
			coll := benchCollection(c)
			tx.To, tx.Input = &coll, []byte{0x6a, 0x62, 0x78, 0x4f}
			if tx.Status == 1 {
				minted[c]++
				id := big.NewInt(minted[c])
				blk.Transfers = append(blk.Transfers, evmindex.Transfer{TxHash: tx.Hash, LogIndex: logIndex, Contract: coll,
					Kind: evmindex.ERC721, To: to, TokenID: id, Value: big.NewInt(1)})
				nfts = append(nfts, evmindex.FixtureNFT{Contract: coll, TokenID: id, Name: "Bench NFT #" + id.String()})
			}
		default:
			tx.To, tx.Input, tx.Value = &benchFactory, []byte{0xb6, 0xb5, 0x5f, 0x25}, big.NewInt(2e9)
			tx.Internals = []evmindex.FixtureFrame{{Type: "CALL", From: benchFactory, To: to, Value: big.NewInt(1e9)}}
			if (k/20)%10 == 0 && tx.Status == 1 {
				child := crypto.CreateAddress(benchFactory, uint64(k))
				tx.Internals = append(tx.Internals, evmindex.FixtureFrame{Type: "CREATE", From: benchFactory, To: child, Value: new(big.Int)})
				blk.Creations = append(blk.Creations, evmindex.Creation{TxHash: tx.Hash, Deployer: benchFactory, Address: child, Kind: evmindex.CREATE})
			}
		}
		blk.Txs = append(blk.Txs, tx)
		if (k+1)%(perBlock*10_000) == 0 {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
}

// openFixture builds the benchmark's index in a temporary directory, which
// the benchmark removes when it ends; with EVMINDEX_BENCH_STORE=postgres,
// in a PostgreSQL database of its own server (internal/pgtest), or in the
// database EVMINDEX_BENCH_PG names (a postgres:// URL), which is kept: the
// fixture is built there only when the database holds none (then VACUUM
// ANALYZE, as autovacuum would after the bulk write but before the
// measurement), and reused as it is otherwise, at its own size.
func openFixture(b *testing.B) (*evmindex.Index, int) {
	ctx := context.Background()
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("EVMINDEX_BENCH_TXS")); err == nil && v > 0 {
		n = v
	}
	opts := evmindex.Options{Path: filepath.Join(b.TempDir(), "index.db")}
	pgURL := os.Getenv("EVMINDEX_BENCH_PG")
	if os.Getenv("EVMINDEX_BENCH_STORE") == "postgres" || pgURL != "" {
		url := pgURL
		if url == "" {
			url = pgtest.Start(b).Database(b)
		}
		st, err := evmindex.OpenPostgres(ctx, url, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		opts.Store = st
		if pgURL != "" {
			_, txs, had, err := st.Head(ctx, benchChain)
			if err != nil {
				b.Fatal(err)
			}
			if had {
				ix := openIndex(b, opts)
				if err := ix.ReopenFixture(ctx, benchChain); err != nil {
					b.Fatal(err)
				}
				b.Logf("fixture: %d transactions kept in %s", txs, pgURL)
				return ix, int(txs)
			}
		}
	}
	ix := openIndex(b, opts)
	start := time.Now()
	buildFixture(b, ix, n)
	b.Logf("fixture: %d transactions over %d addresses in %d blocks, built in %s", n, benchAddrs, n/perBlock, time.Since(start).Round(time.Second))
	if pgURL != "" {
		pgtest.VacuumAnalyze(b, pgURL)
	}
	return ix, n
}

// openIndex opens the index of opts, closed when b ends.
func openIndex(b *testing.B, opts evmindex.Options) *evmindex.Index {
	ix, err := evmindex.Open(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix
}

// routesMux serves the EVM Data API over ix (no network).
func routesMux(ix *evmindex.Index) http.Handler {
	return catalog.NewMux(catalog.Catalogue(), evmdata.Handlers(evmdata.Options{Index: ix,
		Chains: []evmdata.ChainInfo{evmdata.LocalChain(benchChain, "http://127.0.0.1:8080/ext/bc/C/rpc")}}))
}

// listRoutes returns the EVM list routes over the fixture of n
// transactions, with the depth of their deep page.
func listRoutes(n int) []benchRoute {
	ch := "/v1/chains/43112"
	whale, someone := benchWhale.Hex(), benchAddr(4242).Hex()
	deepBlock := strconv.Itoa(n / perBlock / 2)
	return []benchRoute{
		{"listTransactions", ch + "/addresses/" + whale + "/transactions", 500},
		{"listTransactions-asc", ch + "/addresses/" + whale + "/transactions?sortOrder=asc", 500},
		{"listTransactions-someone", ch + "/addresses/" + someone + "/transactions", 1},
		{"listTransactionsV2", "/v2/chains/43112/addresses/" + whale + "/transactions?filterSpamTokens=true", 500},
		{"listNativeTransactions", ch + "/addresses/" + whale + "/transactions:listNative", 300},
		{"listErc20Transactions", ch + "/addresses/" + whale + "/transactions:listErc20", 150},
		{"listErc721Transactions", ch + "/addresses/" + whale + "/transactions:listErc721", 20},
		{"listInternalTransactions", ch + "/addresses/" + whale + "/transactions:listInternals", 30},
		{"listLatestTransactions", ch + "/transactions", 500},
		{"listLatestTransactions-failed", ch + "/transactions?status=failed", 50},
		{"listLatestTransactionsAllChains", "/v1/transactions", 500},
		{"listLatestBlocksAllChains", "/v1/blocks", 500},
		{"getTransactionsForBlock", ch + "/blocks/" + deepBlock + "/transactions", 0},
		{"listContractDeployments", ch + "/contracts/" + benchFactory.Hex() + "/deployments", 20},
		{"listCollectibleBalances", ch + "/addresses/" + whale + "/balances:listCollectibles", 20},
		{"listTokens", ch + "/nfts/collections/" + benchCollection(3).Hex() + "/tokens", 25},
		{"listAddressChains", "/v1/address/" + whale + "/chains", 0},
		{"getContractMetadata", ch + "/addresses/" + benchToken.Hex(), 0},
	}
}

// benchRoute is one route's request: its first page, and how to reach a
// deep page (follow nextPageToken with pageSize 100 for depth pages).
type benchRoute struct {
	name, path string
	depth      int // pages of 100 to skip for the deep page; 0: no deep page
}

// BenchmarkListRoutes measures each listing route of the EVM Data API over
// the fixture, through the catalogue's validation and the handlers (no
// network): the first page and a deep page reached by following page
// tokens, at pageSize 10 (the SDKs' default) and 100 (the most), reporting
// p50 and p99 in milliseconds (reportLatency). It runs only with -bench:
//
//	go test -run XXX -bench ListRoutes -benchtime 1000x -timeout 60m ./local/source/evmindex
//
// EVMINDEX_BENCH_STORE=postgres measures the PostgreSQL store instead, over
// a fixture rebuilt each run; EVMINDEX_BENCH_PG=<postgres URL> over one
// built once in that database and kept (openFixture).
func BenchmarkListRoutes(b *testing.B) {
	ix, n := openFixture(b)
	runtime.GC() // the fixture's garbage, before any request is timed
	mux := routesMux(ix)
	routes := listRoutes(n)
	get := func(b *testing.B, path string) map[string]any {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		var v map[string]any
		json.Unmarshal(rec.Body.Bytes(), &v)
		return v
	}
	with := func(path, q string) string {
		if strings.Contains(path, "?") {
			return path + "&" + q
		}
		return path + "?" + q
	}
	for _, rt := range routes {
		token := ""
		if rt.depth > 0 {
			p := with(rt.path, "pageSize=100")
			for range rt.depth {
				next, _ := get(b, p)["nextPageToken"].(string)
				if next == "" {
					break
				}
				token, p = next, with(rt.path, "pageSize=100&pageToken="+next)
			}
			if token == "" {
				b.Logf("%s has no second page: no deep page measured", rt.path)
			}
		}
		for _, size := range []int{10, 100} {
			pages := []string{"first"}
			if token != "" {
				pages = append(pages, "deep")
			}
			for _, page := range pages {
				path := with(rt.path, "pageSize="+strconv.Itoa(size))
				if page == "deep" {
					path += "&pageToken=" + token
				}
				if rt.name == "listAddressChains" || rt.name == "getContractMetadata" {
					path = rt.path
					if size == 100 {
						continue
					}
				}
				b.Run(fmt.Sprintf("%s/%s/size=%d", rt.name, page, size), func(b *testing.B) {
					b.ReportAllocs()
					lat := make([]time.Duration, 0, b.N)
					for b.Loop() {
						t0 := time.Now()
						rec := httptest.NewRecorder()
						mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
						lat = append(lat, time.Since(t0))
						if rec.Code != http.StatusOK {
							b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
						}
					}
					reportLatency(b, lat)
				})
			}
		}
	}
}

// benchRounds is how many rounds reportLatency splits a sub-benchmark's
// requests into.
const benchRounds = 5

// reportLatency reports the median (p50-ms) and the 99th percentile of the
// requests' latencies. The machine is shared with other builds, whose
// bursts stall a request for tens of milliseconds at random: p99-ms is the
// median of the 99th percentiles of benchRounds consecutive rounds, and
// p99max-ms the worst round's, so one burst shows in the second, not the
// first.
func reportLatency(b *testing.B, lat []time.Duration) {
	pct := func(l []time.Duration, p int) float64 {
		l = slices.Clone(l)
		slices.Sort(l)
		return float64(l[min(len(l)-1, len(l)*p/100)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(lat, 50), "p50-ms")
	if len(lat) < benchRounds*100 {
		b.ReportMetric(pct(lat, 99), "p99-ms")
		return
	}
	per := len(lat) / benchRounds
	rounds := make([]float64, benchRounds)
	for i := range rounds {
		rounds[i] = pct(lat[i*per:(i+1)*per], 99)
	}
	slices.Sort(rounds)
	b.ReportMetric(rounds[benchRounds/2], "p99-ms")
	b.ReportMetric(rounds[benchRounds-1], "p99max-ms")
}
