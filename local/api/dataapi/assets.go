package dataapi

import (
	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// assetOf reads the assetId path value: an asset of the X-Chain, AVAX
// under the requested network's id.
func (a *api) assetOf(q *req) (pindex.Asset, *apireq.Error) {
	raw := q.Q.Get("assetId")
	if _, err := avax.ParseID(raw); err != nil {
		return pindex.Asset{}, apireq.BadRequest("assetId must be a valid asset id")
	}
	d, ok, err := a.src.Asset(q.ctx, q.view.ownID(raw))
	if err != nil {
		return d, apireq.Internal(err)
	}
	if !ok {
		return d, apireq.NotFound("Asset " + raw + " not found on the x-chain")
	}
	return d, nil
}

// getAsset is getAssetDetails: an asset as its CreateAssetTx made it
// (AVAX's is the X-Chain's genesis).
func (a *api) getAsset(q *req) (any, error) {
	if _, herr := q.resolveChain(avanet.ChainX); herr != nil {
		return nil, herr
	}
	d, herr := a.assetOf(q)
	if herr != nil {
		return nil, herr
	}
	return glacier.AssetDetails{AssetID: q.view.id(d.ID), Name: d.Name, Symbol: d.Symbol, Denomination: d.Denomination, Type: d.Type,
		CreatedAtTimestamp: d.Time, Cap: d.Cap}, nil
}

// listAssetTxs is listAssetTransactions: the X-Chain transactions that
// spent or made a UTXO of the asset, its creation included, newest first,
// with the transactions list's type and time filters.
func (a *api) listAssetTxs(q *req) (any, error) {
	if _, herr := q.resolveChain(avanet.ChainX); herr != nil {
		return nil, herr
	}
	d, herr := a.assetOf(q)
	if herr != nil {
		return nil, herr
	}
	f := pindex.TxFilter{BlockRange: q.timeRange(), Asset: d.ID, Types: q.List("txTypes")}
	size := q.PageSize(10)
	scope := q.Scope("X", d.ID)
	if herr := q.after(&f.BlockRange, scope); herr != nil || len(q.Errs) > 0 {
		return nil, herr
	}
	f.Limit = size + 1
	list, err := a.src.Txs(q.ctx, avanet.ChainX, f)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	list, next := txsNext(q, list, size, scope)
	return txPage(q, a.src, a.assets(q), list, glacier.ListTxsResponse[glacier.XChainTx]{NextPageToken: next,
		ChainInfo: glacier.ChainInfo{ChainName: "x-chain", Network: q.Network}}, a.xTx)
}
