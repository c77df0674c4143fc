package evmindex

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5"
)

// Rollback removes chainID's blocks >= from and everything derived from
// them, in one transaction (as the SQLite store's Rollback does): the
// balances and owners their transfers changed are put back from the
// transfers left, their listings' rows and ICM messages removed.
func (st *pgStore) Rollback(ctx context.Context, chainID, from uint64) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	err := pgx.BeginFunc(ctx, st.pool, func(tx pgx.Tx) error {
		if err := st.fenced(ctx, tx); err != nil {
			return err
		}
		b := newPGBatch(ctx, st, tx, chainID)
		if err := rollbackBlocks(b, &pgRollbackSQL, b.chainID, from); err != nil {
			return err
		}
		return b.flush()
	})
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// pgRollbackSQL is the PostgreSQL store's text of rollbackBlocks' deletes.
var pgRollbackSQL = rollbackSQL{
	addrTransfer: `DELETE FROM address_transfers WHERE chain_id=$1 AND address=$2 AND kind=$3 AND seq=$4`,
	transfers:    `DELETE FROM transfers WHERE chain_id=$1 AND seq>=$2`,
	fromBlock: []string{
		`DELETE FROM blocks WHERE chain_id=$1 AND number>=$2`,
		`DELETE FROM txs WHERE chain_id=$1 AND block_number>=$2`,
		`DELETE FROM contracts WHERE chain_id=$1 AND block_number>=$2`,
		`DELETE FROM internal_txs WHERE chain_id=$1 AND block_number>=$2`,
		`DELETE FROM untraced_blocks WHERE chain_id=$1 AND number>=$2`,
		`DELETE FROM teleporter_messages WHERE chain_id=$1 AND block_number>=$2`,
		`DELETE FROM native_balances WHERE chain_id=$1 AND block>=$2`,
	},
}

// removedTransfers reads the transfers at seq first and above (see the
// SQLite store's).
func (b *pgBatch) removedTransfers(first int64) ([]BalanceChange, map[nftKey]bool, []addrRow, error) {
	if err := b.flush(); err != nil {
		return nil, nil, nil, err
	}
	rows, err := b.tx.Query(b.ctx, `SELECT seq, contract, kind, from_addr, to_addr, token_id, value::text FROM transfers WHERE chain_id=$1 AND seq>=$2`,
		b.chainID, first)
	if err != nil {
		return nil, nil, nil, err
	}
	return readRemovedTransfers(pgRows{rows})
}

