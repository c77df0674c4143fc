package e2e

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	ethcommon "github.com/ava-labs/libevm/common"
)

// issuedOnNode is what TestNodeModeSDK issues on its node.
type issuedOnNode struct {
	r1, r2, r3             *secp256k1.PrivateKey
	evmTo                  ethcommon.Address // receives the X→C import
	xTransfer, asset       ids.ID
	export, imp            ids.ID // X→P and its import by r2
	subnet, chain, convert ids.ID
	cExport, cImport       ids.ID // X→C and its import
	delegation             ids.ID // ewoq's delegation to a genesis validator
	delegatee              ids.NodeID
	avaxID                 ids.ID // the AVAX asset, whose CreateAssetTx is the X-Chain's genesis
	nodeID                 ids.NodeID
	xChainID, cChainID     ids.ID
}

// issueOnNode issues, with avalanchego's wallet and the ewoq key: an X
// transfer, a new asset, an X→P export and its import, a subnet, a chain on
// it and its conversion to an L1 validated by the node, and an X→C export
// and its import on the C-Chain.
func issueOnNode(t *testing.T, uri string) *issuedOnNode {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	in := &issuedOnNode{}
	for _, k := range []**secp256k1.PrivateKey{&in.r1, &in.r2, &in.r3} {
		var err error
		if *k, err = secp256k1.NewPrivateKey(); err != nil {
			t.Fatal(err)
		}
	}
	in.evmTo = ethcommon.BytesToAddress(in.r1.Address().Bytes())
	raw, _ := hex.DecodeString(ewoqKeyHex)
	ewoq, err := secp256k1.ToPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	kc := secp256k1fx.NewKeychain(ewoq, in.r3)
	w, err := primary.MakeWallet(ctx, uri, kc, kc, primary.WalletConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ic := info.NewClient(uri)
	if in.cChainID, err = ic.GetBlockchainID(ctx, "C"); err != nil {
		t.Fatal(err)
	}
	xctx := w.X().Builder().Context()
	in.xChainID, in.avaxID = xctx.BlockchainID, xctx.AVAXAssetID
	owner := func(k *secp256k1.PrivateKey) *secp256k1fx.OutputOwners {
		return &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{k.Address()}}
	}
	out := func(amount uint64, k *secp256k1.PrivateKey) *avax.TransferableOutput {
		return &avax.TransferableOutput{Asset: avax.Asset{ID: xctx.AVAXAssetID}, Out: &secp256k1fx.TransferOutput{Amt: amount, OutputOwners: *owner(k)}}
	}
	must := func(what string, id ids.ID, err error) ids.ID {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return id
	}
	tx, err := w.X().IssueBaseTx([]*avax.TransferableOutput{out(units.Avax, in.r1)})
	in.xTransfer = must("X BaseTx", txID(tx), err)
	tx, err = w.X().IssueCreateAssetTx("Avaedge Node Mode", "AENM", 2, map[uint32][]verify.State{
		0: {&secp256k1fx.TransferOutput{Amt: 100_000, OutputOwners: *owner(in.r1)}}})
	in.asset = must("X CreateAssetTx", txID(tx), err)
	tx, err = w.X().IssueExportTx(constants.PlatformChainID, []*avax.TransferableOutput{out(2*units.Avax, in.r2)})
	in.export = must("X ExportTx to P", txID(tx), err)
	ptx, err := w.P().IssueCreateSubnetTx(owner(in.r3))
	in.subnet = must("P CreateSubnetTx", ptxID(ptx), err)
	ptx, err = w.P().IssueCreateChainTx(in.subnet, []byte(`{"config":{"chainId":99999},"alloc":{}}`), constants.EVMID, nil, "avaedgenodemode")
	in.chain = must("P CreateChainTx", ptxID(ptx), err)
	nodeID, pop, err := ic.GetNodeID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in.nodeID = nodeID
	manager, _ := hex.DecodeString("00000000000000000000000000000000000a7a3e")
	ptx, err = w.P().IssueConvertSubnetToL1Tx(in.subnet, in.chain, manager, []*txs.ConvertSubnetToL1Validator{{
		NodeID: nodeID.Bytes(), Weight: 100, Balance: units.Avax, Signer: *pop,
		RemainingBalanceOwner: message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{in.r3.Address()}},
		DeactivationOwner:     message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{in.r3.Address()}},
	}})
	in.convert = must("P ConvertSubnetToL1Tx", ptxID(ptx), err)
	k2 := secp256k1fx.NewKeychain(in.r2)
	w2, err := primary.MakeWallet(ctx, uri, k2, k2, primary.WalletConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ptx, err = w2.P().IssueImportTx(in.xChainID, owner(in.r2))
	in.imp = must("P ImportTx by r2", ptxID(ptx), err)
	// A delegation to a genesis validator: 25 AVAX (the local network's
	// minimum) for 25 hours (its minimum stake duration is 24).
	vals, err := platformvm.NewClient(uri).GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil || len(vals) == 0 {
		t.Fatalf("the node's primary validators: %v", err)
	}
	start := time.Now()
	end := start.Add(25 * time.Hour)
	for _, v := range vals {
		if v.EndTime > uint64(end.Add(time.Hour).Unix()) {
			in.delegatee = v.NodeID
			break
		}
	}
	if in.delegatee == ids.EmptyNodeID {
		t.Fatal("no genesis validator stakes long enough to delegate to")
	}
	ptx, err = w.P().IssueAddPermissionlessDelegatorTx(&txs.SubnetValidator{Validator: txs.Validator{NodeID: in.delegatee,
		Start: uint64(start.Unix()), End: uint64(end.Unix()), Wght: 25 * units.Avax}, Subnet: constants.PrimaryNetworkID},
		xctx.AVAXAssetID, owner(in.r3))
	in.delegation = must("P AddPermissionlessDelegatorTx", ptxID(ptx), err)
	tx, err = w.X().IssueExportTx(in.cChainID, []*avax.TransferableOutput{out(3*units.Avax, ewoq)})
	in.cExport = must("X ExportTx to C", txID(tx), err)
	ctx2, cancel2 := context.WithTimeout(ctx, time.Minute)
	defer cancel2()
	atx, err := w.C().IssueImportTx(in.xChainID, in.evmTo)
	if err != nil {
		t.Fatalf("C ImportTx: %v", err)
	}
	in.cImport = atx.ID()
	_ = ctx2
	return in
}

