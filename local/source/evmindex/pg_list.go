package evmindex

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5"
)

// The PostgreSQL store's listings: transactions, internal transactions,
// deployments, collectibles, a transaction's details.
//
// A listing that joins its rows' transactions and blocks takes its page
// first, in a subquery (ORDER BY and LIMIT on the listing's own index, a
// fence the planner does not flatten), and joins the page's rows then, a
// lookup each by key. Joined before the LIMIT, the planner, which cannot
// carry a row comparison's bounds over to the other tables, merge-joined
// blocks or txs scanned from one end of the chain to the page: at 1,000,000
// transactions a deep block's transactions read 50,000 blocks (30-40 ms).

const pgListedTxCols = `x.hash, x.block_number, x.tx_index, x.type, x.from_addr, x.to_addr, x.value::text, x.nonce, x.gas_limit, x.gas_used,
	x.gas_price::text, x.max_fee::text, x.max_priority_fee::text, x.status, substring(x.input from 1 for 4), b.hash, b.timestamp`

func (st *pgStore) AddressTxs(ctx context.Context, q AddressTxQuery) ([]ListedTx, error) {
	filter := ""
	switch {
	case q.Native:
		filter = " AND a.native"
	case q.NoSpam:
		filter = " AND NOT a.spam"
	}
	args := append([]any{q.ChainID, q.Address.Bytes()}, rangeBounds(q.Range)...)
	order := rangeOrder(q.Range, "a.block_number", "a.tx_index")
	rows, err := st.query(ctx, `SELECT `+pgListedTxCols+` FROM (SELECT a.block_number, a.tx_index FROM address_txs a
			WHERE a.chain_id=$1 AND a.address=$2`+filter+` AND (a.block_number, a.tx_index) >= ($3, $4) AND (a.block_number, a.tx_index) < ($5, $6)`+
		order+` LIMIT $7) a
		JOIN txs x ON x.chain_id=$1 AND x.block_number=a.block_number AND x.tx_index=a.tx_index
		JOIN blocks b ON b.chain_id=$1 AND b.number=a.block_number`+order, append(args, q.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: address transactions: %w", err)
	}
	return scanListedTxs(rows)
}

func (st *pgStore) ChainTxs(ctx context.Context, chainID uint64, status TxStatus, r Range, limit int) ([]ListedTx, error) {
	filter := ""
	switch status {
	case Succeeded:
		filter = " AND x.status=1"
	case Failed:
		filter = " AND x.status=0"
	}
	args := append([]any{chainID}, rangeBounds(r)...)
	order := rangeOrder(r, "x.block_number", "x.tx_index")
	rows, err := st.query(ctx, `SELECT `+pgListedTxCols+` FROM (SELECT * FROM txs x
			WHERE x.chain_id=$1`+filter+` AND (x.block_number, x.tx_index) >= ($2, $3) AND (x.block_number, x.tx_index) < ($4, $5)`+
		order+` LIMIT $6) x
		JOIN blocks b ON b.chain_id=$1 AND b.number=x.block_number`+order, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: chain transactions: %w", err)
	}
	return scanListedTxs(rows)
}

func (st *pgStore) Created(ctx context.Context, chainID uint64, txs []ListedTx) (map[common.Hash]common.Address, error) {
	out := map[common.Hash]common.Address{}
	for _, t := range txs {
		if t.To != nil {
			continue
		}
		var a []byte
		err := st.pool.QueryRow(ctx, `SELECT address FROM contracts WHERE chain_id=$1 AND origin=$2 AND seq>=$3 AND seq<$4 AND tx_hash=$5 AND deployer=origin`,
			chainID, t.From.Bytes(), creationSeq(t.BlockNumber, 0), creationSeq(t.BlockNumber+1, 0), t.Hash.Bytes()).Scan(&a)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return nil, fmt.Errorf("evmindex: created contract: %w", err)
		default:
			out[t.Hash] = common.BytesToAddress(a)
		}
	}
	return out, nil
}

func (st *pgStore) PartsOf(ctx context.Context, chainID uint64, addr common.Address, txs []ListedTx) (*TxParts, error) {
	p := &TxParts{Transfers: map[common.Hash][]TransferRow{}, Internals: map[common.Hash][]InternalTx{}}
	if len(txs) == 0 {
		return p, nil
	}
	hashes := make([][]byte, len(txs))
	for i, t := range txs {
		hashes[i] = t.Hash.Bytes()
	}
	rows, err := st.query(ctx, `SELECT `+pgTransferCols+` FROM transfers t JOIN blocks b ON b.chain_id=t.chain_id AND b.number=t.block_number
		WHERE t.chain_id=$1 AND (t.from_addr=$2 OR t.to_addr=$2) AND t.tx_hash = ANY($3) ORDER BY t.seq`, chainID, addr.Bytes(), hashes)
	if err := addTxTransfers(p, rows, err); err != nil {
		return nil, err
	}
	irows, err := st.query(ctx, `SELECT tx_hash, idx, type, from_addr, to_addr, value::text, gas, gas_used, reverted FROM internal_txs
		WHERE chain_id=$1 AND (from_addr=$2 OR to_addr=$2) AND `+listedFrameSQL+` AND tx_hash = ANY($3) ORDER BY tx_hash, idx`, chainID, addr.Bytes(), hashes)
	if err := addTxInternals(p, irows, err); err != nil {
		return nil, err
	}
	return p, nil
}

