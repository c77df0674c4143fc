package evmindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// sqliteBatch is the SQLite store's Batch: one transaction of the writer,
// whose statements are prepared once each, when first used.
type sqliteBatch struct {
	st      *sqliteStore
	tx      *sql.Tx
	ctx     context.Context
	chainID uint64
	stmts   map[string]*sql.Stmt
}

// exec runs the statement q with args, preparing it on first use.
func (b *sqliteBatch) exec(q string, args ...any) error {
	s, err := b.stmt(q)
	if err != nil {
		return err
	}
	_, err = s.Exec(args...)
	return err
}

func (b *sqliteBatch) stmt(q string) (*sql.Stmt, error) {
	if s, ok := b.stmts[q]; ok {
		return s, nil
	}
	s, err := b.tx.PrepareContext(b.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", q, err)
	}
	if b.stmts == nil {
		b.stmts = map[string]*sql.Stmt{}
	}
	b.stmts[q] = s
	return s, nil
}

// close closes the prepared statements.
func (b *sqliteBatch) close() {
	for _, s := range b.stmts {
		s.Close()
	}
}

func (b *sqliteBatch) Token(t *Token) error {
	return b.exec(`INSERT OR IGNORE INTO tokens (chain_id, address, kind, name, symbol, decimals) VALUES (?,?,?,?,?,?)`,
		b.chainID, t.Address.Bytes(), t.Kind, t.Name, t.Symbol, t.Decimals)
}

func (b *sqliteBatch) Block(bl *Block, feesSpent *big.Int, cumTxs uint64) error {
	baseFee := "0"
	if bl.BaseFee != nil {
		baseFee = bl.BaseFee.String()
	}
	return b.exec(`INSERT OR REPLACE INTO blocks (chain_id, number, hash, parent_hash, timestamp, tx_count, gas_used, gas_limit, base_fee, fees_spent, cum_txs)
		VALUES (?,?,?,?,?,?,?,?,?,?,?)`, b.chainID, bl.Number, bl.Hash.Bytes(), bl.ParentHash.Bytes(), bl.Timestamp, len(bl.Txs), bl.GasUsed, bl.GasLimit,
		baseFee, feesSpent.String(), cumTxs)
}