func txID(tx interface{ ID() ids.ID }) ids.ID {
	if tx == nil {
		return ids.Empty
	}
	return tx.ID()
}

func ptxID(tx *txs.Tx) ids.ID {
	if tx == nil {
		return ids.Empty
	}
	return tx.ID()
}

// sdkCall is one call of test/sdk/calls.mjs.
type sdkCall struct {
	Name string         `json:"name"`
	Op   string         `json:"op"`
	Args map[string]any `json:"args"`
}

// sdkResult is a call's outcome as the SDK parsed it.
type sdkResult struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// sdkCalls runs calls through the official AvaCloud SDK against base.
func sdkCalls(t *testing.T, base string, calls []sdkCall) map[string]sdkResult {
	t.Helper()
	return sdkCallsWith(t, "avacloud", base, calls)
}

// TestNodeModeSDK: avaedge started with AVAEDGE_LOCAL_NODE on a fresh
// one-node network (its C-Chain offers the call tracer), after the
// transactions issueOnNode makes and ethers' EVM activity, answers the
// official SDK on every Data API route the followed network serves and on
// the C-Chain's EVM and Metrics routes: each answer passes the SDK's strict
// schemas and shows exactly what was issued; chainkit's EVM reads and Core
// wallet's calls through @avalabs/glacier-sdk agree with the chain under the
// C-Chain's ids of the local network, fuji and mainnet. With the node
// stopped the index answers the Data API the same.
func TestNodeModeSDK(t *testing.T) {
	n := startOwnNode(t, tracingCChain(t))
	in := issueOnNode(t, n.URI)
	act := makeEVMActivity(t, n.URI+"/ext/bc/C/rpc")
	// The bulk plan: the SDK runs read every route (the Metrics API's
	// looking-glass routes cost 500 and 1,000 CU), more than the anonymous
	// plan's 6,000 CU a minute.
	e := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI, "AVAEDGE_DATA_DIR": t.TempDir(), "AVAEDGE_KEYS_FILE": bulkKeysFile(t)})
	const network = "fuji"
	r1P, _ := address.Format("P", constants.LocalHRP, in.r1.Address().Bytes())
	r1X := "X-" + strings.TrimPrefix(r1P, "P-")
	r2P, _ := address.Format("P", constants.LocalHRP, in.r2.Address().Bytes())
	r3P, _ := address.Format("P", constants.LocalHRP, in.r3.Address().Bytes())

	// Wait until the index holds the conversion (the last P-Chain tx but
	// the import) and the import, and the EVM index the C-Chain's head.
	var cHead string
	if err := rawResult(n.URI+"/ext/bc/C/rpc", "eth_blockNumber", "[]", &cHead); err != nil {
		t.Fatal(err)
	}
	head, _ := new(big.Int).SetString(strings.TrimPrefix(cHead, "0x"), 16)
	waitFor(t, e.URL+"/v1/networks/fuji/blockchains/p-chain/utxos?addresses="+r2P, in.imp.String())
	waitFor(t, e.URL+"/v1/networks/fuji/subnets/"+in.subnet.String(), in.convert.String())
	waitFor(t, e.URL+"/v1/chains/43112/blocks?pageSize=1", fmt.Sprintf(`"blockNumber":"%d"`, head))
	// The node's current validators are read again after each P-Chain
	// batch: the L1's validator shows once that read is done.
	waitFor(t, e.URL+"/v1/networks/fuji/l1Validators?subnetId="+in.subnet.String(), in.nodeID.String())

	data := []sdkCall{
		{"listSubnets", "data.primaryNetwork.listSubnets", map[string]any{"network": network, "pageSize": 100}},
		{"getSubnetById", "data.primaryNetwork.getSubnetById", map[string]any{"network": network, "subnetId": in.subnet.String()}},
		{"listValidators", "data.primaryNetwork.listValidators", map[string]any{"network": network}},
		{"listDelegators", "data.primaryNetwork.listDelegators", map[string]any{"network": network}},
		{"pendingRewards", "data.primaryNetwork.rewards.listPendingRewards", map[string]any{"network": network, "addresses": r3P}},
		{"l1Validators", "data.primaryNetwork.listL1Validators", map[string]any{"network": network, "subnetId": in.subnet.String()}},
		{"validatorDetails", "data.primaryNetwork.getValidatorDetails", map[string]any{"network": network, "nodeId": in.delegatee.String()}},
		{"utxosX", "data.primaryNetwork.utxos.listByAddresses", map[string]any{"network": network, "blockchainId": "x-chain", "addresses": r1X}},
		{"utxosP", "data.primaryNetwork.utxos.listByAddresses", map[string]any{"network": network, "blockchainId": "p-chain", "addresses": r2P, "includeSpent": true}},
		{"chainIds", "data.primaryNetwork.getChainIdsForAddresses", map[string]any{"network": network, "addresses": r1P + "," + r2P}},
		{"blocksP", "data.primaryNetwork.blocks.listLatest", map[string]any{"network": network, "blockchainId": "p-chain", "pageSize": 100}},
		{"blocksX", "data.primaryNetwork.blocks.listLatest", map[string]any{"network": network, "blockchainId": "x-chain", "pageSize": 100}},
		{"txsP", "data.primaryNetwork.transactions.listLatest", map[string]any{"network": network, "blockchainId": "p-chain", "pageSize": 100}},
		{"txsX", "data.primaryNetwork.transactions.listLatest", map[string]any{"network": network, "blockchainId": "x-chain", "addresses": r1X}},
		{"convertTx", "data.primaryNetwork.transactions.get", map[string]any{"network": network, "blockchainId": "p-chain", "txHash": in.convert.String()}},
		{"chainTx", "data.primaryNetwork.transactions.get", map[string]any{"network": network, "blockchainId": "p-chain", "txHash": in.chain.String()}},
		{"importTx", "data.primaryNetwork.transactions.get", map[string]any{"network": network, "blockchainId": "p-chain", "txHash": in.imp.String()}},
		{"assetTx", "data.primaryNetwork.transactions.get", map[string]any{"network": network, "blockchainId": "x-chain", "txHash": in.asset.String()}},
		{"transferTx", "data.primaryNetwork.transactions.get", map[string]any{"network": network, "blockchainId": "x-chain", "txHash": in.xTransfer.String()}},
	}
	evm := []sdkCall{
		{"supportedChains", "data.evm.chains.list", map[string]any{}},
		{"getChainInfo", "data.evm.chains.get", map[string]any{"chainId": "43112"}},
		{"getLatestBlocks", "data.evm.blocks.listLatest", map[string]any{"chainId": "43112"}},
		{"getNativeBalance", "data.evm.address.balances.getNative", map[string]any{"chainId": "43112", "address": in.evmTo.Hex()}},
		{"listChains", "metrics.chains.list", map[string]any{}},
		{"getChain", "metrics.chains.get", map[string]any{"chainId": "43112"}},
		{"txCount", "metrics.chains.getMetrics", map[string]any{"chainId": "43112", "metric": "txCount", "timeInterval": "day"}},
	}
	// The EVM listings of ethers' activity on the node's C-Chain, under its
	// ids on every network, and Core wallet's calls (before the answers the
	// node-stopped run compares, which move with the clock).
	waitIndexed(t, e.URL, act)
	checkEVMListings(t, e.URL, act, "43112", "43113", "43114")
	checkCoreWallet(t, e.URL, act, "43112", "43113", "43114")
	// ICM: the TeleporterMessenger deployed on the C-Chain by its official
	// transaction (its deployer funded with exactly 10 AVAX), a message sent
	// to the L1's chain (whose EVM chain id avaedge does not know); then
	// every Metrics route (before the answers the node-stopped run compares,
	// which move with the clock).
	official, err := officialTeleporter()
	if err != nil {
		t.Fatal(err)
	}
	sent := sendICM(t, n.URI+"/ext/bc/C/rpc", writeDeployment(t, official), in.cChainID, in.chain, act.To, act.Token, "1000")
	if !strings.EqualFold(sent.Messenger, teleporterAddress.Hex()) || sent.DeployTx != official.hash.Hex() || !sent.WarpPrecompile {
		t.Errorf("icm-send.mjs: %+v; want the official deployment %s of %s, and the blockchain id from the Warp precompile", sent, official.hash, teleporterAddress)
	}
	var code string
	if err := rawResult(n.URI+"/ext/bc/C/rpc", "eth_getCode", fmt.Sprintf(`[%q,"latest"]`, teleporterAddress.Hex()), &code); err != nil || len(code) <= 2 {
		t.Fatalf("the TeleporterMessenger's code at %s: %q, %v", teleporterAddress, code, err)
	}
	t.Logf("TeleporterMessenger deployed at %s by %s (%s gas, %d bytes of code); message %s sent (%s gas)",
		teleporterAddress, sent.DeployTx, sent.DeployGasUsed, (len(code)-2)/2, sent.MessageID, sent.GasUsed)
	waitFor(t, e.URL+"/v1/icm/messages/"+sent.MessageID, sent.MessageID)
	checkICM(t, e.URL, sent, "43112", in.cChainID, "", 1, 1)
	var l1vals struct {
		Validators []struct {
			ValidationID string `json:"validationId"`
		} `json:"validators"`
	}
	if r := do(t, "GET", e.URL+"/v1/networks/fuji/l1Validators?subnetId="+in.subnet.String(), nil, nil); r.Status != 200 ||
		json.Unmarshal(r.Body, &l1vals) != nil || len(l1vals.Validators) != 1 {
		t.Fatalf("the L1's validators: %s", r)
	}
	checkMetricsRoutes(t, e.URL, n.URI+"/ext/bc/C/rpc", "43112", act, in.subnet.String(), in.nodeID.String(), l1vals.Validators[0].ValidationID)
	res := sdkCalls(t, e.URL, append(slices.Clone(data), evm...))

	// Subnets: exactly the one created, converted to an L1 with its chain.
	var subnets struct {
		Subnets []struct {
			SubnetID                    string `json:"subnetId"`
			IsL1                        bool   `json:"isL1"`
			L1ConversionTransactionHash string `json:"l1ConversionTransactionHash"`
			Blockchains                 []struct {
				BlockchainID   string `json:"blockchainId"`
				BlockchainName string `json:"blockchainName"`
			} `json:"blockchains"`
		} `json:"subnets"`
	}
	decode(t, res["listSubnets"], &subnets)
	var found int
	for _, s := range subnets.Subnets {
		if s.SubnetID == in.subnet.String() {
			found++
			if !s.IsL1 || s.L1ConversionTransactionHash != in.convert.String() || len(s.Blockchains) != 1 ||
				s.Blockchains[0].BlockchainID != in.chain.String() || s.Blockchains[0].BlockchainName != "avaedgenodemode" {
				t.Errorf("subnet %s: %+v", in.subnet, s)
			}
		} else if s.SubnetID != constants.PrimaryNetworkID.String() {
			t.Errorf("a subnet nobody created: %s", s.SubnetID)
		}
	}
	if found != 1 {
		t.Errorf("listSubnets has the created subnet %d times", found)
	}
	if !strings.Contains(string(res["getSubnetById"].Result), in.convert.String()) {
		t.Errorf("getSubnetById: %s", res["getSubnetById"].Result)
	}
	// Validators: the node's own primary-network validators.
	// Without subnetId the Data API lists every subnet's validators: the
	// primary network's and the L1's (the node itself).
	pc := platformvm.NewClient(n.URI)
	current, err := pc.GetCurrentValidators(context.Background(), constants.PrimaryNetworkID, nil)
	if err != nil {
		t.Fatal(err)
	}
	l1, err := pc.GetCurrentValidators(context.Background(), in.subnet, nil)
	if err != nil || len(l1) != 1 || l1[0].NodeID != in.nodeID {
		t.Fatalf("the L1's validators as the node lists them: %+v, %v", l1, err)
	}
	current = append(current, l1...)
	var vals struct {
		Validators []struct {
			NodeID string `json:"nodeId"`
		} `json:"validators"`
	}
	decode(t, res["listValidators"], &vals)
	var got, want []string
	for _, v := range vals.Validators {
		got = append(got, v.NodeID)
	}
	for _, v := range current {
		want = append(want, v.NodeID.String())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("listValidators: %v; the node's current validators: %v", got, want)
	}
	// UTXOs: r1's X transfer and asset outputs; r2's P-Chain import output,
	// and the atomic one it consumed.
	wantUTXO := func(name string, ids ...string) {
		t.Helper()
		for _, id := range ids {
			if !strings.Contains(string(res[name].Result), id) {
				t.Errorf("%s lacks %s: %s", name, id, res[name].Result)
			}
		}
	}
	wantUTXO("utxosX", in.xTransfer.Prefix(0).String(), in.asset.String(), `"amount":"1000000000"`, `"amount":"100000"`)
	wantUTXO("utxosP", in.imp.String(), in.export.String())
	// Addresses without their chain prefix; the X-Chain and P-Chain by the
	// requested network's ids (the spec's enum holds mainnet's and fuji's).
	wantUTXO("chainIds", `{"address":"`+strings.TrimPrefix(r1P, "P-")+`","blockchainIds":["2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"]}`,
		`{"address":"`+strings.TrimPrefix(r2P, "P-")+`","blockchainIds":["11111111111111111111111111111111LpoYY"]}`)
	checkBlocksAndTxs(t, n.URI, in, res)
	checkDelegation(t, n.URI, in, res)
	checkL1Validators(t, in, res)
	// EVM and Metrics: the C-Chain the node runs.
	var bal struct {
		NativeTokenBalance struct {
			Balance string `json:"balance"`
		} `json:"nativeTokenBalance"`
	}
	decode(t, res["getNativeBalance"], &bal)
	var nodeBal string
	if err := rawResult(n.URI+"/ext/bc/C/rpc", "eth_getBalance", fmt.Sprintf(`[%q,"latest"]`, in.evmTo.Hex()), &nodeBal); err != nil {
		t.Fatal(err)
	}
	nb, _ := new(big.Int).SetString(strings.TrimPrefix(nodeBal, "0x"), 16)
	if nb.Sign() == 0 || bal.NativeTokenBalance.Balance != nb.String() {
		t.Errorf("getNativeBalance of the C import's recipient: %q; the node says %s", bal.NativeTokenBalance.Balance, nb)
	}
	wantUTXO("getLatestBlocks", fmt.Sprintf(`"blockNumber":"%d"`, head))
	wantUTXO("supportedChains", `"chainId":"43112"`)

	// The rest of the primary network's routes (issue 26), through
	// chainkit, checked against the node; Core wallet's calls through
	// glacier-sdk.
	reads := primaryReads(primaryIDs{Network: network, PAddr: r2P, XAddr: r1X, NodeID: in.delegatee.String(), AssetID: in.asset.String(),
		BlockchainID: in.chain.String(), ValidationID: in.subnet.Append(0).String()})
	prim := checkNodeModePrimary(t, n.URI, e.URL, in, reads)
	coreWallet(t, e.URL, network, r2P, r1X)

	// The node stopped: the Data API answers the same from the index.
	n.stop()
	for _, r := range reads {
		var body []byte
		if r.body != "" {
			body = []byte(r.body)
		}
		rep := do(t, r.method, e.URL+r.path, body, nil)
		if rep.Status != http.StatusOK || clockFree(rep.Body) != clockFree(prim[r.name]) {
			t.Errorf("%s %s with the node stopped: %s; with it running: %s", r.method, r.path, rep, prim[r.name])
		}
	}
	again := sdkCalls(t, e.URL, data)
	for _, c := range data {
		if c.Name == "pendingRewards" {
			continue // its progress moves with the clock
		}
		// A validator's uptime is the node's measure at the index's last
		// read of the validators, which may come between the two calls.
		stopped, running := clockFree(again[c.Name].Result), clockFree(res[c.Name].Result)
		if stopped != running {
			t.Errorf("%s with the node stopped:\n%s\nwith it running:\n%s", c.Name, again[c.Name].Result, res[c.Name].Result)
		}
	}
	if os.Getenv("AVAEDGE_E2E_DUMP") != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Logf("%s", b)
	}
}