func (st *pgStore) Internals(ctx context.Context, q InternalQuery) ([]ListedInternal, error) {
	lo, hi := internalSeq(q.StartBlock, 0), int64(math.MaxInt64)
	if q.EndBlock != 0 && q.EndBlock < 1<<35 {
		hi = internalSeq(q.EndBlock, 0)
	}
	if q.Before != 0 && q.Before < hi {
		hi = q.Before
	}
	rows, err := st.query(ctx, `SELECT a.seq, a.tx_hash, b.number, b.hash, b.timestamp, i.type, i.from_addr, i.to_addr, i.value::text, i.gas, i.gas_used, i.reverted
		FROM (SELECT a.seq, a.tx_hash, a.idx FROM address_internals a
			WHERE a.chain_id=$1 AND a.address=$2 AND a.seq>=$3 AND a.seq<$4 ORDER BY a.seq DESC LIMIT $5) a
		JOIN internal_txs i ON i.chain_id=$1 AND i.tx_hash=a.tx_hash AND i.idx=a.idx
		JOIN blocks b ON b.chain_id=$1 AND b.number=a.seq>>28 ORDER BY a.seq DESC`, q.ChainID, q.Address.Bytes(), lo, hi, q.Limit)
	return listRows(rows, err, "internal transactions", scanListedInternal)
}

func (st *pgStore) Deployment(ctx context.Context, chainID uint64, addr common.Address) (Deployment, error) {
	d, err := scanDeployment(st.pool.QueryRow(ctx, `SELECT `+deploymentCols+` FROM contracts WHERE chain_id=$1 AND address=$2`, chainID, addr.Bytes()))
	return d, notFound(err)
}

// Deployments merges two index ranges: the contracts addr's transactions
// created, and those it created itself (a factory).
func (st *pgStore) Deployments(ctx context.Context, chainID uint64, addr common.Address, before int64, limit int) ([]Deployment, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	rows, err := st.query(ctx, `SELECT `+deploymentCols+` FROM (
			(SELECT `+deploymentCols+` FROM contracts WHERE chain_id=$1 AND origin=$2 AND seq<$3 ORDER BY seq DESC LIMIT $4)
			UNION
			(SELECT `+deploymentCols+` FROM contracts WHERE chain_id=$1 AND deployer=$2 AND seq<$3 ORDER BY seq DESC LIMIT $4)
		) d ORDER BY seq DESC LIMIT $4`, chainID, addr.Bytes(), before, limit)
	return listRows(rows, err, "deployments", scanDeploymentRow)
}

func (st *pgStore) Collectibles(ctx context.Context, chainID uint64, owner common.Address, contract *common.Address, before int64, limit int) ([]Collectible, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	filter, args := "", []any{chainID, owner.Bytes(), before, limit}
	if contract != nil {
		filter, args = " AND contract=$5", append(args, contract.Bytes())
	}
	rows, err := st.query(ctx, `SELECT * FROM (
			(SELECT contract, token_id, '1' AS balance, seq, 72 AS kind FROM nft_owners
				WHERE chain_id=$1 AND owner=$2`+filter+` AND seq<$3 ORDER BY seq DESC LIMIT $4)
			UNION ALL
			(SELECT contract, token_id, balance::text, seq, 115 FROM erc1155_balances
				WHERE chain_id=$1 AND owner=$2`+filter+` AND seq<$3 ORDER BY seq DESC LIMIT $4)
		) c ORDER BY 4 DESC, 1, 2 LIMIT $4`, args...)
	return listRows(rows, err, "collectibles", scanCollectibles())
}

func (st *pgStore) CollectionTokens(ctx context.Context, chainID uint64, contract common.Address, after int64, limit int) ([]CollectionToken, error) {
	rows, err := st.query(ctx, `SELECT c.token_id, c.first_seq, o.owner FROM collection_tokens c
		LEFT JOIN nft_owners o ON o.chain_id=c.chain_id AND o.contract=c.contract AND o.token_id=c.token_id
		WHERE c.chain_id=$1 AND c.contract=$2 AND c.first_seq>$3 ORDER BY c.first_seq LIMIT $4`, chainID, contract.Bytes(), after, limit)
	return listRows(rows, err, "collection tokens", scanCollectionTokens())
}

func (st *pgStore) Active(ctx context.Context, chainID uint64, addr common.Address) (bool, error) {
	var active bool
	err := st.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM address_txs WHERE chain_id=$1 AND address=$2)`, chainID, addr.Bytes()).Scan(&active)
	if err != nil {
		return false, fmt.Errorf("evmindex: address activity: %w", err)
	}
	return active, nil
}

func (st *pgStore) UntracedSpan(ctx context.Context, chainID, from, to uint64) (first, last uint64, ok bool, err error) {
	var lo, hi *int64
	err = st.pool.QueryRow(ctx, `SELECT MIN(number), MAX(number) FROM untraced_blocks WHERE chain_id=$1 AND number>=$2 AND number<=$3`,
		chainID, from, int64(min(to, math.MaxInt64))).Scan(&lo, &hi)
	if err != nil {
		return 0, 0, false, fmt.Errorf("evmindex: untraced blocks: %w", err)
	}
	if lo == nil {
		return 0, 0, false, nil
	}
	return uint64(*lo), uint64(*hi), true, nil
}

func (st *pgStore) Untraced(ctx context.Context, chainID, number uint64) (string, error) {
	var reason string
	err := st.pool.QueryRow(ctx, `SELECT reason FROM untraced_blocks WHERE chain_id=$1 AND number=$2`, chainID, number).Scan(&reason)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("evmindex: untraced blocks: %w", err)
	}
	return reason, nil
}

func (st *pgStore) Owner(ctx context.Context, chainID uint64, contract common.Address, tokenID *big.Int) (common.Address, error) {
	var o []byte
	err := st.pool.QueryRow(ctx, `SELECT owner FROM nft_owners WHERE chain_id=$1 AND contract=$2 AND token_id=$3`,
		chainID, contract.Bytes(), idBytes(tokenID)).Scan(&o)
	return common.BytesToAddress(o), notFound(err)
}
