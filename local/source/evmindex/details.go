package evmindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

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
	// The stored metadata, one query per contract (and 500 ids).
	byContract := map[common.Address][]NFT{}
	seen := map[NFTKey]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		t, ok := tokens[k.Contract]
		id, okID := new(big.Int).SetString(k.TokenID, 10)
		if !ok || !okID || id.Sign() < 0 || id.BitLen() > 256 || (t.Kind != ERC721 && t.Kind != ERC1155) {
			continue
		}
		byContract[k.Contract] = append(byContract[k.Contract], NFT{Contract: k.Contract, Kind: t.Kind, TokenID: id})
	}
	for c, ns := range byContract {
		for lo := 0; lo < len(ns); lo += 500 {
			chunk := ns[lo:min(lo+500, len(ns))]
			args := []any{chainID, c.Bytes()}
			for _, n := range chunk {
				args = append(args, idBytes(n.TokenID))
			}
			rows, err := ix.r.QueryContext(ctx, `SELECT token_id, token_uri, status, metadata, updated FROM nfts WHERE chain_id=? AND contract=? AND token_id IN (?`+
				strings.Repeat(",?", len(chunk)-1)+`)`, args...)
			if err != nil {
				return nil, fmt.Errorf("evmindex: nfts: %w", err)
			}
			found := map[string]NFT{}
			for rows.Next() {
				var id []byte
				var n NFT
				var meta string
				if err := rows.Scan(&id, &n.TokenURI, &n.Status, &meta, &n.Updated); err != nil {
					rows.Close()
					return nil, fmt.Errorf("evmindex: nfts: %w", err)
				}
				json.Unmarshal([]byte(meta), &n.Metadata)
				found[string(id)] = n
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, fmt.Errorf("evmindex: nfts: %w", err)
			}
			for _, n := range chunk {
				f, ok := found[string(idBytes(n.TokenID))]
				if !ok {
					missing = append(missing, n)
					continue
				}
				n.TokenURI, n.Status, n.Metadata, n.Updated = f.TokenURI, f.Status, f.Metadata, f.Updated
				out[NFTKey{n.Contract, n.TokenID.String()}] = n
			}
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
	// InternalsOmitted, when set, says why Internals is empty: the block's
	// trace exceeded ChainOptions.MaxTraceBytes or failed, or the chain is
	// not traced (Index.Untraced).
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
	d.MaxFeePerGas, d.MaxPriorityFeePerGas = storedTx(&d.Tx, to, value, price, maxFee, maxPrio)
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