// waitFor polls url until its answer contains want, for at most a minute.
func waitFor(t *testing.T, url, want string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r := do(t, "GET", url, nil, nil)
		if r.Status == 200 && strings.Contains(string(r.Body), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s did not show %s in a minute: %s", url, want, r)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func decode(t *testing.T, r sdkResult, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatalf("%v: %s", err, r.Result)
	}
}

// checkBlocksAndTxs compares the P- and X-Chain block and transaction
// answers with the node's own blocks and what issueOnNode issued.
func checkBlocksAndTxs(t *testing.T, uri string, in *issuedOnNode, res map[string]sdkResult) {
	t.Helper()
	type block struct {
		BlockNumber  string   `json:"blockNumber"`
		BlockHash    string   `json:"blockHash"`
		ParentHash   string   `json:"parentHash"`
		Transactions []string `json:"transactions"`
	}
	for _, c := range []struct{ name, path, service string }{{"blocksP", "/ext/bc/P", "platform"}, {"blocksX", "/ext/bc/X", "avm"}} {
		var list struct {
			Blocks []block `json:"blocks"`
		}
		decode(t, res[c.name], &list)
		var h struct {
			Height string `json:"height"`
		}
		if err := rawResult(uri+c.path, c.service+".getHeight", "{}", &h); err != nil {
			t.Fatal(err)
		}
		if len(list.Blocks) == 0 || list.Blocks[0].BlockNumber != h.Height {
			t.Errorf("%s: newest block %+v; the node's height is %s", c.name, list.Blocks[:min(1, len(list.Blocks))], h.Height)
			continue
		}
		// Every listed block is the node's block at that height, with its
		// transactions.
		for _, b := range list.Blocks {
			var nb struct {
				Block struct {
					ID       string `json:"id"`
					ParentID string `json:"parentID"`
					Txs      []struct {
						ID string `json:"id"`
					} `json:"txs"`
					Tx *struct {
						ID string `json:"id"`
					} `json:"tx"`
				} `json:"block"`
			}
			if err := rawResult(uri+c.path, c.service+".getBlockByHeight", fmt.Sprintf(`{"height":%q,"encoding":"json"}`, b.BlockNumber), &nb); err != nil {
				t.Fatal(err)
			}
			var txs []string
			for _, tx := range nb.Block.Txs {
				txs = append(txs, tx.ID)
			}
			if nb.Block.Tx != nil {
				txs = append(txs, nb.Block.Tx.ID)
			}
			if b.BlockHash != nb.Block.ID || b.ParentHash != nb.Block.ParentID || !slices.Equal(b.Transactions, txs) {
				t.Errorf("%s block %s: %+v; the node's: %s %s %v", c.name, b.BlockNumber, b, nb.Block.ID, nb.Block.ParentID, txs)
			}
		}
	}
	var txsP struct {
		Transactions []struct {
			TxHash string `json:"txHash"`
			TxType string `json:"txType"`
		} `json:"transactions"`
	}
	decode(t, res["txsP"], &txsP)
	wantTypes := map[ids.ID]string{in.subnet: "CreateSubnetTx", in.chain: "CreateChainTx", in.convert: "ConvertSubnetToL1Tx", in.imp: "ImportTx"}
	for _, tx := range txsP.Transactions {
		if id, _ := ids.FromString(tx.TxHash); wantTypes[id] != "" {
			if tx.TxType != wantTypes[id] {
				t.Errorf("txsP: %s is a %s; want %s", tx.TxHash, tx.TxType, wantTypes[id])
			}
			delete(wantTypes, id)
		}
	}
	if len(wantTypes) > 0 {
		t.Errorf("txsP lacks %v", wantTypes)
	}
	var conv struct {
		TxType                         string `json:"txType"`
		SubnetID                       string `json:"subnetId"`
		AmountL1ValidatorBalanceBurned []struct {
			Amount string `json:"amount"`
		} `json:"amountL1ValidatorBalanceBurned"`
	}
	decode(t, res["convertTx"], &conv)
	if conv.TxType != "ConvertSubnetToL1Tx" || conv.SubnetID != in.subnet.String() || len(conv.AmountL1ValidatorBalanceBurned) != 1 ||
		conv.AmountL1ValidatorBalanceBurned[0].Amount != fmt.Sprint(units.Avax) {
		t.Errorf("convertTx: %s", res["convertTx"].Result)
	}
	var chain struct {
		SubnetID       string `json:"subnetId"`
		BlockchainInfo struct {
			ChainName string `json:"chainName"`
		} `json:"blockchainInfo"`
	}
	decode(t, res["chainTx"], &chain)
	if chain.SubnetID != in.subnet.String() || chain.BlockchainInfo.ChainName != "avaedgenodemode" {
		t.Errorf("chainTx: %s", res["chainTx"].Result)
	}
	var imp struct {
		SourceChain   string `json:"sourceChain"`
		ConsumedUtxos []struct {
			TxHash string `json:"txHash"`
		} `json:"consumedUtxos"`
		EmittedUtxos []struct {
			Addresses []string `json:"addresses"`
		} `json:"emittedUtxos"`
	}
	decode(t, res["importTx"], &imp)
	if imp.SourceChain != in.xChainID.String() || len(imp.ConsumedUtxos) != 1 || imp.ConsumedUtxos[0].TxHash != in.export.String() || len(imp.EmittedUtxos) != 1 {
		t.Errorf("importTx: %s", res["importTx"].Result)
	}
	var asset struct {
		TxType       string `json:"txType"`
		AssetCreated struct {
			AssetID, Name, Symbol string
			Denomination          int
		} `json:"assetCreated"`
	}
	decode(t, res["assetTx"], &asset)
	if asset.TxType != "CreateAssetTx" || asset.AssetCreated.AssetID != in.asset.String() || asset.AssetCreated.Name != "Avaedge Node Mode" ||
		asset.AssetCreated.Symbol != "AENM" || asset.AssetCreated.Denomination != 2 {
		t.Errorf("assetTx: %s", res["assetTx"].Result)
	}
	var transfer struct {
		ConsumedUtxos []struct {
			CreationTxHash string `json:"creationTxHash"`
		} `json:"consumedUtxos"`
		TxType       string `json:"txType"`
		EmittedUtxos []struct {
			Asset struct {
				Amount string `json:"amount"`
			} `json:"asset"`
		} `json:"emittedUtxos"`
	}
	decode(t, res["transferTx"], &transfer)
	// ewoq's first X transfer spends its genesis allocation.
	if len(transfer.ConsumedUtxos) != 1 || transfer.ConsumedUtxos[0].CreationTxHash != in.avaxID.String() {
		t.Errorf("transferTx consumes %+v; want ewoq's genesis UTXO (made by %s)", transfer.ConsumedUtxos, in.avaxID)
	}
	if transfer.TxType != "BaseTx" || len(transfer.EmittedUtxos) == 0 || transfer.EmittedUtxos[0].Asset.Amount != fmt.Sprint(units.Avax) {
		t.Errorf("transferTx: %s", res["transferTx"].Result)
	}
	for _, id := range []ids.ID{in.xTransfer, in.asset} {
		if !strings.Contains(string(res["txsX"].Result), id.String()) {
			t.Errorf("txsX (r1's) lacks %s", id)
		}
	}
}

