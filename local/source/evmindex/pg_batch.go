package evmindex

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/local/source/pgpipe"
)

// pgBatchSize is how many statements one round trip sends.
const pgBatchSize = 2000

// pgBatch is the PostgreSQL store's Batch: one transaction whose statements
// are queued and sent pgBatchSize at a time (pipelined), in order; a read
// sends what is queued first. A statement's error is returned by the
// method that sends it, at the latest by Write.
type pgBatch struct {
	st      *pgStore
	tx      pgx.Tx
	ctx     context.Context
	chainID int64
	p       pgpipe.Pipe // its Sent feeds the store's statistics (pgStore.analyzed)
}

func newPGBatch(ctx context.Context, st *pgStore, tx pgx.Tx, chainID uint64) *pgBatch {
	return &pgBatch{st: st, tx: tx, ctx: ctx, chainID: int64(chainID), p: pgpipe.Pipe{Tx: tx, Ctx: ctx, Size: pgBatchSize}}
}

func (b *pgBatch) queue(sql string, args ...any) error { return b.p.Queue(sql, args...) }

// flush sends the queued statements.
func (b *pgBatch) flush() error { return b.p.Flush() }

func (b *pgBatch) Token(t *Token) error {
	return b.queue(`INSERT INTO tokens (chain_id, address, kind, name, symbol, decimals) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT DO NOTHING`,
		b.chainID, t.Address.Bytes(), int16(t.Kind), t.Name, t.Symbol, int16(t.Decimals))
}

func (b *pgBatch) Block(bl *Block, feesSpent *big.Int, cumTxs uint64) error {
	baseFee := bl.BaseFee
	if baseFee == nil {
		baseFee = new(big.Int)
	}
	return b.queue(`INSERT INTO blocks (chain_id, number, hash, parent_hash, timestamp, tx_count, gas_used, gas_limit, base_fee, fees_spent, cum_txs)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) ON CONFLICT (chain_id, number) DO UPDATE SET hash=EXCLUDED.hash, parent_hash=EXCLUDED.parent_hash,
		timestamp=EXCLUDED.timestamp, tx_count=EXCLUDED.tx_count, gas_used=EXCLUDED.gas_used, gas_limit=EXCLUDED.gas_limit, base_fee=EXCLUDED.base_fee,
		fees_spent=EXCLUDED.fees_spent, cum_txs=EXCLUDED.cum_txs`,
		b.chainID, bl.Number, bl.Hash.Bytes(), bl.ParentHash.Bytes(), bl.Timestamp, len(bl.Txs), bl.GasUsed, bl.GasLimit, num(baseFee), num(feesSpent), cumTxs)
}

func (b *pgBatch) Tx(block uint64, t *TxRow) error {
	var to []byte
	if t.To != nil {
		to = t.To.Bytes()
	}
	return b.queue(`INSERT INTO txs (chain_id, hash, block_number, tx_index, type, from_addr, to_addr, value, nonce, gas_limit, gas_used, gas_price,
		max_fee, max_priority_fee, status, input) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16)
		ON CONFLICT (chain_id, hash) DO UPDATE SET block_number=EXCLUDED.block_number, tx_index=EXCLUDED.tx_index, type=EXCLUDED.type,
		from_addr=EXCLUDED.from_addr, to_addr=EXCLUDED.to_addr, value=EXCLUDED.value, nonce=EXCLUDED.nonce, gas_limit=EXCLUDED.gas_limit,
		gas_used=EXCLUDED.gas_used, gas_price=EXCLUDED.gas_price, max_fee=EXCLUDED.max_fee, max_priority_fee=EXCLUDED.max_priority_fee,
		status=EXCLUDED.status, input=EXCLUDED.input`,
		b.chainID, t.Hash.Bytes(), block, int64(t.Index), int16(t.Type), t.From.Bytes(), to, num(t.Value), t.Nonce, t.GasLimit, t.GasUsed,
		num(t.EffectiveGasPrice), num(t.MaxFeePerGas), num(t.MaxPriorityFeePerGas), int16(t.Status), nonNil(t.Input))
}

