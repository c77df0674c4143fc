package dataapi

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// atomicTxs is listLatestPrimaryNetworkTransactions on the C-Chain: its
// atomic transactions (imports and exports) the index holds, a page at a
// time, in the shape of ListCChainAtomicTransactionsResponse. A followed
// node's are indexed from its blocks' extra data; the devnet's C-Chain,
// its dev chain, takes none: its list is empty.
func (a *api) atomicTxs(q *req, f pindex.TxFilter, size int, scope string) (any, *apireq.Error) {
	f.Limit = size + 1
	list, err := a.src.Txs(q.ctx, avanet.ChainC, f)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	list, next := txsNext(q, list, size, scope)
	out := glacier.ListTxsResponse[glacier.CChainAtomicTx]{NextPageToken: next, Transactions: make([]glacier.CChainAtomicTx, 0, len(list)),
		ChainInfo: glacier.ChainInfo{ChainName: alias(avanet.ChainC), Network: q.Network}}
	assets := a.assets(q)
	for _, t := range list {
		item, herr := a.cTx(q, assets, t)
		if herr != nil {
			return nil, herr
		}
		out.Transactions = append(out.Transactions, item)
	}
	return out, nil
}

// cTx is a C-Chain atomic transaction in the Data API's shape: an export's
// EVM inputs (with the credentials that signed each) and the UTXOs it put
// into the destination's shared memory, or an import's EVM outputs and the
// UTXOs it spent from the C-Chain's.
func (a *api) cTx(q *req, assets *assetCache, t *pindex.Tx) (glacier.CChainAtomicTx, *apireq.Error) {
	v := q.view
	var body pindex.CTxBody
	if err := json.Unmarshal(t.Body, &body); err != nil {
		return glacier.CChainAtomicTx{}, apireq.Internal(err)
	}
	emitted, consumed, err := a.src.TxUTXOs(q.ctx, t.ID)
	if err != nil {
		return glacier.CChainAtomicTx{}, apireq.Internal(err)
	}
	c := v.chainID(avanet.ChainC).String()
	out := glacier.CChainAtomicTx{TxHash: t.ID, BlockHeight: t.Height, BlockHash: body.BlockHash, Timestamp: t.Time, TxType: t.Type,
		SourceChain: c, DestinationChain: c}
	var unlocked, created sums
	evm := func(e pindex.CTxEVM) (string, glacier.AssetAmount, *apireq.Error) {
		am, herr := assets.asset(e.AssetID)
		am.Amount = u64(e.Amount)
		b, _ := hexNC(e.Address)
		return common.BytesToAddress(b).Hex(), am, herr
	}
	if t.Type == pindex.TxCImport {
		out.SourceChain = v.id(body.Unsigned.SourceChain)
		out.EVMOutputs = []glacier.EVMOutput{}
		for _, e := range body.Unsigned.EVMOutputs {
			addr, am, herr := evm(e)
			if herr != nil {
				return out, herr
			}
			out.EVMOutputs = append(out.EVMOutputs, glacier.EVMOutput{ToAddress: addr, Asset: am})
			created.add(e.AssetID, e.Amount)
		}
		var herr *apireq.Error
		if out.ConsumedUTXOs, herr = q.xItems(assets, consumed, &unlocked); herr != nil {
			return out, herr
		}
	} else {
		out.DestinationChain = v.id(body.Unsigned.DestinationChain)
		creds := credentials(body.Bytes)
		out.EVMInputs = []glacier.EVMInput{}
		for i, e := range body.Unsigned.EVMInputs {
			addr, am, herr := evm(e)
			if herr != nil {
				return out, herr
			}
			in := glacier.EVMInput{FromAddress: addr, Asset: am, Credentials: []glacier.UTXOCredential{}}
			if i < len(creds) {
				in.Credentials = creds[i]
			}
			out.EVMInputs = append(out.EVMInputs, in)
			unlocked.add(e.AssetID, e.Amount)
		}
		var herr *apireq.Error
		if out.EmittedUTXOs, herr = q.xItems(assets, emitted, &created); herr != nil {
			return out, herr
		}
	}
	var herr *apireq.Error
	if out.AmountUnlocked, herr = unlocked.list(assets); herr != nil {
		return out, herr
	}
	out.AmountCreated, herr = created.list(assets)
	return out, herr
}

// credentials reads an atomic transaction's credentials from its signed
// bytes (hexnc): per input, each signature with the public key it
// recovers to over the unsigned bytes, base64 as the Data API prints them.
// Bytes that do not parse give none.
func credentials(signedHex string) [][]glacier.UTXOCredential {
	b, err := hexNC(signedHex)
	if err != nil {
		return nil
	}
	tx, err := avax.ParseAtomicTx(b)
	if err != nil {
		return nil
	}
	hash := avax.Hash256(tx.UnsignedBytes())
	out := make([][]glacier.UTXOCredential, len(tx.Creds))
	for i, c := range tx.Creds {
		out[i] = []glacier.UTXOCredential{}
		for _, sig := range c {
			pk, err := avax.RecoverPublicKey(hash[:], sig)
			if err != nil {
				continue
			}
			out[i] = append(out[i], glacier.UTXOCredential{Signature: base64.RawStdEncoding.EncodeToString(sig[:]),
				PublicKey: base64.RawStdEncoding.EncodeToString(pk)})
		}
	}
	return out
}

// getCTx is getTxByHash on the C-Chain: an atomic transaction the index
// holds.
func (a *api) getCTx(q *req, id string) (any, error) {
	t, ok, err := a.src.Tx(q.ctx, strings.TrimSpace(id))
	if err != nil {
		return nil, apireq.Internal(err)
	}
	if !ok || t.Chain != avanet.ChainC {
		return nil, apireq.NotFound("Transaction " + apireq.Shorten(id) + " not found on the " + alias(avanet.ChainC))
	}
	return a.cTx(q, a.assets(q), t)
}

// hexNC decodes 0x hex without a checksum.
func hexNC(s string) ([]byte, error) { return hex.DecodeString(strings.TrimPrefix(s, "0x")) }
