package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// BlockRange selects blocks or transactions of one chain: by time (Unix
// seconds, 0 for no bound), newest first unless Asc, at most Limit (0 for
// all), after the position After when it is set.
type BlockRange struct {
	Start, End int64
	Asc        bool
	Limit      int
	// After, when set, continues a listing after the row at that place
	// (the previous page's last, Tx.Pos or Block.Pos): the rows past it in
	// the listing's order, found by key. Any position is a place to start
	// from, whether a row has it or not.
	After *Pos
}

// Pos is a row's place in the order of a chain's listings: a transaction's
// block height and index in its block, or a block's height (index 0).
type Pos uint64

// posBias stores an index, negative for the genesis transactions, as an
// unsigned number of 24 bits.
const posBias = 1 << 23

// PosOf returns the place of index (within ±2^23) in the block at height
// (below 2^40).
func PosOf(height uint64, index int) Pos {
	return Pos(height<<24 | uint64(index+posBias)&(1<<24-1))
}

// Height returns the block height of p.
func (p Pos) Height() uint64 { return uint64(p) >> 24 }

// Index returns the index in its block of p.
func (p Pos) Index() int { return int(p&(1<<24-1)) - posBias }

// Pos returns the transaction's place in its chain's listings.
func (t *Tx) Pos() Pos { return PosOf(t.Height, t.Index) }

// Pos returns the block's place in its chain's listings.
func (b *Block) Pos() Pos { return PosOf(b.Height, 0) }

// page appends LIMIT.
func (r BlockRange) page(q string, args *[]any) string {
	if r.Limit > 0 {
		q += ` LIMIT ?`
		*args = append(*args, r.Limit)
	}
	return q
}

// after returns the condition of r.After on the height column (of table
// by, "" for none) and, unless noIdx, its idx column: the rows past it in
// the listing's order. The height bound alone is what an index's range
// starts from; the second clause keeps, at that height, the rows past the
// index.
func (r BlockRange) after(by string, noIdx bool, args *[]any) string {
	if r.After == nil {
		return ""
	}
	if by != "" {
		by += "."
	}
	op := " < "
	if r.Asc {
		op = " > "
	}
	h := r.After.Height()
	if noIdx {
		*args = append(*args, h)
		return " AND " + by + "height" + op + "?"
	}
	*args = append(*args, h, h, r.After.Index())
	return " AND " + by + "height" + op[:2] + "= ? AND (" + by + "height" + op + "? OR " + by + "idx" + op + "?)"
}

func (r BlockRange) where(args *[]any) string {
	var w []string
	if r.Start > 0 {
		w = append(w, "time >= ?")
		*args = append(*args, r.Start)
	}
	if r.End > 0 {
		w = append(w, "time <= ?")
		*args = append(*args, r.End)
	}
	if len(w) == 0 {
		return ""
	}
	return " AND " + strings.Join(w, " AND ")
}

// Blocks returns chain's blocks in r.
func (ix *Index) Blocks(ctx context.Context, chain avanet.Chain, r BlockRange) ([]*Block, error) {
	args := []any{string(chain)}
	q := `SELECT height, id, parent, time, type, size, txs FROM blocks WHERE chain=?` + r.where(&args) + r.after("", true, &args) + ` ORDER BY height`
	if !r.Asc {
		q += ` DESC`
	}
	return ix.queryBlocks(ctx, chain, r.page(q, &args), args...)
}

// BlockByID returns chain's block with id.
func (ix *Index) BlockByID(ctx context.Context, chain avanet.Chain, id string) (*Block, bool, error) {
	bs, err := ix.queryBlocks(ctx, chain, `SELECT height, id, parent, time, type, size, txs FROM blocks WHERE chain=? AND id=?`, string(chain), id)
	if err != nil || len(bs) == 0 {
		return nil, false, err
	}
	return bs[0], true, nil
}