// nonNil is b, or an empty slice for nil: input is NOT NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (b *pgBatch) Transfer(block uint64, seq int64, t *Transfer) error {
	var id []byte
	if t.TokenID != nil {
		id = idBytes(t.TokenID)
	}
	kind := int16(t.Kind)
	if err := b.queue(`INSERT INTO transfers (chain_id, seq, block_number, log_index, tx_hash, contract, kind, from_addr, to_addr, token_id, value)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) ON CONFLICT (chain_id, seq) DO UPDATE SET block_number=EXCLUDED.block_number,
		log_index=EXCLUDED.log_index, tx_hash=EXCLUDED.tx_hash, contract=EXCLUDED.contract, kind=EXCLUDED.kind, from_addr=EXCLUDED.from_addr,
		to_addr=EXCLUDED.to_addr, token_id=EXCLUDED.token_id, value=EXCLUDED.value`,
		b.chainID, seq, block, int64(t.LogIndex), t.TxHash.Bytes(), t.Contract.Bytes(), kind, t.From.Bytes(), t.To.Bytes(), id, num(t.Value)); err != nil {
		return err
	}
	for _, a := range []common.Address{t.From, t.To} {
		if a != (common.Address{}) {
			if err := b.queue(`INSERT INTO address_transfers (chain_id, address, kind, seq) VALUES ($1,$2,$3,$4) ON CONFLICT DO NOTHING`,
				b.chainID, a.Bytes(), kind, seq); err != nil {
				return err
			}
		}
	}
	if t.Kind != ERC20 {
		if err := b.queue(`INSERT INTO collection_tokens (chain_id, contract, token_id, first_seq) VALUES ($1,$2,$3,$4) ON CONFLICT DO NOTHING`,
			b.chainID, t.Contract.Bytes(), id, seq); err != nil {
			return err
		}
	}
	if t.Kind != ERC721 {
		return nil
	}
	if t.To == (common.Address{}) {
		return b.queue(`DELETE FROM nft_owners WHERE chain_id=$1 AND contract=$2 AND token_id=$3`, b.chainID, t.Contract.Bytes(), id)
	}
	return b.queue(`INSERT INTO nft_owners (chain_id, contract, token_id, owner, seq) VALUES ($1,$2,$3,$4,$5)
		ON CONFLICT (chain_id, contract, token_id) DO UPDATE SET owner=EXCLUDED.owner, seq=EXCLUDED.seq`, b.chainID, t.Contract.Bytes(), id, t.To.Bytes(), seq)
}

