package avalanchego

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	pblock "github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/dataapi"
	"github.com/avaedge/avaedge/local/source/pindex"
)

// serveIndex serves the Data API handlers over ix on an httptest server,
// each route through the catalogue's validation as the edge mounts it.
func serveIndex(t testing.TB, ix *pindex.Index) string {
	t.Helper()
	srv := httptest.NewServer(catalog.NewMux(catalog.Catalogue(), dataapi.Handlers(dataapi.Options{Source: ix})))
	t.Cleanup(srv.Close)
	return srv.URL
}

func getJSON(t testing.TB, url string, out any) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("GET %s: %v\n%s", url, err, body)
		}
	}
	return body
}

// issued is what the test issued, with the blocks the node put it in, found
// by parsing the node's blocks with avalanchego's own parsers.
type issued struct {
	xTransfer, asset, export, imp, subnet, chain, convert ids.ID
	r1, r2, r3                                            *secp256k1.PrivateKey
	heights                                               map[ids.ID]uint64
	times                                                 map[ids.ID]int64
	nodeID                                                ids.NodeID
	validationID                                          ids.ID
}

func issueAll(t *testing.T, uri string) *issued {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	in := &issued{heights: map[ids.ID]uint64{}, times: map[ids.ID]int64{}}
	for _, k := range []**secp256k1.PrivateKey{&in.r1, &in.r2, &in.r3} {
		var err error
		if *k, err = secp256k1.NewPrivateKey(); err != nil {
			t.Fatal(err)
		}
	}
	// r2 is not in this keychain: its P-Chain UTXO must not pay the fees.
	kc := secp256k1fx.NewKeychain(genesis.EWOQKey, in.r3)
	w := makeWallets(t, ctx, uri, kc)
	xctx := w.X.Builder().Context()
	owner := func(k *secp256k1.PrivateKey) *secp256k1fx.OutputOwners {
		return &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{k.Address()}}
	}
	out := func(amount uint64, k *secp256k1.PrivateKey) *avax.TransferableOutput {
		return &avax.TransferableOutput{Asset: avax.Asset{ID: xctx.AVAXAssetID}, Out: &secp256k1fx.TransferOutput{Amt: amount, OutputOwners: *owner(k)}}
	}
	tx, err := w.X.IssueBaseTx([]*avax.TransferableOutput{out(units.Avax, in.r1)})
	if err != nil {
		t.Fatalf("X BaseTx: %v", err)
	}
	in.xTransfer = tx.ID()
	tx, err = w.X.IssueCreateAssetTx("Avaedge Test Token", "AETT", 2, map[uint32][]verify.State{
		0: {&secp256k1fx.TransferOutput{Amt: 100_000, OutputOwners: *owner(in.r1)}},
	})
	if err != nil {
		t.Fatalf("X CreateAssetTx: %v", err)
	}
	in.asset = tx.ID()
	tx, err = w.X.IssueExportTx(constants.PlatformChainID, []*avax.TransferableOutput{out(2*units.Avax, in.r2)})
	if err != nil {
		t.Fatalf("X ExportTx: %v", err)
	}
	in.export = tx.ID()
	ptx, err := w.P.IssueCreateSubnetTx(owner(in.r3))
	if err != nil {
		t.Fatalf("P CreateSubnetTx: %v", err)
	}
	in.subnet = ptx.ID()
	genesisJSON := []byte(`{"config":{"chainId":99999},"alloc":{}}`)
	ptx, err = w.P.IssueCreateChainTx(in.subnet, genesisJSON, constants.EVMID, nil, "avaedgechain")
	if err != nil {
		t.Fatalf("P CreateChainTx: %v", err)
	}
	in.chain = ptx.ID()
	nodeID, pop, err := info.NewClient(uri).GetNodeID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in.nodeID = nodeID
	manager, _ := hex.DecodeString("00000000000000000000000000000000000a7a3e")
	ptx, err = w.P.IssueConvertSubnetToL1Tx(in.subnet, in.chain, manager, []*txs.ConvertSubnetToL1Validator{{
		NodeID: nodeID.Bytes(), Weight: 100, Balance: units.Avax, Signer: *pop,
		RemainingBalanceOwner: message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{in.r3.Address()}},
		DeactivationOwner:     message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{in.r3.Address()}},
	}})
	if err != nil {
		t.Fatalf("P ConvertSubnetToL1Tx: %v", err)
	}
	in.convert = ptx.ID()
	in.validationID = in.subnet.Append(0)
	// r2 imports what the X-Chain exported to it, paying the fee from it.
	w2 := makeWallets(t, ctx, uri, secp256k1fx.NewKeychain(in.r2))
	ptx, err = w2.P.IssueImportTx(xctx.BlockchainID, owner(in.r2))
	if err != nil {
		t.Fatalf("P ImportTx: %v", err)
	}
	in.imp = ptx.ID()

	// Find each tx's block with avalanchego's own block parsers.
	pc := platformvm.NewClient(uri)
	ph, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for h := uint64(1); h <= ph; h++ {
		b, err := pc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := pblock.Parse(pblock.Codec, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Txs() {
			in.heights[tx.ID()] = h
			if bb, ok := blk.(pblock.BanffBlock); ok {
				in.times[tx.ID()] = bb.Timestamp().Unix()
			}
		}
	}
	xc := avm.NewClient(uri, "X")
	xh, err := xc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	parser := avmParser(t)
	for h := uint64(1); h <= xh; h++ {
		b, err := xc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := parser.ParseBlock(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Txs() {
			in.heights[tx.ID()] = h
			in.times[tx.ID()] = blk.Timestamp().Unix()
		}
	}
	for name, id := range map[string]ids.ID{"x transfer": in.xTransfer, "asset": in.asset, "export": in.export, "import": in.imp,
		"subnet": in.subnet, "chain": in.chain, "convert": in.convert} {
		if _, ok := in.heights[id]; !ok {
			t.Fatalf("%s tx %s in no accepted block", name, id)
		}
	}
	return in
}

// nodeUTXOs returns the hex bytes of addr's UTXOs as the node lists them on
// chain ("P" or "X"), from sourceChain's shared memory when it is not "".
func nodeUTXOs(t *testing.T, uri, chain, sourceChain string, addr ids.ShortID) []string {
	ctx := context.Background()
	var raw [][]byte
	var err error
	if chain == "P" {
		raw, _, _, err = platformvm.NewClient(uri).GetAtomicUTXOs(ctx, []ids.ShortID{addr}, sourceChain, 1024, ids.ShortEmpty, ids.Empty)
	} else {
		raw, _, _, err = avm.NewClient(uri, "X").GetAtomicUTXOs(ctx, []ids.ShortID{addr}, sourceChain, 1024, ids.ShortEmpty, ids.Empty)
	}
	if err != nil {
		t.Fatalf("node UTXOs of %s on %s: %v", addr, chain, err)
	}
	out := make([]string, len(raw))
	for i, b := range raw {
		out[i] = hex.EncodeToString(b)
	}
	sort.Strings(out)
	return out
}

type utxoPage struct {
	UTXOs []struct {
		UTXOID            string `json:"utxoId"`
		UTXOBytes         string `json:"utxoBytes"`
		Addresses         []string
		CreatedOnChainID  string `json:"createdOnChainId"`
		ConsumedOnChainID string `json:"consumedOnChainId"`
		ConsumingTxHash   string `json:"consumingTxHash"`
		TxHash            string `json:"txHash"`
		CreationTxHash    string `json:"creationTxHash"`
		BlockNumber       string `json:"blockNumber"`
		Asset             struct {
			AssetID, Name, Symbol string
			Denomination          int
			Amount                string
		}
	} `json:"utxos"`
}

// indexUTXOs returns the hex bytes (cb58-checksummed hex stripped) the index
// lists for addr on chain.
func indexUTXOs(t *testing.T, base, chain string, addr ids.ShortID, includeSpent bool) (utxoPage, []string) {
	a, _ := address.Format("X", "local", addr[:])
	url := base + "/v1/networks/fuji/blockchains/" + chain + "/utxos?pageSize=100&addresses=" + a
	if includeSpent {
		url += "&includeSpent=true"
	}
	var page utxoPage
	getJSON(t, url, &page)
	var out []string
	for _, u := range page.UTXOs {
		if u.ConsumingTxHash == "" {
			b := strings.TrimPrefix(u.UTXOBytes, "0x")
			out = append(out, b[:len(b)-8]) // drop the 4-byte checksum
		}
	}
	sort.Strings(out)
	return page, out
}

func TestFollowedNode(t *testing.T) {
	node := startNode(t)
	in := issueAll(t, node.URI)
	atomicCalls := issueAtomicC(t, node.URI, in)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	dir := t.TempDir()
	path := dir + "/pindex.db"
	ix, err := pindex.Open(ctx, pindex.Options{Node: node.URI, Path: path, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ix.Start(ctx)
	pHeight, _ := platformvm.NewClient(node.URI).GetHeight(ctx)
	xHeight, _ := avm.NewClient(node.URI, "X").GetHeight(ctx)
	if err := ix.WaitFor(ctx, avanet.ChainP, pHeight); err != nil {
		t.Fatalf("P-Chain not indexed to %d: %v", pHeight, err)
	}
	if err := ix.WaitFor(ctx, avanet.ChainX, xHeight); err != nil {
		t.Fatalf("X-Chain not indexed to %d: %v", xHeight, err)
	}
	waitC(t, ctx, node.URI, ix)
	if err := ix.RefreshValidators(ctx); err != nil {
		t.Fatal(err)
	}
	pCalls := append(platformCalls(t, node.URI, in), atomicCalls...)
	pWant := nodePlatform(t, node.URI, pCalls)
	if err := ix.RefreshValidators(ctx); err != nil {
		t.Fatal(err)
	}
	checkIndexPlatform(t, ix, pCalls, pWant)
	base := serveIndex(t, ix)
	snapshot := check(t, node.URI, base, ix, in)
	for i, body := range snapshot {
		if err := glacier.Validate(t, snapshotSchemas[i], body); err != nil {
			t.Errorf("GET %s is not a valid %s: %v\n%s", snapshotURLs(in)[i], snapshotSchemas[i], err, body)
		}
	}

	// Restart the indexer on the same store: the same answers, resumed.
	ix.Close()
	ix, err = pindex.Open(ctx, pindex.Options{Node: node.URI, Path: path, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := ix.Head(avanet.ChainP); !ok || h != pHeight {
		t.Fatalf("resumed P head = %d, %v; want %d", h, ok, pHeight)
	}
	ix.Start(ctx)
	base = serveIndex(t, ix)
	for i, got := range check(t, node.URI, base, ix, in) {
		if !sameSnapshot(got, snapshot[i]) {
			t.Fatalf("GET %s changed across an indexer restart:\n%s\nwas\n%s", snapshotURLs(in)[i], got, snapshot[i])
		}
	}
	ix.Close()

	// Stop the node: a new indexer opens on the store and answers alike.
	node.stop()
	ix, err = pindex.Open(ctx, pindex.Options{Node: node.URI, Path: path, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("opening the index with the node stopped: %v", err)
	}
	defer ix.Close()
	ix.Start(ctx)
	checkIndexPlatform(t, ix, pCalls, pWant)
	base = serveIndex(t, ix)
	for i, url := range snapshotURLs(in) {
		if got := getJSON(t, base+url, nil); !sameSnapshot(got, snapshot[i]) {
			t.Fatalf("GET %s with the node stopped:\n%s\nwant\n%s", url, got, snapshot[i])
		}
	}
}

// uptimePerformance is the validators' uptime as the node measures it when
// the index reads its current validators (again after a restart): a live
// figure, which rounds to another value as the node runs longer.
var uptimePerformance = regexp.MustCompile(`"uptimePerformance":[0-9.]+`)

// sameSnapshot compares two answers of snapshotURLs, the validators'
// uptime aside.
func sameSnapshot(a, b []byte) bool {
	return bytes.Equal(uptimePerformance.ReplaceAll(a, []byte(`"uptimePerformance":0`)), uptimePerformance.ReplaceAll(b, []byte(`"uptimePerformance":0`)))
}

// snapshotSchemas are the glacier.json schemas of snapshotURLs' answers.
var snapshotSchemas = []string{"ListSubnetsResponse", "Subnet", "ListUtxosResponse", "ListPChainUtxosResponse",
	"ChainAddressChainIdMapListResponse", "ListValidatorDetailsResponse", "ListValidatorDetailsResponse"}

// snapshotURLs are the routes whose answers must not change across restarts.
func snapshotURLs(in *issued) []string {
	x := func(k *secp256k1.PrivateKey) string {
		a, _ := address.Format("X", "local", k.Address().Bytes())
		return a
	}
	return []string{
		"/v1/networks/fuji/subnets?pageSize=100",
		"/v1/networks/fuji/subnets/" + in.subnet.String(),
		"/v1/networks/fuji/blockchains/x-chain/utxos?pageSize=100&sortOrder=asc&addresses=" + x(in.r1),
		"/v1/networks/fuji/blockchains/p-chain/utxos?pageSize=100&includeSpent=true&sortOrder=asc&addresses=" + x(in.r2),
		"/v1/networks/fuji/addresses:listChainIds?addresses=" + x(in.r1) + "," + x(in.r2),
		"/v1/networks/fuji/validators?pageSize=100&subnetId=" + in.subnet.String(),
		"/v1/networks/fuji/validators?pageSize=100&subnetId=" + constants.PrimaryNetworkID.String(),
	}
}
