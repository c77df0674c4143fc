package evmindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// TxPos is a transaction's position in its chain: block<<24 | index. It
// orders transactions and is the cursor of their listings.
type TxPos uint64

// PosOf returns the position of transaction index of block.
func PosOf(block uint64, index uint) TxPos { return TxPos(block<<24 | uint64(index&(1<<24-1))) }

// Block returns the block number of p.
func (p TxPos) Block() uint64 { return uint64(p) >> 24 }

// Index returns the transaction's index in its block.
func (p TxPos) Index() uint { return uint(p & (1<<24 - 1)) }

// maxPos is past every position.
const maxPos = TxPos(math.MaxInt64)

// ListedTx is a transaction of a listing, with its block and the four first
// bytes of its input (its method selector) instead of the whole input.
type ListedTx struct {
	Tx
	BlockNumber          uint64
	BlockHash            common.Hash
	BlockTimestamp       uint64
	MaxFeePerGas         *big.Int // nil for legacy transactions
	MaxPriorityFeePerGas *big.Int
	Selector             []byte // empty for a plain transfer
}

// Pos returns the transaction's position.
func (t *ListedTx) Pos() TxPos { return PosOf(t.BlockNumber, t.Index) }

const listedTxCols = `x.hash, x.block_number, x.tx_index, x.type, x.from_addr, x.to_addr, x.value, x.nonce, x.gas_limit, x.gas_used,
	x.gas_price, x.max_fee, x.max_priority_fee, x.status, substr(x.input, 1, 4), b.hash, b.timestamp`

func scanListedTxs(rows *sql.Rows) ([]ListedTx, error) {
	defer rows.Close()
	var out []ListedTx
	for rows.Next() {
		var t ListedTx
		var hash, from, to, bh []byte
		var value, price string
		var maxFee, maxPrio sql.NullString
		if err := rows.Scan(&hash, &t.BlockNumber, &t.Index, &t.Type, &from, &to, &value, &t.Nonce, &t.GasLimit, &t.GasUsed,
			&price, &maxFee, &maxPrio, &t.Status, &t.Selector, &bh, &t.BlockTimestamp); err != nil {
			return nil, fmt.Errorf("evmindex: transactions: %w", err)
		}
		t.Hash, t.From, t.BlockHash = common.BytesToHash(hash), common.BytesToAddress(from), common.BytesToHash(bh)
		t.MaxFeePerGas, t.MaxPriorityFeePerGas = storedTx(&t.Tx, to, value, price, maxFee, maxPrio)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: transactions: %w", err)
	}
	return out, nil
}

// storedTx fills t's fields the store keeps as text or nullable (its
// recipient, value, price and so its fee) and returns its EIP-1559 fee caps
// (nil for a legacy transaction).
func storedTx(t *Tx, to []byte, value, price string, maxFee, maxPrio sql.NullString) (feeCap, tipCap *big.Int) {
	if to != nil {
		a := common.BytesToAddress(to)
		t.To = &a
	}
	t.Value, _ = new(big.Int).SetString(value, 10)
	t.EffectiveGasPrice, _ = new(big.Int).SetString(price, 10)
	t.Fee = new(big.Int).Mul(t.EffectiveGasPrice, new(big.Int).SetUint64(t.GasUsed))
	if maxFee.Valid {
		feeCap, _ = new(big.Int).SetString(maxFee.String, 10)
	}
	if maxPrio.Valid {
		tipCap, _ = new(big.Int).SetString(maxPrio.String, 10)
	}
	return feeCap, tipCap
}

// Range selects positions From <= p < To, newest first unless Asc. Zero To
// means no bound.
type Range struct {
	From, To TxPos
	Asc      bool
}

// Blocks returns the positions of blocks [start, end); end 0 means no bound.
func Blocks(start, end uint64) Range {
	r := Range{From: PosOf(start, 0), To: maxPos}
	if end != 0 && end < 1<<39 {
		r.To = PosOf(end, 0)
	}
	return r
}