func (ix *Index) queryBlocks(ctx context.Context, chain avanet.Chain, q string, args ...any) ([]*Block, error) {
	rows, err := ix.st.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Block
	for rows.Next() {
		b := &Block{Chain: chain}
		var txs string
		if err := rows.Scan(&b.Height, &b.ID, &b.Parent, &b.Time, &b.Type, &b.Size, &txs); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(txs), &b.Txs); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// TxFilter selects transactions of one chain.
type TxFilter struct {
	BlockRange
	Types []string       // the tx types to keep; none means every type
	Addrs []avax.ShortID // keep txs that made or spent a UTXO of one of them
	// L1ValidationID keeps the txs that made or changed that L1 validation
	// (ConvertSubnetToL1Tx, RegisterL1ValidatorTx, SetL1ValidatorWeightTx,
	// IncreaseL1ValidatorBalanceTx, DisableL1ValidatorTx).
	L1ValidationID string
	// Asset keeps the X-Chain txs that spent or made a UTXO of that asset
	// (its CreateAssetTx included).
	Asset string
	// IDs keeps only these txs; nil means no such filter.
	IDs []string
}

// Txs returns chain's transactions that f selects, in block and block
// position order (newest first unless f.Asc).
func (ix *Index) Txs(ctx context.Context, chain avanet.Chain, f TxFilter) ([]*Tx, error) {
	// An asset's txs are read in the order of its asset_txs rows.
	from, by, chainCol := `txs t`, "t", "t.chain"
	args := []any{}
	addrs := len(f.Addrs) > 0
	switch {
	case f.Asset != "":
		from, by = `asset_txs a JOIN txs t ON t.id = a.tx AND a.asset = ?`, "a"
		args = append(args, f.Asset)
	case addrs:
		// The addresses' addr_txs rows drive the query, newest first by
		// their key: a page of one address reads its rows and no more
		// (CROSS JOIN keeps SQLite from walking every tx of the chain in
		// order instead). Several addresses may share a tx: it is listed
		// once.
		from, by, chainCol = `addr_txs x CROSS JOIN txs t ON t.id = x.tx AND x.chain = t.chain AND x.addr = ?`, "x", "x.chain"
		if len(f.Addrs) > 1 {
			from = `(SELECT DISTINCT chain, height, idx, tx FROM addr_txs WHERE addr IN (` + marks(len(f.Addrs)) + `) AND chain = ?) x
				CROSS JOIN txs t ON t.id = x.tx AND x.chain = t.chain`
		}
		for _, a := range f.Addrs {
			args = append(args, a.String())
		}
		if len(f.Addrs) > 1 {
			args = append(args, string(chain))
		}
		addrs = false
	}
	args = append(args, string(chain))
	q := `SELECT t.id, t.chain, t.height, t.idx, t.type, t.time, t.body FROM ` + from + ` WHERE ` + chainCol + `=?` + f.where(&args) + f.after(by, false, &args)
	if len(f.Types) > 0 {
		q += ` AND t.type IN (` + marks(len(f.Types)) + `)`
		for _, t := range f.Types {
			args = append(args, t)
		}
	}
	if f.IDs != nil {
		q += ` AND t.id IN (` + marks(len(f.IDs)) + `)`
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	if f.L1ValidationID != "" {
		q += ` AND t.id IN (SELECT tx FROM l1_txs WHERE validation_id = ?)`
		args = append(args, f.L1ValidationID)
	}
	if addrs {
		q += ` AND t.id IN (SELECT tx FROM addr_txs WHERE addr IN (` + marks(len(f.Addrs)) + `) AND chain = t.chain)`
		for _, a := range f.Addrs {
			args = append(args, a.String())
		}
	}
	dir := " DESC"
	if f.Asc {
		dir = ""
	}
	q = f.page(q+` ORDER BY `+by+`.height`+dir+`, `+by+`.idx`+dir, &args)
	rows, err := ix.st.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Tx
	for rows.Next() {
		t := &Tx{}
		var c, body string
		if err := rows.Scan(&t.ID, &c, &t.Height, &t.Index, &t.Type, &t.Time, &body); err != nil {
			return nil, err
		}
		t.Chain, t.Body = avanet.Chain(c), json.RawMessage(body)
		out = append(out, t)
	}
	return out, rows.Err()
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// TxUTXOs returns the UTXOs a transaction made (in output order) and those
// it spent.
func (ix *Index) TxUTXOs(ctx context.Context, txID string) (emitted, consumed []*UTXO, err error) {
	emitted, err = ix.queryUTXOsPrepared(ctx, `SELECT `+utxoColumns+` FROM utxos u LEFT JOIN spends s ON s.utxo = u.id
		WHERE COALESCE(u.emitted_by, u.tx)=? ORDER BY u.output_index`, txID)
	if err != nil {
		return nil, nil, err
	}
	consumed, err = ix.queryUTXOsPrepared(ctx, `SELECT `+utxoColumns+` FROM spends s JOIN utxos u ON u.id = s.utxo
		WHERE s.tx=? ORDER BY u.tx, u.output_index`, txID)
	return emitted, consumed, err
}

// BlockID returns the id of chain's block at height.
func (ix *Index) BlockID(ctx context.Context, chain avanet.Chain, height uint64) (string, error) {
	var id string
	st, err := ix.st.prepared(ctx, `SELECT id FROM blocks INDEXED BY blocks_height WHERE chain=? AND height=?`)
	if err != nil {
		return "", err
	}
	err = st.QueryRowContext(ctx, string(chain), height).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}
