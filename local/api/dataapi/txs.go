package dataapi

import (
	"encoding/json"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// unsignedJSON is the part of the node's JSON of a transaction the answers
// show (avalanchego's field names).
type unsignedJSON struct {
	Memo             string `json:"memo"`
	SubnetID         string `json:"subnetID"`
	SourceChain      string `json:"sourceChain"`
	DestinationChain string `json:"destinationChain"`
	ChainName        string `json:"chainName"`
	VMID             string `json:"vmID"`
	Owner            *struct {
		Addresses []string `json:"addresses"`
		Locktime  uint64   `json:"locktime"`
		Threshold uint32   `json:"threshold"`
	} `json:"owner"`
	Validator *struct {
		NodeID string `json:"nodeID"`
		Start  int64  `json:"start"`
		End    int64  `json:"end"`
	} `json:"validator"`
	Balance    uint64 `json:"balance"`
	Validators []struct {
		Balance uint64 `json:"balance"`
	} `json:"validators"`
}

// listTxs is listLatestPrimaryNetworkTransactions, read a page at a time:
// the P- and X-Chain's transactions, and the C-Chain's atomic ones
// (atomicTxs).
func (a *api) listTxs(q *req) (any, error) {
	chain, herr := q.resolveChain(avanet.ChainP, avanet.ChainX, avanet.ChainC)
	if herr != nil {
		return nil, herr
	}
	f := pindex.TxFilter{BlockRange: q.timeRange(), Addrs: q.Addresses("addresses"), L1ValidationID: q.Q.Get("l1ValidationId")}
	f.Asc = !q.Desc()
	f.Types = q.List("txTypes")
	if v := f.L1ValidationID; v != "" {
		if _, err := avax.ParseID(v); err != nil {
			q.Fail("l1ValidationId must be a valid validation id")
		}
	}
	size := q.PageSize(10)
	scope := q.Scope(string(chain))
	if herr := q.after(&f.BlockRange, scope); herr != nil || len(q.Errs) > 0 {
		return nil, herr
	}
	if chain == avanet.ChainC {
		return a.atomicTxs(q, f, size, scope)
	}
	f.Limit = size + 1
	list, err := a.src.Txs(q.ctx, chain, f)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	list, next := txsNext(q, list, size, scope)
	info := glacier.ChainInfo{ChainName: alias(chain), Network: q.Network}
	if chain == avanet.ChainP {
		return txPage(q, a.src, a.assets(q), list, glacier.ListTxsResponse[glacier.PChainTx]{NextPageToken: next, ChainInfo: info}, a.pTx)
	}
	return txPage(q, a.src, a.assets(q), list, glacier.ListTxsResponse[glacier.XChainTx]{NextPageToken: next, ChainInfo: info}, a.xTx)
}

// after sets r to continue after the cursor of the request's page token
// for scope, if it has one.
func (q *req) after(r *pindex.BlockRange, scope string) *apireq.Error {
	c, ok, herr := q.Cursor(scope)
	if ok {
		p := pindex.Pos(c)
		r.After = &p
	}
	return herr
}

// txsNext cuts list, read with a limit of size+1, to size and returns the
// next page's token for scope: the last transaction's place.
func txsNext(q *req, list []*pindex.Tx, size int, scope string) ([]*pindex.Tx, string) {
	if len(list) <= size {
		return list, ""
	}
	list = list[:size]
	return list, q.Next(scope, uint64(list[size-1].Pos()), true)
}

// txPage fills out's transactions with list's, each in the Data API's
// shape (conv: pTx or xTx), their parts read from src in one read.
func txPage[T any](q *req, src Txs, assets *assetCache, list []*pindex.Tx, out glacier.ListTxsResponse[T],
	conv func(*req, *assetCache, *pindex.Tx, pindex.TxParts) (T, *apireq.Error)) (any, *apireq.Error) {
	parts, err := src.TxsParts(q.ctx, list)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	out.Transactions = make([]T, 0, len(list))
	for i, t := range list {
		item, herr := conv(q, assets, t, parts[i])
		if herr != nil {
			return nil, herr
		}
		out.Transactions = append(out.Transactions, item)
	}
	return out, nil
}

// getTx is getTxByHash for the P- and X-Chain, and the C-Chain's atomic
// transactions (getCTx).
func (a *api) getTx(q *req) (any, error) {
	chain, herr := q.resolveChain(avanet.ChainP, avanet.ChainX, avanet.ChainC)
	if herr != nil {
		return nil, herr
	}
	id := q.Q.Get("txHash")
	if chain == avanet.ChainC {
		return a.getCTx(q, id)
	}
	t, ok, err := a.src.Tx(q.ctx, q.view.ownID(id))
	if err != nil {
		return nil, apireq.Internal(err)
	}
	if !ok || t.Chain != chain {
		return nil, apireq.NotFound("Transaction " + apireq.Shorten(id) + " not found on the " + alias(chain))
	}
	parts, err := a.src.TxsParts(q.ctx, []*pindex.Tx{t})
	if err != nil {
		return nil, apireq.Internal(err)
	}
	if chain == avanet.ChainP {
		return a.pTx(q, a.assets(q), t, parts[0])
	}
	return a.xTx(q, a.assets(q), t, parts[0])
}

// unsigned reads the part of t's JSON its answers show.
func unsigned(t *pindex.Tx) (unsignedJSON, *apireq.Error) {
	var body struct {
		Unsigned unsignedJSON `json:"unsignedTx"`
	}
	if err := json.Unmarshal(t.Body, &body); err != nil {
		return unsignedJSON{}, apireq.Internal(err)
	}
	return body.Unsigned, nil
}

// sums adds up amounts per asset, in the order assets first appear.
type sums struct {
	order []string
	total map[string]uint64
}

func (s *sums) add(asset string, v uint64) {
	if s.total == nil {
		s.total = map[string]uint64{}
	}
	if _, ok := s.total[asset]; !ok {
		s.order = append(s.order, asset)
	}
	s.total[asset] += v
}

// list renders the sums as AssetAmounts, leaving out zeros.
func (s *sums) list(c *assetCache) ([]glacier.AssetAmount, *apireq.Error) {
	out := []glacier.AssetAmount{}
	for _, id := range s.order {
		if s.total[id] == 0 {
			continue
		}
		am, herr := c.asset(id)
		if herr != nil {
			return nil, herr
		}
		am.Amount = u64(s.total[id])
		out = append(out, am)
	}
	return out, nil
}

func (a *api) pTx(q *req, assets *assetCache, t *pindex.Tx, p pindex.TxParts) (glacier.PChainTx, *apireq.Error) {
	block, emitted, consumed := p.BlockID, p.Emitted, p.Consumed
	u, herr := unsigned(t)
	if herr != nil {
		return glacier.PChainTx{}, herr
	}
	v := q.view
	out := glacier.PChainTx{TxHash: t.ID, TxType: t.Type, BlockTimestamp: t.Time, BlockNumber: strconv.FormatUint(t.Height, 10), BlockHash: block,
		ConsumedUTXOs: []glacier.PChainUTXO{}, EmittedUTXOs: []glacier.PChainUTXO{}, SourceChain: v.id(u.SourceChain),
		DestinationChain: v.id(u.DestinationChain), SubnetID: u.SubnetID, Memo: memo(u.Memo)}
	var in, made, staked, l1, paid sums
	for _, x := range consumed {
		am, herr := assets.amount(x)
		if herr != nil {
			return out, herr
		}
		out.ConsumedUTXOs = append(out.ConsumedUTXOs, q.pItem(x, am))
		in.add(x.AssetID, x.Amount)
	}
	for _, x := range emitted {
		am, herr := assets.amount(x)
		if herr != nil {
			return out, herr
		}
		out.EmittedUTXOs = append(out.EmittedUTXOs, q.pItem(x, am))
		switch {
		case x.Staked:
			staked.add(x.AssetID, x.Amount)
		case x.Paid: // a reward or a returned balance: not from the inputs
			paid.add(x.AssetID, x.Amount)
			made.add(x.AssetID, x.Amount)
		default:
			made.add(x.AssetID, x.Amount)
		}
	}
	// The balance an L1 validator pays its fees from leaves the UTXO set.
	var balance uint64
	for _, val := range u.Validators {
		balance += val.Balance
	}
	balance += u.Balance
	if balance > 0 {
		l1.add(v.own.net.AVAXAssetID, balance)
	}
	burned := sums{}
	for _, id := range in.order {
		spent := made.total[id] - paid.total[id] + staked.total[id] + l1.total[id]
		if in.total[id] > spent {
			burned.add(id, in.total[id]-spent)
		}
	}
	var lists [4][]glacier.AssetAmount
	for i, s := range []*sums{&made, &burned, &staked, &l1} {
		if lists[i], herr = s.list(assets); herr != nil {
			return out, herr
		}
	}
	out.Value, out.AmountBurned, out.AmountStaked, out.AmountL1ValidatorBalanceBurned = lists[0], lists[1], lists[2], lists[3]
	if u.Validator != nil {
		out.NodeID, out.StartTimestamp, out.EndTimestamp = u.Validator.NodeID, u.Validator.Start, u.Validator.End
	}
	owned := func() *glacier.SubnetOwnershipInfo {
		return &glacier.SubnetOwnershipInfo{Locktime: u.Owner.Locktime, Threshold: u.Owner.Threshold, Addresses: q.rebech32("", u.Owner.Addresses)}
	}
	switch t.Type {
	case pindex.TxCreateSubnet:
		out.SubnetID = t.ID
		if u.Owner != nil {
			out.SubnetOwnershipInfo = owned()
		}
	case pindex.TxTransferSubnetOwnership:
		if u.Owner != nil {
			out.SubnetOwnershipInfo = owned()
		}
	case pindex.TxCreateChain:
		out.BlockchainInfo = &glacier.BlockchainInfo{ChainName: u.ChainName, VMID: u.VMID}
	}
	return out, nil
}

func (a *api) xTx(q *req, assets *assetCache, t *pindex.Tx, p pindex.TxParts) (glacier.XChainTx, *apireq.Error) {
	block, emitted, consumed := p.BlockID, p.Emitted, p.Consumed
	u, herr := unsigned(t)
	if herr != nil {
		return glacier.XChainTx{}, herr
	}
	v := q.view
	out := glacier.XChainTx{TxHash: v.id(t.ID), ChainFormat: "linear", Timestamp: t.Time, TxType: t.Type, Memo: memo(u.Memo),
		ConsumedUTXOs: []glacier.XUTXO{}, EmittedUTXOs: []glacier.XUTXO{}, SourceChain: v.id(u.SourceChain), DestinationChain: v.id(u.DestinationChain),
		BlockHeight: t.Height, BlockHash: block}
	if out.Memo == "" {
		out.Memo = "0x"
	}
	var unlocked, created sums
	if out.ConsumedUTXOs, herr = q.xItems(assets, consumed, &unlocked); herr != nil {
		return out, herr
	}
	if out.EmittedUTXOs, herr = q.xItems(assets, emitted, &created); herr != nil {
		return out, herr
	}
	if out.AmountUnlocked, herr = unlocked.list(assets); herr != nil {
		return out, herr
	}
	if out.AmountCreated, herr = created.list(assets); herr != nil {
		return out, herr
	}
	if t.Type == pindex.TxCreateAsset {
		d, herr := assets.detail(t.ID)
		if herr != nil {
			return out, herr
		}
		out.AssetCreated = &glacier.AssetDetails{AssetID: v.id(d.ID), Name: d.Name, Symbol: d.Symbol, Denomination: d.Denomination, Type: d.Type,
			CreatedAtTimestamp: t.Time, Cap: d.Cap}
	}
	return out, nil
}

// xItems renders UTXOs as Utxos (each on the chain that holds it), adding
// their amounts to s.
func (q *req) xItems(assets *assetCache, list []*pindex.UTXO, s *sums) ([]glacier.XUTXO, *apireq.Error) {
	out := make([]glacier.XUTXO, 0, len(list))
	for _, x := range list {
		am, herr := assets.amount(x)
		if herr != nil {
			return nil, herr
		}
		out = append(out, q.xItem(x, x.Chain, am))
		s.add(x.AssetID, x.Amount)
	}
	return out, nil
}

// memo is the node's memo ("0x" for none) as the Data API prints it.
func memo(m string) string {
	if m == "0x" {
		return ""
	}
	return m
}