// restoreHoldings points each ERC-1155 holding changed at the last
// transfer left, and each ERC-721 token moved at its last transfer's
// recipient.
func (b *pgBatch) restoreHoldings(changes []BalanceChange, nfts map[nftKey]bool) error {
	for _, c := range changes {
		if !c.ERC1155 {
			continue
		}
		if err := b.queue(`UPDATE erc1155_balances SET seq = COALESCE((SELECT MAX(t.seq) FROM address_transfers a
			JOIN transfers t ON t.chain_id=a.chain_id AND t.seq=a.seq
			WHERE a.chain_id=$1 AND a.address=$2 AND a.kind=$3 AND t.contract=$4 AND t.token_id=$5), 0)
			WHERE chain_id=$1 AND owner=$2 AND contract=$4 AND token_id=$5`, b.chainID, c.Owner.Bytes(), int16(ERC1155), c.Contract.Bytes(), c.TokenID[:]); err != nil {
			return err
		}
	}
	for k := range nfts {
		// The last transfer left decides the owner; none, or a burn: no
		// owner.
		if err := b.queue(`DELETE FROM nft_owners WHERE chain_id=$1 AND contract=$2 AND token_id=$3`, b.chainID, k.contract.Bytes(), k.id[:]); err != nil {
			return err
		}
		if err := b.queue(`INSERT INTO nft_owners (chain_id, contract, token_id, owner, seq)
			SELECT chain_id, contract, token_id, to_addr, seq FROM transfers WHERE chain_id=$1 AND contract=$2 AND token_id=$3
			AND seq = (SELECT MAX(seq) FROM transfers WHERE chain_id=$1 AND contract=$2 AND token_id=$3) AND to_addr <> $4`,
			b.chainID, k.contract.Bytes(), k.id[:], common.Address{}.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// rollbackListings removes the rows of blocks >= from from the address and
// collection listings, before the rows they derive from are deleted.
func (b *pgBatch) rollbackListings(from uint64, transfers []addrRow) error {
	if err := b.flush(); err != nil {
		return err
	}
	addrs := map[common.Address]bool{}
	for _, r := range transfers {
		addrs[common.BytesToAddress(r.addr)] = true
	}
	for _, q := range []string{
		`SELECT from_addr, to_addr FROM txs WHERE chain_id=$1 AND block_number>=$2`,
		`SELECT address, NULL::bytea FROM contracts WHERE chain_id=$1 AND block_number>=$2`,
		`SELECT from_addr, to_addr FROM internal_txs WHERE chain_id=$1 AND block_number>=$2`,
	} {
		rows, err := b.tx.Query(b.ctx, q, b.chainID, from)
		if err != nil {
			return err
		}
		if err := scanAddrs(pgRows{rows}, addrs); err != nil {
			return err
		}
	}
	for a := range addrs {
		if err := b.queue(`DELETE FROM address_txs WHERE chain_id=$1 AND address=$2 AND block_number>=$3`, b.chainID, a.Bytes(), from); err != nil {
			return err
		}
		if err := b.queue(`DELETE FROM address_internals WHERE chain_id=$1 AND address=$2 AND seq>=$3`, b.chainID, a.Bytes(), internalSeq(from, 0)); err != nil {
			return err
		}
	}
	return b.queue(`DELETE FROM collection_tokens WHERE chain_id=$1 AND first_seq>=$2 AND contract IN
		(SELECT DISTINCT contract FROM transfers WHERE chain_id=$1 AND seq>=$2 AND kind<>$3)`, b.chainID, seqOf(from, 0, 0), int16(ERC20))
}

// rollbackICM removes the messenger events of blocks >= from and rebuilds
// the rows of the messages they sent or delivered from the events left.
func (b *pgBatch) rollbackICM(from uint64) error {
	if err := b.flush(); err != nil {
		return err
	}
	rows, err := b.tx.Query(b.ctx, `SELECT message_id, MIN(kind) FROM icm_events WHERE chain_id=$1 AND block_number>=$2 AND kind IN ($3,$4) GROUP BY message_id`,
		b.chainID, from, int16(ICMSend), int16(ICMReceive))
	if err != nil {
		return err
	}
	removed, err := scanRemovedMessages(pgRows{rows})
	if err != nil {
		return err
	}
	if _, err := b.tx.Exec(b.ctx, `DELETE FROM icm_events WHERE chain_id=$1 AND block_number>=$2`, b.chainID, from); err != nil {
		return err
	}
	if _, err := b.tx.Exec(b.ctx, `UPDATE icm_backfill SET end_block=$1 WHERE chain_id=$2 AND end_block>=$3`, int64(from)-1, b.chainID, from); err != nil {
		return err
	}
	for id, k := range removed {
		var kind int16
		var ts uint64
		var src, dst, sender, recipient []byte
		err := b.tx.QueryRow(b.ctx, `SELECT kind, ts, src_chain, dst_chain, sender, recipient FROM icm_events WHERE message_id=$1 AND kind IN ($2,$3)
			ORDER BY kind, ts LIMIT 1`, id.Bytes(), int16(ICMSend), int16(ICMReceive)).Scan(&kind, &ts, &src, &dst, &sender, &recipient)
		if err == nil && ICMEventKind(kind) == ICMSend && k == ICMReceive {
			continue // the send made the row and stays: so does its place
		}
		if _, err := b.tx.Exec(b.ctx, `DELETE FROM icm_messages WHERE message_id=$1`, id.Bytes()); err != nil {
			return err
		}
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		b.st.icmSeq++
		if _, err := b.tx.Exec(b.ctx, `INSERT INTO icm_messages (message_id, ord, src_chain, dst_chain, sender, recipient) VALUES ($1,$2,$3,$4,$5,$6)`,
			id.Bytes(), icmOrd(ts, b.st.icmSeq), src, dst, sender, recipient); err != nil {
			return err
		}
	}
	return nil
}
