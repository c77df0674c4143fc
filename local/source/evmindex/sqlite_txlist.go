package evmindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

const listedTxCols = `x.hash, x.block_number, x.tx_index, x.type, x.from_addr, x.to_addr, x.value, x.nonce, x.gas_limit, x.gas_used,
	x.gas_price, x.max_fee, x.max_priority_fee, x.status, substr(x.input, 1, 4), b.hash, b.timestamp`

func scanListedTxs(rows rowSet) ([]ListedTx, error) {
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

// AddressTxs returns the transactions an address took part in: as their
// sender or recipient, or through one of their token transfers or listed
// internal transactions. One index range.
func (st *sqliteStore) AddressTxs(ctx context.Context, q AddressTxQuery) ([]ListedTx, error) {
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
	args := append([]any{q.ChainID, q.Address.Bytes()}, rangeBounds(q.Range)...)
	rows, err := st.r.QueryContext(ctx, `SELECT `+listedTxCols+` FROM `+from+`
		JOIN txs x INDEXED BY txs_pos ON x.chain_id=a.chain_id AND x.block_number=a.block_number AND x.tx_index=a.tx_index
		JOIN blocks b ON b.chain_id=a.chain_id AND b.number=a.block_number
		WHERE a.chain_id=? AND a.address=?`+filter+` AND (a.block_number, a.tx_index) >= (?, ?) AND (a.block_number, a.tx_index) < (?, ?)`+
		rangeOrder(q.Range, "a.block_number", "a.tx_index")+` LIMIT ?`, append(args, q.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: address transactions: %w", err)
	}
	return scanListedTxs(rows)
}

// ChainTxs returns the chain's transactions in r with status, newest first
// unless r.Asc. One index range (failed transactions have their own index).
func (st *sqliteStore) ChainTxs(ctx context.Context, chainID uint64, status TxStatus, r Range, limit int) ([]ListedTx, error) {
	filter, index := "", "txs_pos"
	switch status {
	case Succeeded:
		filter = " AND x.status=1"
	case Failed:
		filter, index = " AND x.status=0", "txs_failed"
	}
	args := append([]any{chainID}, rangeBounds(r)...)
	rows, err := st.r.QueryContext(ctx, `SELECT `+listedTxCols+` FROM txs x INDEXED BY `+index+`
		JOIN blocks b ON b.chain_id=x.chain_id AND b.number=x.block_number
		WHERE x.chain_id=?`+filter+` AND (x.block_number, x.tx_index) >= (?, ?) AND (x.block_number, x.tx_index) < (?, ?)`+
		rangeOrder(r, "x.block_number", "x.tx_index")+` LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: chain transactions: %w", err)
	}
	return scanListedTxs(rows)
}

// Created returns the contracts the creation transactions among txs
// created, by transaction hash.
func (st *sqliteStore) Created(ctx context.Context, chainID uint64, txs []ListedTx) (map[common.Hash]common.Address, error) {
	out := map[common.Hash]common.Address{}
	for _, t := range txs {
		if t.To != nil {
			continue
		}
		var a []byte
		err := st.r.QueryRowContext(ctx, `SELECT address FROM contracts INDEXED BY contracts_origin WHERE chain_id=? AND origin=? AND seq>=? AND seq<? AND tx_hash=? AND deployer=origin`,
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

// PartsOf returns the token transfers and listed internal transactions of
// txs whose sender or recipient is addr, in their order within each
// transaction.
func (st *sqliteStore) PartsOf(ctx context.Context, chainID uint64, addr common.Address, txs []ListedTx) (*TxParts, error) {
	p := &TxParts{Transfers: map[common.Hash][]TransferRow{}, Internals: map[common.Hash][]InternalTx{}}
	if len(txs) == 0 {
		return p, nil
	}
	args := []any{chainID, addr.Bytes(), addr.Bytes()}
	for _, t := range txs {
		args = append(args, t.Hash.Bytes())
	}
	in := ` IN (?` + strings.Repeat(",?", len(txs)-1) + `)`
	rows, err := st.r.QueryContext(ctx, `SELECT `+transferCols+` FROM transfers t INDEXED BY transfers_tx JOIN blocks b ON b.chain_id=t.chain_id AND b.number=t.block_number
		WHERE t.chain_id=? AND (t.from_addr=? OR t.to_addr=?) AND t.tx_hash`+in+` ORDER BY t.seq`, args...)
	if err := addTxTransfers(p, rows, err); err != nil {
		return nil, err
	}
	irows, err := st.r.QueryContext(ctx, `SELECT tx_hash, idx, type, from_addr, to_addr, value, gas, gas_used, reverted FROM internal_txs
		WHERE chain_id=? AND (from_addr=? OR to_addr=?) AND `+listedFrameSQL+` AND tx_hash`+in+` ORDER BY tx_hash, idx`, args...)
	if err := addTxInternals(p, irows, err); err != nil {
		return nil, err
	}
	return p, nil
}

// scanInternal scans type, from, to, value, gas, gas used and reverted after
// the columns in pre.
func scanInternal(rows rowSet, pre ...any) (InternalTx, error) {
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

// Owner returns the current owner of an ERC-721 token.
func (st *sqliteStore) Owner(ctx context.Context, chainID uint64, contract common.Address, tokenID *big.Int) (common.Address, error) {
	var o []byte
	err := st.r.QueryRowContext(ctx, `SELECT owner FROM nft_owners WHERE chain_id=? AND contract=? AND token_id=?`, chainID, contract.Bytes(), idBytes(tokenID)).Scan(&o)
	return common.BytesToAddress(o), notFound(err)
}

// Transaction returns the stored transaction with hash.
func (st *sqliteStore) Transaction(ctx context.Context, chainID uint64, hash common.Hash) (*TxDetail, error) {
	d := &TxDetail{}
	var from, to, input []byte
	var value, price string
	var maxFee, maxPrio sql.NullString
	err := st.r.QueryRowContext(ctx, `SELECT block_number, tx_index, type, from_addr, to_addr, value, nonce, gas_limit, gas_used, gas_price, max_fee, max_priority_fee, status, input
		FROM txs WHERE chain_id=? AND hash=?`, chainID, hash.Bytes()).Scan(&d.BlockNumber, &d.Index, &d.Type, &from, &to, &value, &d.Nonce, &d.GasLimit, &d.GasUsed, &price, &maxFee, &maxPrio, &d.Status, &input)
	if err != nil {
		return nil, notFound(err)
	}
	d.Hash, d.From, d.Input = hash, common.BytesToAddress(from), input
	d.MaxFeePerGas, d.MaxPriorityFeePerGas = storedTx(&d.Tx, to, value, price, maxFee, maxPrio)
	rows, err := st.r.QueryContext(ctx, `SELECT `+transferCols+` FROM transfers t JOIN blocks b ON b.chain_id=t.chain_id AND b.number=t.block_number
		WHERE t.chain_id=? AND t.tx_hash=? ORDER BY t.seq`, chainID, hash.Bytes())
	if err != nil {
		return nil, fmt.Errorf("evmindex: tx transfers: %w", err)
	}
	if d.Transfers, err = scanTransfers(rows); err != nil {
		return nil, err
	}
	irows, err := st.r.QueryContext(ctx, `SELECT type, from_addr, to_addr, value, gas, gas_used, reverted FROM internal_txs WHERE chain_id=? AND tx_hash=? ORDER BY idx`, chainID, hash.Bytes())
	if d.Internals, err = listRows(irows, err, "internal txs", scanTxInternals()); err != nil {
		return nil, err
	}
	if d.InternalsOmitted, err = st.Untraced(ctx, chainID, d.BlockNumber); err != nil {
		return nil, err
	}
	if d.Teleporter, err = st.teleporterEvents(ctx, chainID, hash); err != nil {
		return nil, err
	}
	return d, nil
}

// teleporterEvents returns the stored Teleporter events of a transaction in
// log order.
func (st *sqliteStore) teleporterEvents(ctx context.Context, chainID uint64, hash common.Hash) ([]TeleporterEvent, error) {
	rows, err := st.r.QueryContext(ctx, `SELECT log_index, message_id, direction, other_chain FROM teleporter_messages
		WHERE chain_id=? AND tx_hash=? ORDER BY log_index`, chainID, hash.Bytes())
	return listRows(rows, err, "teleporter messages", scanTeleporterEvents(hash))
}

// Untraced says why block number of chainID was indexed without internal
// transactions (its trace exceeded the bound or failed, or the chain is not
// traced), or "" when it was not.
func (st *sqliteStore) Untraced(ctx context.Context, chainID, number uint64) (string, error) {
	var reason string
	err := st.r.QueryRowContext(ctx, `SELECT reason FROM untraced_blocks WHERE chain_id=? AND number=?`, chainID, number).Scan(&reason)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("evmindex: untraced blocks: %w", err)
	}
	return reason, nil
}

// rangeBounds returns r's bounds as (block, index) pairs for row comparisons.
func rangeBounds(r Range) []any {
	to := r.to()
	return []any{r.From.Block(), r.From.Index(), to.Block(), to.Index()}
}

// rangeOrder is the ORDER BY of cols in r's direction.
func rangeOrder(r Range, cols ...string) string {
	dir := " DESC"
	if r.Asc {
		dir = " ASC"
	}
	return " ORDER BY " + strings.Join(cols, dir+", ") + dir
}

// StoredNFTs reads the kept metadata of nfts, one query per contract (and
// 500 ids).
func (st *sqliteStore) StoredNFTs(ctx context.Context, chainID uint64, nfts []NFT) (map[NFTKey]NFT, error) {
	out := make(map[NFTKey]NFT, len(nfts))
	byContract := map[common.Address][]NFT{}
	for _, n := range nfts {
		byContract[n.Contract] = append(byContract[n.Contract], n)
	}
	for c, ns := range byContract {
		for lo := 0; lo < len(ns); lo += 500 {
			if err := st.storedNFTs(ctx, chainID, c, ns[lo:min(lo+500, len(ns))], out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// storedNFTs reads the kept metadata of chunk, NFTs of contract c, into
// out.
func (st *sqliteStore) storedNFTs(ctx context.Context, chainID uint64, c common.Address, chunk []NFT, out map[NFTKey]NFT) error {
	args := []any{chainID, c.Bytes()}
	for _, n := range chunk {
		args = append(args, idBytes(n.TokenID))
	}
	rows, err := st.r.QueryContext(ctx, `SELECT token_id, token_uri, status, metadata, updated FROM nfts WHERE chain_id=? AND contract=? AND token_id IN (?`+
		strings.Repeat(",?", len(chunk)-1)+`)`, args...)
	if err != nil {
		return fmt.Errorf("evmindex: nfts: %w", err)
	}
	found, err := scanNFTs(rows)
	if err != nil {
		return err
	}
	for _, n := range chunk {
		if f, ok := found[string(idBytes(n.TokenID))]; ok {
			n.TokenURI, n.Status, n.Metadata, n.Updated = f.TokenURI, f.Status, f.Metadata, f.Updated
			out[NFTKey{n.Contract, n.TokenID.String()}] = n
		}
	}
	return nil
}