func (b *sqliteBatch) Tx(block uint64, t *TxRow) error {
	return b.exec(`INSERT OR REPLACE INTO txs (chain_id, hash, block_number, tx_index, type, from_addr, to_addr, value, nonce, gas_limit, gas_used, gas_price, max_fee, max_priority_fee, status, input)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, b.chainID, t.Hash.Bytes(), block, t.Index, t.Type, t.From.Bytes(), nullableAddr(t.To), t.Value.String(),
		t.Nonce, t.GasLimit, t.GasUsed, t.EffectiveGasPrice.String(), bigText(t.MaxFeePerGas), bigText(t.MaxPriorityFeePerGas), t.Status, t.Input)
}

func (b *sqliteBatch) Transfer(block uint64, seq int64, t *Transfer) error {
	var id []byte
	if t.TokenID != nil {
		id = idBytes(t.TokenID)
	}
	if err := b.exec(`INSERT OR REPLACE INTO transfers (chain_id, seq, block_number, log_index, tx_hash, contract, kind, from_addr, to_addr, token_id, value)
		VALUES (?,?,?,?,?,?,?,?,?,?,?)`, b.chainID, seq, block, t.LogIndex, t.TxHash.Bytes(), t.Contract.Bytes(), t.Kind, t.From.Bytes(), t.To.Bytes(), id,
		t.Value.String()); err != nil {
		return err
	}
	for _, a := range []common.Address{t.From, t.To} {
		if a != (common.Address{}) {
			if err := b.exec(`INSERT OR IGNORE INTO address_transfers (chain_id, address, kind, seq) VALUES (?,?,?,?)`, b.chainID, a.Bytes(), t.Kind, seq); err != nil {
				return err
			}
		}
	}
	if t.Kind != ERC20 {
		if err := b.exec(`INSERT OR IGNORE INTO collection_tokens (chain_id, contract, token_id, first_seq) VALUES (?,?,?,?)`,
			b.chainID, t.Contract.Bytes(), id, seq); err != nil {
			return err
		}
	}
	if t.Kind != ERC721 {
		return nil
	}
	if t.To == (common.Address{}) {
		return b.exec(`DELETE FROM nft_owners WHERE chain_id=? AND contract=? AND token_id=?`, b.chainID, t.Contract.Bytes(), id)
	}
	return b.exec(`INSERT OR REPLACE INTO nft_owners (chain_id, contract, token_id, owner, seq) VALUES (?,?,?,?,?)`, b.chainID, t.Contract.Bytes(), id, t.To.Bytes(), seq)
}

// Balances adds the changes to erc20_balances and erc1155_balances; an
// ERC-1155 holding keeps its last transfer (seq) unless the change has
// none (a rollback's).
func (b *sqliteBatch) Balances(changes []BalanceChange) error {
	return applyBalances(b, changes)
}

// applyBalances adds changes through b (a batch's or a rollback's
// statements).
func applyBalances(b *sqliteBatch, changes []BalanceChange) error {
	for i := range changes {
		c := &changes[i]
		if c.Delta.Sign() == 0 {
			continue
		}
		owner, contract := c.Owner.Bytes(), c.Contract.Bytes()
		var cur string
		var err error
		if c.ERC1155 {
			err = b.queryRow(`SELECT balance FROM erc1155_balances WHERE chain_id=? AND owner=? AND contract=? AND token_id=?`,
				b.chainID, owner, contract, c.TokenID[:]).Scan(&cur)
		} else {
			err = b.queryRow(`SELECT balance FROM erc20_balances WHERE chain_id=? AND owner=? AND contract=?`, b.chainID, owner, contract).Scan(&cur)
		}
		bal := new(big.Int)
		switch {
		case err == nil:
			bal.SetString(cur, 10)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		bal.Add(bal, c.Delta)
		switch {
		case bal.Sign() == 0 && c.ERC1155:
			err = b.exec(`DELETE FROM erc1155_balances WHERE chain_id=? AND owner=? AND contract=? AND token_id=?`, b.chainID, owner, contract, c.TokenID[:])
		case bal.Sign() == 0:
			err = b.exec(`DELETE FROM erc20_balances WHERE chain_id=? AND owner=? AND contract=?`, b.chainID, owner, contract)
		case c.ERC1155:
			err = b.exec(`INSERT INTO erc1155_balances (chain_id, owner, contract, token_id, balance, seq) VALUES (?,?,?,?,?,?)
				ON CONFLICT DO UPDATE SET balance = excluded.balance, seq = CASE WHEN excluded.seq > 0 THEN excluded.seq ELSE seq END`,
				b.chainID, owner, contract, c.TokenID[:], bal.String(), c.Seq)
		default:
			err = b.exec(`INSERT OR REPLACE INTO erc20_balances (chain_id, owner, contract, balance) VALUES (?,?,?,?)`, b.chainID, owner, contract, bal.String())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// queryRow runs the query q, preparing it on first use.
func (b *sqliteBatch) queryRow(q string, args ...any) *sql.Row {
	s, err := b.stmt(q)
	if err != nil {
		return b.tx.QueryRowContext(b.ctx, q, args...) // gives the same error
	}
	return s.QueryRow(args...)
}

func (b *sqliteBatch) Contract(block uint64, seq int64, c *Creation, origin common.Address) error {
	return b.exec(`INSERT OR IGNORE INTO contracts (chain_id, address, tx_hash, block_number, deployer, kind, origin, seq) VALUES (?,?,?,?,?,?,?,?)`,
		b.chainID, c.Address.Bytes(), c.TxHash.Bytes(), block, c.Deployer.Bytes(), string(c.Kind), origin.Bytes(), seq)
}

func (b *sqliteBatch) Frame(block uint64, f *Frame) error {
	return b.exec(`INSERT OR REPLACE INTO internal_txs (chain_id, tx_hash, idx, block_number, type, from_addr, to_addr, value, gas, gas_used, reverted)
		VALUES (?,?,?,?,?,?,?,?,?,?,?)`, b.chainID, f.TxHash.Bytes(), f.Idx, block, f.Type, f.From.Bytes(), f.To.Bytes(), f.Value.String(), f.Gas, f.GasUsed, f.Reverted)
}

func (b *sqliteBatch) Untraced(block uint64, reason string) error {
	return b.exec(`INSERT OR REPLACE INTO untraced_blocks (chain_id, number, reason) VALUES (?,?,?)`, b.chainID, block, reason)
}

func (b *sqliteBatch) Party(block uint64, addr common.Address, txIndex uint, native, spam bool) error {
	return b.exec(`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam) VALUES (?,?,?,?,?,?)
		ON CONFLICT DO UPDATE SET native = max(native, excluded.native), spam = min(spam, excluded.spam)`, b.chainID, addr.Bytes(), block, txIndex, native, spam)
}

func (b *sqliteBatch) AddressFrame(addr common.Address, seq int64, tx common.Hash, idx int) error {
	return b.exec(`INSERT OR IGNORE INTO address_internals (chain_id, address, seq, tx_hash, idx) VALUES (?,?,?,?,?)`, b.chainID, addr.Bytes(), seq, tx.Bytes(), idx)
}

func (b *sqliteBatch) Teleporter(block uint64, e *TeleporterEvent) error {
	return b.exec(`INSERT OR REPLACE INTO teleporter_messages (chain_id, tx_hash, log_index, block_number, message_id, direction, other_chain) VALUES (?,?,?,?,?,?,?)`,
		b.chainID, e.TxHash.Bytes(), e.LogIndex, block, e.MessageID.Bytes(), e.Direction, e.OtherChain.Bytes())
}

// icmOrd is a message's listing position: its block's time, then the order
// the index learned of it.
func icmOrd(ts uint64, seq uint32) int64 { return int64(ts<<32 | uint64(seq)) }

// ICMEvent stores the event; a send or receive also carries the listing's
// columns and upserts its message's row, at the next ord.
func (b *sqliteBatch) ICMEvent(block, ts uint64, e *ICMEvent, src, dst common.Hash) error {
	var id, chain, party, srcV, dstV, sender, recipient any
	if e.MessageID != (common.Hash{}) {
		id = e.MessageID.Bytes()
	}
	if e.Chain != (common.Hash{}) {
		chain = e.Chain.Bytes()
	}
	if e.Party != (common.Address{}) {
		party = e.Party.Bytes()
	}
	var up string
	switch e.Kind {
	case ICMSend:
		// A send decides the message's row.
		up = `INSERT INTO icm_messages (message_id, ord, src_chain, dst_chain, sender, recipient) VALUES (?,?,?,?,?,?)
			ON CONFLICT (message_id) DO UPDATE SET ord=excluded.ord, src_chain=excluded.src_chain, dst_chain=excluded.dst_chain,
			sender=excluded.sender, recipient=excluded.recipient`
	case ICMReceive:
		// A receive makes it only while the send is not indexed.
		up = `INSERT INTO icm_messages (message_id, ord, src_chain, dst_chain, sender, recipient) VALUES (?,?,?,?,?,?)
			ON CONFLICT (message_id) DO NOTHING`
	}
	if up != "" {
		srcV, dstV, sender, recipient = src.Bytes(), dst.Bytes(), e.Message.From.Bytes(), e.Message.To.Bytes()
	}
	if err := b.exec(`INSERT OR REPLACE INTO icm_events (chain_id, block_number, log_index, tx_hash, messenger, kind, message_id, chain, party, data,
		ts, src_chain, dst_chain, sender, recipient) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, b.chainID, block, e.LogIndex, e.TxHash.Bytes(),
		e.Messenger.Bytes(), e.Kind, id, chain, party, e.Data, ts, srcV, dstV, sender, recipient); err != nil {
		return err
	}
	if up == "" {
		return nil
	}
	b.st.icmSeq++
	return b.exec(up, id, icmOrd(ts, b.st.icmSeq), srcV, dstV, sender, recipient)
}

