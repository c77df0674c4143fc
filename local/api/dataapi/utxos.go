package dataapi

import (
	"bytes"
	"cmp"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// getUTXOs is getUtxosByAddresses (GET, addresses in the query) and
// getUtxosByAddressesV2 (POST, in the body).
func (a *api) getUTXOs(q *req) (any, error) {
	chain, herr := q.resolveChain(avanet.ChainP, avanet.ChainX, avanet.ChainC)
	if herr != nil {
		return nil, herr
	}
	size := q.PageSize(10)
	desc := q.Desc()
	sortBy := q.Q.Get("sortBy")
	addrs := q.Addresses("addresses")
	minAmount, _ := q.Number("minUtxoAmount")
	includeSpent := q.Q.Get("includeSpent") == "true"
	asset := q.Q.Get("assetId")
	if asset != "" {
		if _, err := avax.ParseID(asset); err != nil {
			q.Fail("assetId must be a valid asset id")
		}
		asset = q.view.ownID(asset)
	}
	if len(q.Errs) > 0 {
		return nil, nil
	}
	all, herr := a.utxoSet(q, chain, addrs, includeSpent)
	if herr != nil {
		return nil, herr
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
	info := glacier.ChainInfo{ChainName: alias(chain), Network: q.Network}
	assets := a.assets(q)
	if chain == avanet.ChainP {
		out := glacier.ListUTXOsResponse[glacier.PChainUTXO]{NextPageToken: next, UTXOs: []glacier.PChainUTXO{}, ChainInfo: info}
		for _, u := range page {
			am, herr := assets.amount(u)
			if herr != nil {
				return nil, herr
			}
			out.UTXOs = append(out.UTXOs, q.pItem(u, am))
		}
		return out, nil
	}
	out := glacier.ListUTXOsResponse[glacier.XUTXO]{NextPageToken: next, UTXOs: []glacier.XUTXO{}, ChainInfo: info}
	for _, u := range page {
		am, herr := assets.amount(u)
		if herr != nil {
			return nil, herr
		}
		out.UTXOs = append(out.UTXOs, q.xItem(u, chain, am))
	}
	return out, nil
}

// ownID is the index's id of an id as presented: the view's X- and C-Chain
// and AVAX ids name the indexed network's own.
func (v view) ownID(s string) string {
	switch s {
	case v.x.String():
		return v.own.net.XChainID
	case v.c.String():
		return v.own.net.CChainID
	case v.avaxID.String():
		return v.own.net.AVAXAssetID
	}
	return s
}

// utxoBytes are u's bytes with the AVAX asset id as the view presents it,
// so that utxoBytes agrees with assetId.
func (q *req) utxoBytes(u *pindex.UTXO) string {
	const at = 2 + 32 + 4 // codec version, tx id, output index
	b := u.Bytes
	if q.view.avaxID != q.view.own.avaxID && len(b) >= at+32 && bytes.Equal(b[at:at+32], q.view.own.avaxID[:]) {
		b = bytes.Clone(b)
		copy(b[at:], q.view.avaxID[:])
	}
	return avax.EncodeHex(b)
}

// assetCache describes the assets of one answer's UTXOs, each read and
// described once: a page of a hundred transactions lists thousands of
// UTXOs of a few assets, and an asset's id in the answer is a CB58
// encoding worth not repeating.
type assetCache struct {
	a       *api
	q       *req
	m       map[string]pindex.Asset
	amounts map[string]glacier.AssetAmount
}

func (a *api) assets(q *req) *assetCache {
	return &assetCache{a: a, q: q, m: map[string]pindex.Asset{}, amounts: map[string]glacier.AssetAmount{}}
}

// amount is u's AssetAmount.
func (c *assetCache) amount(u *pindex.UTXO) (glacier.AssetAmount, *apireq.Error) {
	am, herr := c.asset(u.AssetID)
	am.Amount = u64(u.Amount)
	return am, herr
}

// detail reads an asset of the index.
func (c *assetCache) detail(id string) (pindex.Asset, *apireq.Error) {
	d, ok := c.m[id]
	if !ok {
		var found bool
		var err error
		d, found, err = c.a.src.Asset(c.q.ctx, id)
		if err != nil {
			return d, apireq.Internal(err)
		}
		if !found { // an asset whose CreateAssetTx the index has not seen
			d = pindex.Asset{ID: id, Type: "secp256k1"}
		}
		c.m[id] = d
	}
	return d, nil
}

// asset describes an asset of the index, without an amount.
func (c *assetCache) asset(id string) (glacier.AssetAmount, *apireq.Error) {
	if am, ok := c.amounts[id]; ok {
		return am, nil
	}
	d, herr := c.detail(id)
	if herr != nil {
		return glacier.AssetAmount{}, herr
	}
	am := glacier.AssetAmount{AssetID: c.q.view.id(d.ID), Name: d.Name, Symbol: d.Symbol, Denomination: d.Denomination, Type: d.Type}
	c.amounts[id] = am
	return am, nil
}

// pItem is u as a PChainUtxo.
func (q *req) pItem(u *pindex.UTXO, am glacier.AssetAmount) glacier.PChainUTXO {
	v := q.view
	item := glacier.PChainUTXO{Addresses: q.bech32("", u.Addresses), Asset: am,
		ConsumedOnChainID: v.chainID(avanet.ChainP).String(), CreatedOnChainID: v.chainID(u.CreatedOn).String(),
		UTXOID: u.ID, UTXOBytes: q.utxoBytes(u), Amount: am.Amount, AssetID: am.AssetID,
		BlockNumber: strconv.FormatUint(u.Height, 10), BlockTimestamp: u.Time, PlatformLocktime: u.Locktime,
		OutputIndex: u.OutputIndex, RewardType: u.Reward, StakeableLocktime: u.StakeLocktime, Staked: u.Staked,
		Threshold: u.Threshold, TxHash: u.TxID, UTXOType: "TRANSFER"}
	if u.Chain != avanet.ChainP { // exported from the P-Chain to another
		item.ConsumedOnChainID = v.chainID(u.Chain).String()
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
func (q *req) xItem(u *pindex.UTXO, chain avanet.Chain, am glacier.AssetAmount) glacier.XUTXO {
	v := q.view
	item := glacier.XUTXO{Addresses: q.bech32("", u.Addresses), Asset: am,
		ConsumedOnChainID: v.chainID(chain).String(), CreatedOnChainID: v.chainID(u.CreatedOn).String(),
		UTXOID: u.ID, UTXOBytes: q.utxoBytes(u), CreationTxHash: v.id(u.TxID), Locktime: u.Locktime,
		OutputIndex: strconv.FormatUint(uint64(u.OutputIndex), 10), Threshold: u.Threshold, Timestamp: u.Time, UTXOType: "TRANSFER"}
	if u.Spent {
		item.ConsumingTxHash, item.ConsumingTxTimestamp = u.SpentBy, u.SpentTime
	}
	return item
}
