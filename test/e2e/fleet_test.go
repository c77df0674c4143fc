package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestFleet: three replicas of the built binary share one index in
// PostgreSQL (AVAEDGE_INDEX_URL) and follow the real node, each through a
// proxy that counts its requests to the node. Exactly one replica, the
// lease's writer, sends the node the follower's requests; the three answer
// the Data API, Metrics API and node reads with the same bytes, and a page
// token one gives pages on the others. The writer, stalled behind a backlog
// of blocks and then catching up, is killed (SIGKILL) mid-catch-up:
// another replica is the writer within 10 s and indexes the backlog, and
// the shared index then holds the same rows, and answers the same, as a
// fresh single replica following the same node into a database of its own.
func TestFleet(t *testing.T) {
	n := startNode(t)
	pg := pgtest.Start(t)
	shared := pg.Database(t)
	act := makeEVMActivity(t, n.URI+"/ext/bc/C/rpc")
	keys := bulkKeysFile(t)
	proxies := make([]*nodeProxy, 3)
	replicas := make([]*edge, 3)
	start := func(i int) *edge {
		return startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": proxies[i].URL, "AVAEDGE_INDEX_URL": shared,
			"AVAEDGE_DATA_DIR": t.TempDir(), "AVAEDGE_KEYS_FILE": keys})
	}
	for i := range replicas {
		proxies[i] = newNodeProxy(t, n.URI)
		replicas[i] = start(i)
	}
	w := waitWriter(t, replicas, 30*time.Second)
	head := cHead(t, n.URI)
	waitStored(t, head, replicas...)
	waitIndexed(t, replicas[w].URL, act)
	checkOneFollower(t, proxies, w)
	checkSameAnswers(t, n.URI, fleetReads(act), replicas...)
	checkPageToken(t, replicas)

	// A backlog: the writer's link to the node stalls while the node makes
	// blocks, then passes, slowly; the writer is killed while it fetches.
	proxies[w].stall()
	backlog := makeEVMActivity(t, n.URI+"/ext/bc/C/rpc")
	target := cHead(t, n.URI)
	if target <= head {
		t.Fatalf("the backlog made no block: the head is %d, was %d", target, head)
	}
	proxies[w].take()
	proxies[w].release(500 * time.Millisecond)
	deadline := time.Now().Add(20 * time.Second)
	for sum(proxies[w].peek(), isCChain) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the writer sent the node no request within 20 s of its link passing again")
		}
		time.Sleep(10 * time.Millisecond)
	}
	replicas[w].kill()
	killed := time.Now()
	dead := w
	replicas[dead] = nil
	other := (dead + 1) % 3
	if got := storedHead(t, replicas[other]); got < int64(head) || got >= int64(target) {
		t.Fatalf("the index holds blocks up to %d when the writer is killed; want the catch-up from %d to %d under way", got, head, target)
	}
	w = waitWriter(t, replicas, 10*time.Second)
	takeover := time.Since(killed)
	t.Logf("the writer (replica %d) killed mid-catch-up (index at %d of %d blocks): replica %d writes %s later",
		dead, head, target, w, takeover.Round(time.Millisecond))
	waitStored(t, target, replicas...)
	waitIndexed(t, replicas[w].URL, backlog)
	t.Logf("the backlog indexed %s after the kill", time.Since(killed).Round(time.Millisecond))

	// The killed replica comes back as a reader.
	replicas[dead] = start(dead)
	waitStored(t, target, replicas[dead])
	if got := waitWriter(t, replicas, 5*time.Second); got != w {
		t.Fatalf("the writer is replica %d after the killed one came back; was %d", got, w)
	}
	checkOneFollower(t, proxies, w)
	reads := append(fleetReads(act), fleetReads(backlog)...)
	fleetAnswers := checkSameAnswers(t, n.URI, reads, replicas...)
	checkPageToken(t, replicas)

	// A fresh replica following the same node into a database of its own.
	own := pg.Database(t)
	single := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI, "AVAEDGE_INDEX_URL": own,
		"AVAEDGE_DATA_DIR": t.TempDir(), "AVAEDGE_KEYS_FILE": keys})
	waitWriter(t, []*edge{single}, 30*time.Second)
	waitStored(t, target, single)
	waitIndexed(t, single.URL, backlog)
	singleAnswers := checkSameAnswers(t, n.URI, reads, single)
	for i, r := range reads {
		if fleetAnswers[i].Status != singleAnswers[i].Status || !bytes.Equal(ownFree(fleetAnswers[i].Body), ownFree(singleAnswers[i].Body)) {
			t.Errorf("%s %s: the fleet answers %d, a single replica %d; %s", r.method, r.path, fleetAnswers[i].Status, singleAnswers[i].Status,
				divergence(ownFree(fleetAnswers[i].Body), ownFree(singleAnswers[i].Body)))
		}
	}
	checkSameRows(t, shared, own)
}