func (b *sqliteBatch) NativeBalance(block uint64, addr common.Address, balance *big.Int) error {
	if err := b.exec(`INSERT OR REPLACE INTO native_balances (chain_id, address, block, balance) VALUES (?,?,?,?)`,
		b.chainID, addr.Bytes(), block, balance.String()); err != nil {
		return fmt.Errorf("native balance: %w", err)
	}
	return nil
}

func (b *sqliteBatch) BlockTime(number uint64) (common.Hash, uint64, bool, error) {
	var hash []byte
	var ts uint64
	err := b.tx.QueryRowContext(b.ctx, `SELECT hash, timestamp FROM blocks WHERE chain_id=? AND number=?`, b.chainID, number).Scan(&hash, &ts)
	if errors.Is(err, sql.ErrNoRows) {
		return common.Hash{}, 0, false, nil
	}
	return common.BytesToHash(hash), ts, err == nil, err
}

func (b *sqliteBatch) ICMBackfilled(next uint64, done bool) error {
	if done {
		_, err := b.tx.ExecContext(b.ctx, `DELETE FROM icm_backfill WHERE chain_id=?`, b.chainID)
		return err
	}
	_, err := b.tx.ExecContext(b.ctx, `UPDATE icm_backfill SET next_block=? WHERE chain_id=?`, next, b.chainID)
	return err
}

func nullableAddr(a *common.Address) any {
	if a == nil {
		return nil
	}
	return a.Bytes()
}

func bigText(b *big.Int) any {
	if b == nil {
		return nil
	}
	return b.String()
}
