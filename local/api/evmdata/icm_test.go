package evmdata

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The blockchain ids of the test: the local C-Chain (the dev chain's), an
// L1 chain (898989, known but not indexed) and Mainnet's C-Chain.
const (
	localCChain   = "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC"
	mainnetCChain = "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"
)

var devl1Chain = avax.CB58Encode(crypto.Keccak256([]byte("an L1")))

func chainHash(t testing.TB, cb58 string) common.Hash {
	t.Helper()
	b, err := avax.CB58Decode(cb58)
	if err != nil {
		t.Fatal(err)
	}
	return common.BytesToHash(b)
}

// TestICMRoutes seeds the dev chain's messenger with a message to the L1
// (ewoq to dev1, 1 ADT of fee), has dev1 send another to Mainnet's C-Chain
// (2 ADT, raised to 5) through the RPC, and reads both back from every ICM
// route and its legacy Teleporter twin.
func TestICMRoutes(t *testing.T) {
	local, devl1 := chainHash(t, localCChain), chainHash(t, devl1Chain)
	messenger := evm.MessengerDeployment().Address
	w := newWorldOf(t, evm.Options{BlockchainID: local, ICMDestination: devl1}, Options{KnownChains: map[string]uint64{devl1Chain: 898989}},
		func(_ *evm.Chain, co *evmindex.ChainOptions) {
			co.TeleporterAddresses = []common.Address{evmindex.TeleporterMessenger, messenger}
		})
	seed := w.chain.Seed()
	acc := w.chain.Accounts()
	ewoq, dev1 := acc[0], acc[1]
	if seed.Messenger != messenger {
		t.Fatalf("seeded messenger %s; want the keyless deployment's %s", seed.Messenger, messenger)
	}

	// dev1 sends a message with a fee, then raises it.
	ctx := context.Background()
	cl, err := ethclient.Dial(w.srv.URL + "/ext/bc/C/rpc")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	nonce, err := cl.PendingNonceAt(ctx, dev1.Address)
	if err != nil {
		t.Fatal(err)
	}
	m, tok := mustLoad(t, evm.ContractMessenger), mustLoad(t, evm.ContractToken)
	send := func(to common.Address, a *evm.Artifact, method string, args ...any) *types.Receipt {
		t.Helper()
		data, err := a.Call(method, args...)
		if err != nil {
			t.Fatal(err)
		}
		tx := types.MustSignNewTx(dev1.Key, types.LatestSignerForChainID(big.NewInt(43112)), &types.DynamicFeeTx{ChainID: big.NewInt(43112),
			Nonce: nonce, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: 500_000, To: &to, Data: data})
		nonce++
		if err := cl.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		r, err := cl.TransactionReceipt(ctx, tx.Hash())
		if err != nil || r.Status != 1 {
			t.Fatalf("%s: receipt %+v, %v", method, r, err)
		}
		return r
	}
	ether := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }
	type fee struct {
		FeeTokenAddress common.Address
		Amount          *big.Int
	}
	type input struct {
		DestinationBlockchainID [32]byte
		DestinationAddress      common.Address
		FeeInfo                 fee
		RequiredGasLimit        *big.Int
		AllowedRelayerAddresses []common.Address
		Message                 []byte
	}
	mainnet := chainHash(t, mainnetCChain)
	send(seed.Token, tok, "approve", messenger, ether(5))
	sent := send(messenger, m, "sendCrossChainMessage", input{mainnet, ewoq.Address, fee{seed.Token, ether(2)}, big.NewInt(250_000),
		[]common.Address{acc[2].Address}, []byte{0xca, 0xfe}})
	id2 := crypto.Keccak256Hash(common.LeftPadBytes(messenger.Bytes(), 32), local[:], mainnet[:], common.LeftPadBytes([]byte{2}, 32))
	if len(sent.Logs) < 2 || sent.Logs[len(sent.Logs)-1].Topics[1] != id2 {
		t.Fatalf("send's logs %+v; want SendCrossChainMessage of %s last", sent.Logs, id2)
	}
	raised := send(messenger, m, "addFeeAmount", [32]byte(id2), seed.Token, ether(3))
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.ix.WaitFor(wctx, 43112, raised.BlockNumber.Uint64()); err != nil {
		t.Fatal(err)
	}

	seedSend, err := w.ix.ICMMessage(ctx, seed.ICMMessage)
	if err != nil {
		t.Fatalf("the seeded message %s: %v", seed.ICMMessage, err)
	}
	one := map[string]any{
		"messageId": hexutil.Encode(seed.ICMMessage[:]), "icmContractAddress": messenger.Hex(),
		"sourceBlockchainId": localCChain, "destinationBlockchainId": devl1Chain, "sourceEvmChainId": "43112", "destinationEvmChainId": "898989",
		"messageNonce": "1", "from": ewoq.Address.Hex(), "to": dev1.Address.Hex(), "data": hexutil.Encode([]byte("hello from the dev chain")),
		"messageExecuted": false, "receipts": []any{}, "receiptDelivered": false,
		"rewardDetails": map[string]any{"address": seed.Token.Hex(), "name": "Avaedge Dev Token", "symbol": "ADT", "decimals": 18, "ercType": "ERC-20",
			"value": "1000000000000000000"},
		"sourceTransaction": map[string]any{"txHash": seedSend.Sent.Hash.Hex(), "timestamp": seedSend.Sent.Timestamp, "gasSpent": u64(seedSend.Sent.GasUsed)},
		"status":            "pending",
	}
	two := map[string]any{
		"messageId": hexutil.Encode(id2[:]), "icmContractAddress": messenger.Hex(),
		"sourceBlockchainId": localCChain, "destinationBlockchainId": mainnetCChain, "sourceEvmChainId": "43112", "destinationEvmChainId": "",
		"messageNonce": "2", "from": dev1.Address.Hex(), "to": ewoq.Address.Hex(), "data": "0xcafe",
		"messageExecuted": false, "receipts": []any{}, "receiptDelivered": false,
		"rewardDetails": map[string]any{"address": seed.Token.Hex(), "name": "Avaedge Dev Token", "symbol": "ADT", "decimals": 18, "ercType": "ERC-20",
			"value": "5000000000000000000"},
		"sourceTransaction": map[string]any{"txHash": sent.TxHash.Hex(), "timestamp": blockTime(t, cl, sent.BlockNumber), "gasSpent": u64(sent.GasUsed)},
		"status":            "pending",
	}
	same := func(t *testing.T, got any, want map[string]any) {
		t.Helper()
		g, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		var a, b any
		json.Unmarshal(g, &a)
		json.Unmarshal(wb, &b)
		ga, _ := json.Marshal(a)
		gb, _ := json.Marshal(b)
		if string(ga) != string(gb) {
			t.Errorf("message\n got %s\nwant %s", ga, gb)
		}
	}
	legacy := func(v map[string]any) map[string]any {
		out := map[string]any{}
		for k, x := range v {
			out[k] = x
		}
		out["teleporterContractAddress"] = out["icmContractAddress"]
		delete(out, "icmContractAddress")
		return out
	}

	t.Run("get", func(t *testing.T) {
		v := w.get(t, "/v1/icm/messages/"+hexutil.Encode(seed.ICMMessage[:]), http.StatusOK)
		validate(t, "PendingIcmMessage", v)
		same(t, v, one)
		// Without 0x, and through the legacy route.
		v = w.get(t, "/v1/teleporter/messages/"+strings.TrimPrefix(hexutil.Encode(id2[:]), "0x"), http.StatusOK)
		validate(t, "PendingTeleporterMessage", v)
		same(t, v, legacy(two))
	})
	lists := []struct {
		name, query string
		want        []map[string]any
	}{
		{"all", "", []map[string]any{two, one}},
		{"from the dev chain by EVM id", "?sourceBlockchainId=43112", []map[string]any{two, one}},
		{"from the dev chain by blockchain id", "?sourceBlockchainId=" + localCChain, []map[string]any{two, one}},
		{"to the L1 by EVM id", "?destinationBlockchainId=898989", []map[string]any{one}},
		{"to the L1", "?destinationBlockchainId=" + devl1Chain, []map[string]any{one}},
		{"to Mainnet's C-Chain", "?destinationBlockchainId=" + mainnetCChain, []map[string]any{two}},
		{"either end the L1", "?blockchainId=" + devl1Chain, []map[string]any{one}},
		{"from ewoq", "?from=" + ewoq.Address.Hex(), []map[string]any{one}},
		{"to ewoq", "?to=" + strings.ToLower(ewoq.Address.Hex()), []map[string]any{two}},
		{"from ewoq to ewoq", "?from=" + ewoq.Address.Hex() + "&to=" + ewoq.Address.Hex(), nil},
		{"an unindexed EVM chain", "?sourceBlockchainId=12345", nil},
		{"testnet", "?network=fuji", []map[string]any{two, one}},
		{"mainnet", "?network=mainnet", nil},
	}
	for _, tc := range lists {
		t.Run("list "+tc.name, func(t *testing.T) {
			v := w.get(t, "/v1/icm/messages"+tc.query, http.StatusOK)
			validate(t, "ListIcmMessagesResponse", v)
			got := list(v, "messages")
			if len(got) != len(tc.want) {
				t.Fatalf("%d messages; want %d", len(got), len(tc.want))
			}
			for i := range got {
				same(t, got[i], tc.want[i])
			}
		})
	}
	t.Run("by address", func(t *testing.T) {
		for addr, want := range map[string][]map[string]any{dev1.Address.Hex(): {two, one}, acc[3].Address.Hex(): nil} {
			v := w.get(t, "/v1/icm/addresses/"+addr+"/messages", http.StatusOK)
			validate(t, "ListIcmMessagesResponse", v)
			if got := list(v, "messages"); len(got) != len(want) {
				t.Fatalf("%s: %d messages; want %d", addr, len(got), len(want))
			}
		}
		v := w.get(t, "/v1/teleporter/addresses/"+ewoq.Address.Hex()+"/messages", http.StatusOK)
		if got := list(v, "messages"); len(got) != 2 {
			t.Fatalf("legacy, ewoq: %d messages; want 2", len(got))
		} else {
			same(t, got[0], legacy(two))
		}
	})
	t.Run("pages", func(t *testing.T) {
		v := w.get(t, "/v1/icm/messages?pageSize=1", http.StatusOK)
		tok, _ := v["nextPageToken"].(string)
		if got := list(v, "messages"); len(got) != 1 || tok == "" {
			t.Fatalf("first page: %d messages, token %q", len(got), tok)
		}
		same(t, list(v, "messages")[0], two)
		v = w.get(t, "/v1/icm/messages?pageSize=1&pageToken="+tok, http.StatusOK)
		if _, more := v["nextPageToken"]; more || len(list(v, "messages")) != 1 {
			t.Fatalf("second page: %v", v)
		}
		same(t, list(v, "messages")[0], one)
		w.get(t, "/v1/icm/messages?pageSize=1&network=fuji&pageToken="+tok, http.StatusBadRequest) // another listing's token
	})
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/v1/icm/messages/xyz", http.StatusBadRequest},
		{"/v1/icm/messages/0x" + strings.Repeat("ab", 31), http.StatusBadRequest},
		{"/v1/icm/messages/0x" + strings.Repeat("ab", 32), http.StatusNotFound},
		{"/v1/icm/messages?sourceBlockchainId=not-base58!", http.StatusBadRequest},
		{"/v1/icm/messages?blockchainId=" + localCChain[:20], http.StatusBadRequest},
		{"/v1/icm/messages?from=0x12", http.StatusBadRequest},
		{"/v1/icm/addresses/0x12/messages", http.StatusBadRequest},
	} {
		w.get(t, tc.path, tc.status)
	}
}

