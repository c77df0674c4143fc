package dataapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/nodeclient"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// atomicBlocks are C-Chain blocks 0..2 of the followed world's network:
// block 1 imports the devnet's X-Chain export to the C-Chain, block 2
// exports AVAX to the P-Chain, signed by key.
func atomicBlocks(t *testing.T, w *world, key *avax.PrivateKey) (imp, exp *avax.AtomicTx, blocks []*nodeclient.CBlock) {
	t.Helper()
	ctx := context.Background()
	net := w.src.Network()
	avaxID, c, x := avax.MustParseID(net.AVAXAssetID), avax.MustParseID(net.CChainID), avax.MustParseID(net.XChainID)
	xExport := w.txOf(t, avanet.ChainX, "ExportTx")
	emitted, _, err := w.src.TxUTXOs(ctx, xExport)
	if err != nil {
		t.Fatal(err)
	}
	var in *pindex.UTXO
	for _, u := range emitted {
		if u.Chain == avanet.ChainC {
			in = u
		}
	}
	if in == nil {
		t.Fatalf("the devnet's X-Chain export %s put nothing into the C-Chain's shared memory", xExport)
	}
	imp = &avax.AtomicTx{NetworkID: net.ID, BlockchainID: c, Chain: x, Import: &avax.AtomicImport{
		Ins:  []avax.TransferableInput{{TxID: avax.MustParseID(in.TxID), OutputIndex: in.OutputIndex, AssetID: avaxID, Amount: in.Amount, SigIndices: []uint32{0}}},
		Outs: []avax.EVMOutput{{Address: [20]byte{0xab}, Amount: in.Amount - 1000, AssetID: avaxID}}}}
	exp = &avax.AtomicTx{NetworkID: net.ID, BlockchainID: c, Chain: avax.EmptyID, Export: &avax.AtomicExport{
		Ins:  []avax.EVMInput{{Address: [20]byte{0xab}, Amount: 5_000_000, AssetID: avaxID, Nonce: 0}},
		Outs: []avax.TransferableOutput{{AssetID: avaxID, Out: avax.TransferOutput{Amt: 4_000_000, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{key.Address()}}}}}}}
	for _, tx := range []*avax.AtomicTx{imp, exp} {
		tx.Creds = [][][avax.SigLen]byte{{}}
		tx.Signed = tx.Bytes()
		h := avax.Hash256(tx.UnsignedBytes())
		tx.Creds[0] = [][avax.SigLen]byte{key.SignHash(h[:])}
		tx.Signed = tx.Bytes()
	}
	hash := func(i byte) string { return avax.EncodeHexNC(append(make([]byte, 31), i)) }
	for h, txs := range [][]*avax.AtomicTx{nil, {imp}, {exp}} {
		var extra []byte
		if txs != nil {
			extra = avax.AtomicTxsBytes(txs)
		}
		blocks = append(blocks, &nodeclient.CBlock{Height: uint64(h), Hash: hash(byte(h + 1)), Parent: hash(byte(h)), Time: int64(1_700_000_000 + h), ExtraData: extra})
	}
	return imp, exp, blocks
}