// checkDelegation compares the delegation's answers with the node's
// platform.getCurrentValidators.
func checkDelegation(t *testing.T, uri string, in *issuedOnNode, res map[string]sdkResult) {
	t.Helper()
	vals, err := platformvm.NewClient(uri).GetCurrentValidators(context.Background(), constants.PrimaryNetworkID, []ids.NodeID{in.delegatee})
	if err != nil || len(vals) != 1 {
		t.Fatalf("the node's validator %s: %v", in.delegatee, err)
	}
	var nodeDel *platformvm.ClientDelegator
	for i, d := range vals[0].Delegators {
		if d.TxID == in.delegation {
			nodeDel = &vals[0].Delegators[i]
		}
	}
	if nodeDel == nil {
		t.Fatalf("the node does not list the delegation %s", in.delegation)
	}
	var list struct {
		Delegators []struct {
			TxHash           string   `json:"txHash"`
			NodeID           string   `json:"nodeId"`
			AmountDelegated  string   `json:"amountDelegated"`
			StartTimestamp   uint64   `json:"startTimestamp"`
			EndTimestamp     uint64   `json:"endTimestamp"`
			DelegationStatus string   `json:"delegationStatus"`
			RewardAddresses  []string `json:"rewardAddresses"`
		} `json:"delegators"`
	}
	decode(t, res["listDelegators"], &list)
	r3, _ := address.Format("P", constants.LocalHRP, in.r3.Address().Bytes())
	found := false
	for _, d := range list.Delegators {
		if d.TxHash != in.delegation.String() {
			continue
		}
		found = true
		if d.NodeID != in.delegatee.String() || d.AmountDelegated != fmt.Sprint(nodeDel.Weight) || d.StartTimestamp != nodeDel.StartTime ||
			d.EndTimestamp != nodeDel.EndTime || d.DelegationStatus != "active" || len(d.RewardAddresses) != 1 || d.RewardAddresses[0] != r3 {
			t.Errorf("listDelegators item %+v; the node says %+v (reward address %s)", d, *nodeDel, r3)
		}
	}
	if !found {
		t.Errorf("listDelegators lacks the delegation %s: %s", in.delegation, res["listDelegators"].Result)
	}
	// Its pending reward: the delegator's share of the node's
	// potentialReward for it (the validator keeps its fee).
	var pending struct {
		PendingRewards []struct {
			TxHash          string `json:"txHash"`
			RewardType      string `json:"rewardType"`
			AmountStaked    string `json:"amountStaked"`
			EstimatedReward struct {
				Amount string `json:"amount"`
			} `json:"estimatedReward"`
		} `json:"pendingRewards"`
	}
	decode(t, res["pendingRewards"], &pending)
	if nodeDel.PotentialReward == nil {
		t.Fatalf("the node gives no potential reward for the delegation: %+v", *nodeDel)
	}
	shares := uint64(math.Round(float64(vals[0].DelegationFee) * 10_000))
	share := *nodeDel.PotentialReward - *nodeDel.PotentialReward*shares/1_000_000
	if len(pending.PendingRewards) != 1 || pending.PendingRewards[0].TxHash != in.delegation.String() || pending.PendingRewards[0].RewardType != "DELEGATOR" ||
		pending.PendingRewards[0].AmountStaked != fmt.Sprint(nodeDel.Weight) || pending.PendingRewards[0].EstimatedReward.Amount != fmt.Sprint(share) {
		t.Errorf("listPendingPrimaryNetworkRewards for %s: %s; the node says %+v at a %v%% fee: %d", r3, res["pendingRewards"].Result, *nodeDel,
			vals[0].DelegationFee, share)
	}
	var details struct {
		Validators []struct {
			NodeID         string `json:"nodeId"`
			DelegatorCount int    `json:"delegatorCount"`
		} `json:"validators"`
	}
	decode(t, res["validatorDetails"], &details)
	if len(details.Validators) == 0 || details.Validators[0].NodeID != in.delegatee.String() || details.Validators[0].DelegatorCount != len(vals[0].Delegators) {
		t.Errorf("getSingleValidatorDetails of %s: %s; the node lists %d delegators", in.delegatee, res["validatorDetails"].Result, len(vals[0].Delegators))
	}
}

