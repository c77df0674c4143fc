package metricsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// genBlocks makes a chain with known activity: blocks every 7..4000 s across
// month and week edges, a few addresses, creations.
func genBlocks(chainID uint64, n int, seed int64) []*Block {
	rng := rand.New(rand.NewSource(seed))
	ts := uint64(time.Date(2026, 1, 30, 22, 0, 0, 0, time.UTC).Unix()) // crosses a month edge and several Mondays
	addrs := []string{"0xA1", "0xb2", "0xc3", "0xd4", "0xe5", "0xf6", "0x07"}
	var out []*Block
	for i := 0; i < n; i++ {
		ts += uint64(7 + rng.Intn(4000))
		b := &Block{ChainID: chainID, Number: uint64(i + 1), Timestamp: ts}
		for j := rng.Intn(4); j > 0; j-- {
			gp := big.NewInt(int64(25e9 + rng.Intn(1e9)))
			gas := uint64(21000 + rng.Intn(100000))
			tx := Tx{From: addrs[rng.Intn(len(addrs))], To: addrs[rng.Intn(len(addrs))], GasUsed: gas, GasPrice: gp, Fee: new(big.Int).Mul(gp, big.NewInt(int64(gas)))}
			b.Txs = append(b.Txs, tx)
			b.GasUsed += gas
		}
		if rng.Intn(3) == 0 {
			b.Transfers = append(b.Transfers, Transfer{From: addrs[rng.Intn(len(addrs))], To: fmt.Sprintf("0xT%d", rng.Intn(20))})
		}
		if rng.Intn(10) == 0 {
			b.Creations = append(b.Creations, Creation{Deployer: addrs[rng.Intn(3)], Address: fmt.Sprintf("0xC%d", i), Kind: []string{"CREATE", "CREATE2", "CALL"}[rng.Intn(3)]})
		}
		out = append(out, b)
	}
	return out
}

// brute computes a metric for one bucket [start, next) of blocks directly
// from the seed's definitions.
func brute(blocks []*Block, metric, iv string, start int64) float64 {
	end := nextBucket(start, iv)
	in := func(b *Block) bool { return int64(b.Timestamp) >= start && int64(b.Timestamp) < end }
	through := func(b *Block) bool { return int64(b.Timestamp) < end }
	set := map[string]bool{}
	v := 0.0
	bigSum := new(big.Int)
	n := 0
	var prevTs uint64
	lastPrevDay, lastThis, firstThis := uint64(0), uint64(0), uint64(0)
	for i, b := range blocks {
		if int64(b.Timestamp) < start {
			lastPrevDay = b.Timestamp
		}
		if !in(b) {
			if through(b) {
				prevTs = b.Timestamp
			}
			continue
		}
		if firstThis == 0 {
			firstThis = b.Timestamp
		}
		lastThis = b.Timestamp
		dt := 1.0
		if i > 0 && b.Timestamp > prevTs {
			dt = float64(b.Timestamp - prevTs)
		}
		switch metric {
		case "txCount":
			v += float64(len(b.Txs))
		case "gasUsed":
			v += float64(b.GasUsed)
		case "activeAddresses", "activeSenders":
			for _, t := range b.Txs {
				set[strings.ToLower(t.From)] = true
				if metric == "activeAddresses" && t.To != "" {
					set[strings.ToLower(t.To)] = true
				}
			}
			for _, t := range b.Transfers {
				set[strings.ToLower(t.From)] = true
				if metric == "activeAddresses" {
					set[strings.ToLower(t.To)] = true
				}
			}
		case "contracts", "deployers":
			for _, c := range b.Creations {
				if c.Kind == "CALL" {
					continue
				}
				v++
				set[strings.ToLower(c.Deployer)] = true
			}
		case "feesPaid":
			for _, t := range b.Txs {
				bigSum.Add(bigSum, t.Fee)
			}
		case "avgGasPrice", "maxGasPrice":
			for _, t := range b.Txs {
				n++
				if metric == "avgGasPrice" {
					bigSum.Add(bigSum, t.GasPrice)
				} else if t.GasPrice.Cmp(bigSum) > 0 {
					bigSum.Set(t.GasPrice)
				}
			}
		case "maxGps", "maxTps":
			if i > 0 {
				x := float64(b.GasUsed) / dt
				if metric == "maxTps" {
					x = float64(len(b.Txs)) / dt
				}
				v = math.Max(v, x)
			}
		case "avgGps", "avgTps":
			if metric == "avgGps" {
				v += float64(b.GasUsed)
			} else {
				v += float64(len(b.Txs))
			}
		}
		prevTs = b.Timestamp
	}
	switch metric {
	case "activeAddresses", "activeSenders", "deployers":
		return float64(len(set))
	case "feesPaid", "maxGasPrice":
		f, _ := new(big.Float).SetInt(bigSum).Float64()
		return f
	case "avgGasPrice":
		if n == 0 {
			return 0
		}
		f, _ := new(big.Float).SetInt(bigSum).Float64()
		return f / float64(n)
	case "avgGps", "avgTps":
		prev := lastPrevDay
		if prev == 0 {
			prev = firstThis
		}
		if lastThis <= prev {
			return v
		}
		return v / float64(lastThis-prev)
	case "cumulativeTxCount", "cumulativeContracts", "cumulativeAddresses", "cumulativeDeployers":
		seen := map[string]bool{}
		c := 0.0
		for _, b := range blocks {
			if !through(b) {
				break
			}
			switch metric {
			case "cumulativeTxCount":
				c += float64(len(b.Txs))
			case "cumulativeContracts", "cumulativeDeployers":
				for _, cr := range b.Creations {
					if cr.Kind != "CALL" {
						c++
						seen[strings.ToLower(cr.Deployer)] = true
					}
				}
			case "cumulativeAddresses":
				for _, t := range b.Txs {
					seen[strings.ToLower(t.From)], seen[strings.ToLower(t.To)] = true, true
				}
				for _, t := range b.Transfers {
					seen[strings.ToLower(t.From)], seen[strings.ToLower(t.To)] = true, true
				}
			}
		}
		if metric == "cumulativeAddresses" || metric == "cumulativeDeployers" {
			return float64(len(seen))
		}
		return c
	}
	return v
}

