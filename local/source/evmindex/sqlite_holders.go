package evmindex

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// NFTHolders returns the current holders of an ERC-721 or ERC-1155
// contract, each with the number of its tokens (ids) it holds, the most
// first, and the number of token ids the contract has moved. It reads every
// holding of the contract.
func (st *sqliteStore) NFTHolders(ctx context.Context, chainID uint64, contract common.Address) ([]Holder, uint64, error) {
	rows, err := st.r.QueryContext(ctx, `SELECT owner, COUNT(*) FROM (
			SELECT owner FROM nft_owners WHERE chain_id=? AND contract=?
			UNION ALL SELECT owner FROM erc1155_balances WHERE chain_id=? AND contract=?
		) GROUP BY owner`, chainID, contract.Bytes(), chainID, contract.Bytes())
	out, err := listRows(rows, err, "nft holders", scanNFTHolders())
	if err != nil {
		return nil, 0, err
	}
	sortHolders(out)
	var total uint64
	if err := st.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM collection_tokens WHERE chain_id=? AND contract=?`, chainID, contract.Bytes()).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("evmindex: nft holders: %w", err)
	}
	return out, total, nil
}

// BalanceHolders returns the addresses whose balance of an ERC-20 contract
// reached threshold at some time within [start, end] (unix seconds,
// inclusive), each with the highest balance it held then, the largest
// first. It replays every transfer of the contract up to end.
func (st *sqliteStore) BalanceHolders(ctx context.Context, chainID uint64, contract common.Address, threshold *big.Int, start, end int64) ([]Holder, error) {
	rows, err := st.r.QueryContext(ctx, `SELECT t.from_addr, t.to_addr, t.value, b.timestamp FROM transfers t
		JOIN blocks b ON b.chain_id = t.chain_id AND b.number = t.block_number
		WHERE t.chain_id=? AND t.contract=? AND t.kind=? AND b.timestamp <= ? ORDER BY t.seq`, chainID, contract.Bytes(), ERC20, end)
	if err != nil {
		return nil, fmt.Errorf("evmindex: balance holders: %w", err)
	}
	return peakHolders(rows, threshold, start)
}

// peakHolders replays a contract's ERC-20 transfers (from, to, value, block
// time), in order, and returns the holders whose balance reached threshold
// at some point from start on, each with its highest balance then.
func peakHolders(rows rowSet, threshold *big.Int, start int64) ([]Holder, error) {
	defer rows.Close()
	bal := map[common.Address]*big.Int{}
	peak := map[common.Address]*big.Int{} // within the range
	inRange := false
	enter := func() {
		inRange = true
		for a, b := range bal {
			peak[a] = new(big.Int).Set(b)
		}
	}
	zero := common.Address{}
	for rows.Next() {
		var from, to []byte
		var value string
		var ts int64
		if err := rows.Scan(&from, &to, &value, &ts); err != nil {
			return nil, fmt.Errorf("evmindex: balance holders: %w", err)
		}
		if !inRange && ts >= start {
			enter()
		}
		v, ok := new(big.Int).SetString(value, 10)
		if !ok {
			continue
		}
		for _, p := range []struct {
			a   common.Address
			neg bool
		}{{common.BytesToAddress(from), true}, {common.BytesToAddress(to), false}} {
			if p.a == zero {
				continue
			}
			b := bal[p.a]
			if b == nil {
				b = new(big.Int)
				bal[p.a] = b
			}
			if p.neg {
				b.Sub(b, v)
			} else {
				b.Add(b, v)
			}
			if inRange {
				if m := peak[p.a]; m == nil || b.Cmp(m) > 0 {
					peak[p.a] = new(big.Int).Set(b)
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: balance holders: %w", err)
	}
	if !inRange {
		enter() // no transfer within the range: the balances held through it
	}
	var out []Holder
	for a, m := range peak {
		if m.Sign() > 0 && m.Cmp(threshold) >= 0 {
			out = append(out, Holder{Address: a, Amount: m})
		}
	}
	sortHolders(out)
	return out, nil
}
