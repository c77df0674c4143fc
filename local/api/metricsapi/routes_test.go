package metricsapi

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"sort"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// get calls op through the catalogue and decodes its 200 answer into v,
// after checking it against popsicle.json's schema (when named).
func get(t *testing.T, e *Engine, op, target, schemaName string, v any, pv ...string) {
	t.Helper()
	rec := do(e, op, target, pv...)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s %s: status %d: %s", op, target, rec.Code, rec.Body)
	}
	if schemaName != "" {
		validate(t, schemaName, rec.Body.Bytes())
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("%s: %v: %s", op, err, rec.Body)
	}
}

// TestRollingWindows applies four blocks of 43112 at known distances
// before the clock and reads every window of a few metrics.
func TestRollingWindows(t *testing.T) {
	e := newEngine(t)
	at := func(d time.Duration) uint64 { return uint64(clock.Add(-d).Unix()) }
	tx := func(from, to string, gas, price int64) Tx {
		return Tx{From: from, To: to, GasUsed: uint64(gas), GasPrice: big.NewInt(price)}
	}
	day := 24 * time.Hour
	apply(t, e, []*Block{
		{ChainID: 43112, Number: 1, Timestamp: at(400 * day), Txs: []Tx{tx("0xa", "0xb", 100, 10), tx("0xa", "0xb", 100, 10)}},
		{ChainID: 43112, Number: 2, Timestamp: at(100 * day), Txs: []Tx{tx("0xc", "0xb", 50, 20)}},
		{ChainID: 43112, Number: 3, Timestamp: at(2 * day), Txs: []Tx{tx("0xa", "0xe", 30, 5), tx("0xa", "0xe", 30, 5), tx("0xa", "0xe", 30, 5)}},
		{ChainID: 43112, Number: 4, Timestamp: at(30 * time.Minute), Txs: []Tx{tx("0xd", "", 10, 7)},
			Creations: []Creation{{Deployer: "0xd", Address: "0xf", Kind: "CREATE"}}},
	})
	apply(t, e, []*Block{{ChainID: 43113, Number: 1, Timestamp: at(10 * time.Minute), Txs: []Tx{tx("0xa", "0x1", 1, 1)}}})
	cases := []struct {
		chain, metric string
		want          map[string]float64
	}{
		{"43112", "txCount", map[string]float64{"lastHour": 1, "lastDay": 1, "lastWeek": 4, "lastMonth": 4, "last90Days": 4, "lastYear": 5, "allTime": 7}},
		{"43112", "gasUsed", map[string]float64{"lastHour": 10, "lastDay": 10, "lastWeek": 100, "lastMonth": 100, "last90Days": 100, "lastYear": 150, "allTime": 350}},
		{"43112", "feesPaid", map[string]float64{"lastHour": 70, "lastDay": 70, "lastWeek": 520, "lastMonth": 520, "last90Days": 520, "lastYear": 1520, "allTime": 3520}},
		{"43112", "maxGasPrice", map[string]float64{"lastHour": 7, "lastDay": 7, "lastWeek": 7, "lastMonth": 7, "last90Days": 7, "lastYear": 20, "allTime": 20}},
		{"43112", "contracts", map[string]float64{"lastHour": 1, "lastDay": 1, "lastWeek": 1, "lastMonth": 1, "last90Days": 1, "lastYear": 1, "allTime": 1}},
		{"43112", "deployers", map[string]float64{"lastHour": 1, "lastDay": 1, "lastWeek": 1, "lastMonth": 1, "last90Days": 1, "lastYear": 1, "allTime": 1}},
		{"43112", "activeAddresses", map[string]float64{"lastHour": 1, "lastDay": 1, "lastWeek": 3}},
		{"43112", "activeSenders", map[string]float64{"lastHour": 1, "lastDay": 1, "lastWeek": 2}},
		{"43112", "avgTps", map[string]float64{"lastHour": 1.0 / 3600, "lastDay": 1.0 / 86400, "lastWeek": 4.0 / (7 * 86400), "lastMonth": 4.0 / (30 * 86400),
			"last90Days": 4.0 / (90 * 86400), "lastYear": 5.0 / (365 * 86400), "allTime": 7.0 / (400 * 86400)}},
		{"43112", "avgGasPrice", map[string]float64{"lastHour": 7, "lastDay": 7, "lastWeek": 22.0 / 4, "lastMonth": 22.0 / 4, "last90Days": 22.0 / 4,
			"lastYear": 42.0 / 5, "allTime": 62.0 / 7}},
		{"testnet", "txCount", map[string]float64{"lastHour": 2, "lastDay": 2, "lastWeek": 5, "lastMonth": 5, "last90Days": 5, "lastYear": 6, "allTime": 8}},
		{"testnet", "activeAddresses", map[string]float64{"lastHour": 3, "lastDay": 3, "lastWeek": 4}}, // 0xa is active on both,
		{"mainnet", "txCount", map[string]float64{"lastHour": 0, "lastDay": 0, "lastWeek": 0, "lastMonth": 0, "last90Days": 0, "lastYear": 0, "allTime": 0}},
	}
	for _, tc := range cases {
		t.Run(tc.chain+"/"+tc.metric, func(t *testing.T) {
			var got struct{ Result map[string]float64 }
			get(t, e, "getEvmChainRollingWindowMetrics", "/x", "RollingWindowMetricsApiResponse", &got, "chainId", tc.chain, "metric", tc.metric)
			if len(got.Result) != len(tc.want) {
				t.Fatalf("windows %v; want %v", got.Result, tc.want)
			}
			for k, w := range tc.want {
				if g := got.Result[k]; g != w && (w == 0 || (g-w)/w > 1e-12 || (w-g)/w > 1e-12) {
					t.Errorf("%s = %v; want %v", k, g, w)
				}
			}
		})
	}
	if rec := do(e, "getEvmChainRollingWindowMetrics", "/x", "chainId", "5", "metric", "txCount"); rec.Code != http.StatusNotFound {
		t.Errorf("an unknown chain: %d; want 404", rec.Code)
	}
}