// After narrows r to the positions after cursor c in r's order.
func (r Range) After(c TxPos) Range {
	if r.Asc {
		r.From = max(r.From, c+1)
	} else {
		r.To = min(r.To, c)
	}
	return r
}

func (r Range) to() TxPos {
	if r.To == 0 {
		return maxPos
	}
	return r.To
}

// bounds returns r's bounds as (block, index) pairs for row comparisons.
func (r Range) bounds() []any {
	to := r.to()
	return []any{r.From.Block(), r.From.Index(), to.Block(), to.Index()}
}

func (r Range) order(cols ...string) string {
	dir := " DESC"
	if r.Asc {
		dir = " ASC"
	}
	return " ORDER BY " + strings.Join(cols, dir+", ") + dir
}

// AddressTxQuery selects an address's transactions.
type AddressTxQuery struct {
	ChainID uint64
	Address common.Address
	// Native keeps the transactions the address sent or received itself
	// (not only through their token transfers or internal transactions).
	Native bool
	// NoSpam leaves out the transactions in which the address's only part is
	// transfers of spam tokens (Token.Spam).
	NoSpam bool
	Range  Range
	Limit  int
}

// AddressTxs returns the transactions an address took part in: as their
// sender or recipient, or through one of their token transfers or listed
// internal transactions. One index range.
func (ix *Index) AddressTxs(ctx context.Context, q AddressTxQuery) ([]ListedTx, error) {
	// Each filter has its partial index (native rows are never spam). The
	// plans are named: without statistics SQLite would rather scan a
	// chain's transactions by primary key than look them up by position.
	filter, from := "", "address_txs a"
	switch {
	case q.Native:
		filter, from = " AND a.native=1", "address_txs a INDEXED BY address_txs_native"
	case q.NoSpam:
		filter, from = " AND a.spam=0", "address_txs a INDEXED BY address_txs_nospam"
	}
	args := append([]any{q.ChainID, q.Address.Bytes()}, q.Range.bounds()...)
	rows, err := ix.r.QueryContext(ctx, `SELECT `+listedTxCols+` FROM `+from+`
		JOIN txs x INDEXED BY txs_pos ON x.chain_id=a.chain_id AND x.block_number=a.block_number AND x.tx_index=a.tx_index
		JOIN blocks b ON b.chain_id=a.chain_id AND b.number=a.block_number
		WHERE a.chain_id=? AND a.address=?`+filter+` AND (a.block_number, a.tx_index) >= (?, ?) AND (a.block_number, a.tx_index) < (?, ?)`+
		q.Range.order("a.block_number", "a.tx_index")+` LIMIT ?`, append(args, q.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: address transactions: %w", err)
	}
	return scanListedTxs(rows)
}

// TxStatus filters transactions by outcome.
type TxStatus int

// Transaction status filters.
const (
	AnyStatus TxStatus = iota
	Succeeded
	Failed
)

// ChainTxs returns the chain's transactions in r with status, newest first
// unless r.Asc. One index range (failed transactions have their own index).
func (ix *Index) ChainTxs(ctx context.Context, chainID uint64, status TxStatus, r Range, limit int) ([]ListedTx, error) {
	filter, index := "", "txs_pos"
	switch status {
	case Succeeded:
		filter = " AND x.status=1"
	case Failed:
		filter, index = " AND x.status=0", "txs_failed"
	}
	args := append([]any{chainID}, r.bounds()...)
	rows, err := ix.r.QueryContext(ctx, `SELECT `+listedTxCols+` FROM txs x INDEXED BY `+index+`
		JOIN blocks b ON b.chain_id=x.chain_id AND b.number=x.block_number
		WHERE x.chain_id=?`+filter+` AND (x.block_number, x.tx_index) >= (?, ?) AND (x.block_number, x.tx_index) < (?, ?)`+
		r.order("x.block_number", "x.tx_index")+` LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: chain transactions: %w", err)
	}
	return scanListedTxs(rows)
}

// Created returns the contracts the creation transactions among txs
// created, by transaction hash.
func (ix *Index) Created(ctx context.Context, chainID uint64, txs []ListedTx) (map[common.Hash]common.Address, error) {
	out := map[common.Hash]common.Address{}
	for _, t := range txs {
		if t.To != nil {
			continue
		}
		var a []byte
		err := ix.r.QueryRowContext(ctx, `SELECT address FROM contracts INDEXED BY contracts_origin WHERE chain_id=? AND origin=? AND seq>=? AND seq<? AND tx_hash=? AND deployer=origin`,
			chainID, t.From.Bytes(), creationSeq(t.BlockNumber, 0), creationSeq(t.BlockNumber+1, 0), t.Hash.Bytes()).Scan(&a)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, fmt.Errorf("evmindex: created contract: %w", err)
		default:
			out[t.Hash] = common.BytesToAddress(a)
		}
	}
	return out, nil
}

// TxParts are the token transfers and listed internal transactions of some
// transactions in which an address took part, by transaction hash.
type TxParts struct {
	Transfers map[common.Hash][]TransferRow
	Internals map[common.Hash][]InternalTx
}

// PartsOf returns the token transfers and listed internal transactions of
// txs whose sender or recipient is addr, in their order within each
// transaction.
func (ix *Index) PartsOf(ctx context.Context, chainID uint64, addr common.Address, txs []ListedTx) (*TxParts, error) {
	p := &TxParts{Transfers: map[common.Hash][]TransferRow{}, Internals: map[common.Hash][]InternalTx{}}
	if len(txs) == 0 {
		return p, nil
	}
	args := []any{chainID, addr.Bytes(), addr.Bytes()}
	for _, t := range txs {
		args = append(args, t.Hash.Bytes())
	}
	in := ` IN (?` + strings.Repeat(",?", len(txs)-1) + `)`
	rows, err := ix.r.QueryContext(ctx, `SELECT `+transferCols+` FROM transfers t INDEXED BY transfers_tx JOIN blocks b ON b.chain_id=t.chain_id AND b.number=t.block_number
		WHERE t.chain_id=? AND (t.from_addr=? OR t.to_addr=?) AND t.tx_hash`+in+` ORDER BY t.seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: transaction transfers: %w", err)
	}
	trs, err := scanTransfers(rows)
	if err != nil {
		return nil, err
	}
	for _, t := range trs {
		p.Transfers[t.TxHash] = append(p.Transfers[t.TxHash], t)
	}
	irows, err := ix.r.QueryContext(ctx, `SELECT tx_hash, idx, type, from_addr, to_addr, value, gas, gas_used, reverted FROM internal_txs
		WHERE chain_id=? AND (from_addr=? OR to_addr=?) AND `+listedFrameSQL+` AND tx_hash`+in+` ORDER BY tx_hash, idx`, args...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: transaction internals: %w", err)
	}
	defer irows.Close()
	for irows.Next() {
		var h []byte
		var idx int
		it, err := scanInternal(irows, &h, &idx)
		if err != nil {
			return nil, err
		}
		p.Internals[common.BytesToHash(h)] = append(p.Internals[common.BytesToHash(h)], it)
	}
	if err := irows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: transaction internals: %w", err)
	}
	return p, nil
}

// scanInternal scans type, from, to, value, gas, gas used and reverted after
// the columns in pre.
func scanInternal(rows *sql.Rows, pre ...any) (InternalTx, error) {
	var it InternalTx
	var f, t []byte
	var v string
	if err := rows.Scan(append(pre, &it.Type, &f, &t, &v, &it.Gas, &it.GasUsed, &it.Reverted)...); err != nil {
		return it, fmt.Errorf("evmindex: internal transactions: %w", err)
	}
	it.From, it.To = common.BytesToAddress(f), common.BytesToAddress(t)
	it.Value, _ = new(big.Int).SetString(v, 10)
	return it, nil
}
