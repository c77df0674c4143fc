package evmindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// NFTKey names one NFT.
type NFTKey struct {
	Contract common.Address
	TokenID  string // decimal
}

// NFT is an NFT's URI and parsed metadata.
type NFT struct {
	Contract common.Address
	Kind     TokenKind
	TokenID  *big.Int
	TokenURI string
	Status   string // an NftTokenMetadataStatus value
	Metadata NFTMetadata
	Updated  int64 // Unix seconds of the metadata read
}

// NFTs returns the metadata of keys whose contract is a known ERC-721 or
// ERC-1155 token. Metadata is read lazily: on first request through
// tokenURI / uri with eth_call (one batch), then from the store.
func (ix *Index) NFTs(ctx context.Context, chainID uint64, keys []NFTKey) (map[NFTKey]NFT, error) {
	f := ix.chains[chainID]
	if f == nil {
		return nil, ErrUnknownChain
	}
	out := make(map[NFTKey]NFT, len(keys))
	var missing []NFT
	contracts := make([]common.Address, len(keys))
	for i, k := range keys {
		contracts[i] = k.Contract
	}
	tokens, err := ix.Tokens(ctx, chainID, contracts)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if _, done := out[k]; done {
			continue
		}
		t, ok := tokens[k.Contract]
		id, okID := new(big.Int).SetString(k.TokenID, 10)
		if !ok || !okID || id.Sign() < 0 || id.BitLen() > 256 || (t.Kind != ERC721 && t.Kind != ERC1155) {
			continue
		}
		n := NFT{Contract: k.Contract, Kind: t.Kind, TokenID: id}
		var meta string
		err := ix.r.QueryRowContext(ctx, `SELECT token_uri, status, metadata, updated FROM nfts WHERE chain_id=? AND contract=? AND token_id=?`,
			chainID, k.Contract.Bytes(), idBytes(id)).Scan(&n.TokenURI, &n.Status, &meta, &n.Updated)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			missing = append(missing, n)
		case err != nil:
			return nil, fmt.Errorf("evmindex: nfts: %w", err)
		default:
			json.Unmarshal([]byte(meta), &n.Metadata)
			out[k] = n
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	if err := f.readNFTs(ctx, missing); err != nil {
		return nil, err
	}
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	for _, n := range missing {
		meta, _ := json.Marshal(n.Metadata)
		if _, err := ix.w.ExecContext(ctx, `INSERT OR REPLACE INTO nfts VALUES (?,?,?,?,?,?,?)`, chainID, n.Contract.Bytes(), idBytes(n.TokenID), n.TokenURI, n.Status, string(meta), n.Updated); err != nil {
			return nil, fmt.Errorf("evmindex: nfts: %w", err)
		}
		out[NFTKey{n.Contract, n.TokenID.String()}] = n
	}
	return out, nil
}

// readNFTs fills TokenURI, Status and Metadata of ns.
func (f *follower) readNFTs(ctx context.Context, ns []NFT) error {
	res := make([]hexutil.Bytes, len(ns))
	elems := make([]rpc.BatchElem, len(ns))
	for i, n := range ns {
		sel := selTokenURI
		if n.Kind == ERC1155 {
			sel = selURI
		}
		data := append(append([]byte{}, sel...), idBytes(n.TokenID)...)
		elems[i] = rpc.BatchElem{Method: "eth_call", Args: []any{callArgs{To: n.Contract, Data: data}, "latest"}, Result: &res[i]}
	}
	for lo := 0; lo < len(elems); lo += 200 {
		if err := f.client.BatchCallContext(ctx, elems[lo:min(lo+200, len(elems))]); err != nil {
			return fmt.Errorf("evmindex: token uri: %w", err)
		}
	}
	now := f.ix.now().Unix()
	for i := range ns {
		n := &ns[i]
		n.Updated = now
		if elems[i].Error != nil {
			n.Status = StatusMissingToken
			continue
		}
		n.TokenURI = abiString(res[i])
		n.Metadata, n.Status = f.loadMetadata(ctx, resolveURI(n.TokenURI, n.TokenID, n.Kind))
	}
	return nil
}

// Owner returns the current owner of an ERC-721 token.
func (ix *Index) Owner(ctx context.Context, chainID uint64, contract common.Address, tokenID *big.Int) (common.Address, error) {
	var o []byte
	err := ix.r.QueryRowContext(ctx, `SELECT owner FROM nft_owners WHERE chain_id=? AND contract=? AND token_id=?`, chainID, contract.Bytes(), idBytes(tokenID)).Scan(&o)
	return common.BytesToAddress(o), notFound(err)
}

// Deployment is how a contract was created.
type Deployment struct {
	Creation
	BlockNumber uint64
}

