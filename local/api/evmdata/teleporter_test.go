package evmdata

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// logEmitter returns the init code of a contract that emits one LOGn per
// call: topics are the first n calldata words, data the rest. It stands in
// for TeleporterMessenger, whose logs the test encodes as the contract does.
func logEmitter(n int) []byte {
	var run []byte
	for i := n - 1; i >= 0; i-- {
		run = append(run, 0x60, byte(32*i), 0x35) // PUSH1 32i CALLDATALOAD
	}
	head := byte(32 * n)
	run = append(run,
		0x60, head, 0x36, 0x03, // PUSH1 32n CALLDATASIZE SUB: data length
		0x80, 0x60, head, 0x60, 0x00, 0x37, // DUP1 PUSH1 32n PUSH1 0 CALLDATACOPY
		0x60, 0x00, 0xa0+byte(n), // PUSH1 0 LOGn
		0x00, // STOP
	)
	// PUSH1 len DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN, then the code.
	return append([]byte{0x60, byte(len(run)), 0x80, 0x60, 11, 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3}, run...)
}

// The tuples of the Teleporter events, for abi's Pack.
type (
	tReceipt struct {
		ReceivedMessageNonce *big.Int
		RelayerRewardAddress common.Address
	}
	tMessage struct {
		MessageNonce            *big.Int
		OriginSenderAddress     common.Address
		DestinationBlockchainID [32]byte
		DestinationAddress      common.Address
		RequiredGasLimit        *big.Int
		AllowedRelayerAddresses []common.Address
		Receipts                []tReceipt
		Message                 []byte
	}
	tFeeInfo struct {
		FeeTokenAddress common.Address
		Amount          *big.Int
	}
)

// TestTeleporterMessageInfo has the dev chain's EVM emit the Teleporter
// events from two contracts configured as messengers and reads them back
// from GET /v1/chains/{chainId}/transactions/{txHash}.
func TestTeleporterMessageInfo(t *testing.T) {
	f, err := os.Open("../../source/evmindex/testdata/teleporter_events.abi.json")
	if err != nil {
		t.Fatal(err)
	}
	events, err := abi.JSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	deployer := evm.DevAccounts()[5]
	var messengers []common.Address // the LOG3 (send) and LOG4 (receive) emitters, by deployer nonce
	w := newWorld(t, func(c *evm.Chain, co *evmindex.ChainOptions) {
		cl := c.Client()
		defer cl.Close()
		var nonce hexutil.Uint64
		if err := cl.Call(&nonce, "eth_getTransactionCount", deployer.Address, "pending"); err != nil {
			t.Fatal(err)
		}
		messengers = []common.Address{crypto.CreateAddress(deployer.Address, uint64(nonce)), crypto.CreateAddress(deployer.Address, uint64(nonce)+1)}
		co.TeleporterAddresses = messengers
	})
	ctx := context.Background()
	cl, err := ethclient.Dial(w.srv.URL + "/ext/bc/C/rpc")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	signer := types.LatestSignerForChainID(big.NewInt(43112))
	nonce, err := cl.PendingNonceAt(ctx, deployer.Address)
	if err != nil {
		t.Fatal(err)
	}
	send := func(to *common.Address, data []byte) *types.Receipt {
		t.Helper()
		tx := types.MustSignNewTx(deployer.Key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(43112), Nonce: nonce, GasTipCap: big.NewInt(1e9),
			GasFeeCap: big.NewInt(100e9), Gas: 1_000_000, To: to, Data: data})
		nonce++
		if err := cl.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		r, err := cl.TransactionReceipt(ctx, tx.Hash())
		if err != nil || r.Status != 1 {
			t.Fatalf("tx %s: receipt %+v, %v", tx.Hash(), r, err)
		}
		return r
	}
	for i, n := range []int{3, 4} {
		if r := send(nil, logEmitter(n)); r.ContractAddress != messengers[i] {
			t.Fatalf("emitter %d deployed at %s; want %s", n, r.ContractAddress, messengers[i])
		}
	}
	deployTx := send(nil, logEmitter(3)).TxHash // a third emitter, not a messenger

	mainnetC := common.HexToHash("0x0427d4b22a2a78bcddd456742caf91b56badbff985ee19aef14573e7343fd652")
	fujiC := common.HexToHash("0x7fc93d85c6d62c5b2ac0b519c87010ea5294012d1e407030d6acd0021cac10d5")
	msg := tMessage{MessageNonce: big.NewInt(1), OriginSenderAddress: deployer.Address, DestinationBlockchainID: mainnetC,
		DestinationAddress: common.HexToAddress("0xde57"), RequiredGasLimit: big.NewInt(100_000), AllowedRelayerAddresses: []common.Address{},
		Receipts: []tReceipt{}, Message: []byte("ping")}
	sendID, recvID := crypto.Keccak256Hash([]byte("message 1")), crypto.Keccak256Hash([]byte("message 2"))
	call := func(ev abi.Event, topics []common.Hash, args ...any) []byte {
		t.Helper()
		data, err := ev.Inputs.NonIndexed().Pack(args...)
		if err != nil {
			t.Fatal(err)
		}
		var in []byte
		for _, h := range append([]common.Hash{ev.ID}, topics...) {
			in = append(in, h[:]...)
		}
		return append(in, data...)
	}
	sendEv, recvEv := events.Events["SendCrossChainMessage"], events.Events["ReceiveCrossChainMessage"]
	rs := send(&messengers[0], call(sendEv, []common.Hash{sendID, mainnetC}, msg, tFeeInfo{common.Address{}, new(big.Int)}))
	rr := send(&messengers[1], call(recvEv, []common.Hash{recvID, fujiC, common.BytesToHash(deployer.Address.Bytes())}, deployer.Address, msg))
	if len(rs.Logs) != 1 || rs.Logs[0].Topics[0] != sendEv.ID || len(rr.Logs) != 1 || len(rr.Logs[0].Topics) != 4 {
		t.Fatalf("emitted logs: send %+v, receive %+v", rs.Logs, rr.Logs)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := w.ix.WaitFor(wctx, 43112, rr.BlockNumber.Uint64()); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		tx   common.Hash
		want map[string]any // nil: no teleporterMessageInfo
	}{
		{"source", rs.TxHash, map[string]any{"teleporterMessageId": "0x" + hex.EncodeToString(sendID[:]), "direction": "SOURCE_TRANSACTION",
			"destinationChainId": "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"}}, // Mainnet's C-chain
		{"destination", rr.TxHash, map[string]any{"teleporterMessageId": "0x" + hex.EncodeToString(recvID[:]), "direction": "DESTINATION_TRANSACTION",
			"sourceChainId": "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"}}, // Fuji's C-chain
		{"none", deployTx, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := w.get(t, "/v1/chains/43112/transactions/"+tc.tx.Hex(), 200)
			validate(t, "GetTransactionResponse", v)
			got, ok := v["teleporterMessageInfo"]
			if tc.want == nil {
				if ok {
					t.Fatalf("teleporterMessageInfo %v; want none", got)
				}
				return
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(tc.want)
			if string(gb) != string(wb) {
				t.Fatalf("teleporterMessageInfo %s; want %s", gb, wb)
			}
		})
	}

	// The schema check has teeth: a direction outside the enum fails it.
	v := w.get(t, "/v1/chains/43112/transactions/"+rs.TxHash.Hex(), 200)
	v["teleporterMessageInfo"].(map[string]any)["direction"] = "SEND"
	raw, _ := json.Marshal(v)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema(t, "GetTransactionResponse").Validate(doc); err == nil {
		t.Fatal("a direction of SEND passed the GetTransactionResponse schema")
	}
}
