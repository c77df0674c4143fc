package pdata

import (
	"cmp"
	"math"
	"strconv"

	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/pindex"
)

func (a *api) getUTXOs(q *req) (any, *apireq.Error) {
	chain, herr := q.resolveChain(pindex.ChainP, pindex.ChainX, pindex.ChainC)
	if herr != nil {
		return nil, herr
	}
	size := q.PageSize(10)
	desc := q.Desc()
	sortBy := q.Q.Get("sortBy")
	addrs := q.Addresses("addresses")
	minAmount := 0.0
	if s := q.Q.Get("minUtxoAmount"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || f < 0 {
			q.Fail("minUtxoAmount must not be less than 0")
		}
		minAmount = f
	}
	includeSpent := false
	switch s := q.Q.Get("includeSpent"); s {
	case "", "false":
	case "true":
		includeSpent = true
	default:
		q.Fail("includeSpent must be a boolean value")
	}
	asset := q.Q.Get("assetId")
	if asset != "" {
		if _, err := avax.ParseID(asset); err != nil {
			q.Fail("assetId must be a valid asset id")
		}
	}
	if len(q.Errs) > 0 {
		return nil, nil
	}
	all, err := a.ix.UTXOs(q.R.Context(), chain, addrs, includeSpent)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	var items []*pindex.UTXO
	for _, u := range all {
		if float64(u.Amount) < minAmount || (asset != "" && u.AssetID != asset) {
			continue
		}
		items = append(items, u)
	}
	apireq.Order(items, desc, func(x, y *pindex.UTXO) bool {
		if sortBy == "amount" {
			if c := cmp.Compare(x.Amount, y.Amount); c != 0 {
				return c < 0
			}
		}
		return cmp.Or(cmp.Compare(x.Time, y.Time), cmp.Compare(x.ID, y.ID)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope(string(chain)))
	if herr != nil {
		return nil, herr
	}
	info := chainInfo{ChainName: alias(chain), Network: q.Network}
	assets := a.assets(q)
	if chain == pindex.ChainP {
		out := listUTXOsResponse[pChainUTXO]{NextPageToken: next, UTXOs: []pChainUTXO{}, ChainInfo: info}
		for _, u := range page {
			am, herr := assets.amount(u)
			if herr != nil {
				return nil, herr
			}
			out.UTXOs = append(out.UTXOs, q.pItem(u, am))
		}
		return out, nil
	}
	out := listUTXOsResponse[xUTXO]{NextPageToken: next, UTXOs: []xUTXO{}, ChainInfo: info}
	for _, u := range page {
		am, herr := assets.amount(u)
		if herr != nil {
			return nil, herr
		}
		out.UTXOs = append(out.UTXOs, q.xItem(u, chain, am))
	}
	return out, nil
}

// assetCache describes the assets of one answer's UTXOs, each read once.
type assetCache struct {
	a *api
	q *req
	m map[string]assetAmount
}

func (a *api) assets(q *req) *assetCache { return &assetCache{a: a, q: q, m: map[string]assetAmount{}} }

// amount is u's AssetAmount.
func (c *assetCache) amount(u *pindex.UTXO) (assetAmount, *apireq.Error) {
	am, herr := c.asset(u.AssetID)
	am.Amount = u64(u.Amount)
	return am, herr
}

// asset describes an asset, without an amount.
func (c *assetCache) asset(id string) (assetAmount, *apireq.Error) {
	am, ok := c.m[id]
	if !ok {
		d, found, err := c.a.ix.Asset(c.q.R.Context(), id)
		if err != nil {
			return am, apireq.Internal(err)
		}
		if !found { // an asset whose CreateAssetTx the index has not seen
			d = pindex.Asset{ID: id}
		}
		am = assetAmount{AssetID: d.ID, Name: d.Name, Symbol: d.Symbol, Denomination: d.Denomination, Type: "secp256k1"}
		c.m[id] = am
	}
	return am, nil
}

// pItem is u as a PChainUtxo.
func (q *req) pItem(u *pindex.UTXO, am assetAmount) pChainUTXO {
	item := pChainUTXO{Addresses: q.bech32("", u.Addresses), Asset: am,
		ConsumedOnChainID: q.net.ChainID(pindex.ChainP).String(), CreatedOnChainID: q.net.ChainID(u.CreatedOn).String(),
		UTXOID: u.ID, UTXOBytes: avax.EncodeHex(u.Bytes), Amount: am.Amount, AssetID: u.AssetID,
		BlockNumber: strconv.FormatUint(u.Height, 10), BlockTimestamp: u.Time, PlatformLocktime: u.Locktime,
		OutputIndex: u.OutputIndex, StakeableLocktime: u.StakeLocktime, Staked: u.Staked, Threshold: u.Threshold,
		TxHash: u.TxID, UTXOType: "TRANSFER"}
	if u.Chain != pindex.ChainP { // exported from the P-Chain to another
		item.ConsumedOnChainID = q.net.ChainID(u.Chain).String()
	}
	if u.Spent {
		item.ConsumingTxHash = u.SpentBy
		item.ConsumingBlockNumber = strconv.FormatUint(u.SpentHeight, 10)
		item.ConsumingBlockTimestamp = u.SpentTime
	}
	if u.Staked {
		item.UTXOType, item.UTXOStartTimestamp, item.UTXOEndTimestamp = "STAKE", u.StakeStart, u.StakeEnd
	}
	return item
}

// xItem is u, a UTXO of chain (X or C), as a Utxo.
func (q *req) xItem(u *pindex.UTXO, chain pindex.Chain, am assetAmount) xUTXO {
	item := xUTXO{Addresses: q.bech32("", u.Addresses), Asset: am,
		ConsumedOnChainID: q.net.ChainID(chain).String(), CreatedOnChainID: q.net.ChainID(u.CreatedOn).String(),
		UTXOID: u.ID, UTXOBytes: avax.EncodeHex(u.Bytes), CreationTxHash: u.TxID, Locktime: u.Locktime,
		OutputIndex: strconv.FormatUint(uint64(u.OutputIndex), 10), Threshold: u.Threshold, Timestamp: u.Time, UTXOType: "TRANSFER"}
	if u.Spent {
		item.ConsumingTxHash, item.ConsumingTxTimestamp = u.SpentBy, u.SpentTime
	}
	return item
}