// fakeICM counts fixed messages.
type fakeICM struct{ counts []evmindex.ICMCount }

func (f fakeICM) ICMHourly(_ context.Context, since, until int64) ([]evmindex.ICMCount, error) {
	var out []evmindex.ICMCount
	for _, c := range f.counts {
		if c.Hour >= since/3600*3600 && c.Hour <= until {
			out = append(out, c)
		}
	}
	return out, nil
}

func (fakeICM) ICMChainTxs(_ context.Context, chainID uint64, kind evmindex.ICMEventKind) (uint64, error) {
	if chainID != 43112 {
		return 0, nil
	}
	return map[evmindex.ICMEventKind]uint64{evmindex.ICMSend: 3, evmindex.ICMReceive: 2}[kind], nil
}

func TestICMMetrics(t *testing.T) {
	local, fuji, mainnet := chainOf(t, testChains[0].BlockchainID), chainOf(t, testChains[1].BlockchainID), chainOf(t, testChains[2].BlockchainID)
	other := common.Hash{0x07}
	hour := clock.Unix() / 3600 * 3600
	e, err := New(Options{Chains: testChains, Now: func() time.Time { return clock }, ICM: fakeICM{[]evmindex.ICMCount{
		{Hour: hour - 40*86400, Source: local, Destination: fuji, N: 5},
		{Hour: hour - 2*86400, Source: local, Destination: other, N: 1},
		{Hour: hour - 3600, Source: local, Destination: fuji, N: 2},
		{Hour: hour - 3600, Source: fuji, Destination: local, N: 4},
		{Hour: hour, Source: mainnet, Destination: other, N: 3},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	cb := func(h common.Hash) string { return avax.CB58Encode(h[:]) }
	type summary struct {
		Result struct {
			LastHour, LastDay, LastWeek, LastMonth, Last90Days, LastYear, AllTime float64
			Src                                                                   string `json:"srcBlockchainId"`
			Dst                                                                   string `json:"destBlockchainId"`
		}
	}
	for _, tc := range []struct {
		query                       string
		hour, day, week, month, all float64
		src, dst                    string
	}{
		{"", 3, 9, 10, 10, 15, "", ""},
		{"?srcBlockchainId=" + cb(local), 0, 2, 3, 3, 8, cb(local), ""},
		{"?srcBlockchainId=43112&destBlockchainId=" + cb(fuji), 0, 2, 2, 2, 7, cb(local), cb(fuji)},
		{"?network=mainnet", 3, 3, 3, 3, 3, "", ""},
		{"?network=fuji&groupBy=srcBlockchainId", 0, 6, 7, 7, 12, "", ""},
	} {
		var got summary
		get(t, e, "getICMSummary", "/x"+tc.query, "ICMRollingWindowMetricsApiResponse", &got)
		r := got.Result
		if r.LastHour != tc.hour || r.LastDay != tc.day || r.LastWeek != tc.week || r.LastMonth != tc.month || r.AllTime != tc.all || r.Src != tc.src || r.Dst != tc.dst {
			t.Errorf("summary%s: %+v; want hour %v day %v week %v month %v all %v from %q to %q", tc.query, r, tc.hour, tc.day, tc.week, tc.month, tc.all, tc.src, tc.dst)
		}
	}
	type series struct {
		Results []struct {
			Value     float64
			Timestamp int64
			Src       string `json:"srcBlockchainId"`
			Dst       string `json:"destBlockchainId"`
		}
		NextPageToken string
	}
	today := clock.Unix() / 86400 * 86400
	var s series
	get(t, e, "getICMTimeseries", "/x?groupBy=srcBlockchainId,destBlockchainId&startTimestamp="+itoa(today-86400), "ICMMetricsApiResponse", &s)
	type pt struct {
		v        float64
		ts       int64
		src, dst string
	}
	var got []pt
	for _, r := range s.Results {
		got = append(got, pt{r.Value, r.Timestamp, r.Src, r.Dst})
	}
	// The last hour's messages are today's unless the clock is in the
	// first hour of the day: it is 05:00.
	// Points of a day are ordered by source, then destination (base58).
	want := []pt{{2, today, cb(local), cb(fuji)}, {3, today, cb(mainnet), cb(other)}, {4, today, cb(fuji), cb(local)}}
	if len(got) != len(want) {
		t.Fatalf("series %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d: %+v; want %+v", i, got[i], want[i])
		}
	}
	// Pages of one point, with the destination only.
	var all []pt
	q := "/x?pageSize=1&groupBy=destBlockchainId"
	for page := 0; ; page++ {
		var p series
		get(t, e, "getICMTimeseries", q, "ICMMetricsApiResponse", &p)
		for _, r := range p.Results {
			all = append(all, pt{r.Value, r.Timestamp, r.Src, r.Dst})
		}
		if p.NextPageToken == "" || page > 10 {
			break
		}
		q = "/x?pageSize=1&groupBy=destBlockchainId&pageToken=" + p.NextPageToken
	}
	wantAll := []pt{{4, today, "", cb(local)}, {2, today, "", cb(fuji)}, {3, today, "", cb(other)}, {1, today - 2*86400, "", cb(other)}, {5, today - 40*86400, "", cb(fuji)}}
	sort.SliceStable(wantAll[:3], func(i, j int) bool { return wantAll[i].dst < wantAll[j].dst })
	if len(all) != len(wantAll) {
		t.Fatalf("pages %+v; want %+v", all, wantAll)
	}
	for i := range wantAll {
		if all[i] != wantAll[i] {
			t.Errorf("paged point %d: %+v; want %+v", i, all[i], wantAll[i])
		}
	}
	for metric, want := range map[string]float64{"teleporterSourceTxnCount": 3, "teleporterDestinationTxnCount": 2, "teleporterTotalTxnCount": 5} {
		var got struct{ Result struct{ Value float64 } }
		get(t, e, "getTeleporterMetricsByChain", "/x", "", &got, "chainId", "43112", "metric", metric)
		if got.Result.Value != want {
			t.Errorf("%s = %v; want %v", metric, got.Result.Value, want)
		}
	}
	if rec := do(e, "getICMSummary", "/x?srcBlockchainId=nope"); rec.Code != http.StatusBadRequest {
		t.Errorf("a bad source: %d; want 400", rec.Code)
	}
}

func chainOf(t *testing.T, cb58 string) common.Hash {
	t.Helper()
	b, err := avax.CB58Decode(cb58)
	if err != nil {
		t.Fatal(err)
	}
	return common.BytesToHash(b)
}

func itoa(n int64) string { return big.NewInt(n).String() }

// intValueOf reads an integer query value of target, MaxInt64 when absent.
func intValueOf(target, name string) int64 {
	u, _ := url.Parse(target)
	n, ok := new(big.Int).SetString(u.Query().Get(name), 10)
	if !ok {
		return math.MaxInt64
	}
	return n.Int64()
}

// fakeStakes is a fixed P-Chain history.
type fakeStakes struct {
	now    time.Time
	stakes []*pindex.Stake
}

func (f fakeStakes) Stakes(context.Context) ([]*pindex.Stake, error) { return f.stakes, nil }
func (f fakeStakes) Now() time.Time                                  { return f.now }

// TestStakingAndL1Fees: from day d0, two primary validators (V1 for three
// days, V2 from day 1), a delegator, a subnet validator, and two L1
// validators: L1a from d0 with 1.5 days of fees as balance, L1b from day 1,
// disabled half a day later; the source's clock is day 3, 06:00.
func TestStakingAndL1Fees(t *testing.T) {
	const d = 86400
	d0 := int64(1_800_000_000) / d * d
	x, y := avax.ShortID{1}, avax.ShortID{2}
	nodeB := avax.NodeID{0xb}
	src := fakeStakes{now: time.Unix(d0+3*d+6*3600, 0), stakes: []*pindex.Stake{
		{Kind: "validator", SubnetID: primaryNetwork, Weight: 10, Start: d0 + 3600, End: d0 + 3*d, RewardOwner: []avax.ShortID{x}, Time: d0},
		{Kind: "validator", SubnetID: primaryNetwork, Weight: 5, Start: d0 + d + 3600, End: d0 + 30*d, RewardOwner: []avax.ShortID{y}, Time: d0 + d},
		{Kind: "delegator", SubnetID: primaryNetwork, Weight: 3, Start: d0 + 2*d, End: d0 + 3*d + 12*3600, Time: d0 + 2*d},
		{Kind: "subnet_validator", SubnetID: "S", Weight: 20, Start: d0, End: d0 + 10*d, Time: d0},
		{Kind: "l1_validator", SubnetID: "L1", ValidationID: "va", NodeID: avax.NodeID{0xa}, Weight: 1, Start: d0, Balance: L1FeeRate * d * 3 / 2, Time: d0},
		{Kind: "l1_validator", SubnetID: "L1", ValidationID: "vb", NodeID: nodeB, Weight: 1, Start: d0 + d, Balance: 1e18, Time: d0 + d,
			EndKind: "disabled", EndTime: d0 + d + 12*3600},
	}}
	e, err := New(Options{Chains: testChains, Now: func() time.Time { return clock }, Stakes: src,
		HRP: func(n string) string { return map[string]string{"mainnet": "avax"}[n] + "x" }})
	if err != nil {
		t.Fatal(err)
	}
	values := func(op, target string, pv ...string) []int64 {
		t.Helper()
		var p struct {
			Results []struct{ Value, Timestamp int64 }
		}
		get(t, e, op, target, "MetricsApiResponse", &p, pv...)
		var out []int64
		for i, r := range p.Results {
			if i > 0 && r.Timestamp != p.Results[i-1].Timestamp-d {
				t.Errorf("%s: point %d at %d; want a day before %d", op, i, r.Timestamp, p.Results[i-1].Timestamp)
			}
			out = append(out, r.Value)
		}
		if len(p.Results) > 0 && p.Results[0].Timestamp != min(d0+3*d, intValueOf(target, "endTimestamp")) {
			t.Errorf("%s: newest point at %d; want today (%d) or the end", op, p.Results[0].Timestamp, d0+3*d)
		}
		return out
	}
	const day, half = L1FeeRate * d, L1FeeRate * d / 2
	cases := []struct {
		name, op, target string
		pv               []string
		want             []int64
	}{
		{"validators", "getStakingMetrics", "/x", []string{"network", "fuji", "metric", "validatorCount"}, []int64{1, 1, 2, 1}},
		{"validator weight", "getStakingMetrics", "/x", []string{"network", "fuji", "metric", "validatorWeight"}, []int64{5, 5, 15, 10}},
		{"delegators", "getStakingMetrics", "/x", []string{"network", "fuji", "metric", "delegatorCount"}, []int64{1, 1}},
		{"delegator weight", "getStakingMetrics", "/x", []string{"network", "fuji", "metric", "delegatorWeight"}, []int64{3, 3}},
		{"a subnet's validators", "getStakingMetrics", "/x?subnetId=S", []string{"network", "mainnet", "metric", "validatorWeight"}, []int64{20, 20, 20, 20}},
		{"a subnet's delegators", "getStakingMetrics", "/x?subnetId=S", []string{"network", "mainnet", "metric", "delegatorCount"}, nil},
		{"bounded", "getStakingMetrics", "/x?startTimestamp=" + itoa(d0+d) + "&endTimestamp=" + itoa(d0+2*d), []string{"network", "fuji", "metric", "validatorCount"}, []int64{1, 2}},
		{"fees", "getTotalL1ValidatorMetrics", "/x", []string{"metric", "totalValidatorFeesDaily"}, []int64{0, 0, 2 * half, day}},
		{"cumulative fees", "getTotalL1ValidatorMetrics", "/x", []string{"metric", "totalCumulativeFeesDaily"}, []int64{2 * day, 2 * day, 2 * day, day}},
		{"paying", "getTotalL1ValidatorMetrics", "/x", []string{"metric", "totalPayingValidatorsDaily"}, []int64{0, 0, 2, 1}},
		{"a validation", "getMetricsByValidationId", "/x", []string{"l1ValidationId", "va", "metric", "validationFeesDaily"}, []int64{0, 0, half, day}},
		{"a validation, cumulative", "getMetricsByValidationId", "/x", []string{"l1ValidationId", "va", "metric", "validationCumulativeFeesDaily"}, []int64{day + half, day + half, day + half, day}},
		{"a node", "getMetricsByNodeId", "/x", []string{"nodeId", nodeB.String(), "metric", "perNodeDailyFeesPaid"}, []int64{0, 0, half}},
		{"a subnet", "getMetricsBySubnetId", "/x", []string{"subnetId", "L1", "metric", "perSubnetPayingValidators"}, []int64{0, 0, 2, 1}},
		{"another subnet", "getMetricsBySubnetId", "/x", []string{"subnetId", "S", "metric", "perSubnetDailyFeesPaid"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := values(tc.op, tc.target, tc.pv...)
			if !equal(got, tc.want) {
				t.Errorf("%v; want %v", got, tc.want)
			}
		})
	}
	t.Run("pages", func(t *testing.T) {
		var p struct {
			Results       []struct{ Value int64 }
			NextPageToken string
		}
		get(t, e, "getStakingMetrics", "/x?pageSize=3", "MetricsApiResponse", &p, "network", "fuji", "metric", "validatorCount")
		if len(p.Results) != 3 || p.NextPageToken == "" {
			t.Fatalf("first page %+v", p)
		}
		var q struct {
			Results       []struct{ Value int64 }
			NextPageToken string
		}
		get(t, e, "getStakingMetrics", "/x?pageSize=3&pageToken="+p.NextPageToken, "MetricsApiResponse", &q, "network", "fuji", "metric", "validatorCount")
		if len(q.Results) != 1 || q.Results[0].Value != 1 || q.NextPageToken != "" {
			t.Fatalf("second page %+v", q)
		}
	})
	t.Run("validator addresses", func(t *testing.T) {
		var p struct {
			Addresses []struct {
				Addresses []string
				SortKey   string
			}
		}
		get(t, e, "getValidatorsByDateRange", "/x?network=mainnet", "PChainLookingGlassResponse", &p, "subnetId", primaryNetwork)
		want := []string{avax.FormatBech32("avaxx", x), avax.FormatBech32("avaxx", y)}
		if len(p.Addresses) != 2 || p.Addresses[0].Addresses[0] != want[0] || p.Addresses[1].Addresses[0] != want[1] || p.Addresses[1].SortKey != itoa(d0+d) {
			t.Fatalf("addresses %+v; want %v", p, want)
		}
		get(t, e, "getValidatorsByDateRange", "/x?startTimestamp="+itoa(d0+3*d+3600), "PChainLookingGlassResponse", &p, "subnetId", primaryNetwork)
		if len(p.Addresses) != 1 || p.Addresses[0].Addresses[0] != avax.FormatBech32("x", y) {
			t.Fatalf("after V1's end: %+v; want V2's address alone", p)
		}
	})
	t.Run("btcb", func(t *testing.T) {
		var p struct{ Addresses []any }
		get(t, e, "getAddressesByBtcbBridged", "/x?threshold=1", "LookingGlassResponse", &p)
		if p.Addresses == nil || len(p.Addresses) != 0 {
			t.Fatalf("%+v; want an empty list", p)
		}
	})
}

// withCurrent is a fakeStakes that also keeps the node's current validators.
type withCurrent struct {
	fakeStakes
	current string
}

func (w withCurrent) CurrentValidators(_ context.Context, subnet string) (json.RawMessage, int64, bool, error) {
	if subnet != primaryNetwork {
		return nil, 0, false, nil
	}
	return json.RawMessage(w.current), 0, true, nil
}

// TestGenesisStakers: a validator of the genesis, which no block lists,
// counts from its start as the node lists it; one the history has is not
// counted twice.
func TestGenesisStakers(t *testing.T) {
	const d = 86400
	d0 := int64(1_800_000_000) / d * d
	g := avax.ShortID{7}
	addr := avax.FormatAddress("P", "local", g)
	src := withCurrent{fakeStakes{now: time.Unix(d0+d+3600, 0), stakes: []*pindex.Stake{
		{TxID: "known", Kind: "validator", SubnetID: primaryNetwork, Weight: 5, Start: d0 + d, End: d0 + 9*d, Time: d0 + d},
	}}, `{"validators":[
		{"txID":"genesis","nodeID":"NodeID-111111111111111111116DBWJs","startTime":"` + itoa(d0-d) + `","endTime":"` + itoa(d0+30*d) + `","weight":"7",
		 "validationRewardOwner":{"addresses":["` + addr + `"],"threshold":"1"},
		 "delegators":[{"txID":"gd","startTime":"` + itoa(d0) + `","endTime":"` + itoa(d0+2*d) + `","weight":"2"}]},
		{"txID":"known","nodeID":"NodeID-111111111111111111116DBWJs","startTime":"` + itoa(d0+d) + `","endTime":"` + itoa(d0+9*d) + `","weight":"5"}]}`}
	e, err := New(Options{Chains: testChains, Now: func() time.Time { return clock }, Stakes: src})
	if err != nil {
		t.Fatal(err)
	}
	series := func(metric string) []int64 {
		var p struct{ Results []struct{ Value int64 } }
		get(t, e, "getStakingMetrics", "/x", "MetricsApiResponse", &p, "network", "fuji", "metric", metric)
		var out []int64
		for _, r := range p.Results {
			out = append(out, r.Value)
		}
		return out
	}
	for metric, want := range map[string][]int64{"validatorWeight": {12, 7, 7}, "validatorCount": {2, 1, 1}, "delegatorWeight": {2, 2}} {
		if got := series(metric); !equal(got, want) {
			t.Errorf("%s %v; want %v", metric, got, want)
		}
	}
	var p struct {
		Addresses []struct{ Addresses []string }
	}
	get(t, e, "getValidatorsByDateRange", "/x", "PChainLookingGlassResponse", &p, "subnetId", primaryNetwork)
	if len(p.Addresses) != 1 || p.Addresses[0].Addresses[0] != avax.FormatBech32("local", g) {
		t.Errorf("addresses %+v; want the genesis validator's", p)
	}
}
