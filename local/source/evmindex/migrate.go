package evmindex

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"time"
)

// schemaVersion is the store's version, kept in SQLite's user_version. A
// store of an earlier version (or a new one, whose tables schema has just
// made empty) is migrated step by step when it is opened.
const schemaVersion = 3

// listedFrameSQL is listedFrame over an internal_txs row: the frames the
// Data API lists as internal transactions.
const listedFrameSQL = `(idx > 0 AND (type IN ('CREATE','CREATE2','CREATE3') OR (type IN ('CALL','CALLCODE') AND value <> '0')))`

// listedFrame reports whether frame idx of a transaction's trace is one of
// its internal transactions as the Data API lists them: a value-moving CALL
// or CALLCODE, or a contract creation, below the transaction's own frame
// (idx 0, which is the transaction itself).
func listedFrame(idx int, typ string, value *big.Int) bool {
	if idx == 0 {
		return false
	}
	switch typ {
	case "CREATE", "CREATE2", "CREATE3":
		return true
	case "CALL", "CALLCODE":
		return value != nil && value.Sign() > 0
	}
	return false
}

// noTracerReason is an untraced block's reason (untraced_blocks) when its
// chain is not traced: the node has no call tracer, or the chain's tracing
// is off (ChainOptions.NoTrace).
const noTracerReason = "indexed without call traces: the node offers no debug_traceBlockByNumber"

// spamSQL is Token.Spam over a tokens row k.
const spamSQL = `(k.kind=20 AND (k.name='' OR k.symbol=''))`

// internalSeq positions internal transaction ord (its frame's position
// among all frames of the block) of block.
func internalSeq(block uint64, ord int) int64 { return int64(block<<28 | uint64(ord&(1<<28-1))) }

// creationSeq positions creation ord of block.
func creationSeq(block uint64, ord int) int64 { return int64(block<<28 | uint64(ord&(1<<28-1))) }

