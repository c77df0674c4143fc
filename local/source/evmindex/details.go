package evmindex

import (
	"context"
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
// tokenURI / uri with eth_call (one batch) and the URI's document (nftmeta.go),
// then from the store.
func (ix *Index) NFTs(ctx context.Context, chainID uint64, keys []NFTKey) (map[NFTKey]NFT, error) {
	f := ix.chains[chainID]
	if f == nil {
		return nil, ErrUnknownChain
	}
	contracts := make([]common.Address, len(keys))
	for i, k := range keys {
		contracts[i] = k.Contract
	}
	tokens, err := ix.Tokens(ctx, chainID, contracts)
	if err != nil {
		return nil, err
	}
	var want []NFT
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
		want = append(want, NFT{Contract: k.Contract, Kind: t.Kind, TokenID: id})
	}
	out, err := ix.reader.StoredNFTs(ctx, chainID, want)
	if err != nil {
		return nil, err
	}
	var missing []NFT
	for _, n := range want {
		if _, ok := out[NFTKey{n.Contract, n.TokenID.String()}]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	if err := f.readNFTs(ctx, missing); err != nil {
		return nil, err
	}
	if err := ix.st.PutNFTs(ctx, chainID, missing); err != nil {
		return nil, fmt.Errorf("evmindex: nfts: %w", err)
	}
	for _, n := range missing {
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
		n.Metadata, n.Status = f.meta.load(ctx, resolveURI(n.TokenURI, n.TokenID, n.Kind))
	}
	return nil
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
