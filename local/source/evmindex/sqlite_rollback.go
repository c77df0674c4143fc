package evmindex

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// addrRow is an address_transfers row.
type addrRow struct {
	addr []byte
	kind TokenKind
	seq  int64
}

// nftKey names an ERC-721 token whose owner a rollback restores.
type nftKey struct {
	contract common.Address
	id       [32]byte
}

// Rollback removes chainID's blocks >= from and everything derived from
// them, in one transaction: the balances and owners their transfers
// changed are put back from the transfers left, their listings' rows and
// ICM messages removed.
func (st *sqliteStore) Rollback(ctx context.Context, chainID, from uint64) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	defer tx.Rollback()
	b := &sqliteBatch{st: st, tx: tx, ctx: ctx, chainID: chainID}
	defer b.close()
	if err := rollbackBlocks(b, &sqliteRollbackSQL, b.chainID, from); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// sqliteRollbackSQL is the SQLite store's text of rollbackBlocks' deletes.
var sqliteRollbackSQL = rollbackSQL{
	addrTransfer: `DELETE FROM address_transfers WHERE chain_id=? AND address=? AND kind=? AND seq=?`,
	transfers:    `DELETE FROM transfers WHERE chain_id=? AND seq>=?`,
	fromBlock: []string{
		`DELETE FROM blocks WHERE chain_id=? AND number>=?`,
		`DELETE FROM txs WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM contracts WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM internal_txs WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM untraced_blocks WHERE chain_id=? AND number>=?`,
		`DELETE FROM teleporter_messages WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM native_balances WHERE chain_id=? AND block>=?`,
	},
}

// queue runs q in b's transaction at once: SQLite's counterpart of
// pgBatch.queue (rollbackBatch).
func (b *sqliteBatch) queue(q string, args ...any) error {
	_, err := b.tx.ExecContext(b.ctx, q, args...)
	return err
}

// removedTransfers reads the transfers at seq first and above: the balance
// changes that undo them, the ERC-721 tokens they moved, and their
// address_transfers rows.
func (b *sqliteBatch) removedTransfers(first int64) ([]BalanceChange, map[nftKey]bool, []addrRow, error) {
	rows, err := b.tx.QueryContext(b.ctx, `SELECT seq, contract, kind, from_addr, to_addr, token_id, value FROM transfers WHERE chain_id=? AND seq>=?`, b.chainID, first)
	if err != nil {
		return nil, nil, nil, err
	}
	return readRemovedTransfers(rows)
}

