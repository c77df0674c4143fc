package evmdata

import (
	"context"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// TestEndToEnd sends transactions to /ext/bc/C/rpc as a wallet would and
// reads them back from the Data API routes.
func TestEndToEnd(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	acc := w.chain.Accounts()
	from, to := acc[5], acc[4]
	sendAny := w.sender(t, from)
	send := func(dst *common.Address, data []byte) *types.Receipt {
		t.Helper()
		r := sendAny(dst, data, 3_000_000)
		if r.Status != 1 {
			t.Fatalf("tx %s reverted", r.TxHash)
		}
		return r
	}
	nft, _ := evm.LoadArtifact(evm.ContractNFT)
	multi, _ := evm.LoadArtifact(evm.ContractMulti)
	fac, _ := evm.LoadArtifact(evm.ContractFactory)
	child, _ := evm.LoadArtifact(evm.ContractChild)

	code, _ := nft.Deploy()
	r := send(nil, code)
	nftAddr := r.ContractAddress
	mint, _ := nft.Call("mint", from.Address)
	send(&nftAddr, mint)
	send(&nftAddr, mint)
	xfer, _ := nft.Call("transferFrom", from.Address, to.Address, big.NewInt(2))
	rx := send(&nftAddr, xfer)

	code, _ = multi.Deploy()
	multiAddr := send(nil, code).ContractAddress
	mb, _ := multi.Call("mintBatch", from.Address, []*big.Int{big.NewInt(7), big.NewInt(9)}, []*big.Int{big.NewInt(70), big.NewInt(90)})
	send(&multiAddr, mb)
	bt, _ := multi.Call("safeBatchTransferFrom", from.Address, to.Address, []*big.Int{big.NewInt(7), big.NewInt(9)}, []*big.Int{big.NewInt(3), big.NewInt(4)}, []byte{})
	rb := send(&multiAddr, bt)

	salt := crypto.Keccak256Hash([]byte("e2e salt"))
	d2, _ := fac.Call("deploy2", big.NewInt(42), [32]byte(salt))
	rc := send(&w.chain.Seed().Factory, d2)
	init, _ := child.Deploy(big.NewInt(42))
	childAddr := crypto.CreateAddress2(w.chain.Seed().Factory, salt, crypto.Keccak256(init))

	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := w.ix.WaitFor(wctx, 43112, rc.BlockNumber.Uint64()); err != nil {
		t.Fatalf("index did not reach block %d: %v", rc.BlockNumber, err)
	}

	// ERC-721: transfers of the new contract, newest first, with the log index of the receipt.
	v := w.get(t, "/v1/chains/43112/tokens/"+nftAddr.Hex()+"/transfers", 200)
	validate(t, "ListTransfersResponse", v)
	tr := list(v, "transfers")
	if len(tr) != 3 {
		t.Fatalf("NFT transfers %d; want 3", len(tr))
	}
	top := tr[0].(map[string]any)
	tok := top["erc721Token"].(map[string]any)
	if top["txHash"] != rx.TxHash.Hex() || top["logIndex"] != float64(rx.Logs[0].Index) || top["to"].(map[string]any)["address"] != to.Address.Hex() ||
		tok["tokenId"] != "2" || tok["symbol"] != "ADN" || top["blockNumber"] != rx.BlockNumber.String() {
		t.Fatalf("newest NFT transfer %v", top)
	}
	d := w.get(t, "/v1/chains/43112/nfts/collections/"+nftAddr.Hex()+"/tokens/2", 200)
	if d["ownerAddress"] != to.Address.Hex() {
		t.Fatalf("owner of token 2: %v", d["ownerAddress"])
	}
	bal := list(w.get(t, "/v1/chains/43112/addresses/"+to.Address.Hex()+"/balances:listErc721?contractAddress="+nftAddr.Hex(), 200), "erc721TokenBalances")
	if len(bal) != 1 || bal[0].(map[string]any)["tokenId"] != "2" {
		t.Fatalf("recipient's NFTs %v", bal)
	}

	// ERC-1155 batch: two items sharing the batch log's index.
	v = w.get(t, "/v1/chains/43112/addresses/"+to.Address.Hex()+"/transactions:listErc1155", 200)
	validate(t, "ListErc1155TransactionsResponse", v)
	txs := list(v, "transactions")
	if len(txs) != 2 {
		t.Fatalf("1155 transfers of recipient: %v", txs)
	}
	for i, want := range []struct{ id, value string }{{"9", "4"}, {"7", "3"}} {
		x := txs[i].(map[string]any)
		if x["txHash"] != rb.TxHash.Hex() || x["logIndex"] != float64(rb.Logs[0].Index) || x["value"] != want.value || x["erc1155Token"].(map[string]any)["tokenId"] != want.id {
			t.Fatalf("1155 transfer %d: %v", i, x)
		}
	}
	v = w.get(t, "/v1/chains/43112/addresses/"+from.Address.Hex()+"/balances:listErc1155?contractAddress="+multiAddr.Hex(), 200)
	bs := list(v, "erc1155TokenBalances")
	if len(bs) != 2 || bs[0].(map[string]any)["balance"] != "67" || bs[1].(map[string]any)["balance"] != "86" {
		t.Fatalf("sender's 1155 balances %v", bs)
	}
	past := rb.BlockNumber.Uint64() - 1
	v = w.get(t, "/v1/chains/43112/addresses/"+from.Address.Hex()+"/balances:listErc1155?contractAddress="+multiAddr.Hex()+"&blockNumber="+u64(past), 200)
	if bs := list(v, "erc1155TokenBalances"); len(bs) != 2 || bs[0].(map[string]any)["balance"] != "70" {
		t.Fatalf("sender's 1155 balances at %d: %v", past, bs)
	}

	// CREATE2 through the factory.
	v = w.get(t, "/v1/chains/43112/contracts/"+childAddr.Hex()+"/transactions:getDeployment", 200)
	validate(t, "GetTransactionResponse", v)
	nt := v["nativeTransaction"].(map[string]any)
	its := list(v, "internalTransactions")
	if nt["txHash"] != rc.TxHash.Hex() || len(its) != 2 || its[1].(map[string]any)["internalTxType"] != "CREATE2" ||
		its[1].(map[string]any)["to"].(map[string]any)["address"] != childAddr.Hex() || nt["method"].(map[string]any)["callType"] != "CONTRACT_CALL" {
		t.Fatalf("CREATE2 deployment %v", v)
	}
	v = w.get(t, "/v1/chains/43112/contracts/"+nftAddr.Hex()+"/transactions:getDeployment", 200)
	if m := v["nativeTransaction"].(map[string]any)["method"].(map[string]any); m["callType"] != "CONTRACT_CREATION" {
		t.Fatalf("NFT deployment method %v", m)
	}
	if got := w.get(t, "/v1/chains/43112/addresses/"+to.Address.Hex()+"/balances:getNative", http.StatusOK); got["nativeTokenBalance"].(map[string]any)["balance"] != "1000001000000000000000000" {
		t.Fatalf("recipient native balance %v", got)
	}
}

// sender returns a function that sends transactions from acc to the
// world's /ext/bc/C/rpc as a wallet would, and waits for their receipts.
func (w *world) sender(t *testing.T, acc evm.Account) func(to *common.Address, data []byte, gas uint64) *types.Receipt {
	t.Helper()
	ctx := context.Background()
	cl, err := ethclient.Dial(w.srv.URL + "/ext/bc/C/rpc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	signer := types.LatestSignerForChainID(big.NewInt(43112))
	nonce, err := cl.PendingNonceAt(ctx, acc.Address)
	if err != nil {
		t.Fatal(err)
	}
	return func(to *common.Address, data []byte, gas uint64) *types.Receipt {
		t.Helper()
		tx := types.MustSignNewTx(acc.Key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(43112), Nonce: nonce, GasTipCap: big.NewInt(1e9),
			GasFeeCap: big.NewInt(100e9), Gas: gas, To: to, Data: data})
		nonce++
		if err := cl.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		r, err := cl.TransactionReceipt(ctx, tx.Hash())
		if err != nil {
			t.Fatalf("receipt: %v", err)
		}
		return r
	}
}
