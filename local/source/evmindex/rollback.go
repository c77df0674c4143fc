package evmindex

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// addrRow is an address_transfers row.
type addrRow struct {
	addr []byte
	kind TokenKind
	seq  int64
}

// rollback removes blocks >= from and everything derived from them.
func (f *follower) rollback(ctx context.Context, from uint64) error {
	f.ix.writeMu.Lock()
	defer f.ix.writeMu.Unlock()
	tx, err := f.ix.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	defer tx.Rollback()
	first := seqOf(from, 0, 0)
	rows, err := tx.QueryContext(ctx, `SELECT seq, contract, kind, from_addr, to_addr, token_id, value FROM transfers WHERE chain_id=? AND seq>=?`, f.id, first)
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	type nftKey struct {
		contract common.Address
		id       [32]byte
	}
	deltas := map[balKey]*big.Int{}
	nfts := map[nftKey]bool{}
	var addrRows []addrRow
	zero := common.Address{}
	for rows.Next() {
		var seq int64
		var contract, fromA, toA, id []byte
		var kind TokenKind
		var value string
		if err := rows.Scan(&seq, &contract, &kind, &fromA, &toA, &id, &value); err != nil {
			rows.Close()
			return fmt.Errorf("rollback: %w", err)
		}
		c, fa, ta := common.BytesToAddress(contract), common.BytesToAddress(fromA), common.BytesToAddress(toA)
		var idKey [32]byte
		copy(idKey[:], id)
		v, _ := new(big.Int).SetString(value, 10)
		switch kind {
		case ERC721:
			nfts[nftKey{c, idKey}] = true
		default:
			if fa != zero {
				k := balKey{fa, c, idKey, kind == ERC1155}
				deltas[k] = new(big.Int).Add(orZero(deltas[k]), v)
			}
			if ta != zero {
				k := balKey{ta, c, idKey, kind == ERC1155}
				deltas[k] = new(big.Int).Sub(orZero(deltas[k]), v)
			}
		}
		for _, a := range [][]byte{fromA, toA} {
			if common.BytesToAddress(a) != zero {
				addrRows = append(addrRows, addrRow{a, kind, seq})
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	if err := f.rollbackICM(ctx, tx, from); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	if err := f.rollbackListings(ctx, tx, from, addrRows); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	for _, r := range addrRows {
		if _, err := tx.ExecContext(ctx, `DELETE FROM address_transfers WHERE chain_id=? AND address=? AND kind=? AND seq=?`, f.id, r.addr, r.kind, r.seq); err != nil {
			return fmt.Errorf("rollback: %w", err)
		}
	}
	for _, q := range []string{
		`DELETE FROM transfers WHERE chain_id=? AND seq>=?`,
	} {
		if _, err := tx.ExecContext(ctx, q, f.id, first); err != nil {
			return fmt.Errorf("rollback: %w", err)
		}
	}
	for _, q := range []string{
		`DELETE FROM blocks WHERE chain_id=? AND number>=?`,
		`DELETE FROM txs WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM contracts WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM internal_txs WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM untraced_blocks WHERE chain_id=? AND number>=?`,
		`DELETE FROM teleporter_messages WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM native_balances WHERE chain_id=? AND block>=?`,
	} {
		if _, err := tx.ExecContext(ctx, q, f.id, from); err != nil {
			return fmt.Errorf("rollback: %w", err)
		}
	}
	if err := f.applyDeltas(ctx, tx, deltas, nil); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	for k := range deltas {
		if !k.is1155 {
			continue
		}
		// The holding's last transfer is now the last one left.
		if _, err := tx.ExecContext(ctx, `UPDATE erc1155_balances SET seq = COALESCE((SELECT MAX(t.seq) FROM address_transfers a
			JOIN transfers t ON t.chain_id=a.chain_id AND t.seq=a.seq
			WHERE a.chain_id=? AND a.address=? AND a.kind=? AND t.contract=? AND t.token_id=?), 0)
			WHERE chain_id=? AND owner=? AND contract=? AND token_id=?`, f.id, k.owner.Bytes(), ERC1155, k.contract.Bytes(), k.id[:],
			f.id, k.owner.Bytes(), k.contract.Bytes(), k.id[:]); err != nil {
			return fmt.Errorf("rollback: %w", err)
		}
	}
	for k := range nfts {
		var owner []byte
		var seq int64
		err := tx.QueryRowContext(ctx, `SELECT to_addr, seq FROM transfers WHERE chain_id=? AND contract=? AND token_id=? ORDER BY seq DESC LIMIT 1`, f.id, k.contract.Bytes(), k.id[:]).Scan(&owner, &seq)
		switch {
		case err == sql.ErrNoRows || (err == nil && common.BytesToAddress(owner) == zero):
			_, err = tx.ExecContext(ctx, `DELETE FROM nft_owners WHERE chain_id=? AND contract=? AND token_id=?`, f.id, k.contract.Bytes(), k.id[:])
		case err == nil:
			_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO nft_owners (chain_id, contract, token_id, owner, seq) VALUES (?,?,?,?,?)`, f.id, k.contract.Bytes(), k.id[:], owner, seq)
		}
		if err != nil {
			return fmt.Errorf("rollback: %w", err)
		}
	}
	var cum sql.NullInt64
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT number, cum_txs FROM blocks WHERE chain_id=? ORDER BY number DESC LIMIT 1`, f.id).Scan(&last, &cum); err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("rollback: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	f.cumTxs = uint64(cum.Int64)
	f.setHead(uint64(last.Int64), last.Valid)
	return nil
}

// rollbackListings removes the rows of blocks >= from from the address and
// collection listings, before the rows they derive from are deleted:
// transfers are the rolled-back transfers' address rows.
func (f *follower) rollbackListings(ctx context.Context, tx *sql.Tx, from uint64, transfers []addrRow) error {
	addrs := map[common.Address]bool{}
	for _, r := range transfers {
		addrs[common.BytesToAddress(r.addr)] = true
	}
	for _, q := range []string{
		`SELECT from_addr, to_addr FROM txs WHERE chain_id=? AND block_number>=?`,
		`SELECT address, NULL FROM contracts WHERE chain_id=? AND block_number>=?`,
		`SELECT from_addr, to_addr FROM internal_txs WHERE chain_id=? AND block_number>=?`,
	} {
		rows, err := tx.QueryContext(ctx, q, f.id, from)
		if err != nil {
			return err
		}
		for rows.Next() {
			var a, b []byte
			if err := rows.Scan(&a, &b); err != nil {
				rows.Close()
				return err
			}
			for _, x := range [][]byte{a, b} {
				if x != nil {
					addrs[common.BytesToAddress(x)] = true
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	for a := range addrs {
		if _, err := tx.ExecContext(ctx, `DELETE FROM address_txs WHERE chain_id=? AND address=? AND block_number>=?`, f.id, a.Bytes(), from); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM address_internals WHERE chain_id=? AND address=? AND seq>=?`, f.id, a.Bytes(), internalSeq(from, 0)); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM collection_tokens WHERE chain_id=? AND first_seq>=? AND contract IN
		(SELECT DISTINCT contract FROM transfers WHERE chain_id=? AND seq>=? AND kind<>?)`, f.id, seqOf(from, 0, 0), f.id, seqOf(from, 0, 0), ERC20)
	return err
}