// restoreHoldings points each ERC-1155 holding changed at the last
// transfer left, and each ERC-721 token moved at the owner its last
// transfer left gave it.
func (b *sqliteBatch) restoreHoldings(changes []BalanceChange, nfts map[nftKey]bool) error {
	for _, c := range changes {
		if !c.ERC1155 {
			continue
		}
		// The holding's last transfer is now the last one left.
		if _, err := b.tx.ExecContext(b.ctx, `UPDATE erc1155_balances SET seq = COALESCE((SELECT MAX(t.seq) FROM address_transfers a
			JOIN transfers t ON t.chain_id=a.chain_id AND t.seq=a.seq
			WHERE a.chain_id=? AND a.address=? AND a.kind=? AND t.contract=? AND t.token_id=?), 0)
			WHERE chain_id=? AND owner=? AND contract=? AND token_id=?`, b.chainID, c.Owner.Bytes(), ERC1155, c.Contract.Bytes(), c.TokenID[:],
			b.chainID, c.Owner.Bytes(), c.Contract.Bytes(), c.TokenID[:]); err != nil {
			return err
		}
	}
	zero := common.Address{}
	for k := range nfts {
		var owner []byte
		var seq int64
		err := b.tx.QueryRowContext(b.ctx, `SELECT to_addr, seq FROM transfers WHERE chain_id=? AND contract=? AND token_id=? ORDER BY seq DESC LIMIT 1`,
			b.chainID, k.contract.Bytes(), k.id[:]).Scan(&owner, &seq)
		switch {
		case err == sql.ErrNoRows || (err == nil && common.BytesToAddress(owner) == zero):
			_, err = b.tx.ExecContext(b.ctx, `DELETE FROM nft_owners WHERE chain_id=? AND contract=? AND token_id=?`, b.chainID, k.contract.Bytes(), k.id[:])
		case err == nil:
			_, err = b.tx.ExecContext(b.ctx, `INSERT OR REPLACE INTO nft_owners (chain_id, contract, token_id, owner, seq) VALUES (?,?,?,?,?)`,
				b.chainID, k.contract.Bytes(), k.id[:], owner, seq)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rollbackListings removes the rows of blocks >= from from the address and
// collection listings, before the rows they derive from are deleted:
// transfers are the rolled-back transfers' address rows.
func (b *sqliteBatch) rollbackListings(from uint64, transfers []addrRow) error {
	addrs := map[common.Address]bool{}
	for _, r := range transfers {
		addrs[common.BytesToAddress(r.addr)] = true
	}
	for _, q := range []string{
		`SELECT from_addr, to_addr FROM txs WHERE chain_id=? AND block_number>=?`,
		`SELECT address, NULL FROM contracts WHERE chain_id=? AND block_number>=?`,
		`SELECT from_addr, to_addr FROM internal_txs WHERE chain_id=? AND block_number>=?`,
	} {
		if err := b.collectAddrs(addrs, q, from); err != nil {
			return err
		}
	}
	for a := range addrs {
		if _, err := b.tx.ExecContext(b.ctx, `DELETE FROM address_txs WHERE chain_id=? AND address=? AND block_number>=?`, b.chainID, a.Bytes(), from); err != nil {
			return err
		}
		if _, err := b.tx.ExecContext(b.ctx, `DELETE FROM address_internals WHERE chain_id=? AND address=? AND seq>=?`, b.chainID, a.Bytes(), internalSeq(from, 0)); err != nil {
			return err
		}
	}
	_, err := b.tx.ExecContext(b.ctx, `DELETE FROM collection_tokens WHERE chain_id=? AND first_seq>=? AND contract IN
		(SELECT DISTINCT contract FROM transfers WHERE chain_id=? AND seq>=? AND kind<>?)`, b.chainID, seqOf(from, 0, 0), b.chainID, seqOf(from, 0, 0), ERC20)
	return err
}

// collectAddrs adds to addrs the addresses of the two columns q selects
// (the second may be NULL) for blocks >= from.
func (b *sqliteBatch) collectAddrs(addrs map[common.Address]bool, q string, from uint64) error {
	rows, err := b.tx.QueryContext(b.ctx, q, b.chainID, from)
	if err != nil {
		return err
	}
	return scanAddrs(rows, addrs)
}

// scanAddrs adds to addrs the addresses of rows' two columns (the second
// may be NULL).
func scanAddrs(rows rowSet, addrs map[common.Address]bool) error {
	defer rows.Close()
	for rows.Next() {
		var x, y []byte
		if err := rows.Scan(&x, &y); err != nil {
			return err
		}
		for _, a := range [][]byte{x, y} {
			if a != nil {
				addrs[common.BytesToAddress(a)] = true
			}
		}
	}
	return rows.Err()
}

// rollbackICM removes the messenger events of blocks >= from and rebuilds
// the rows of the messages they sent or delivered from the events left (a
// message delivered here but sent from another indexed chain keeps its
// row; one whose only send or receive was removed loses it).
func (b *sqliteBatch) rollbackICM(from uint64) error {
	removed, err := b.removedMessages(from)
	if err != nil {
		return err
	}
	if _, err := b.tx.ExecContext(b.ctx, `DELETE FROM icm_events WHERE chain_id=? AND block_number>=?`, b.chainID, from); err != nil {
		return err
	}
	// Blocks indexed again come through the follower, which reads their
	// events itself.
	if _, err := b.tx.ExecContext(b.ctx, `UPDATE icm_backfill SET end_block=? WHERE chain_id=? AND end_block>=?`, int64(from)-1, b.chainID, from); err != nil {
		return err
	}
	for id, k := range removed {
		var kind ICMEventKind
		var ts uint64
		var src, dst, sender, recipient []byte
		err := b.tx.QueryRowContext(b.ctx, `SELECT kind, ts, src_chain, dst_chain, sender, recipient FROM icm_events WHERE message_id=? AND kind IN (?,?)
			ORDER BY kind, ts LIMIT 1`, id.Bytes(), ICMSend, ICMReceive).Scan(&kind, &ts, &src, &dst, &sender, &recipient)
		if err == nil && kind == ICMSend && k == ICMReceive {
			continue // the send made the row and stays: so does its place
		}
		if _, err := b.tx.ExecContext(b.ctx, `DELETE FROM icm_messages WHERE message_id=?`, id.Bytes()); err != nil {
			return err
		}
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return err
		}
		b.st.icmSeq++
		if _, err := b.tx.ExecContext(b.ctx, `INSERT INTO icm_messages (message_id, ord, src_chain, dst_chain, sender, recipient) VALUES (?,?,?,?,?,?)`,
			id.Bytes(), icmOrd(ts, b.st.icmSeq), src, dst, sender, recipient); err != nil {
			return err
		}
	}
	return nil
}

// removedMessages returns the messages whose send (or else receive) the
// chain's blocks >= from hold.
func (b *sqliteBatch) removedMessages(from uint64) (map[common.Hash]ICMEventKind, error) {
	rows, err := b.tx.QueryContext(b.ctx, `SELECT message_id, MIN(kind) FROM icm_events WHERE chain_id=? AND block_number>=? AND kind IN (?,?) GROUP BY message_id`,
		b.chainID, from, ICMSend, ICMReceive)
	if err != nil {
		return nil, err
	}
	return scanRemovedMessages(rows)
}

// scanRemovedMessages reads (message id, its lowest event kind) rows.
func scanRemovedMessages(rows rowSet) (map[common.Hash]ICMEventKind, error) {
	defer rows.Close()
	removed := map[common.Hash]ICMEventKind{}
	for rows.Next() {
		var id []byte
		var k ICMEventKind
		if err := rows.Scan(&id, &k); err != nil {
			return nil, err
		}
		removed[common.BytesToHash(id)] = k
	}
	return removed, rows.Err()
}