// checkL1Validators: the L1's one validator, the node, as ConvertSubnetToL1
// registered it.
func checkL1Validators(t *testing.T, in *issuedOnNode, res map[string]sdkResult) {
	t.Helper()
	var l1 struct {
		Validators []struct {
			ValidationID          string `json:"validationId"`
			NodeID                string `json:"nodeId"`
			SubnetID              string `json:"subnetId"`
			Weight                uint64 `json:"weight"`
			RemainingBalance      uint64 `json:"remainingBalance"`
			RemainingBalanceOwner struct {
				Addresses []string `json:"addresses"`
				Threshold int      `json:"threshold"`
			} `json:"remainingBalanceOwner"`
		} `json:"validators"`
	}
	decode(t, res["l1Validators"], &l1)
	r3, _ := address.Format("P", constants.LocalHRP, in.r3.Address().Bytes())
	if len(l1.Validators) != 1 {
		t.Fatalf("listL1Validators: %s", res["l1Validators"].Result)
	}
	v := l1.Validators[0]
	// The balance pays a continuous fee: it is at most the 1 AVAX given.
	if v.ValidationID != in.subnet.Append(0).String() || v.NodeID != in.nodeID.String() || v.SubnetID != in.subnet.String() || v.Weight != 100 ||
		v.RemainingBalance == 0 || v.RemainingBalance > units.Avax || v.RemainingBalanceOwner.Threshold != 1 ||
		len(v.RemainingBalanceOwner.Addresses) != 1 || v.RemainingBalanceOwner.Addresses[0] != strings.TrimPrefix(r3, "P-") {
		t.Errorf("listL1Validators: %+v", v)
	}
}

