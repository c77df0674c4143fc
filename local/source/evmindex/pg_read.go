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

// The PostgreSQL store's reads of blocks, transfers and holdings. Amounts
// are read as text (numeric::text: the digits the API answers); a list is
// one index range whose page cursor is a comparison on the index's
// columns; a set of keys is one array parameter (= ANY).

// pgRows gives pgx's rows the rowSet shape shared with the SQLite store.
type pgRows struct{ pgx.Rows }

func (r pgRows) Close() error { r.Rows.Close(); return nil }

// query runs a read on the pool.
func (st *pgStore) query(ctx context.Context, q string, args ...any) (rowSet, error) {
	rows, err := st.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgRows{rows}, nil
}

const pgBlockCols = `number, hash, parent_hash, timestamp, tx_count, gas_used, gas_limit, base_fee::text, fees_spent::text, cum_txs`

func (st *pgStore) LatestBlocks(ctx context.Context, chainID, before uint64, limit int) ([]BlockRow, error) {
	if before == 0 {
		before = math.MaxInt64
	}
	rows, err := st.query(ctx, `SELECT `+pgBlockCols+` FROM blocks WHERE chain_id=$1 AND number<$2 ORDER BY number DESC LIMIT $3`,
		chainID, int64(min(before, math.MaxInt64)), limit)
	return listRows(rows, err, "blocks", scanBlocks(chainID))
}

func (st *pgStore) Block(ctx context.Context, chainID, number uint64) (BlockRow, error) {
	b, err := scanBlock(chainID, st.pool.QueryRow(ctx, `SELECT `+pgBlockCols+` FROM blocks WHERE chain_id=$1 AND number=$2`, chainID, number))
	return b, notFound(err)
}

func (st *pgStore) BlockByHash(ctx context.Context, chainID uint64, hash common.Hash) (BlockRow, error) {
	b, err := scanBlock(chainID, st.pool.QueryRow(ctx, `SELECT `+pgBlockCols+` FROM blocks WHERE chain_id=$1 AND hash=$2`, chainID, hash.Bytes()))
	return b, notFound(err)
}

func (st *pgStore) BlockAt(ctx context.Context, chainID, ts uint64) (uint64, bool, error) {
	var n uint64
	err := st.pool.QueryRow(ctx, `SELECT number FROM blocks WHERE chain_id=$1 AND timestamp<=$2 ORDER BY timestamp DESC, number DESC LIMIT 1`,
		chainID, int64(min(ts, math.MaxInt64))).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("evmindex: block at: %w", err)
	}
	return n, true, nil
}

const pgTransferCols = `t.seq, t.block_number, t.log_index, t.tx_hash, t.contract, t.kind, t.from_addr, t.to_addr, t.token_id, t.value::text, b.hash, b.timestamp`

func (st *pgStore) Transfers(ctx context.Context, q TransferQuery) ([]TransferRow, error) {
	lo := seqOf(q.StartBlock, 0, 0)
	hi := int64(math.MaxInt64)
	if q.EndBlock != 0 && q.EndBlock < 1<<35 {
		hi = seqOf(q.EndBlock, 0, 0)
	}
	if q.Before != 0 && q.Before < hi {
		hi = q.Before
	}
	var rows rowSet
	var err error
	switch {
	case q.Contract != nil:
		rows, err = st.query(ctx, `SELECT `+pgTransferCols+` FROM (SELECT * FROM transfers t
				WHERE t.chain_id=$1 AND t.contract=$2 AND t.seq>=$3 AND t.seq<$4 ORDER BY t.seq DESC LIMIT $5) t
			JOIN blocks b ON b.chain_id=$1 AND b.number=t.block_number ORDER BY t.seq DESC`, q.ChainID, q.Contract.Bytes(), lo, hi, q.Limit)
	case q.Address != nil:
		rows, err = st.query(ctx, `SELECT `+pgTransferCols+` FROM (SELECT a.seq FROM address_transfers a
				WHERE a.chain_id=$1 AND a.address=$2 AND a.kind=$3 AND a.seq>=$4 AND a.seq<$5 ORDER BY a.seq DESC LIMIT $6) a
			JOIN transfers t ON t.chain_id=$1 AND t.seq=a.seq
			JOIN blocks b ON b.chain_id=$1 AND b.number=t.block_number ORDER BY a.seq DESC`,
			q.ChainID, q.Address.Bytes(), int16(q.Kind), lo, hi, q.Limit)
	default:
		return nil, errors.New("evmindex: transfer query needs a contract or an address")
	}
	if err != nil {
		return nil, fmt.Errorf("evmindex: transfers: %w", err)
	}
	return scanTransfers(rows)
}

