package evmindex

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

const blockCols = `number, hash, parent_hash, timestamp, tx_count, gas_used, gas_limit, base_fee, fees_spent, cum_txs`

func scanBlock(chainID uint64, sc interface{ Scan(...any) error }) (BlockRow, error) {
	b := BlockRow{ChainID: chainID}
	var hash, parent []byte
	var baseFee, fees string
	if err := sc.Scan(&b.Number, &hash, &parent, &b.Timestamp, &b.TxCount, &b.GasUsed, &b.GasLimit, &baseFee, &fees, &b.CumulativeTxs); err != nil {
		return b, err
	}
	b.Hash, b.ParentHash = common.BytesToHash(hash), common.BytesToHash(parent)
	b.BaseFee, _ = new(big.Int).SetString(baseFee, 10)
	b.FeesSpent, _ = new(big.Int).SetString(fees, 10)
	return b, nil
}

// LatestBlocks returns up to limit blocks below before (all when before is
// 0), newest first.
func (st *sqliteStore) LatestBlocks(ctx context.Context, chainID, before uint64, limit int) ([]BlockRow, error) {
	if before == 0 {
		before = math.MaxInt64
	}
	rows, err := st.r.QueryContext(ctx, `SELECT `+blockCols+` FROM blocks WHERE chain_id=? AND number<? ORDER BY number DESC LIMIT ?`, chainID, int64(min(before, math.MaxInt64)), limit)
	return listRows(rows, err, "blocks", scanBlocks(chainID))
}

// Block returns stored block number.
func (st *sqliteStore) Block(ctx context.Context, chainID, number uint64) (BlockRow, error) {
	b, err := scanBlock(chainID, st.r.QueryRowContext(ctx, `SELECT `+blockCols+` FROM blocks WHERE chain_id=? AND number=?`, chainID, number))
	return b, notFound(err)
}

// BlockByHash returns the stored block with hash.
func (st *sqliteStore) BlockByHash(ctx context.Context, chainID uint64, hash common.Hash) (BlockRow, error) {
	b, err := scanBlock(chainID, st.r.QueryRowContext(ctx, `SELECT `+blockCols+` FROM blocks WHERE chain_id=? AND hash=?`, chainID, hash.Bytes()))
	return b, notFound(err)
}

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("evmindex: %w", err)
	}
	return nil
}

const transferCols = `t.seq, t.block_number, t.log_index, t.tx_hash, t.contract, t.kind, t.from_addr, t.to_addr, t.token_id, t.value, b.hash, b.timestamp`

// Transfers runs q as one index range scan.
func (st *sqliteStore) Transfers(ctx context.Context, q TransferQuery) ([]TransferRow, error) {
	lo := seqOf(q.StartBlock, 0, 0)
	hi := int64(math.MaxInt64)
	if q.EndBlock != 0 && q.EndBlock < 1<<35 {
		hi = seqOf(q.EndBlock, 0, 0)
	}
	if q.Before != 0 && q.Before < hi {
		hi = q.Before
	}
	var rows *sql.Rows
	var err error
	switch {
	case q.Contract != nil:
		rows, err = st.r.QueryContext(ctx, `SELECT `+transferCols+` FROM transfers t JOIN blocks b ON b.chain_id=t.chain_id AND b.number=t.block_number
			WHERE t.chain_id=? AND t.contract=? AND t.seq>=? AND t.seq<? ORDER BY t.seq DESC LIMIT ?`, q.ChainID, q.Contract.Bytes(), lo, hi, q.Limit)
	case q.Address != nil:
		rows, err = st.r.QueryContext(ctx, `SELECT `+transferCols+` FROM address_transfers a
			JOIN transfers t ON t.chain_id=a.chain_id AND t.seq=a.seq
			JOIN blocks b ON b.chain_id=t.chain_id AND b.number=t.block_number
			WHERE a.chain_id=? AND a.address=? AND a.kind=? AND a.seq>=? AND a.seq<? ORDER BY a.seq DESC LIMIT ?`, q.ChainID, q.Address.Bytes(), q.Kind, lo, hi, q.Limit)
	default:
		return nil, errors.New("evmindex: transfer query needs a contract or an address")
	}
	if err != nil {
		return nil, fmt.Errorf("evmindex: transfers: %w", err)
	}
	return scanTransfers(rows)
}

