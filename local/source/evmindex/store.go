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
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	f.cumTxs = cum
	for _, t := range infos {
		f.tokens[t.Address] = t.Kind
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
	insBlock := prep(`INSERT OR REPLACE INTO blocks VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
	insTx := prep(`INSERT OR REPLACE INTO txs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	insTransfer := prep(`INSERT OR REPLACE INTO transfers VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
	insAddr := prep(`INSERT OR IGNORE INTO address_transfers VALUES (?,?,?,?)`)
	setOwner := prep(`INSERT OR REPLACE INTO nft_owners VALUES (?,?,?,?)`)
	delOwner := prep(`DELETE FROM nft_owners WHERE chain_id=? AND contract=? AND token_id=?`)
	insContract := prep(`INSERT OR IGNORE INTO contracts VALUES (?,?,?,?,?,?)`)
	insInternal := prep(`INSERT OR REPLACE INTO internal_txs VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
	insToken := prep(`INSERT OR IGNORE INTO tokens VALUES (?,?,?,?,?,?)`)
	insTeleport := prep(`INSERT OR REPLACE INTO teleporter_messages VALUES (?,?,?,?,?,?,?)`)
	insUntraced := prep(`INSERT OR REPLACE INTO untraced_blocks VALUES (?,?,?)`)
	for _, s := range []*sql.Stmt{insBlock, insTx, insTransfer, insAddr, setOwner, delOwner, insContract, insInternal, insToken, insTeleport, insUntraced} {
		if s != nil {
			defer s.Close()
		}
	}
	if prepErr != nil {
		return 0, prepErr
	}
	for _, t := range infos {
		if _, err := insToken.Exec(f.id, t.Address.Bytes(), t.Kind, t.Name, t.Symbol, t.Decimals); err != nil {
			return 0, err
		}
	}
	deltas := map[balKey]*big.Int{}
	add := func(k balKey, v *big.Int, neg bool) {
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
			switch t.Kind {
			case ERC20, ERC1155:
				if t.From != zero {
					add(balKey{t.From, t.Contract, idKey, t.Kind == ERC1155}, t.Value, true)
				}
				if t.To != zero {
					add(balKey{t.To, t.Contract, idKey, t.Kind == ERC1155}, t.Value, false)
				}
			case ERC721:
				var err error
				if t.To == zero {
					_, err = delOwner.Exec(f.id, t.Contract.Bytes(), id)
				} else {
					_, err = setOwner.Exec(f.id, t.Contract.Bytes(), id, t.To.Bytes())
				}
				if err != nil {
					return 0, err
				}
			}
		}
		for _, c := range d.Creations {
			if _, err := insContract.Exec(f.id, c.Address.Bytes(), c.TxHash.Bytes(), d.Number, c.Deployer.Bytes(), string(c.Kind)); err != nil {
				return 0, err
			}
		}
		if d.untraced != "" {
			if _, err := insUntraced.Exec(f.id, d.Number, d.untraced); err != nil {
				return 0, err
			}
		}
		for _, it := range d.internals {
			if _, err := insInternal.Exec(f.id, it.TxHash.Bytes(), it.Idx, d.Number, it.Type, it.From.Bytes(), it.To.Bytes(), it.Value.String(), it.Gas, it.GasUsed, it.Reverted); err != nil {
				return 0, err
			}
		}
		for _, e := range d.teleport {
			if _, err := insTeleport.Exec(f.id, e.TxHash.Bytes(), e.LogIndex, d.Number, e.MessageID.Bytes(), e.Direction, e.OtherChain.Bytes()); err != nil {
				return 0, err
			}
		}
	}
	if err := f.applyDeltas(ctx, tx, deltas); err != nil {
		return 0, err
	}
	return cum, nil
}

// applyDeltas adds balance changes to the current-balance tables; a balance
// that reaches zero is deleted.
func (f *follower) applyDeltas(ctx context.Context, tx *sql.Tx, deltas map[balKey]*big.Int) error {
	if len(deltas) == 0 {
		return nil
	}
	get20, _ := tx.PrepareContext(ctx, `SELECT balance FROM erc20_balances WHERE chain_id=? AND owner=? AND contract=?`)
	set20, _ := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO erc20_balances VALUES (?,?,?,?)`)
	del20, _ := tx.PrepareContext(ctx, `DELETE FROM erc20_balances WHERE chain_id=? AND owner=? AND contract=?`)
	get1155, _ := tx.PrepareContext(ctx, `SELECT balance FROM erc1155_balances WHERE chain_id=? AND owner=? AND contract=? AND token_id=?`)
	set1155, _ := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO erc1155_balances VALUES (?,?,?,?,?)`)
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
			_, err = set1155.Exec(f.id, k.owner.Bytes(), k.contract.Bytes(), k.id[:], bal.String())
		default:
			_, err = set20.Exec(f.id, k.owner.Bytes(), k.contract.Bytes(), bal.String())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rollback removes blocks >= from and everything derived from them.
func (f *follower) rollback(ctx context.Context, from uint64) error {
	f.ix.writeMu.Lock()
	defer f.ix.writeMu.Unlock()
	tx, err := f.ix.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	defer tx.Rollback()
	first := seqOf(from, 0, 0)
	rows, err := tx.QueryContext(ctx, `SELECT seq, contract, kind, from_addr, to_addr, token_id, value FROM transfers WHERE chain_id=? AND seq>=?`, f.id, first)
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	type nftKey struct {
		contract common.Address
		id       [32]byte
	}
	deltas := map[balKey]*big.Int{}
	nfts := map[nftKey]bool{}
	type addrRow struct {
		addr []byte
		kind TokenKind
		seq  int64
	}
	var addrRows []addrRow
	zero := common.Address{}
	for rows.Next() {
		var seq int64
		var contract, fromA, toA, id []byte
		var kind TokenKind
		var value string
		if err := rows.Scan(&seq, &contract, &kind, &fromA, &toA, &id, &value); err != nil {
			rows.Close()
			return fmt.Errorf("rollback: %w", err)
		}
		c, fa, ta := common.BytesToAddress(contract), common.BytesToAddress(fromA), common.BytesToAddress(toA)
		var idKey [32]byte
		copy(idKey[:], id)
		v, _ := new(big.Int).SetString(value, 10)
		switch kind {
		case ERC721:
			nfts[nftKey{c, idKey}] = true
		default:
			if fa != zero {
				k := balKey{fa, c, idKey, kind == ERC1155}
				deltas[k] = new(big.Int).Add(orZero(deltas[k]), v)
			}
			if ta != zero {
				k := balKey{ta, c, idKey, kind == ERC1155}
				deltas[k] = new(big.Int).Sub(orZero(deltas[k]), v)
			}
		}
		for _, a := range [][]byte{fromA, toA} {
			if common.BytesToAddress(a) != zero {
				addrRows = append(addrRows, addrRow{a, kind, seq})
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	for _, r := range addrRows {
		if _, err := tx.ExecContext(ctx, `DELETE FROM address_transfers WHERE chain_id=? AND address=? AND kind=? AND seq=?`, f.id, r.addr, r.kind, r.seq); err != nil {
			return fmt.Errorf("rollback: %w", err)
		}
	}
	for _, q := range []string{
		`DELETE FROM transfers WHERE chain_id=? AND seq>=?`,
	} {
		if _, err := tx.ExecContext(ctx, q, f.id, first); err != nil {
			return fmt.Errorf("rollback: %w", err)
		}
	}
	for _, q := range []string{
		`DELETE FROM blocks WHERE chain_id=? AND number>=?`,
		`DELETE FROM txs WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM contracts WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM internal_txs WHERE chain_id=? AND block_number>=?`,
		`DELETE FROM untraced_blocks WHERE chain_id=? AND number>=?`,
		`DELETE FROM teleporter_messages WHERE chain_id=? AND block_number>=?`,
	} {
		if _, err := tx.ExecContext(ctx, q, f.id, from); err != nil {
			return fmt.Errorf("rollback: %w", err)
		}
	}
	if err := f.applyDeltas(ctx, tx, deltas); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	for k := range nfts {
		var owner []byte
		err := tx.QueryRowContext(ctx, `SELECT to_addr FROM transfers WHERE chain_id=? AND contract=? AND token_id=? ORDER BY seq DESC LIMIT 1`, f.id, k.contract.Bytes(), k.id[:]).Scan(&owner)
		switch {
		case err == sql.ErrNoRows || (err == nil && common.BytesToAddress(owner) == zero):
			_, err = tx.ExecContext(ctx, `DELETE FROM nft_owners WHERE chain_id=? AND contract=? AND token_id=?`, f.id, k.contract.Bytes(), k.id[:])
		case err == nil:
			_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO nft_owners VALUES (?,?,?,?)`, f.id, k.contract.Bytes(), k.id[:], owner)
		}
		if err != nil {
			return fmt.Errorf("rollback: %w", err)
		}
	}
	var cum sql.NullInt64
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT number, cum_txs FROM blocks WHERE chain_id=? ORDER BY number DESC LIMIT 1`, f.id).Scan(&last, &cum); err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("rollback: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	f.cumTxs = uint64(cum.Int64)
	f.setHead(uint64(last.Int64), last.Valid)
	return nil
}

func orZero(b *big.Int) *big.Int {
	if b == nil {
		return new(big.Int)
	}
	return b
}