func mustLoad(t testing.TB, name string) *evm.Artifact {
	t.Helper()
	a, err := evm.LoadArtifact(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func blockTime(t testing.TB, cl *ethclient.Client, n *big.Int) uint64 {
	t.Helper()
	h, err := cl.HeaderByNumber(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return h.Time
}

// FuzzICMQueries sends the ICM routes arbitrary message ids, addresses,
// chain filters, page sizes and tokens over a chain with the seeded
// message: every answer is 200, 400 or 404, never a 500 or a panic.
func FuzzICMQueries(f *testing.F) {
	for i, seed := range [][5]string{
		{"0x" + strings.Repeat("ab", 32), "43112", localCChain, "10", ""},
		{"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC", "898989", "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5", "1", "00000000-0000-0000-0000-000000000000"},
		{"0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC", "fuji", "x", "0", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
		{"", "-1", "", "101", "%"},
	} {
		f.Add(uint8(i), seed[0], seed[1], seed[2], seed[3], seed[4])
	}
	local, devl1 := chainHash(f, localCChain), chainHash(f, devl1Chain)
	w := newWorldOf(f, evm.Options{BlockchainID: local, ICMDestination: devl1}, Options{KnownChains: map[string]uint64{devl1Chain: 898989}},
		func(_ *evm.Chain, co *evmindex.ChainOptions) {
			co.TeleporterAddresses = []common.Address{evmindex.TeleporterMessenger, evm.MessengerDeployment().Address}
		})
	routes := []string{"/v1/icm/messages/{a}", "/v1/icm/messages", "/v1/icm/addresses/{a}/messages", "/v1/teleporter/messages/{a}",
		"/v1/teleporter/messages", "/v1/teleporter/addresses/{a}/messages"}
	f.Fuzz(func(t *testing.T, route uint8, a, src, dst, size, token string) {
		r := routes[int(route)%len(routes)]
		path := strings.ReplaceAll(r, "{a}", url.PathEscape(a))
		if strings.Contains(r, "{a}") && a == "" || strings.Contains(path, "/./") || strings.Contains(path, "/../") || strings.HasSuffix(path, "/.") || strings.HasSuffix(path, "/..") {
			return // empty and dot segments: the edge refuses them before any handler
		}
		q := url.Values{}
		for k, v := range map[string]string{"sourceBlockchainId": src, "destinationBlockchainId": dst, "blockchainId": dst, "from": a, "to": src,
			"network": src, "pageSize": size, "pageToken": token} {
			if v != "" {
				q.Set(k, v)
			}
		}
		rec := httptest.NewRecorder()
		w.srv.Config.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil))
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound:
		default:
			t.Fatalf("GET %s?%s = %d: %s", path, q.Encode(), rec.Code, rec.Body)
		}
	})
}