func newEngine(t testing.TB, blocks []*Block) *Engine {
	e, _ := New(Options{Chains: []Chain{{EVMChainID: 43112, ChainName: "local", BlockchainID: "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC", SubnetID: "11111111111111111111111111111111LpoYY", Network: "testnet"}}})
	for _, b := range blocks {
		if err := e.Apply(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func get(t *testing.T, e *Engine, name, target string, pv map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	for k, v := range pv {
		r.SetPathValue(k, v)
	}
	w := httptest.NewRecorder()
	e.Handlers()[name].ServeHTTP(w, r)
	return w
}

func TestEveryMetricEveryInterval(t *testing.T) {
	blocks := genBlocks(43112, 600, 1)
	e := newEngine(t, blocks)
	for _, metric := range Metrics {
		for _, iv := range intervals {
			if iv != Day && dayOnly(metric) {
				continue
			}
			t.Run(metric+"/"+iv, func(t *testing.T) {
				w := get(t, e, "getEvmChainMetrics", "/x?pageSize=2160&timeInterval="+iv, map[string]string{"chainId": "43112", "metric": metric})
				if w.Code != 200 {
					t.Fatalf("%d %s", w.Code, w.Body)
				}
				var resp struct{ Results []result }
				json.Unmarshal(w.Body.Bytes(), &resp)
				if len(resp.Results) == 0 {
					t.Fatal("no results")
				}
				for i, p := range resp.Results {
					if i > 0 && p.Timestamp >= resp.Results[i-1].Timestamp {
						t.Fatal("not newest first")
					}
					if p.Timestamp != bucketStart(uint64(p.Timestamp), iv) {
						t.Fatalf("timestamp %d not aligned to %s", p.Timestamp, iv)
					}
					want := brute(blocks, metric, iv, p.Timestamp)
					if math.Abs(p.Value-want) > 1e-9*math.Max(1, math.Abs(want)) {
						t.Fatalf("%s at %s: got %v; want %v", metric, time.Unix(p.Timestamp, 0).UTC(), p.Value, want)
					}
				}
			})
		}
	}
}

func TestAlignment(t *testing.T) {
	ts := uint64(time.Date(2026, 3, 4, 15, 30, 0, 0, time.UTC).Unix()) // a Wednesday
	for iv, want := range map[string]time.Time{
		Hour:  time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC),
		Day:   time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC),
		Week:  time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC),
		Month: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got := bucketStart(ts, iv); got != want.Unix() {
			t.Errorf("%s: %v; want %v", iv, time.Unix(got, 0).UTC(), want)
		}
	}
}