// rowSet is a query's rows, from either store (*sql.Rows, or pgx's rows
// through pgRows).
type rowSet interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

func scanTransfers(rows rowSet) ([]TransferRow, error) {
	defer rows.Close()
	var out []TransferRow
	for rows.Next() {
		var r TransferRow
		var tx, contract, from, to, id, bh []byte
		var value string
		if err := rows.Scan(&r.Seq, &r.BlockNumber, &r.LogIndex, &tx, &contract, &r.Kind, &from, &to, &id, &value, &bh, &r.BlockTimestamp); err != nil {
			return nil, fmt.Errorf("evmindex: transfers: %w", err)
		}
		r.TxHash, r.Contract = common.BytesToHash(tx), common.BytesToAddress(contract)
		r.From, r.To, r.BlockHash = common.BytesToAddress(from), common.BytesToAddress(to), common.BytesToHash(bh)
		r.BatchIndex = uint(r.Seq & (1<<10 - 1))
		if id != nil {
			r.TokenID = new(big.Int).SetBytes(id)
		}
		r.Value, _ = new(big.Int).SetString(value, 10)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Tokens returns the stored tokens among addrs, 500 to a query.
func (st *sqliteStore) Tokens(ctx context.Context, chainID uint64, addrs []common.Address) (map[common.Address]Token, error) {
	out := make(map[common.Address]Token, len(addrs))
	uniq := make([]common.Address, 0, len(addrs))
	seen := make(map[common.Address]bool, len(addrs))
	for _, a := range addrs {
		if !seen[a] {
			seen[a] = true
			uniq = append(uniq, a)
		}
	}
	for lo := 0; lo < len(uniq); lo += 500 {
		chunk := uniq[lo:min(lo+500, len(uniq))]
		args := []any{chainID}
		for _, a := range chunk {
			args = append(args, a.Bytes())
		}
		rows, err := st.r.QueryContext(ctx, `SELECT address, kind, name, symbol, decimals FROM tokens WHERE chain_id=? AND address IN (?`+
			strings.Repeat(",?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("evmindex: tokens: %w", err)
		}
		for rows.Next() {
			var t Token
			var a []byte
			if err := rows.Scan(&a, &t.Kind, &t.Name, &t.Symbol, &t.Decimals); err != nil {
				rows.Close()
				return nil, fmt.Errorf("evmindex: tokens: %w", err)
			}
			t.Address = common.BytesToAddress(a)
			out[t.Address] = t
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("evmindex: tokens: %w", err)
		}
	}
	return out, nil
}

// Holdings reads the current balances: one index range.
func (st *sqliteStore) Holdings(ctx context.Context, q HoldingQuery) ([]Holding, error) {
	filter, args := contractFilter(q.Contracts)
	filter += afterHolding(q.After, &args)
	var query string
	switch q.Kind {
	case ERC20:
		query = `SELECT contract, NULL, balance FROM erc20_balances WHERE chain_id=? AND owner=?` + filter + spamFilter(q.NoSpam, "erc20_balances") + ` ORDER BY contract LIMIT ?`
	case ERC1155:
		query = `SELECT contract, token_id, balance FROM erc1155_balances WHERE chain_id=? AND owner=?` + filter + ` ORDER BY contract, token_id LIMIT ?`
	case ERC721:
		query = `SELECT contract, token_id, '1' FROM nft_owners WHERE chain_id=? AND owner=?` + filter + ` ORDER BY contract, token_id LIMIT ?`
	default:
		return nil, fmt.Errorf("evmindex: holdings of kind %d", q.Kind)
	}
	all := append([]any{q.ChainID, q.Owner.Bytes()}, args...)
	rows, err := st.r.QueryContext(ctx, query, append(all, q.Limit)...)
	return listRows(rows, err, "holdings", scanHoldings(q.Kind))
}

// afterHolding returns the condition of the holdings after key.
func afterHolding(key []byte, args *[]any) string {
	switch {
	case key == nil:
		return ""
	case len(key) <= common.AddressLength:
		*args = append(*args, key)
		return ` AND contract > ?`
	}
	c, id := key[:common.AddressLength], key[common.AddressLength:]
	// contract >= ? bounds the index's range; the OR keeps, in that
	// contract, the ids past the key's.
	*args = append(*args, c, c, id)
	return ` AND contract >= ? AND (contract > ? OR token_id > ?)`
}

// spamFilter leaves out the rows of table whose contract is a spam token,
// when noSpam is set.
func spamFilter(noSpam bool, table string) string {
	if !noSpam {
		return ""
	}
	return ` AND NOT EXISTS (SELECT 1 FROM tokens k WHERE k.chain_id=` + table + `.chain_id AND k.address=` + table + `.contract AND ` + spamSQL + `)`
}

func contractFilter(cs []common.Address) (string, []any) {
	if len(cs) == 0 {
		return "", nil
	}
	args := make([]any, len(cs))
	for i, c := range cs {
		args[i] = c.Bytes()
	}
	return ` AND contract IN (?` + strings.Repeat(",?", len(cs)-1) + `)`, args
}

// holdingsAt replays the owner's transfers of q.Kind up to q.AtBlock.
func (st *sqliteStore) HoldingsAt(ctx context.Context, q HoldingQuery) ([]Holding, error) {
	filter, args := contractFilter(q.Contracts)
	filter = strings.ReplaceAll(filter, "contract", "t.contract")
	all := append([]any{q.Owner.Bytes(), q.ChainID, q.Owner.Bytes(), q.Kind, seqOf(*q.AtBlock+1, 0, 0)}, args...)
	rows, err := st.r.QueryContext(ctx, `SELECT t.contract, t.token_id, t.value, t.to_addr=? FROM address_transfers a
		JOIN transfers t ON t.chain_id=a.chain_id AND t.seq=a.seq
		WHERE a.chain_id=? AND a.address=? AND a.kind=? AND a.seq<?`+filter+spamFilter(q.NoSpam, "t"), all...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: holdings: %w", err)
	}
	return replayHoldings(rows, q)
}

// replayHoldings sums the owner's transfers of q.Kind (contract, token
// id, value, whether the owner received it), in order, into its holdings
// after them: q's page of those left positive, by contract and token id.
func replayHoldings(rows rowSet, q HoldingQuery) ([]Holding, error) {
	defer rows.Close()
	type key struct {
		c  common.Address
		id string
	}
	bal := map[key]*Holding{}
	for rows.Next() {
		var c, id []byte
		var v string
		var in bool
		if err := rows.Scan(&c, &id, &v, &in); err != nil {
			return nil, fmt.Errorf("evmindex: holdings: %w", err)
		}
		k := key{common.BytesToAddress(c), string(id)}
		h := bal[k]
		if h == nil {
			h = &Holding{Contract: k.c, Kind: q.Kind, Balance: new(big.Int)}
			if id != nil {
				h.TokenID = new(big.Int).SetBytes(id)
			}
			bal[k] = h
		}
		amount, _ := new(big.Int).SetString(v, 10)
		if q.Kind == ERC721 {
			// Ownership, not a sum: the last transfer decides.
			if in {
				h.Balance.SetInt64(1)
			} else {
				h.Balance.SetInt64(0)
			}
			continue
		}
		if in {
			h.Balance.Add(h.Balance, amount)
		} else {
			h.Balance.Sub(h.Balance, amount)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: holdings: %w", err)
	}
	out := make([]Holding, 0, len(bal))
	for k, h := range bal {
		if h.Balance.Sign() > 0 {
			_ = k
			out = append(out, *h)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if c := out[i].Contract.Cmp(out[j].Contract); c != 0 {
			return c < 0
		}
		if out[i].TokenID == nil || out[j].TokenID == nil {
			return false
		}
		return out[i].TokenID.Cmp(out[j].TokenID) < 0
	})
	if q.After != nil {
		out = out[sort.Search(len(out), func(i int) bool { return bytes.Compare(out[i].Key(), q.After) > 0 }):]
	}
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// StoredBalance reads the balance kept last at or before block.
func (st *sqliteStore) StoredBalance(ctx context.Context, chainID uint64, addr common.Address, block uint64) (*big.Int, uint64, bool, error) {
	var raw string
	var as uint64
	err := st.r.QueryRowContext(ctx, `SELECT balance, block FROM native_balances WHERE chain_id=? AND address=? AND block<=? ORDER BY block DESC LIMIT 1`,
		chainID, addr.Bytes(), block).Scan(&raw, &as)
	return storedBalance(raw, as, err)
}
