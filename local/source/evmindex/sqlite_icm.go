package evmindex

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// ICMHourly counts the messages of each source, destination and hour from
// the hour holding since through the one holding until (unix seconds), by
// the time of their send (else of their delivery). The rows are at most the
// hours times the pairs of chains that exchanged messages.
func (st *sqliteStore) ICMHourly(ctx context.Context, since, until int64) ([]ICMCount, error) {
	if until < since {
		return nil, nil
	}
	lo, hi := max(since, 0)/3600*3600, min(until/3600*3600+3600, 1<<31-1)
	rows, err := st.r.QueryContext(ctx, `SELECT ((ord >> 32) / 3600) * 3600 AS h, src_chain, dst_chain, COUNT(*) FROM icm_messages
		WHERE ord >= ? AND ord < ? GROUP BY h, src_chain, dst_chain ORDER BY h`, lo<<32, hi<<32)
	return listRows(rows, err, "icm counts", scanICMCounts())
}

// ICMChainTxs counts, for the legacy getTeleporterMetricsByChain, the
// transactions of chainID that sent (kind ICMSend) or delivered (ICMReceive)
// a message.
func (st *sqliteStore) ICMChainTxs(ctx context.Context, chainID uint64, kind ICMEventKind) (uint64, error) {
	var n uint64
	err := st.r.QueryRowContext(ctx, `SELECT COUNT(DISTINCT tx_hash) FROM icm_events WHERE chain_id=? AND kind=?`, chainID, kind).Scan(&n)
	if err != nil && err != sql.ErrNoRows {
		return 0, fmt.Errorf("evmindex: icm transactions: %w", err)
	}
	return n, nil
}

// ICMEvents reads a message's events, oldest first, with their
// transactions' gas.
func (st *sqliteStore) ICMEvents(ctx context.Context, id common.Hash, limit int) ([]ICMRecord, error) {
	rows, err := st.r.QueryContext(ctx, `SELECT e.chain_id, e.block_number, e.tx_hash, e.messenger, e.kind, e.party, e.data, e.ts,
		e.src_chain, e.dst_chain, COALESCE(x.gas_used, 0)
		FROM icm_events e LEFT JOIN txs x ON x.chain_id = e.chain_id AND x.hash = e.tx_hash
		WHERE e.message_id = ? ORDER BY e.ts, e.chain_id, e.block_number, e.log_index LIMIT ?`, id.Bytes(), limit)
	if err != nil {
		return nil, fmt.Errorf("evmindex: icm message: %w", err)
	}
	return scanICMRecords(rows)
}

// scanICMRecords reads ICMEvents' rows.
func scanICMRecords(rows rowSet) ([]ICMRecord, error) {
	defer rows.Close()
	var out []ICMRecord
	for rows.Next() {
		var r ICMRecord
		var hash, messenger, party, src, dst []byte
		if err := rows.Scan(&r.ChainID, &r.Block, &hash, &messenger, &r.Kind, &party, &r.Data, &r.Timestamp, &src, &dst, &r.GasUsed); err != nil {
			return nil, fmt.Errorf("evmindex: icm message: %w", err)
		}
		r.TxHash, r.Messenger, r.Party = common.BytesToHash(hash), common.BytesToAddress(messenger), common.BytesToAddress(party)
		r.Source, r.Destination = common.BytesToHash(src), common.BytesToHash(dst)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: icm message: %w", err)
	}
	return out, nil
}

// icmListing is the query of the messages q selects in icm_messages,
// newest first by ord: either end and either party are branches of a
// union, each reading one index in order. ok is false when q selects
// nothing (an empty Chains).
func icmListing(q ICMQuery) (query string, all []any, ok bool) {
	var conds []string
	var args []any
	eq := func(col string, v []byte) {
		conds = append(conds, col+"=?")
		args = append(args, v)
	}
	if q.Source != nil {
		eq("src_chain", q.Source.Bytes())
	}
	if q.Destination != nil {
		eq("dst_chain", q.Destination.Bytes())
	}
	if q.From != nil {
		eq("sender", q.From.Bytes())
	}
	if q.To != nil {
		eq("recipient", q.To.Bytes())
	}
	before := q.Before
	if before <= 0 {
		before = math.MaxInt64
	}
	conds = append(conds, "ord<?")
	args = append(args, before)
	// Alternatives (either end, either party) are branches of a union, each
	// reading one index in order.
	type alt struct {
		col string
		v   []byte
	}
	branches := [][]alt{nil}
	fork := func(alts []alt) {
		var out [][]alt
		for _, b := range branches {
			for _, a := range alts {
				out = append(out, append(append([]alt{}, b...), a))
			}
		}
		branches = out
	}
	if q.Chains != nil {
		if len(q.Chains) == 0 {
			return "", nil, false
		}
		var alts []alt
		for _, c := range q.Chains {
			alts = append(alts, alt{"src_chain", c.Bytes()}, alt{"dst_chain", c.Bytes()})
		}
		fork(alts)
	}
	if q.Party != nil {
		fork([]alt{{"sender", q.Party.Bytes()}, {"recipient", q.Party.Bytes()}})
	}
	limit := q.Limit + 1
	var sb strings.Builder
	for i, b := range branches {
		if i > 0 {
			sb.WriteString(" UNION ")
		}
		sb.WriteString("SELECT * FROM (SELECT message_id, ord FROM icm_messages WHERE ")
		sb.WriteString(strings.Join(conds, " AND "))
		all = append(all, args...)
		for _, a := range b {
			sb.WriteString(" AND " + a.col + "=?")
			all = append(all, a.v)
		}
		sb.WriteString(" ORDER BY ord DESC LIMIT ?) u" + strconv.Itoa(i))
		all = append(all, limit)
	}
	sb.WriteString(" ORDER BY ord DESC LIMIT ?")
	all = append(all, limit)
	return sb.String(), all, true
}

// ICMMessageIDs selects the messages of q (icmListing).
func (st *sqliteStore) ICMMessageIDs(ctx context.Context, q ICMQuery) ([]ICMHit, error) {
	query, args, ok := icmListing(q)
	if !ok {
		return nil, nil
	}
	rows, err := st.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: icm messages: %w", err)
	}
	return scanICMHits(rows)
}

// scanICMHits reads ICMMessageIDs' rows.
func scanICMHits(rows rowSet) ([]ICMHit, error) {
	defer rows.Close()
	var hits []ICMHit
	for rows.Next() {
		var id []byte
		var h ICMHit
		if err := rows.Scan(&id, &h.Ord); err != nil {
			return nil, fmt.Errorf("evmindex: icm messages: %w", err)
		}
		h.ID = common.BytesToHash(id)
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: icm messages: %w", err)
	}
	return hits, nil
}