// TestCChainAtomicListed: a followed node's C-Chain atomic transactions,
// indexed from its blocks, are listed and got in the Data API's shapes
// (CChainImportTransaction, CChainExportTransaction): the import's spent
// shared-memory UTXO and EVM output, the export's EVM input with the
// credential that signed it (the signer's public key) and the UTXO it put
// into the P-Chain's shared memory.
func TestCChainAtomicListed(t *testing.T) {
	w := followedWorld(t, newDevnet(t))
	key, err := avax.NewPrivateKey(append(make([]byte, 31), 7))
	if err != nil {
		t.Fatal(err)
	}
	imp, exp, blocks := atomicBlocks(t, w, key)
	if err := w.src.(reported).Index.AppendC(context.Background(), blocks); err != nil {
		t.Fatal(err)
	}
	base := "/v1/networks/fuji/blockchains/c-chain/transactions"
	code, body := w.get(t, base+"?pageSize=1")
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	validate(t, "ListCChainAtomicTransactionsResponse", body)
	var page glacier.ListTxsResponse[glacier.CChainAtomicTx]
	json.Unmarshal(body, &page)
	if len(page.Transactions) != 1 || page.Transactions[0].TxHash != exp.ID().String() || page.NextPageToken == "" {
		t.Fatalf("first page %s; want the export, newest, and a next page", body)
	}
	code, body = w.get(t, base+"?pageSize=1&pageToken="+page.NextPageToken)
	page = glacier.ListTxsResponse[glacier.CChainAtomicTx]{}
	json.Unmarshal(body, &page)
	if code != http.StatusOK || len(page.Transactions) != 1 || page.Transactions[0].TxHash != imp.ID().String() || page.NextPageToken != "" {
		t.Fatalf("second page %d %s; want the import, and no next page", code, body)
	}
	net := w.src.Network()
	evmAddr := common.Address{0xab}.Hex() // EIP-55, as the Data API prints addresses
	code, body = w.get(t, base+"/"+exp.ID().String())
	if code != http.StatusOK {
		t.Fatalf("get the export: %d %s", code, body)
	}
	validate(t, "CChainExportTransaction", body)
	var e glacier.CChainAtomicTx
	json.Unmarshal(body, &e)
	pk := base64.RawStdEncoding.EncodeToString(key.PublicKey())
	if e.TxType != "ExportTx" || e.BlockHeight != 2 || e.BlockHash != blocks[2].Hash || e.Timestamp != blocks[2].Time ||
		e.SourceChain != net.CChainID || e.DestinationChain != avax.EmptyID.String() || len(e.EVMInputs) != 1 ||
		e.EVMInputs[0].FromAddress != evmAddr || e.EVMInputs[0].Asset.Amount != "5000000" ||
		len(e.EVMInputs[0].Credentials) != 1 || e.EVMInputs[0].Credentials[0].PublicKey != pk ||
		len(e.EmittedUTXOs) != 1 || e.EmittedUTXOs[0].Asset.Amount != "4000000" || e.EmittedUTXOs[0].ConsumedOnChainID != avax.EmptyID.String() ||
		e.EmittedUTXOs[0].CreatedOnChainID != net.CChainID || len(e.AmountUnlocked) != 1 || e.AmountUnlocked[0].Amount != "5000000" ||
		len(e.AmountCreated) != 1 || e.AmountCreated[0].Amount != "4000000" {
		t.Errorf("the export: %s", body)
	}
	code, body = w.get(t, base+"/"+imp.ID().String())
	if code != http.StatusOK {
		t.Fatalf("get the import: %d %s", code, body)
	}
	validate(t, "CChainImportTransaction", body)
	var i glacier.CChainAtomicTx
	json.Unmarshal(body, &i)
	if i.TxType != "ImportTx" || i.SourceChain != net.XChainID || i.DestinationChain != net.CChainID || len(i.EVMOutputs) != 1 ||
		i.EVMOutputs[0].ToAddress != evmAddr || len(i.ConsumedUTXOs) != 1 ||
		i.ConsumedUTXOs[0].UTXOID != imp.Import.Ins[0].TxID.Prefix(uint64(imp.Import.Ins[0].OutputIndex)).String() ||
		i.ConsumedUTXOs[0].ConsumingTxHash != imp.ID().String() {
		t.Errorf("the import: %s", body)
	}
	// The address filter: the export's owner (key) took part in the
	// export only.
	owner := avax.FormatBech32(avanet.Local.HRP, key.Address())
	code, body = w.get(t, base+"?addresses="+owner)
	page = glacier.ListTxsResponse[glacier.CChainAtomicTx]{}
	json.Unmarshal(body, &page)
	if code != http.StatusOK || len(page.Transactions) != 1 || page.Transactions[0].TxHash != exp.ID().String() {
		t.Errorf("the transactions of %s: %d %s; want the export", owner, code, body)
	}
	// The X-Chain's export is on the X-Chain, not the C-Chain.
	if code, body := w.get(t, base+"/"+w.txOf(t, avanet.ChainX, "ExportTx")); code != http.StatusNotFound {
		t.Errorf("an X-Chain tx on the C-Chain: %d %s", code, body)
	}
}
