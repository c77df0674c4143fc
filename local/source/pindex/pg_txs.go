package pindex

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The PostgreSQL store's queries are written with ? placeholders, as the
// SQLite store's helpers (timeWhere, limitClause) build them, and numbered
// by pgNumbered before they run.

// pgNumbered numbers q's ? placeholders $1, $2... for PostgreSQL (q holds
// no ? in a literal).
func pgNumbered(q string) string {
	var sb strings.Builder
	n := 0
	for _, part := range strings.SplitAfter(q, "?") {
		if p, ok := strings.CutSuffix(part, "?"); ok {
			n++
			sb.WriteString(p + "$" + strconv.Itoa(n))
			continue
		}
		sb.WriteString(part)
	}
	return sb.String()
}

// pgAfterPos is the keyset condition of r.After on table by's height and,
// unless noIdx, idx columns: a row comparison, which PostgreSQL answers as
// one range of the index those columns lead.
func pgAfterPos(r BlockRange, by string, noIdx bool, args *[]any) string {
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
	if noIdx {
		*args = append(*args, int64(r.After.Height()))
		return " AND " + by + "height" + op + "?"
	}
	*args = append(*args, int64(r.After.Height()), r.After.Index())
	return " AND (" + by + "height, " + by + "idx)" + op + "(?, ?)"
}

// Block returns chain's block at height.
func (st *pgStore) Block(ctx context.Context, chain avanet.Chain, height uint64) (*Block, bool, error) {
	bs, err := st.queryBlocks(ctx, chain, `SELECT height, id, parent, time, type, size, txs FROM blocks WHERE chain=$1 AND height=$2`, string(chain), int64(height))
	if err != nil || len(bs) == 0 {
		return nil, false, err
	}
	return bs[0], true, nil
}

// Tx returns a transaction by id.
func (st *pgStore) Tx(ctx context.Context, id string) (*Tx, bool, error) {
	t := &Tx{ID: id}
	var chain, body string
	err := st.pool.QueryRow(ctx, `SELECT chain, height, idx, type, time, body FROM txs WHERE id=$1`, id).
		Scan(&chain, &t.Height, &t.Index, &t.Type, &t.Time, &body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	t.Chain, t.Body = avanet.Chain(chain), json.RawMessage(body)
	return t, true, nil
}

// Blocks returns chain's blocks in r.
func (st *pgStore) Blocks(ctx context.Context, chain avanet.Chain, r BlockRange) ([]*Block, error) {
	args := []any{string(chain)}
	q := `SELECT height, id, parent, time, type, size, txs FROM blocks WHERE chain=?` + timeWhere(r, &args) + pgAfterPos(r, "", true, &args) + ` ORDER BY height`
	if !r.Asc {
		q += ` DESC`
	}
	return st.queryBlocks(ctx, chain, pgNumbered(limitClause(r, q, &args)), args...)
}

// Txs returns chain's transactions that f selects, in block and block
// position order (newest first unless f.Asc): the rows of the index that
// drives the listing (asset_txs for an asset's, addr_txs for addresses',
// txs_height otherwise), from the page's keyset on.
func (st *pgStore) Txs(ctx context.Context, chain avanet.Chain, f TxFilter) ([]*Tx, error) {
	from, by, chainCol := `txs t`, "t", "t.chain"
	args := []any{}
	switch {
	case f.Asset != "":
		from, by = `asset_txs a JOIN txs t ON t.id = a.tx AND a.asset = ?`, "a"
		args = append(args, f.Asset)
	case len(f.Addrs) == 1:
		from, by, chainCol = `addr_txs x JOIN txs t ON t.id = x.tx AND x.chain = t.chain AND x.addr = ?`, "x", "x.chain"
		args = append(args, f.Addrs[0].String())
	case len(f.Addrs) > 1:
		// Several addresses may share a tx: it is listed once.
		from, by, chainCol = `(SELECT DISTINCT chain, height, idx, tx FROM addr_txs WHERE addr = ANY(?) AND chain = ?) x
			JOIN txs t ON t.id = x.tx AND x.chain = t.chain`, "x", "x.chain"
		args = append(args, addrStrings(f.Addrs), string(chain))
	}
	args = append(args, string(chain))
	q := `SELECT t.id, t.chain, t.height, t.idx, t.type, t.time, t.body FROM ` + from + ` WHERE ` + chainCol + `=?` +
		timeWhere(f.BlockRange, &args) + pgAfterPos(f.BlockRange, by, false, &args)
	if len(f.Types) > 0 {
		q += ` AND t.type = ANY(?)`
		args = append(args, f.Types)
	}
	if f.IDs != nil {
		q += ` AND t.id = ANY(?)`
		args = append(args, append([]string{}, f.IDs...))
	}
	if f.L1ValidationID != "" {
		q += ` AND t.id IN (SELECT tx FROM l1_txs WHERE validation_id = ?)`
		args = append(args, f.L1ValidationID)
	}
	if f.Asset != "" && len(f.Addrs) > 0 {
		q += ` AND t.id IN (SELECT tx FROM addr_txs WHERE addr = ANY(?) AND chain = t.chain)`
		args = append(args, addrStrings(f.Addrs))
	}
	dir := " DESC"
	if f.Asc {
		dir = ""
	}
	q = limitClause(f.BlockRange, q+` ORDER BY `+by+`.height`+dir+`, `+by+`.idx`+dir, &args)
	rows, err := st.pool.Query(ctx, pgNumbered(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanTxs(rows)
}

// BlockID returns the id of chain's block at height.
func (st *pgStore) BlockID(ctx context.Context, chain avanet.Chain, height uint64) (string, error) {
	var id string
	err := st.pool.QueryRow(ctx, `SELECT id FROM blocks WHERE chain=$1 AND height=$2`, string(chain), int64(height)).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// addrStrings is addrs as the text the address tables hold.
func addrStrings(addrs []avax.ShortID) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = a.String()
	}
	return out
}
