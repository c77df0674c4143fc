package evmindex

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// seqOf orders transfers: block<<28 | logIndex<<10 | batchIndex.
func seqOf(block uint64, logIndex, batch uint) int64 {
	return int64(block<<28 | uint64(logIndex&(1<<18-1))<<10 | uint64(batch&(1<<10-1)))
}

// SeqBlock returns the block number of a transfer position.
func SeqBlock(seq int64) uint64 { return uint64(seq) >> 28 }

// idBytes is a token id as a 32-byte big-endian key.
func idBytes(id *big.Int) []byte {
	var b [32]byte
	id.FillBytes(b[:])
	return b[:]
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

type balKey struct {
	owner, contract common.Address
	id              [32]byte // zero for ERC-20
	is1155          bool
}

// commit decodes and stores blocks (consecutive, linked to the stored head)
// in one transaction, then moves the head and runs the block hook.
func (f *follower) commit(ctx context.Context, blocks []*fetched) error {
	ds := make([]*decoded, len(blocks))
	newTokens := map[common.Address]TokenKind{}
	nTransfers := 0
	for i, b := range blocks {
		ds[i] = decode(f.id, b, f.messengers)
		for _, t := range ds[i].Transfers {
			if _, ok := f.tokens[t.Contract]; !ok {
				if _, ok := newTokens[t.Contract]; !ok {
					newTokens[t.Contract] = t.Kind
				}
			}
		}
		nTransfers += len(ds[i].Transfers)
	}
	infos, err := f.fetchTokenInfo(ctx, newTokens)
	if err != nil {
		return err
	}
	f.ix.writeMu.Lock()
	defer f.ix.writeMu.Unlock()
	tx, err := f.ix.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	cum, err := f.write(ctx, tx, ds, infos)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := f.writeBalances(ctx, tx, blocks); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	f.cumTxs = cum
	for _, t := range infos {
		f.tokens[t.Address] = knownToken{kind: t.Kind, spam: t.Spam()}
	}
	// Hooks run before the new head is announced, so a WaitFor caller sees
	// the block in the store and in every consumer of the hook alike.
	if hook := f.ix.opts.OnBlock; hook != nil {
		for _, d := range ds {
			hook(ctx, &d.Block)
		}
	}
	f.noteUntraced(ds)
	f.setHead(ds[len(ds)-1].Number, true)
	f.ix.metrics.blocks.WithLabelValues(f.label).Add(float64(len(ds)))
	f.ix.metrics.transfers.WithLabelValues(f.label).Add(float64(nTransfers))
	return nil
}

func (f *follower) write(ctx context.Context, tx *sql.Tx, ds []*decoded, infos []tokenInfo) (uint64, error) {
	var prepErr error
	prep := func(q string) *sql.Stmt {
		s, err := tx.PrepareContext(ctx, q)
		if err != nil && prepErr == nil {
			prepErr = fmt.Errorf("prepare %q: %w", q, err)
		}
		return s
	}
	insBlock := prep(`INSERT OR REPLACE INTO blocks (chain_id, number, hash, parent_hash, timestamp, tx_count, gas_used, gas_limit, base_fee, fees_spent, cum_txs)
		VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
	insTx := prep(`INSERT OR REPLACE INTO txs (chain_id, hash, block_number, tx_index, type, from_addr, to_addr, value, nonce, gas_limit, gas_used, gas_price, max_fee, max_priority_fee, status, input)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	insTransfer := prep(`INSERT OR REPLACE INTO transfers (chain_id, seq, block_number, log_index, tx_hash, contract, kind, from_addr, to_addr, token_id, value)
		VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
	insAddr := prep(`INSERT OR IGNORE INTO address_transfers (chain_id, address, kind, seq) VALUES (?,?,?,?)`)
	setOwner := prep(`INSERT OR REPLACE INTO nft_owners (chain_id, contract, token_id, owner, seq) VALUES (?,?,?,?,?)`)
	delOwner := prep(`DELETE FROM nft_owners WHERE chain_id=? AND contract=? AND token_id=?`)
	insCollection := prep(`INSERT OR IGNORE INTO collection_tokens (chain_id, contract, token_id, first_seq) VALUES (?,?,?,?)`)
	insContract := prep(`INSERT OR IGNORE INTO contracts (chain_id, address, tx_hash, block_number, deployer, kind, origin, seq) VALUES (?,?,?,?,?,?,?,?)`)
	insInternal := prep(`INSERT OR REPLACE INTO internal_txs (chain_id, tx_hash, idx, block_number, type, from_addr, to_addr, value, gas, gas_used, reverted)
		VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
	insToken := prep(`INSERT OR IGNORE INTO tokens (chain_id, address, kind, name, symbol, decimals) VALUES (?,?,?,?,?,?)`)
	insTeleport := prep(`INSERT OR REPLACE INTO teleporter_messages (chain_id, tx_hash, log_index, block_number, message_id, direction, other_chain) VALUES (?,?,?,?,?,?,?)`)
	insUntraced := prep(`INSERT OR REPLACE INTO untraced_blocks (chain_id, number, reason) VALUES (?,?,?)`)
	insParty := prep(`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam) VALUES (?,?,?,?,?,?)
		ON CONFLICT DO UPDATE SET native = max(native, excluded.native), spam = min(spam, excluded.spam)`)
	insAddrInternal := prep(`INSERT OR IGNORE INTO address_internals (chain_id, address, seq, tx_hash, idx) VALUES (?,?,?,?,?)`)
	for _, s := range []*sql.Stmt{insBlock, insTx, insTransfer, insAddr, setOwner, delOwner, insCollection, insContract, insInternal, insToken, insTeleport,
		insUntraced, insParty, insAddrInternal} {
		if s != nil {
			defer s.Close()
		}
	}
	if prepErr != nil {
		return 0, prepErr
	}
	icm, err := f.newICMWriter(ctx, tx)
	if err != nil {
		return 0, err
	}
	defer icm.close()
	for _, t := range infos {
		if _, err := insToken.Exec(f.id, t.Address.Bytes(), t.Kind, t.Name, t.Symbol, t.Decimals); err != nil {
			return 0, err
		}
	}
	spam := map[common.Address]bool{}
	for _, t := range infos {
		spam[t.Address] = t.Spam()
	}
	deltas := map[balKey]*big.Int{}
	seqs := map[balKey]int64{} // the last transfer of each changed ERC-1155 balance
	add := func(k balKey, v *big.Int, neg bool, seq int64) {
		d := deltas[k]
		if d == nil {
			d = new(big.Int)
			deltas[k] = d
		}
		if neg {
			d.Sub(d, v)
		} else {
			d.Add(d, v)
		}
		seqs[k] = seq
	}
	cum := f.cumTxs
	zero := common.Address{}
	for _, d := range ds {
		cum += uint64(len(d.Txs))
		baseFee := "0"
		if d.BaseFee != nil {
			baseFee = d.BaseFee.String()
		}
		if _, err := insBlock.Exec(f.id, d.Number, d.Hash.Bytes(), d.ParentHash.Bytes(), d.Timestamp, len(d.Txs), d.GasUsed, d.GasLimit, baseFee, d.feesSpent.String(), cum); err != nil {
			return 0, err
		}
		for i, t := range d.Txs {
			raw := &d.txs[i]
			if _, err := insTx.Exec(f.id, t.Hash.Bytes(), d.Number, t.Index, t.Type, t.From.Bytes(), nullableAddr(t.To), t.Value.String(),
				t.Nonce, t.GasLimit, t.GasUsed, t.EffectiveGasPrice.String(), bigText(raw.MaxFeePerGas.ToInt()), bigText(raw.MaxPriorityFeePerGas.ToInt()), t.Status, []byte(raw.Input)); err != nil {
				return 0, err
			}
		}
		for _, t := range d.Transfers {
			seq := seqOf(d.Number, t.LogIndex, t.BatchIndex)
			var id []byte
			var idKey [32]byte
			if t.TokenID != nil {
				id = idBytes(t.TokenID)
				copy(idKey[:], id)
			}
			if _, err := insTransfer.Exec(f.id, seq, d.Number, t.LogIndex, t.TxHash.Bytes(), t.Contract.Bytes(), t.Kind, t.From.Bytes(), t.To.Bytes(), id, t.Value.String()); err != nil {
				return 0, err
			}
			for _, a := range []common.Address{t.From, t.To} {
				if a != zero {
					if _, err := insAddr.Exec(f.id, a.Bytes(), t.Kind, seq); err != nil {
						return 0, err
					}
				}
			}
			if t.Kind != ERC20 {
				if _, err := insCollection.Exec(f.id, t.Contract.Bytes(), id, seq); err != nil {
					return 0, err
				}
			}
			switch t.Kind {
			case ERC20, ERC1155:
				if t.From != zero {
					add(balKey{t.From, t.Contract, idKey, t.Kind == ERC1155}, t.Value, true, seq)
				}
				if t.To != zero {
					add(balKey{t.To, t.Contract, idKey, t.Kind == ERC1155}, t.Value, false, seq)
				}
			case ERC721:
				var err error
				if t.To == zero {
					_, err = delOwner.Exec(f.id, t.Contract.Bytes(), id)
				} else {
					_, err = setOwner.Exec(f.id, t.Contract.Bytes(), id, t.To.Bytes(), seq)
				}
				if err != nil {
					return 0, err
				}
			}
		}
		origins := make(map[common.Hash]common.Address, len(d.Txs))
		for _, t := range d.Txs {
			origins[t.Hash] = t.From
		}
		for i, c := range d.Creations {
			if _, err := insContract.Exec(f.id, c.Address.Bytes(), c.TxHash.Bytes(), d.Number, c.Deployer.Bytes(), string(c.Kind),
				origins[c.TxHash].Bytes(), creationSeq(d.Number, i)); err != nil {
				return 0, err
			}
		}
		// Every block with transactions whose internal transactions are
		// unknown says why: its trace failed or was too large, or the
		// chain is not traced at all.
		reason := d.untraced
		if reason == "" && !d.traced && len(d.Txs) > 0 {
			reason = noTracerReason
		}
		if reason != "" {
			if _, err := insUntraced.Exec(f.id, d.Number, reason); err != nil {
				return 0, err
			}
		}
		for _, it := range d.internals {
			if _, err := insInternal.Exec(f.id, it.TxHash.Bytes(), it.Idx, d.Number, it.Type, it.From.Bytes(), it.To.Bytes(), it.Value.String(), it.Gas, it.GasUsed, it.Reverted); err != nil {
				return 0, err
			}
		}
		ps, ins := f.parties(d, spam)
		for k, p := range ps {
			if _, err := insParty.Exec(f.id, k.addr.Bytes(), d.Number, k.index, p.native, !p.nonSpam); err != nil {
				return 0, err
			}
		}
		for _, a := range ins {
			if _, err := insAddrInternal.Exec(f.id, a.addr.Bytes(), a.seq, a.tx.Bytes(), a.idx); err != nil {
				return 0, err
			}
		}
		for _, e := range d.teleport {
			if _, err := insTeleport.Exec(f.id, e.TxHash.Bytes(), e.LogIndex, d.Number, e.MessageID.Bytes(), e.Direction, e.OtherChain.Bytes()); err != nil {
				return 0, err
			}
		}
		if err := icm.write(d.Number, d.Timestamp, d.icm); err != nil {
			return 0, err
		}
	}
	if err := f.applyDeltas(ctx, tx, deltas, seqs); err != nil {
		return 0, err
	}
	return cum, nil
}

// applyDeltas adds balance changes to the current-balance tables; a balance
// that reaches zero is deleted. seqs, when set, holds the last transfer of
// each ERC-1155 balance changed (erc1155_balances.seq).
func (f *follower) applyDeltas(ctx context.Context, tx *sql.Tx, deltas map[balKey]*big.Int, seqs map[balKey]int64) error {
	if len(deltas) == 0 {
		return nil
	}
	get20, _ := tx.PrepareContext(ctx, `SELECT balance FROM erc20_balances WHERE chain_id=? AND owner=? AND contract=?`)
	set20, _ := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO erc20_balances (chain_id, owner, contract, balance) VALUES (?,?,?,?)`)
	del20, _ := tx.PrepareContext(ctx, `DELETE FROM erc20_balances WHERE chain_id=? AND owner=? AND contract=?`)
	get1155, _ := tx.PrepareContext(ctx, `SELECT balance FROM erc1155_balances WHERE chain_id=? AND owner=? AND contract=? AND token_id=?`)
	set1155, _ := tx.PrepareContext(ctx, `INSERT INTO erc1155_balances (chain_id, owner, contract, token_id, balance, seq) VALUES (?,?,?,?,?,?)
		ON CONFLICT DO UPDATE SET balance = excluded.balance, seq = CASE WHEN excluded.seq > 0 THEN excluded.seq ELSE seq END`)
	del1155, _ := tx.PrepareContext(ctx, `DELETE FROM erc1155_balances WHERE chain_id=? AND owner=? AND contract=? AND token_id=?`)
	for _, s := range []*sql.Stmt{get20, set20, del20, get1155, set1155, del1155} {
		if s == nil {
			return fmt.Errorf("prepare balance statements")
		}
		defer s.Close()
	}
	for k, d := range deltas {
		if d.Sign() == 0 {
			continue
		}
		is1155 := k.is1155
		var cur string
		var err error
		if is1155 {
			err = get1155.QueryRow(f.id, k.owner.Bytes(), k.contract.Bytes(), k.id[:]).Scan(&cur)
		} else {
			err = get20.QueryRow(f.id, k.owner.Bytes(), k.contract.Bytes()).Scan(&cur)
		}
		bal := new(big.Int)
		switch err {
		case nil:
			bal.SetString(cur, 10)
		case sql.ErrNoRows:
		default:
			return err
		}
		bal.Add(bal, d)
		switch {
		case bal.Sign() == 0 && is1155:
			_, err = del1155.Exec(f.id, k.owner.Bytes(), k.contract.Bytes(), k.id[:])
		case bal.Sign() == 0:
			_, err = del20.Exec(f.id, k.owner.Bytes(), k.contract.Bytes())
		case is1155:
			_, err = set1155.Exec(f.id, k.owner.Bytes(), k.contract.Bytes(), k.id[:], bal.String(), seqs[k])
		default:
			_, err = set20.Exec(f.id, k.owner.Bytes(), k.contract.Bytes(), bal.String())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func orZero(b *big.Int) *big.Int {
	if b == nil {
		return new(big.Int)
	}
	return b
}