// Deployment returns the creation of contract addr.
func (ix *Index) Deployment(ctx context.Context, chainID uint64, addr common.Address) (Deployment, error) {
	var d Deployment
	var tx, dep []byte
	var kind string
	err := ix.r.QueryRowContext(ctx, `SELECT tx_hash, block_number, deployer, kind FROM contracts WHERE chain_id=? AND address=?`, chainID, addr.Bytes()).Scan(&tx, &d.BlockNumber, &dep, &kind)
	if err != nil {
		return d, notFound(err)
	}
	d.Address, d.TxHash, d.Deployer, d.Kind = addr, common.BytesToHash(tx), common.BytesToAddress(dep), CreateKind(kind)
	return d, nil
}

// TxRow is a stored transaction.
type TxRow struct {
	Tx
	BlockNumber          uint64
	MaxFeePerGas         *big.Int // nil for legacy transactions
	MaxPriorityFeePerGas *big.Int
	Input                []byte
}

// InternalTx is one call frame of a traced transaction (the first is the
// transaction's own call).
type InternalTx struct {
	Type     string // CALL, CREATE, CREATE2, DELEGATECALL, STATICCALL, ...
	From, To common.Address
	Value    *big.Int
	Gas      uint64
	GasUsed  uint64
	Reverted bool
}

// TxDetail is a transaction with its token transfers, internal calls and
// Teleporter events.
type TxDetail struct {
	TxRow
	Transfers []TransferRow
	Internals []InternalTx
	// InternalsOmitted, when set, says why Internals is empty although the
	// chain is traced: the block's trace exceeded ChainOptions.MaxTraceBytes
	// or failed (Index.Untraced).
	InternalsOmitted string
	Teleporter       []TeleporterEvent // in log order
}

// Transaction returns the stored transaction with hash.
func (ix *Index) Transaction(ctx context.Context, chainID uint64, hash common.Hash) (*TxDetail, error) {
	d := &TxDetail{}
	var from, to, input []byte
	var value, price string
	var maxFee, maxPrio sql.NullString
	err := ix.r.QueryRowContext(ctx, `SELECT block_number, tx_index, type, from_addr, to_addr, value, nonce, gas_limit, gas_used, gas_price, max_fee, max_priority_fee, status, input
		FROM txs WHERE chain_id=? AND hash=?`, chainID, hash.Bytes()).Scan(&d.BlockNumber, &d.Index, &d.Type, &from, &to, &value, &d.Nonce, &d.GasLimit, &d.GasUsed, &price, &maxFee, &maxPrio, &d.Status, &input)
	if err != nil {
		return nil, notFound(err)
	}
	d.Hash, d.From, d.Input = hash, common.BytesToAddress(from), input
	if to != nil {
		a := common.BytesToAddress(to)
		d.To = &a
	}
	d.Value, _ = new(big.Int).SetString(value, 10)
	d.EffectiveGasPrice, _ = new(big.Int).SetString(price, 10)
	d.Fee = new(big.Int).Mul(d.EffectiveGasPrice, new(big.Int).SetUint64(d.GasUsed))
	if maxFee.Valid {
		d.MaxFeePerGas, _ = new(big.Int).SetString(maxFee.String, 10)
	}
	if maxPrio.Valid {
		d.MaxPriorityFeePerGas, _ = new(big.Int).SetString(maxPrio.String, 10)
	}
	rows, err := ix.r.QueryContext(ctx, `SELECT `+transferCols+` FROM transfers t JOIN blocks b ON b.chain_id=t.chain_id AND b.number=t.block_number
		WHERE t.chain_id=? AND t.tx_hash=? ORDER BY t.seq`, chainID, hash.Bytes())
	if err != nil {
		return nil, fmt.Errorf("evmindex: tx transfers: %w", err)
	}
	if d.Transfers, err = scanTransfers(rows); err != nil {
		return nil, err
	}
	irows, err := ix.r.QueryContext(ctx, `SELECT type, from_addr, to_addr, value, gas, gas_used, reverted FROM internal_txs WHERE chain_id=? AND tx_hash=? ORDER BY idx`, chainID, hash.Bytes())
	if err != nil {
		return nil, fmt.Errorf("evmindex: internal txs: %w", err)
	}
	defer irows.Close()
	for irows.Next() {
		var it InternalTx
		var f, t []byte
		var v string
		if err := irows.Scan(&it.Type, &f, &t, &v, &it.Gas, &it.GasUsed, &it.Reverted); err != nil {
			return nil, fmt.Errorf("evmindex: internal txs: %w", err)
		}
		it.From, it.To = common.BytesToAddress(f), common.BytesToAddress(t)
		it.Value, _ = new(big.Int).SetString(v, 10)
		d.Internals = append(d.Internals, it)
	}
	if err := irows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: internal txs: %w", err)
	}
	if d.InternalsOmitted, err = ix.Untraced(ctx, chainID, d.BlockNumber); err != nil {
		return nil, err
	}
	if d.Teleporter, err = ix.teleporterEvents(ctx, chainID, hash); err != nil {
		return nil, err
	}
	return d, nil
}