// addrs returns the addresses' bytes, for an = ANY parameter.
func addrs(as []common.Address) [][]byte {
	out := make([][]byte, len(as))
	for i, a := range as {
		out[i] = a.Bytes()
	}
	return out
}

func (st *pgStore) Tokens(ctx context.Context, chainID uint64, as []common.Address) (map[common.Address]Token, error) {
	out := make(map[common.Address]Token, len(as))
	rows, err := st.query(ctx, `SELECT address, kind, name, symbol, decimals FROM tokens WHERE chain_id=$1 AND address = ANY($2)`, chainID, addrs(as))
	if err != nil {
		return nil, fmt.Errorf("evmindex: tokens: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t Token
		var a []byte
		var kind, decimals int16
		if err := rows.Scan(&a, &kind, &t.Name, &t.Symbol, &decimals); err != nil {
			return nil, fmt.Errorf("evmindex: tokens: %w", err)
		}
		t.Address, t.Kind, t.Decimals = common.BytesToAddress(a), TokenKind(kind), uint8(decimals)
		out[t.Address] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: tokens: %w", err)
	}
	return out, nil
}

// pgAfterHolding returns the condition of the holdings after key, its
// parameters numbered from n.
func pgAfterHolding(key []byte, n int, args *[]any) string {
	switch {
	case key == nil:
		return ""
	case len(key) <= common.AddressLength:
		*args = append(*args, key)
		return fmt.Sprintf(` AND contract > $%d`, n)
	}
	c, id := key[:common.AddressLength], key[common.AddressLength:]
	*args = append(*args, c, id)
	return fmt.Sprintf(` AND (contract, token_id) > ($%d, $%d)`, n, n+1)
}

func (st *pgStore) Holdings(ctx context.Context, q HoldingQuery) ([]Holding, error) {
	args := []any{q.ChainID, q.Owner.Bytes(), q.Limit}
	filter := ""
	if len(q.Contracts) > 0 {
		args = append(args, addrs(q.Contracts))
		filter = fmt.Sprintf(` AND contract = ANY($%d)`, len(args))
	}
	filter += pgAfterHolding(q.After, len(args)+1, &args)
	var query string
	switch q.Kind {
	case ERC20:
		query = `SELECT contract, NULL::bytea, balance::text FROM erc20_balances WHERE chain_id=$1 AND owner=$2` + filter + spamFilter(q.NoSpam, "erc20_balances") +
			` ORDER BY contract LIMIT $3`
	case ERC1155:
		query = `SELECT contract, token_id, balance::text FROM erc1155_balances WHERE chain_id=$1 AND owner=$2` + filter + ` ORDER BY contract, token_id LIMIT $3`
	case ERC721:
		query = `SELECT contract, token_id, '1' FROM nft_owners WHERE chain_id=$1 AND owner=$2` + filter + ` ORDER BY contract, token_id LIMIT $3`
	default:
		return nil, fmt.Errorf("evmindex: holdings of kind %d", q.Kind)
	}
	rows, err := st.query(ctx, query, args...)
	return listRows(rows, err, "holdings", scanHoldings(q.Kind))
}

func (st *pgStore) HoldingsAt(ctx context.Context, q HoldingQuery) ([]Holding, error) {
	args := []any{q.Owner.Bytes(), q.ChainID, int16(q.Kind), seqOf(*q.AtBlock+1, 0, 0)}
	filter := ""
	if len(q.Contracts) > 0 {
		args = append(args, addrs(q.Contracts))
		filter = ` AND t.contract = ANY($5)`
	}
	rows, err := st.query(ctx, `SELECT t.contract, t.token_id, t.value::text, t.to_addr=$1 FROM address_transfers a
		JOIN transfers t ON t.chain_id=a.chain_id AND t.seq=a.seq
		WHERE a.chain_id=$2 AND a.address=$1 AND a.kind=$3 AND a.seq<$4`+filter+spamFilter(q.NoSpam, "t")+` ORDER BY a.seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: holdings: %w", err)
	}
	return replayHoldings(rows, q)
}

func (st *pgStore) StoredBalance(ctx context.Context, chainID uint64, addr common.Address, block uint64) (*big.Int, uint64, bool, error) {
	var raw string
	var as uint64
	err := st.pool.QueryRow(ctx, `SELECT balance::text, block FROM native_balances WHERE chain_id=$1 AND address=$2 AND block<=$3 ORDER BY block DESC LIMIT 1`,
		chainID, addr.Bytes(), block).Scan(&raw, &as)
	return storedBalance(raw, as, err)
}