func TestRollbackAndPages(t *testing.T) {
	blocks := genBlocks(43112, 300, 2)
	e := newEngine(t, blocks)
	e.Rollback(context.Background(), 43112, 151)
	want := newEngine(t, blocks[:150])
	for _, metric := range []string{"txCount", "activeAddresses", "cumulativeAddresses", "avgGps"} {
		a := get(t, e, "getEvmChainMetrics", "/x?pageSize=2160", map[string]string{"chainId": "43112", "metric": metric})
		b := get(t, want, "getEvmChainMetrics", "/x?pageSize=2160", map[string]string{"chainId": "43112", "metric": metric})
		if a.Body.String() != b.Body.String() {
			t.Fatalf("%s after rollback differs", metric)
		}
	}
	// Walk hourly pages of 7: every point once.
	seen := map[int64]bool{}
	tok := ""
	for pages := 0; ; pages++ {
		target := "/x?timeInterval=hour&pageSize=7"
		if tok != "" {
			target += "&pageToken=" + tok
		}
		w := get(t, e, "getEvmChainMetrics", target, map[string]string{"chainId": "43112", "metric": "txCount"})
		var resp struct {
			NextPageToken *string
			Results       []result
		}
		json.Unmarshal(w.Body.Bytes(), &resp)
		for _, p := range resp.Results {
			if seen[p.Timestamp] {
				t.Fatal("point seen twice")
			}
			seen[p.Timestamp] = true
		}
		if resp.NextPageToken == nil {
			break
		}
		if *resp.NextPageToken == "" {
			t.Fatal("empty nextPageToken")
		}
		tok = *resp.NextPageToken
	}
	all := get(t, e, "getEvmChainMetrics", "/x?timeInterval=hour&pageSize=2160", map[string]string{"chainId": "43112", "metric": "txCount"})
	var resp struct{ Results []result }
	json.Unmarshal(all.Body.Bytes(), &resp)
	if len(seen) != len(resp.Results) {
		t.Fatalf("walked %d points; want %d", len(seen), len(resp.Results))
	}
}

func TestErrorsAndAggregates(t *testing.T) {
	e := newEngine(t, genBlocks(43112, 50, 3))
	for _, b := range genBlocks(99, 50, 4) {
		e.Apply(context.Background(), b)
	}
	if w := get(t, e, "getEvmChainMetrics", "/x", map[string]string{"chainId": "1234", "metric": "txCount"}); w.Code != 404 || !strings.Contains(w.Body.String(), `"message":[`) {
		t.Fatalf("unknown chain: %d %s", w.Code, w.Body)
	}
	if w := get(t, e, "getEvmChainMetrics", "/x?timeInterval=hour", map[string]string{"chainId": "43112", "metric": "avgTps"}); w.Code != 400 {
		t.Fatalf("avgTps hourly: %d", w.Code)
	}
	one := func(chain string) float64 {
		w := get(t, e, "getEvmChainMetrics", "/x?pageSize=2160", map[string]string{"chainId": chain, "metric": "cumulativeTxCount"})
		var resp struct{ Results []result }
		json.Unmarshal(w.Body.Bytes(), &resp)
		return resp.Results[0].Value
	}
	if one("total") != one("43112")+one("99") {
		t.Fatalf("total %v != %v + %v", one("total"), one("43112"), one("99"))
	}
}

func TestSchemas(t *testing.T) {
	raw, err := os.ReadFile("../../../shared/spec/popsicle.json")
	if err != nil {
		t.Skip("popsicle.json not found")
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AddResource("popsicle.json", doc)
	e := newEngine(t, genBlocks(43112, 100, 5))
	for _, tc := range []struct{ schema, name, target string }{
		{"MetricsApiResponse", "getEvmChainMetrics", "/x?pageSize=3"},
		{"ListChainsResponse", "listChains", "/x"},
		{"Chain", "getChain", "/x"},
	} {
		s, err := c.Compile("popsicle.json#/components/schemas/" + tc.schema)
		if err != nil {
			t.Fatal(err)
		}
		w := get(t, e, tc.name, tc.target, map[string]string{"chainId": "43112", "metric": "txCount"})
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(w.Body.String()))
		if err := s.Validate(v); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, w.Body)
		}
	}
	w := get(t, e, "getAvgTps", "/x", map[string]string{"chainId": "43112"})
	var avg struct {
		Results []result
		Status  int
		LastRun int64
	}
	if json.Unmarshal(w.Body.Bytes(), &avg); avg.Status != 200 || len(avg.Results) == 0 || avg.LastRun == 0 {
		t.Fatalf("avg_tps: %s", w.Body)
	}
}

// BenchmarkHourlySeries answers a 2,160-point hourly series over 1,000,000
// transactions.
func BenchmarkHourlySeries(b *testing.B) {
	e, _ := New(Options{})
	ts := uint64(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix())
	gp := big.NewInt(25e9)
	fee := big.NewInt(25e9 * 21000)
	for i := 0; i < 100000; i++ { // 100,000 blocks of 10 txs, 2 minutes apart: ~3,300 hours
		blk := &Block{ChainID: 1, Number: uint64(i + 1), Timestamp: ts + uint64(i)*120, GasUsed: 210000}
		for j := 0; j < 10; j++ {
			blk.Txs = append(blk.Txs, Tx{From: fmt.Sprintf("0x%d", (i*10+j)%5000), To: "0xto", GasUsed: 21000, GasPrice: gp, Fee: fee})
		}
		e.Apply(context.Background(), blk)
	}
	r := httptest.NewRequest("GET", "/x?timeInterval=hour&pageSize=2160", nil)
	r.SetPathValue("chainId", "1")
	r.SetPathValue("metric", "activeAddresses")
	h := e.Handlers()["getEvmChainMetrics"]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}
