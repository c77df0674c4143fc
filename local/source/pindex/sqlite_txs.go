package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/avaedge/avaedge/avanet"
)

// Block returns chain's block at height.
func (st *sqliteStore) Block(ctx context.Context, chain avanet.Chain, height uint64) (*Block, bool, error) {
	b := &Block{Chain: chain, Height: height}
	var txs string
	err := st.r.QueryRowContext(ctx, `SELECT id, parent, time, type, size, txs FROM blocks WHERE chain=? AND height=?`, string(chain), height).
		Scan(&b.ID, &b.Parent, &b.Time, &b.Type, &b.Size, &txs)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := json.Unmarshal([]byte(txs), &b.Txs); err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// Tx returns a transaction by id.
func (st *sqliteStore) Tx(ctx context.Context, id string) (*Tx, bool, error) {
	t := &Tx{ID: id}
	var chain, body string
	stmt, err := st.prepared(ctx, `SELECT chain, height, idx, type, time, body FROM txs WHERE id=?`)
	if err != nil {
		return nil, false, err
	}
	err = stmt.QueryRowContext(ctx, id).Scan(&chain, &t.Height, &t.Index, &t.Type, &t.Time, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	t.Chain, t.Body = avanet.Chain(chain), json.RawMessage(body)
	return t, true, nil
}

// limitClause appends r's LIMIT to q.
func limitClause(r BlockRange, q string, args *[]any) string {
	if r.Limit > 0 {
		q += ` LIMIT ?`
		*args = append(*args, r.Limit)
	}
	return q
}

// afterPos returns the condition of r.After on the height column (of table
// by, "" for none) and, unless noIdx, its idx column: the rows past it in
// the listing's order. The height bound alone is what an index's range
// starts from; the second clause keeps, at that height, the rows past the
// index.
func afterPos(r BlockRange, by string, noIdx bool, args *[]any) string {
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

func timeWhere(r BlockRange, args *[]any) string {
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
func (st *sqliteStore) Blocks(ctx context.Context, chain avanet.Chain, r BlockRange) ([]*Block, error) {
	args := []any{string(chain)}
	q := `SELECT height, id, parent, time, type, size, txs FROM blocks WHERE chain=?` + timeWhere(r, &args) + afterPos(r, "", true, &args) + ` ORDER BY height`
	if !r.Asc {
		q += ` DESC`
	}
	return st.queryBlocks(ctx, chain, limitClause(r, q, &args), args...)
}

// Txs returns chain's transactions that f selects, in block and block
// position order (newest first unless f.Asc).
func (st *sqliteStore) Txs(ctx context.Context, chain avanet.Chain, f TxFilter) ([]*Tx, error) {
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
	q := `SELECT t.id, t.chain, t.height, t.idx, t.type, t.time, t.body FROM ` + from + ` WHERE ` + chainCol + `=?` + timeWhere(f.BlockRange, &args) + afterPos(f.BlockRange, by, false, &args)
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
	q = limitClause(f.BlockRange, q+` ORDER BY `+by+`.height`+dir+`, `+by+`.idx`+dir, &args)
	rows, err := st.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanTxs(rows)
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// BlockID returns the id of chain's block at height.
func (st *sqliteStore) BlockID(ctx context.Context, chain avanet.Chain, height uint64) (string, error) {
	var id string
	stmt, err := st.prepared(ctx, blockIDQuery)
	if err != nil {
		return "", err
	}
	err = stmt.QueryRowContext(ctx, string(chain), height).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}