// divergence shows where a and b part.
func divergence(a, b []byte) string {
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	lo := max(0, k-200)
	return fmt.Sprintf("they part at byte %d of %d and %d:\n%s\n%s", k, len(a), len(b), a[lo:min(len(a), k+120)], b[lo:min(len(b), k+120)])
}

// ownFree blanks what two deployments answer differently by design: page
// tokens, MACed with each deployment's secret, the time an NFT's metadata
// was read, and a validator's uptime as the node measured it when the
// index last read the validators.
func ownFree(b []byte) []byte {
	b = pageTokenRE.ReplaceAll(b, []byte(`"nextPageToken":""`))
	b = uptimeRE.ReplaceAll(b, []byte(`"uptimePerformance":0`))
	return metadataTimeRE.ReplaceAll(b, []byte(`"metadataLastUpdatedTimestamp":0`))
}

var (
	pageTokenRE    = regexp.MustCompile(`"nextPageToken":"[^"]*"`)
	metadataTimeRE = regexp.MustCompile(`"metadataLastUpdatedTimestamp":\d+`)
	uptimeRE       = regexp.MustCompile(`"uptimePerformance":[0-9.]+`)
)

// checkOneFollower counts each replica's requests to the node over a few
// quiet seconds: the writer's followers poll the node's P-, X- and
// C-Chain, the readers send it nothing.
func checkOneFollower(t *testing.T, proxies []*nodeProxy, writer int) {
	t.Helper()
	for _, p := range proxies {
		p.take()
	}
	time.Sleep(3 * time.Second)
	for i, p := range proxies {
		c := p.take()
		t.Logf("replica %d's requests to the node in 3 s: %v", i, c)
		if i != writer {
			if len(c) != 0 {
				t.Errorf("reader replica %d sent the node requests in 3 s: %v", i, c)
			}
			continue
		}
		for _, chain := range []string{"/ext/bc/P", "/ext/bc/X", "/ext/bc/C/rpc"} {
			if c[chain] == 0 {
				t.Errorf("the writer (replica %d) sent %s no request in 3 s: %v", i, chain, c)
			}
		}
	}
}

// ewoqPLocal is ewoq's P-Chain address on the local network.
const ewoqPLocal = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"

// fleetRead is one read every replica must answer alike.
type fleetRead struct {
	method, path, body string
}