// Balances adds the changes in the database (an upsert adding the delta);
// a balance that reaches zero is deleted. An ERC-1155 holding keeps its
// last transfer (seq) unless the change has none.
func (b *pgBatch) Balances(changes []BalanceChange) error {
	for i := range changes {
		c := &changes[i]
		if c.Delta.Sign() == 0 {
			continue
		}
		owner, contract := c.Owner.Bytes(), c.Contract.Bytes()
		var err error
		if c.ERC1155 {
			if err = b.queue(`INSERT INTO erc1155_balances AS e (chain_id, owner, contract, token_id, balance, seq) VALUES ($1,$2,$3,$4,$5,$6)
				ON CONFLICT (chain_id, owner, contract, token_id) DO UPDATE SET balance = e.balance + EXCLUDED.balance,
				seq = CASE WHEN EXCLUDED.seq > 0 THEN EXCLUDED.seq ELSE e.seq END`,
				b.chainID, owner, contract, c.TokenID[:], num(c.Delta), c.Seq); err == nil {
				err = b.queue(`DELETE FROM erc1155_balances WHERE chain_id=$1 AND owner=$2 AND contract=$3 AND token_id=$4 AND balance=0`,
					b.chainID, owner, contract, c.TokenID[:])
			}
		} else if err = b.queue(`INSERT INTO erc20_balances AS e (chain_id, owner, contract, balance) VALUES ($1,$2,$3,$4)
				ON CONFLICT (chain_id, owner, contract) DO UPDATE SET balance = e.balance + EXCLUDED.balance`,
			b.chainID, owner, contract, num(c.Delta)); err == nil {
			err = b.queue(`DELETE FROM erc20_balances WHERE chain_id=$1 AND owner=$2 AND contract=$3 AND balance=0`, b.chainID, owner, contract)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *pgBatch) Contract(block uint64, seq int64, c *Creation, origin common.Address) error {
	return b.queue(`INSERT INTO contracts (chain_id, address, tx_hash, block_number, deployer, kind, origin, seq) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)
		ON CONFLICT DO NOTHING`, b.chainID, c.Address.Bytes(), c.TxHash.Bytes(), block, c.Deployer.Bytes(), string(c.Kind), origin.Bytes(), seq)
}

func (b *pgBatch) Frame(block uint64, f *Frame) error {
	return b.queue(`INSERT INTO internal_txs (chain_id, tx_hash, idx, block_number, type, from_addr, to_addr, value, gas, gas_used, reverted)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) ON CONFLICT (chain_id, tx_hash, idx) DO UPDATE SET block_number=EXCLUDED.block_number,
		type=EXCLUDED.type, from_addr=EXCLUDED.from_addr, to_addr=EXCLUDED.to_addr, value=EXCLUDED.value, gas=EXCLUDED.gas,
		gas_used=EXCLUDED.gas_used, reverted=EXCLUDED.reverted`,
		b.chainID, f.TxHash.Bytes(), f.Idx, block, f.Type, f.From.Bytes(), f.To.Bytes(), num(f.Value), f.Gas, f.GasUsed, f.Reverted)
}

func (b *pgBatch) Untraced(block uint64, reason string) error {
	return b.queue(`INSERT INTO untraced_blocks (chain_id, number, reason) VALUES ($1,$2,$3)
		ON CONFLICT (chain_id, number) DO UPDATE SET reason=EXCLUDED.reason`, b.chainID, block, reason)
}

func (b *pgBatch) Party(block uint64, addr common.Address, txIndex uint, native, spam bool) error {
	return b.queue(`INSERT INTO address_txs AS a (chain_id, address, block_number, tx_index, native, spam) VALUES ($1,$2,$3,$4,$5,$6)
		ON CONFLICT (chain_id, address, block_number, tx_index) DO UPDATE SET native = a.native OR EXCLUDED.native, spam = a.spam AND EXCLUDED.spam`,
		b.chainID, addr.Bytes(), block, int64(txIndex), native, spam)
}

func (b *pgBatch) AddressFrame(addr common.Address, seq int64, tx common.Hash, idx int) error {
	return b.queue(`INSERT INTO address_internals (chain_id, address, seq, tx_hash, idx) VALUES ($1,$2,$3,$4,$5) ON CONFLICT DO NOTHING`,
		b.chainID, addr.Bytes(), seq, tx.Bytes(), idx)
}

func (b *pgBatch) Teleporter(block uint64, e *TeleporterEvent) error {
	return b.queue(`INSERT INTO teleporter_messages (chain_id, tx_hash, log_index, block_number, message_id, direction, other_chain)
		VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (chain_id, tx_hash, log_index) DO UPDATE SET block_number=EXCLUDED.block_number,
		message_id=EXCLUDED.message_id, direction=EXCLUDED.direction, other_chain=EXCLUDED.other_chain`,
		b.chainID, e.TxHash.Bytes(), int64(e.LogIndex), block, e.MessageID.Bytes(), int16(e.Direction), e.OtherChain.Bytes())
}

// ICMEvent stores the event; a send or receive also carries the listing's
// columns and upserts its message's row, at the next ord: a send decides
// the row, a receive makes it only while no send is stored.
func (b *pgBatch) ICMEvent(block, ts uint64, e *ICMEvent, src, dst common.Hash) error {
	var id, chain, party, srcV, dstV, sender, recipient []byte
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
		up = `INSERT INTO icm_messages (message_id, ord, src_chain, dst_chain, sender, recipient) VALUES ($1,$2,$3,$4,$5,$6)
			ON CONFLICT (message_id) DO UPDATE SET ord=EXCLUDED.ord, src_chain=EXCLUDED.src_chain, dst_chain=EXCLUDED.dst_chain,
			sender=EXCLUDED.sender, recipient=EXCLUDED.recipient`
	case ICMReceive:
		up = `INSERT INTO icm_messages (message_id, ord, src_chain, dst_chain, sender, recipient) VALUES ($1,$2,$3,$4,$5,$6)
			ON CONFLICT (message_id) DO NOTHING`
	}
	if up != "" {
		srcV, dstV, sender, recipient = src.Bytes(), dst.Bytes(), e.Message.From.Bytes(), e.Message.To.Bytes()
	}
	if err := b.queue(`INSERT INTO icm_events (chain_id, block_number, log_index, tx_hash, messenger, kind, message_id, chain, party, data,
		ts, src_chain, dst_chain, sender, recipient) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)
		ON CONFLICT (chain_id, block_number, log_index) DO UPDATE SET tx_hash=EXCLUDED.tx_hash, messenger=EXCLUDED.messenger, kind=EXCLUDED.kind,
		message_id=EXCLUDED.message_id, chain=EXCLUDED.chain, party=EXCLUDED.party, data=EXCLUDED.data, ts=EXCLUDED.ts,
		src_chain=EXCLUDED.src_chain, dst_chain=EXCLUDED.dst_chain, sender=EXCLUDED.sender, recipient=EXCLUDED.recipient`,
		b.chainID, block, int64(e.LogIndex), e.TxHash.Bytes(), e.Messenger.Bytes(), int16(e.Kind), id, chain, party, nonNil(e.Data), ts,
		srcV, dstV, sender, recipient); err != nil {
		return err
	}
	if up == "" {
		return nil
	}
	b.st.icmSeq++
	return b.queue(up, id, icmOrd(ts, b.st.icmSeq), srcV, dstV, sender, recipient)
}

func (b *pgBatch) NativeBalance(block uint64, addr common.Address, balance *big.Int) error {
	return b.queue(`INSERT INTO native_balances (chain_id, address, block, balance) VALUES ($1,$2,$3,$4)
		ON CONFLICT (chain_id, address, block) DO UPDATE SET balance=EXCLUDED.balance`, b.chainID, addr.Bytes(), block, num(balance))
}

func (b *pgBatch) BlockTime(number uint64) (common.Hash, uint64, bool, error) {
	if err := b.flush(); err != nil {
		return common.Hash{}, 0, false, err
	}
	var hash []byte
	var ts uint64
	err := b.tx.QueryRow(b.ctx, `SELECT hash, timestamp FROM blocks WHERE chain_id=$1 AND number=$2`, b.chainID, number).Scan(&hash, &ts)
	if errors.Is(err, pgx.ErrNoRows) {
		return common.Hash{}, 0, false, nil
	}
	if err != nil {
		return common.Hash{}, 0, false, fmt.Errorf("block time: %w", err)
	}
	return common.BytesToHash(hash), ts, true, nil
}

func (b *pgBatch) ICMBackfilled(next uint64, done bool) error {
	if done {
		return b.queue(`DELETE FROM icm_backfill WHERE chain_id=$1`, b.chainID)
	}
	return b.queue(`UPDATE icm_backfill SET next_block=$1 WHERE chain_id=$2`, next, b.chainID)
}