// checkNodeModePrimary reads the primary-network routes of issue 26 from
// the edge following the node at uri (checkPrimaryReads: 200, glacier.json's
// schemas, chainkit's) and compares them with the node and with what
// issueOnNode issued: balances with the UTXOs platform.getUTXOs and
// avm.getUTXOs list (shared memory included), the supply with
// platform.getCurrentSupply, the chains with platform.getBlockchains; no
// reward is paid yet (the local network's minimum stake is 24 hours: the
// devnet's TestPrimaryRoutesDevnet checks completed rewards). It returns the
// answers by read name.
func checkNodeModePrimary(t *testing.T, uri, base string, in *issuedOnNode, reads []primaryRead) map[string][]byte {
	t.Helper()
	// The follower reads the node's supply after each P-Chain catch-up
	// and every 10 s: the delegation (the last staker) changed it.
	var nodeSupply struct {
		Supply string `json:"supply"`
	}
	if err := rawResult(uri+"/ext/bc/P", "platform.getCurrentSupply", "{}", &nodeSupply); err != nil {
		t.Fatal(err)
	}
	supply, _ := new(big.Int).SetString(nodeSupply.Supply, 10)
	whole, frac := new(big.Int).DivMod(supply, big.NewInt(1e9), new(big.Int))
	want := whole.String()
	if frac.Sign() != 0 {
		want += "." + strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
	}
	waitFor(t, base+"/v1/avax/supply", `"totalSupply":"`+want+`"`)
	got := checkPrimaryReads(t, base, reads)
	const nets = "/v1/networks/fuji"
	checkNotFound(t, base, nets+"/blockchains/x-chain/vertices/"+in.xTransfer.String(), "getVertexByHash")
	checkNotFound(t, base, nets+"/blockchains/"+ids.GenerateTestID().String(), "getBlockchainById")

	// Balances: the UTXOs the node lists, on each chain and in its shared
	// memory.
	fmtP := func(k *secp256k1.PrivateKey) string {
		a, _ := address.Format("P", constants.LocalHRP, k.Address().Bytes())
		return a
	}
	raw, _ := hex.DecodeString(ewoqKeyHex)
	ewoq, _ := secp256k1.ToPrivateKey(raw)
	for _, k := range []*secp256k1.PrivateKey{in.r1, in.r2, in.r3, ewoq} {
		p := fmtP(k)
		x := "X-" + strings.TrimPrefix(p, "P-")
		xb := balancesOf(t, base+nets+"/blockchains/x-chain/balances?addresses="+x)
		checkNodeUTXOs(t, uri, "X", "", x, "", xb["unlocked"], xb["locked"])
		checkNodeUTXOs(t, uri, "X", "P", x, "", xb["atomicMemoryUnlocked"], xb["atomicMemoryLocked"])
		if k == ewoq {
			continue // its P-Chain genesis allocation is in no block: the index does not hold it
		}
		pb := balancesOf(t, base+nets+"/blockchains/p-chain/balances?addresses="+p)
		checkNodeUTXOs(t, uri, "P", "", p, "", pb["unlockedUnstaked"], pb["lockedPlatform"], pb["lockedStakeable"])
		checkNodeUTXOs(t, uri, "P", "X", p, "", pb["atomicMemoryUnlocked"], pb["atomicMemoryLocked"])
	}

	// The chains: the node's platform.getBlockchains.
	var nodeChains struct {
		Blockchains []struct {
			ID, Name string
			SubnetID string `json:"subnetID"`
			VMID     string `json:"vmID"`
		} `json:"blockchains"`
	}
	if err := rawResult(uri+"/ext/bc/P", "platform.getBlockchains", "{}", &nodeChains); err != nil {
		t.Fatal(err)
	}
	var listed struct {
		Blockchains []struct{ BlockchainID, BlockchainName, SubnetID, VMID string } `json:"blockchains"`
	}
	json.Unmarshal(got["blockchains"], &listed)
	var a, b []string
	for _, c := range nodeChains.Blockchains {
		a = append(a, c.ID+" "+c.Name+" "+c.SubnetID+" "+c.VMID)
	}
	for _, c := range listed.Blockchains {
		b = append(b, c.BlockchainID+" "+c.BlockchainName+" "+c.SubnetID+" "+c.VMID)
	}
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) || len(a) != 3 {
		t.Errorf("listBlockchains %v; the node's platform.getBlockchains %v", b, a)
	}
	wantIn := func(name string, parts ...string) {
		t.Helper()
		for _, p := range parts {
			if !strings.Contains(string(got[name]), p) {
				t.Errorf("%s lacks %s: %s", name, p, got[name])
			}
		}
	}
	wantIn("blockchain", `"blockchainName":"avaedgenodemode"`, `"evmChainId":99999`, in.subnet.String())
	wantIn("asset", `"name":"Avaedge Node Mode"`, `"symbol":"AENM"`, `"denomination":2`, `"cap":"fixed"`)
	wantIn("assetTxs", in.asset.String())
	wantIn("lastActivityX", `"txHash":"`+in.asset.String()+`"`, `"isConsumed":false`)
	wantIn("lastActivityP", `"txHash":"`+in.imp.String()+`"`)
	wantIn("utxosV2", in.imp.String())
	wantIn("stakingTxs", in.delegation.String())
	wantIn("l1ValidationTxs", in.convert.String())
	if staking := do(t, "GET", base+nets+"/blockchains/p-chain/transactions:listStaking?addresses="+fmtP(in.r3), nil, nil); !strings.Contains(string(staking.Body), in.delegation.String()) {
		t.Errorf("the active staking txs of the delegation's reward owner: %s", staking)
	}
	for _, name := range []string{"rewards", "vertices", "verticesAt", "blocksOfNode"} {
		var list map[string]json.RawMessage
		json.Unmarshal(got[name], &list)
		for k, v := range list {
			if k != "chainInfo" && string(v) != "[]" {
				t.Errorf("%s: %s; want an empty list (no reward paid yet, no vertex, no proposer known)", name, got[name])
			}
		}
	}
	vals, err := platformvm.NewClient(uri).GetCurrentValidators(context.Background(), constants.PrimaryNetworkID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var staked uint64
	for _, v := range vals {
		staked += v.Weight
	}
	var details struct {
		ValidatorDetails struct {
			ValidatorCount    int    `json:"validatorCount"`
			TotalAmountStaked string `json:"totalAmountStaked"`
		} `json:"validatorDetails"`
		DelegatorDetails struct {
			DelegatorCount int `json:"delegatorCount"`
		} `json:"delegatorDetails"`
	}
	json.Unmarshal(got["networkDetails"], &details)
	if details.ValidatorDetails.ValidatorCount != len(vals) || details.ValidatorDetails.TotalAmountStaked != fmt.Sprint(staked) ||
		details.DelegatorDetails.DelegatorCount != 1 {
		t.Errorf("getNetworkDetails %s; the node lists %d validators staking %d, and the one delegation", got["networkDetails"], len(vals), staked)
	}
	return got
}

// uptimeField matches a validator's uptimePerformance, which moves with the
// node's clock; updatedField the supply's lastUpdated, when the follower
// last read the node's.
var (
	uptimeField  = regexp.MustCompile(`"uptimePerformance":[0-9.]+`)
	updatedField = regexp.MustCompile(`"lastUpdated":"[^"]*"`)
)

// clockFree is an answer without the values that move with the clock.
func clockFree(b []byte) string {
	b = updatedField.ReplaceAll(b, []byte(`"lastUpdated":_`))
	return uptimeField.ReplaceAllString(string(b), `"uptimePerformance":_`)
}