// migrateV2 adds the columns, indexes and rows of schema version 2 (see
// schema.go), deriving them from what the store already holds: every
// address's transactions, internal transactions and deployments, and every
// collection's tokens; and the blocks with transactions of the chains that
// were not traced when the store was closed are recorded as untraced.
var migrateV2 = []string{
	`INSERT OR IGNORE INTO untraced_blocks (chain_id, number, reason)
		SELECT b.chain_id, b.number, '` + noTracerReason + `' FROM blocks b JOIN chains c ON c.chain_id = b.chain_id WHERE c.trace = 0 AND b.tx_count > 0`,
	`ALTER TABLE contracts ADD COLUMN origin BLOB`,
	`ALTER TABLE contracts ADD COLUMN seq INTEGER NOT NULL DEFAULT 0`,
	`ALTER TABLE nft_owners ADD COLUMN seq INTEGER NOT NULL DEFAULT 0`,
	`ALTER TABLE erc1155_balances ADD COLUMN seq INTEGER NOT NULL DEFAULT 0`,
	`DROP INDEX IF EXISTS txs_block`,
	`CREATE INDEX IF NOT EXISTS txs_pos ON txs (chain_id, block_number, tx_index)`,
	`CREATE INDEX IF NOT EXISTS txs_failed ON txs (chain_id, block_number, tx_index) WHERE status=0`,
	`CREATE INDEX IF NOT EXISTS blocks_time ON blocks (chain_id, timestamp, number)`,
	// Deployments: the creating transaction's sender, and the creations'
	// order within their blocks.
	`UPDATE contracts SET origin = (SELECT x.from_addr FROM txs x WHERE x.chain_id = contracts.chain_id AND x.hash = contracts.tx_hash)`,
	`UPDATE contracts SET origin = deployer WHERE origin IS NULL`,
	`WITH o AS (SELECT c.chain_id, c.address, (c.block_number << 28) | (ROW_NUMBER() OVER (PARTITION BY c.chain_id, c.block_number ORDER BY x.tx_index,
			(SELECT MIN(i.idx) FROM internal_txs i WHERE i.chain_id = c.chain_id AND i.tx_hash = c.tx_hash AND i.to_addr = c.address AND i.type IN ('CREATE','CREATE2','CREATE3')), c.address) - 1) AS seq
		FROM contracts c LEFT JOIN txs x ON x.chain_id = c.chain_id AND x.hash = c.tx_hash)
	UPDATE contracts SET seq = o.seq FROM o WHERE o.chain_id = contracts.chain_id AND o.address = contracts.address`,
	`CREATE INDEX IF NOT EXISTS contracts_origin ON contracts (chain_id, origin, seq)`,
	`CREATE INDEX IF NOT EXISTS contracts_deployer ON contracts (chain_id, deployer, seq)`,
	// Holdings: the transfer that last changed each.
	`UPDATE nft_owners SET seq = m.seq FROM (SELECT chain_id, contract, token_id, MAX(seq) AS seq FROM transfers WHERE kind = 72 GROUP BY chain_id, contract, token_id) m
		WHERE m.chain_id = nft_owners.chain_id AND m.contract = nft_owners.contract AND m.token_id = nft_owners.token_id`,
	`UPDATE erc1155_balances SET seq = m.seq FROM (SELECT a.chain_id, a.address, t.contract, t.token_id, MAX(t.seq) AS seq FROM address_transfers a
			JOIN transfers t ON t.chain_id = a.chain_id AND t.seq = a.seq WHERE a.kind = 115 GROUP BY a.chain_id, a.address, t.contract, t.token_id) m
		WHERE m.chain_id = erc1155_balances.chain_id AND m.address = erc1155_balances.owner AND m.contract = erc1155_balances.contract AND m.token_id = erc1155_balances.token_id`,
	`CREATE INDEX IF NOT EXISTS nft_owners_seq ON nft_owners (chain_id, owner, seq)`,
	`CREATE INDEX IF NOT EXISTS erc1155_balances_seq ON erc1155_balances (chain_id, owner, seq)`,
	`CREATE INDEX IF NOT EXISTS nft_owners_contract_seq ON nft_owners (chain_id, owner, contract, seq)`,
	`CREATE INDEX IF NOT EXISTS erc1155_balances_contract_seq ON erc1155_balances (chain_id, owner, contract, seq)`,
	// Collections.
	`INSERT OR IGNORE INTO collection_tokens (chain_id, contract, token_id, first_seq)
		SELECT chain_id, contract, token_id, MIN(seq) FROM transfers WHERE kind IN (72, 115) GROUP BY chain_id, contract, token_id`,
	// Addresses' transactions: senders and recipients, created contracts,
	// token transfers' parties, listed internal transactions' parties.
	`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam)
		SELECT chain_id, from_addr, block_number, tx_index, 1, 0 FROM txs WHERE true
		ON CONFLICT DO UPDATE SET native = 1, spam = 0`,
	`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam)
		SELECT chain_id, to_addr, block_number, tx_index, 1, 0 FROM txs WHERE to_addr IS NOT NULL AND to_addr <> zeroblob(20)
		ON CONFLICT DO UPDATE SET native = 1, spam = 0`,
	`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam)
		SELECT c.chain_id, c.address, x.block_number, x.tx_index, 1, 0 FROM contracts c
		JOIN txs x ON x.chain_id = c.chain_id AND x.hash = c.tx_hash WHERE x.to_addr IS NULL AND c.deployer = x.from_addr
		ON CONFLICT DO UPDATE SET native = 1, spam = 0`,
	`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam)
		SELECT p.chain_id, p.address, x.block_number, x.tx_index, 0, p.spam FROM (
			SELECT t.chain_id, t.tx_hash, t.from_addr AS address, COALESCE((SELECT ` + spamSQL + ` FROM tokens k WHERE k.chain_id = t.chain_id AND k.address = t.contract), 0) AS spam FROM transfers t
			UNION ALL
			SELECT t.chain_id, t.tx_hash, t.to_addr, COALESCE((SELECT ` + spamSQL + ` FROM tokens k WHERE k.chain_id = t.chain_id AND k.address = t.contract), 0) FROM transfers t
		) p JOIN txs x ON x.chain_id = p.chain_id AND x.hash = p.tx_hash WHERE p.address <> zeroblob(20)
		ON CONFLICT DO UPDATE SET spam = spam AND excluded.spam`,
	`WITH f AS (SELECT i.chain_id, i.tx_hash, i.idx, i.type, i.value, i.from_addr, i.to_addr, x.block_number, x.tx_index,
			ROW_NUMBER() OVER (PARTITION BY i.chain_id, i.block_number ORDER BY x.tx_index, i.idx) - 1 AS ord
		FROM internal_txs i JOIN txs x ON x.chain_id = i.chain_id AND x.hash = i.tx_hash)
	INSERT OR IGNORE INTO address_internals (chain_id, address, seq, tx_hash, idx)
		SELECT chain_id, from_addr, (block_number << 28) | ord, tx_hash, idx FROM f WHERE ` + listedFrameSQL + ` AND from_addr <> zeroblob(20)
		UNION ALL SELECT chain_id, to_addr, (block_number << 28) | ord, tx_hash, idx FROM f WHERE ` + listedFrameSQL + ` AND to_addr <> zeroblob(20)`,
	`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam)
		SELECT a.chain_id, a.address, x.block_number, x.tx_index, 0, 0 FROM address_internals a
		JOIN txs x ON x.chain_id = a.chain_id AND x.hash = a.tx_hash WHERE true
		ON CONFLICT DO UPDATE SET spam = 0`,
}

// migrate brings the store at db to schemaVersion in one transaction per
// version, logging what it does.
func (ix *Index) migrate(ctx context.Context, db *sql.DB) error {
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	steps := map[int][]string{2: migrateV2, 3: migrateV3}
	for next := v + 1; next <= schemaVersion; next++ {
		start := time.Now()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrating to version %d: %w", next, err)
		}
		for _, q := range steps[next] {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				tx.Rollback()
				return fmt.Errorf("migrating to version %d: %.80s: %w", next, q, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, next)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrating to version %d: %w", next, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrating to version %d: %w", next, err)
		}
		if v > 0 || time.Since(start) > time.Second {
			ix.log.Info("evmindex: store migrated", "version", next, "took", time.Since(start).Round(time.Millisecond))
		}
	}
	return nil
}