// fleetReads are the Data API's EVM reads of a (every chainkit read of
// the C-Chain), its P- and X-Chain lists and ewoq's UTXOs and balances,
// the Metrics API's reads of the C-Chain and the node's own reads through
// the edge.
func fleetReads(a *evmActivity) []fleetRead {
	var reads []fleetRead
	for _, r := range activityReads(a, "43112") {
		reads = append(reads, fleetRead{method: "GET", path: r.path})
	}
	nets := "/v1/networks/fuji"
	for _, p := range []string{nets + "/blockchains/p-chain/blocks?pageSize=10", nets + "/blockchains/x-chain/blocks?pageSize=10",
		nets + "/blockchains/p-chain/transactions?pageSize=10", nets + "/blockchains/x-chain/transactions?pageSize=10",
		nets + "/blockchains/p-chain/utxos?addresses=" + ewoqPLocal, nets + "/blockchains/x-chain/utxos?addresses=" + ewoqXLocal,
		nets + "/blockchains/p-chain/balances?addresses=" + ewoqPLocal, nets + "/subnets?pageSize=10", nets + "/blockchains?pageSize=10",
		nets + "/validators?pageSize=10", nets + "/delegators?pageSize=10", nets} {
		reads = append(reads, fleetRead{method: "GET", path: p})
	}
	for _, p := range []string{"/v2/chains", "/v2/chains/43112", "/v2/chains/43112/metrics/txCount?timeInterval=day&pageSize=5",
		"/v2/chains/43112/metrics/cumulativeContracts?timeInterval=day&pageSize=5", "/v2/chains/43112/metrics/activeAddresses?timeInterval=hour&pageSize=5",
		"/v2/chains/43112/rollingWindowMetrics/txCount", "/v2/icm/summary?groupBy=destBlockchainId",
		"/v2/chains/43112/teleporterMetrics/teleporterSourceTxnCount", "/v1/avg_tps/43112",
		"/v2/chains/43112/contracts/" + a.NFT + "/nfts:listHolders", "/v2/chains/43112/contracts/" + a.Token + "/balances?threshold=1"} {
		reads = append(reads, fleetRead{method: "GET", path: p})
	}
	for _, c := range []struct{ path, method, params string }{
		{"/ext/bc/C/rpc", "eth_getBlockByNumber", fmt.Sprintf(`["0x%x",true]`, a.Txs["native"].Block)},
		{"/ext/bc/C/rpc", "eth_getTransactionReceipt", fmt.Sprintf(`[%q]`, a.Txs["tokenTransfer"].Hash)},
		{"/ext/bc/C/rpc", "eth_getBalance", fmt.Sprintf(`[%q,"0x%x"]`, a.To, a.Txs["native"].Block)},
		{"/ext/bc/P", "platform.getBlockchains", "{}"},
		{"/ext/bc/X", "avm.getBlockByHeight", `{"height":"1","encoding":"hex"}`},
		{"/ext/info", "info.getNetworkID", "{}"},
	} {
		reads = append(reads, fleetRead{method: "POST", path: c.path, body: string(rpcBody(1, c.method, c.params))})
	}
	return reads
}

// checkSameAnswers reads reads from every replica (nil ones skipped) and
// fails unless each read gets the same status and bytes from all; it
// returns the answers. A replica reaches the node at node through a proxy
// of its own, whose address an answer naming the node's URL (a chain's
// rpcUrl) holds: it is read as node's.
func checkSameAnswers(t *testing.T, node string, reads []fleetRead, replicas ...*edge) []reply {
	t.Helper()
	out := make([]reply, len(reads))
	for i, r := range reads {
		var first *edge
		for _, e := range replicas {
			if e == nil {
				continue
			}
			var body []byte
			if r.body != "" {
				body = []byte(r.body)
			}
			rep := do(t, r.method, e.URL+r.path, body, nil)
			if rep.Status >= 500 {
				t.Errorf("%s %s on %s: %s", r.method, r.path, e.URL, rep)
				continue
			}
			rep.Body = bytes.ReplaceAll(rep.Body, []byte(strings.TrimPrefix(e.Env["AVAEDGE_LOCAL_NODE"], "http://")), []byte(strings.TrimPrefix(node, "http://")))
			if first == nil {
				first, out[i] = e, rep
			} else if rep.Status != out[i].Status || !bytes.Equal(rep.Body, out[i].Body) {
				t.Errorf("%s %s: %s answers %d, %s answers %d; %s", r.method, r.path, first.URL, out[i].Status, e.URL, rep.Status, divergence(out[i].Body, rep.Body))
			}
		}
	}
	return out
}

// checkPageToken pages the C-Chain's blocks two at a time and the
// X-Chain's (the shared node's genesis and ewoq's transfer) one at a time:
// the token of each replica's first page gives, on every replica, the
// second page the first replica gives.
func checkPageToken(t *testing.T, replicas []*edge) {
	t.Helper()
	var live []*edge
	for _, e := range replicas {
		if e != nil {
			live = append(live, e)
		}
	}
	for _, first := range []string{"/v1/chains/43112/blocks?pageSize=2", "/v1/networks/fuji/blockchains/x-chain/blocks?pageSize=1"} {
		var want []byte
		for i, from := range live {
			var page struct {
				NextPageToken string `json:"nextPageToken"`
			}
			r := do(t, "GET", from.URL+first, nil, nil)
			if r.Status != 200 || json.Unmarshal(r.Body, &page) != nil || page.NextPageToken == "" {
				t.Fatalf("GET %s on %s: %s; want a page with a nextPageToken", first, from.URL, r)
			}
			for j, on := range live {
				next := do(t, "GET", on.URL+first+"&pageToken="+url.QueryEscape(page.NextPageToken), nil, nil)
				if next.Status != 200 {
					t.Fatalf("GET %s: replica %d's page token on replica %d: %s", first, i, j, next)
				}
				if want == nil {
					want = next.Body
				} else if !bytes.Equal(next.Body, want) {
					t.Errorf("GET %s: replica %d's page token on replica %d:\n%.600s\nwant\n%.600s", first, i, j, next.Body, want)
				}
			}
		}
	}
}

