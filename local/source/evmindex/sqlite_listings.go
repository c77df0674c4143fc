package evmindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/ethereum/go-ethereum/common"
)

// Internals returns the internal transactions an address sent or received,
// as the Data API lists them (listedFrame): one index range.
func (st *sqliteStore) Internals(ctx context.Context, q InternalQuery) ([]ListedInternal, error) {
	lo, hi := internalSeq(q.StartBlock, 0), int64(math.MaxInt64)
	if q.EndBlock != 0 && q.EndBlock < 1<<35 {
		hi = internalSeq(q.EndBlock, 0)
	}
	if q.Before != 0 && q.Before < hi {
		hi = q.Before
	}
	rows, err := st.r.QueryContext(ctx, `SELECT a.seq, a.tx_hash, b.number, b.hash, b.timestamp, i.type, i.from_addr, i.to_addr, i.value, i.gas, i.gas_used, i.reverted
		FROM address_internals a
		JOIN internal_txs i ON i.chain_id=a.chain_id AND i.tx_hash=a.tx_hash AND i.idx=a.idx
		JOIN blocks b ON b.chain_id=a.chain_id AND b.number=a.seq>>28
		WHERE a.chain_id=? AND a.address=? AND a.seq>=? AND a.seq<? ORDER BY a.seq DESC LIMIT ?`, q.ChainID, q.Address.Bytes(), lo, hi, q.Limit)
	return listRows(rows, err, "internal transactions", scanListedInternal)
}

// UntracedSpan returns the first and last blocks in [from, to] of chainID
// that were indexed without their internal transactions (untraced_blocks:
// their trace failed or was too large, or the chain is not traced), and
// false when there is none. One index range.
func (st *sqliteStore) UntracedSpan(ctx context.Context, chainID, from, to uint64) (first, last uint64, ok bool, err error) {
	var lo, hi sql.NullInt64
	err = st.r.QueryRowContext(ctx, `SELECT MIN(number), MAX(number) FROM untraced_blocks WHERE chain_id=? AND number>=? AND number<=?`,
		chainID, from, int64(min(to, math.MaxInt64))).Scan(&lo, &hi)
	if err != nil {
		return 0, 0, false, fmt.Errorf("evmindex: untraced blocks: %w", err)
	}
	return uint64(lo.Int64), uint64(hi.Int64), lo.Valid, nil
}

const deploymentCols = `address, tx_hash, block_number, deployer, kind, origin, seq`

func scanDeployment(sc interface{ Scan(...any) error }) (Deployment, error) {
	var d Deployment
	var a, tx, dep, origin []byte
	var kind string
	if err := sc.Scan(&a, &tx, &d.BlockNumber, &dep, &kind, &origin, &d.Seq); err != nil {
		return d, err
	}
	d.Address, d.TxHash, d.Deployer, d.Kind = common.BytesToAddress(a), common.BytesToHash(tx), common.BytesToAddress(dep), CreateKind(kind)
	d.Origin = common.BytesToAddress(origin)
	return d, nil
}

// Deployment returns the creation of contract addr.
func (st *sqliteStore) Deployment(ctx context.Context, chainID uint64, addr common.Address) (Deployment, error) {
	d, err := scanDeployment(st.r.QueryRowContext(ctx, `SELECT `+deploymentCols+` FROM contracts WHERE chain_id=? AND address=?`, chainID, addr.Bytes()))
	return d, notFound(err)
}

// Deployments returns the contracts addr deployed, newest first, before the
// cursor before (0: none): those created by transactions it sent, directly
// or through factories, and those it created itself as a factory. Two index
// ranges, merged.
func (st *sqliteStore) Deployments(ctx context.Context, chainID uint64, addr common.Address, before int64, limit int) ([]Deployment, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	rows, err := st.r.QueryContext(ctx, `SELECT `+deploymentCols+` FROM (
			SELECT * FROM (SELECT `+deploymentCols+` FROM contracts INDEXED BY contracts_origin WHERE chain_id=?1 AND origin=?2 AND seq<?3 ORDER BY seq DESC LIMIT ?4)
			UNION
			SELECT * FROM (SELECT `+deploymentCols+` FROM contracts INDEXED BY contracts_deployer WHERE chain_id=?1 AND deployer=?2 AND seq<?3 ORDER BY seq DESC LIMIT ?4)
		) ORDER BY seq DESC LIMIT ?4`, chainID, addr.Bytes(), before, limit)
	return listRows(rows, err, "deployments", scanDeploymentRow)
}

// Collectibles returns owner's ERC-721 tokens and ERC-1155 balances, most
// recently changed first, before the cursor before (0: none), of contract
// when set. Two index ranges, merged.
func (st *sqliteStore) Collectibles(ctx context.Context, chainID uint64, owner common.Address, contract *common.Address, before int64, limit int) ([]Collectible, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	filter, args, by := "", []any{chainID, owner.Bytes(), before, limit}, "_seq"
	if contract != nil {
		filter, args, by = " AND contract=?5", append(args, contract.Bytes()), "_contract_seq"
	}
	rows, err := st.r.QueryContext(ctx, `SELECT * FROM (
			SELECT * FROM (SELECT contract, token_id, '1', seq, 72 FROM nft_owners INDEXED BY nft_owners`+by+`
				WHERE chain_id=?1 AND owner=?2`+filter+` AND seq<?3 ORDER BY seq DESC LIMIT ?4)
			UNION ALL
			SELECT * FROM (SELECT contract, token_id, balance, seq, 115 FROM erc1155_balances INDEXED BY erc1155_balances`+by+`
				WHERE chain_id=?1 AND owner=?2`+filter+` AND seq<?3 ORDER BY seq DESC LIMIT ?4)
		) ORDER BY 4 DESC, 1, 2 LIMIT ?4`, args...)
	return listRows(rows, err, "collectibles", scanCollectibles())
}

// CollectionTokens returns the token ids a collection has moved, oldest
// first, after the cursor after (0: from the first).
func (st *sqliteStore) CollectionTokens(ctx context.Context, chainID uint64, contract common.Address, after int64, limit int) ([]CollectionToken, error) {
	rows, err := st.r.QueryContext(ctx, `SELECT c.token_id, c.first_seq, o.owner FROM collection_tokens c INDEXED BY collection_tokens_seq
		LEFT JOIN nft_owners o ON o.chain_id=c.chain_id AND o.contract=c.contract AND o.token_id=c.token_id
		WHERE c.chain_id=? AND c.contract=? AND c.first_seq>? ORDER BY c.first_seq LIMIT ?`, chainID, contract.Bytes(), after, limit)
	return listRows(rows, err, "collection tokens", scanCollectionTokens())
}

// Active reports whether addr took part in any transaction of chainID.
func (st *sqliteStore) Active(ctx context.Context, chainID uint64, addr common.Address) (bool, error) {
	var one int
	err := st.r.QueryRowContext(ctx, `SELECT 1 FROM address_txs WHERE chain_id=? AND address=? LIMIT 1`, chainID, addr.Bytes()).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("evmindex: address activity: %w", err)
	}
	return true, nil
}

// BlockAt returns the newest block of chainID whose timestamp is at most
// ts, and false when there is none.
func (st *sqliteStore) BlockAt(ctx context.Context, chainID, ts uint64) (uint64, bool, error) {
	var n uint64
	err := st.r.QueryRowContext(ctx, `SELECT number FROM blocks WHERE chain_id=? AND timestamp<=? ORDER BY timestamp DESC, number DESC LIMIT 1`,
		chainID, int64(min(ts, math.MaxInt64))).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("evmindex: block at: %w", err)
	}
	return n, true, nil
}
