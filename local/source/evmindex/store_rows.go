package evmindex

import (
	"database/sql"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Both stores select the same columns for the same listings (the SQL
// differs: $n against ?, types); these read them from either's rows, each
// store running its own text.

// listRows reads rows, one T a row by scan, and closes them; err is the
// query's. what names the listing in the query's and the rows' errors;
// scan's are returned as scan made them.
func listRows[T any](rows rowSet, err error, what string, scan func(rowSet) (T, error)) ([]T, error) {
	if err != nil {
		return nil, fmt.Errorf("evmindex: %s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: %s: %w", what, err)
	}
	return out, nil
}

// scanListedInternal reads a row of Internals: the address's seq, the tx
// hash, the block's number, hash and timestamp, then scanInternal's.
func scanListedInternal(rows rowSet) (ListedInternal, error) {
	var l ListedInternal
	var tx, bh []byte
	var err error
	if l.InternalTx, err = scanInternal(rows, &l.Seq, &tx, &l.BlockNumber, &bh, &l.BlockTimestamp); err != nil {
		return l, err
	}
	l.TxHash, l.BlockHash = common.BytesToHash(tx), common.BytesToHash(bh)
	return l, nil
}

// scanBlocks returns the scan of LatestBlocks' rows of chainID (scanBlock's
// columns).
func scanBlocks(chainID uint64) func(rowSet) (BlockRow, error) {
	return func(rows rowSet) (BlockRow, error) {
		b, err := scanBlock(chainID, rows)
		if err != nil {
			return b, fmt.Errorf("evmindex: blocks: %w", err)
		}
		return b, nil
	}
}

// scanDeploymentRow reads a row of deploymentCols.
func scanDeploymentRow(rows rowSet) (Deployment, error) {
	d, err := scanDeployment(rows)
	if err != nil {
		return d, fmt.Errorf("evmindex: deployments: %w", err)
	}
	return d, nil
}

// scanCollectibles returns the scan of Collectibles' rows: contract, token
// id, balance (text), seq and kind. Its columns are scanned into the same
// variables each row, through one dest made once a query: a row costs no
// allocation but its answer's.
func scanCollectibles() func(rowSet) (Collectible, error) {
	var contract, id []byte
	var bal string
	var seq int64
	var kind int32
	dest := []any{&contract, &id, &bal, &seq, &kind}
	return func(rows rowSet) (Collectible, error) {
		var c Collectible
		if err := rows.Scan(dest...); err != nil {
			return c, fmt.Errorf("evmindex: collectibles: %w", err)
		}
		c.Contract, c.TokenID, c.Kind, c.Seq = common.BytesToAddress(contract), new(big.Int).SetBytes(id), TokenKind(kind), seq
		c.Balance, _ = new(big.Int).SetString(bal, 10)
		return c, nil
	}
}

// scanCollectionTokens returns the scan of CollectionTokens' rows: token
// id, first seq and owner (NULL: none), into variables reused each row (as
// scanCollectibles).
func scanCollectionTokens() func(rowSet) (CollectionToken, error) {
	var id, owner []byte
	var seq int64
	dest := []any{&id, &seq, &owner}
	return func(rows rowSet) (CollectionToken, error) {
		if err := rows.Scan(dest...); err != nil {
			return CollectionToken{}, fmt.Errorf("evmindex: collection tokens: %w", err)
		}
		t := CollectionToken{TokenID: new(big.Int).SetBytes(id), Seq: seq}
		if owner != nil {
			o := common.BytesToAddress(owner)
			t.Owner = &o
		}
		return t, nil
	}
}

// scanHoldings returns the scan of the rows of Holdings of kind: contract,
// token id (NULL: none) and balance (text), into variables reused each row
// (as scanCollectibles).
func scanHoldings(kind TokenKind) func(rowSet) (Holding, error) {
	var c, id []byte
	var bal string
	dest := []any{&c, &id, &bal}
	return func(rows rowSet) (Holding, error) {
		if err := rows.Scan(dest...); err != nil {
			return Holding{}, fmt.Errorf("evmindex: holdings: %w", err)
		}
		h := Holding{Contract: common.BytesToAddress(c), Kind: kind}
		if id != nil {
			h.TokenID = new(big.Int).SetBytes(id)
		}
		h.Balance, _ = new(big.Int).SetString(bal, 10)
		return h, nil
	}
}

// scanNFTHolders returns the scan of NFTHolders' rows: owner and count,
// into variables reused each row (as scanCollectibles).
func scanNFTHolders() func(rowSet) (Holder, error) {
	var a []byte
	var n int64
	dest := []any{&a, &n}
	return func(rows rowSet) (Holder, error) {
		if err := rows.Scan(dest...); err != nil {
			return Holder{}, fmt.Errorf("evmindex: nft holders: %w", err)
		}
		return Holder{Address: common.BytesToAddress(a), Amount: big.NewInt(n)}, nil
	}
}

// scanICMCounts returns the scan of ICMHourly's rows: hour, source,
// destination and count, into variables reused each row (as
// scanCollectibles).
func scanICMCounts() func(rowSet) (ICMCount, error) {
	var c ICMCount
	var src, dst []byte
	dest := []any{&c.Hour, &src, &dst, &c.N}
	return func(rows rowSet) (ICMCount, error) {
		if err := rows.Scan(dest...); err != nil {
			return ICMCount{}, fmt.Errorf("evmindex: icm counts: %w", err)
		}
		c.Source, c.Destination = common.BytesToHash(src), common.BytesToHash(dst)
		return c, nil
	}
}

// scanTeleporterEvents returns the scan of teleporterEvents' rows of the
// transaction hash: log index, message id, direction and other chain, into
// variables reused each row (as scanCollectibles).
func scanTeleporterEvents(hash common.Hash) func(rowSet) (TeleporterEvent, error) {
	e := TeleporterEvent{TxHash: hash}
	var id, other []byte
	var dir int16
	dest := []any{&e.LogIndex, &id, &dir, &other}
	return func(rows rowSet) (TeleporterEvent, error) {
		if err := rows.Scan(dest...); err != nil {
			return TeleporterEvent{}, fmt.Errorf("evmindex: teleporter messages: %w", err)
		}
		e.MessageID, e.OtherChain, e.Direction = common.BytesToHash(id), common.BytesToHash(other), TeleporterDirection(dir)
		return e, nil
	}
}

// scanTxInternals returns the scan of a transaction's internal
// transactions' rows (type, from, to, value, gas, gas used and reverted),
// into variables reused each row (as scanCollectibles).
func scanTxInternals() func(rowSet) (InternalTx, error) {
	var it InternalTx
	var f, t []byte
	var v string
	dest := []any{&it.Type, &f, &t, &v, &it.Gas, &it.GasUsed, &it.Reverted}
	return func(rows rowSet) (InternalTx, error) {
		if err := rows.Scan(dest...); err != nil {
			return InternalTx{}, fmt.Errorf("evmindex: internal txs: %w", err)
		}
		it.From, it.To = common.BytesToAddress(f), common.BytesToAddress(t)
		it.Value, _ = new(big.Int).SetString(v, 10)
		return it, nil
	}
}

// readAnnounced reads rows of Announced (messenger, blockchain id), the
// last of a messenger's winning, and closes them; err is the query's.
func readAnnounced(rows rowSet, err error) (map[common.Address]common.Hash, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[common.Address]common.Hash{}
	for rows.Next() {
		var m, c []byte
		if err := rows.Scan(&m, &c); err != nil {
			return nil, err
		}
		out[common.BytesToAddress(m)] = common.BytesToHash(c)
	}
	return out, rows.Err()
}

// storedBalance is StoredBalance's answer of its row: the balance (as
// text) and the block it was kept at, and the row's error.
func storedBalance(raw string, as uint64, err error) (*big.Int, uint64, bool, error) {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, 0, false, nil
	case err != nil:
		return nil, 0, false, fmt.Errorf("evmindex: native balance: %w", err)
	}
	v, ok := new(big.Int).SetString(raw, 10)
	if !ok {
		return nil, 0, false, fmt.Errorf("evmindex: native balance %q", raw)
	}
	return v, as, true, nil
}

// addTxTransfers reads rows of PartsOf's transfers (scanTransfers') into p,
// by transaction, and closes them; err is the query's.
func addTxTransfers(p *TxParts, rows rowSet, err error) error {
	if err != nil {
		return fmt.Errorf("evmindex: transaction transfers: %w", err)
	}
	trs, err := scanTransfers(rows)
	if err != nil {
		return err
	}
	for _, t := range trs {
		p.Transfers[t.TxHash] = append(p.Transfers[t.TxHash], t)
	}
	return nil
}

// addTxInternals reads rows of PartsOf's internal transactions (tx hash,
// index, then scanInternal's) into p, by transaction, and closes them; err
// is the query's.
func addTxInternals(p *TxParts, rows rowSet, err error) error {
	if err != nil {
		return fmt.Errorf("evmindex: transaction internals: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h []byte
		var idx int
		it, err := scanInternal(rows, &h, &idx)
		if err != nil {
			return err
		}
		p.Internals[common.BytesToHash(h)] = append(p.Internals[common.BytesToHash(h)], it)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("evmindex: transaction internals: %w", err)
	}
	return nil
}