// checkSameRows compares every table of the fleet's index with the single
// replica's, row for row, but for what is not the followed chain's: the
// lease, the migrations' log and the page tokens' secret are each
// database's own, an NFT's metadata carries the time it was read
// (nfts.updated), the node's live answers their moment (current.time,
// liveRE), and
// native_balances also keeps the balances the node
// answered the replicas' reads (the fleet answered more, at more heights):
// there the single replica's rows must all be the fleet's.
func checkSameRows(t *testing.T, fleet, single string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect := func(u string) *pgx.Conn {
		c, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	ca, cb := connect(fleet), connect(single)
	tables := func(c *pgx.Conn) []string {
		rows, err := c.Query(ctx, `SELECT table_schema || '.' || table_name FROM information_schema.tables
			WHERE table_schema IN ('public', 'pindex') AND table_name NOT IN ('avaedge_leases', 'avaedge_schema', 'avaedge_secrets') ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	ta, tb := tables(ca), tables(cb)
	if !slices.Equal(ta, tb) || len(ta) == 0 {
		t.Fatalf("the tables differ: %v and %v", ta, tb)
	}
	clock := map[string]string{"public.nfts": "updated", "pindex.current": "time"}
	total := 0
	for _, name := range ta {
		ra, rb := tableRows(ctx, t, ca, name, clock[name]), tableRows(ctx, t, cb, name, clock[name])
		if re := liveRE[name]; re != nil {
			for _, rows := range [][]string{ra, rb} {
				for i, r := range rows {
					rows[i] = re.ReplaceAllString(r, "${1}_")
				}
				slices.Sort(rows)
			}
		}
		total += len(ra)
		if name == "public.native_balances" {
			for _, r := range rb {
				if _, ok := slices.BinarySearch(ra, r); !ok {
					t.Errorf("native_balances: the single replica's row %s is not in the fleet's index", r)
				}
			}
			t.Logf("native_balances: %d rows in the fleet's index, %d in the single replica's, all of them in the fleet's", len(ra), len(rb))
			continue
		}
		if !slices.Equal(ra, rb) {
			t.Errorf("table %s: %d rows in the fleet's index, %d in the single replica's; %s", name, len(ra), len(rb),
				divergence([]byte(strings.Join(ra, "\n")), []byte(strings.Join(rb, "\n"))))
		}
	}
	t.Logf("%d tables, %d rows in the fleet's index, the same in the single replica's", len(ta), total)
}

// liveRE finds, by table, what the index keeps of the node's live answers
// with the moment it read them: a validator's uptime as the node measured
// it, the supply's read time.
var liveRE = map[string]*regexp.Regexp{
	"pindex.current": regexp.MustCompile(`(""uptime"":)""[0-9.]*""`),
	"pindex.meta":    regexp.MustCompile(`(""time"":)[0-9]+`),
}

// tableRows returns the rows of table as text, sorted, without the column
// skip.
func tableRows(ctx context.Context, t *testing.T, c *pgx.Conn, table, skip string) []string {
	t.Helper()
	schema, name, _ := strings.Cut(table, ".")
	rows, err := c.Query(ctx, `SELECT column_name FROM information_schema.columns WHERE table_schema = $1
		AND table_name = $2 AND column_name <> $3 ORDER BY ordinal_position`, schema, name, skip)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	list := make([]string, len(cols))
	for i, col := range cols {
		list[i] = pgx.Identifier{col}.Sanitize()
	}
	q := fmt.Sprintf(`SELECT row(%s)::text FROM %s ORDER BY 1`, strings.Join(list, ", "), pgx.Identifier{schema, name}.Sanitize())
	rows, err = c.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out) // Go's order, for BinarySearch
	return out
}
