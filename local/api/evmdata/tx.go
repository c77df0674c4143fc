package evmdata

import (
	"context"
	"net/http"
	"strings"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// internalTxTypes are the trace frame types the Data API names.
var internalTxTypes = map[string]bool{"CALL": true, "CREATE": true, "CREATE2": true, "CREATE3": true, "CALLCODE": true, "DELEGATECALL": true, "STATICCALL": true}

// internalTxType is a trace frame's type as the Data API's
// InternalTransactionOpCall names it: UNKNOWN for others.
func internalTxType(frame string) string {
	if t := strings.ToUpper(frame); internalTxTypes[t] {
		return t
	}
	return "UNKNOWN"
}

// transactionJSON builds GetTransactionResponse for tx. created is the
// contract a creation transaction deployed, when known.
func (s *server) transactionJSON(ctx context.Context, c *ChainInfo, tx *evmindex.TxDetail, created *common.Address) (*transactionResponse, error) {
	b, err := s.ix.Block(ctx, c.ChainID, tx.BlockNumber)
	if err != nil {
		return nil, err
	}
	var keys []evmindex.NFTKey
	addrs := make([]common.Address, 0, len(tx.Transfers))
	for _, t := range tx.Transfers {
		addrs = append(addrs, t.Contract)
		if t.TokenID != nil {
			keys = append(keys, evmindex.NFTKey{Contract: t.Contract, TokenID: t.TokenID.String()})
		}
	}
	d, err := s.describe(ctx, c.ChainID, addrs, keys)
	if err != nil {
		return nil, err
	}
	out := &transactionResponse{Erc20Transfers: []transfer{}, Erc721Transfers: []transfer{}, Erc1155Transfers: []transfer{}, InternalTransactions: []internalTransaction{}}
	out.NetworkTokenDetails.NetworkToken = s.nativeToken(c)
	for _, t := range tx.Transfers {
		j := s.transferJSON(d, t)
		// The *TransferDetails shapes carry no block fields.
		j.BlockNumber, j.BlockTimestamp, j.BlockHash, j.TxHash = "", 0, "", ""
		switch t.Kind {
		case evmindex.ERC20:
			out.Erc20Transfers = append(out.Erc20Transfers, j)
		case evmindex.ERC721:
			out.Erc721Transfers = append(out.Erc721Transfers, j)
		case evmindex.ERC1155:
			out.Erc1155Transfers = append(out.Erc1155Transfers, j)
		}
	}
	for i, it := range tx.Internals {
		j := internalJSON(it)
		if i == 0 && created == nil && (j.InternalTxType == "CREATE" || j.InternalTxType == "CREATE2") {
			a := it.To
			created = &a
		}
		out.InternalTransactions = append(out.InternalTransactions, j)
	}
	lt := evmindex.ListedTx{Tx: tx.Tx, BlockNumber: tx.BlockNumber, BlockHash: b.Hash, BlockTimestamp: b.Timestamp,
		MaxFeePerGas: tx.MaxFeePerGas, MaxPriorityFeePerGas: tx.MaxPriorityFeePerGas, Selector: tx.Input[:min(4, len(tx.Input))]}
	var made map[common.Hash]common.Address
	switch {
	case created != nil:
		made = map[common.Hash]common.Address{tx.Hash: *created}
	case tx.To == nil:
		// Without the call trace (a node without debug_traceBlockByNumber),
		// the contract is the receipt's, as the lists name it.
		if made, err = s.ix.Created(ctx, c.ChainID, []evmindex.ListedTx{lt}); err != nil {
			return nil, err
		}
	}
	n := nativeTransaction{listedTransaction: listedJSON(c, &lt, made), Input: hexutil.Encode(tx.Input), BaseFeePerGas: b.BaseFee.String()}
	if tx.MaxFeePerGas != nil {
		n.MaxFeePerGas = tx.MaxFeePerGas.String()
	}
	if tx.MaxPriorityFeePerGas != nil {
		n.MaxPriorityFeePerGas = tx.MaxPriorityFeePerGas.String()
	}
	out.NativeTransaction = n
	if len(tx.Teleporter) > 0 {
		out.TeleporterMessageInfo = teleporterJSON(tx.Teleporter[0])
	}
	return out, nil
}

// teleporterJSON describes a transaction's first Teleporter event: the
// message id in hex and the other end's blockchain id in cb58.
func teleporterJSON(e evmindex.TeleporterEvent) *teleporterMessageInfo {
	j := &teleporterMessageInfo{TeleporterMessageID: hexutil.Encode(e.MessageID[:]), Direction: e.Direction.String()}
	other := avax.ID(e.OtherChain).String()
	switch e.Direction {
	case evmindex.TeleporterSource:
		j.DestinationChainID = other
	case evmindex.TeleporterDestination:
		j.SourceChainID = other
	}
	return j
}

// getDeploymentTransaction answers GET /v1/chains/{chainId}/contracts/{address}/transactions:getDeployment.
func (s *server) getDeploymentTransaction(r *req) (any, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	addr, err := address("address", r.Get("address"))
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	dep, err := s.ix.Deployment(ctx, c.ChainID, addr)
	if err == evmindex.ErrNotFound {
		err = apireq.NotFound("No deployment transaction found for " + addr.Hex())
	}
	if err != nil {
		return nil, err
	}
	tx, err := s.ix.Transaction(ctx, c.ChainID, dep.TxHash)
	if err != nil {
		return nil, err
	}
	var created *common.Address
	if tx.To == nil {
		created = &addr
	}
	out, err := s.transactionJSON(ctx, c, tx, created)
	if err != nil {
		return nil, err
	}
	return withOmitted(out, tx), nil
}

// getTransaction answers GET /v1/chains/{chainId}/transactions/{txHash}.
func (s *server) getTransaction(r *req) (any, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	raw := r.Get("txHash")
	if len(raw) != 66 || !strings.HasPrefix(raw, "0x") {
		return nil, apireq.BadRequest("txHash must be a 32-byte hex string")
	}
	if _, err := hexutil.Decode(raw); err != nil {
		return nil, apireq.BadRequest("txHash must be a 32-byte hex string")
	}
	ctx := r.Context()
	tx, err := s.ix.Transaction(ctx, c.ChainID, common.HexToHash(raw))
	if err == evmindex.ErrNotFound {
		err = apireq.NotFound("Transaction " + raw + " not found")
	}
	if err != nil {
		return nil, err
	}
	out, err := s.transactionJSON(ctx, c, tx, nil)
	if err != nil {
		return nil, err
	}
	return withOmitted(out, tx), nil
}

// withOmitted annotates the answer about tx with the untraced-blocks notice
// when its block's internal transactions are unknown.
func withOmitted(out any, tx *evmindex.TxDetail) any {
	if tx.InternalsOmitted == "" {
		return out
	}
	b := u64(tx.BlockNumber)
	return &apireq.Answer{Body: out, Header: http.Header{UntracedHeader: {b + "-" + b}}}
}
