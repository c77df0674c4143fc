package evmindex

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// icmOrd is a message's listing position: its block's time, then the order
// the index learned of it.
func icmOrd(ts uint64, seq uint32) int64 { return int64(ts<<32 | uint64(seq)) }

// loadICM reads the store's last message counter, once at open.
func (ix *Index) loadICM(db *sql.DB) error {
	var n int64
	if err := db.QueryRow(`SELECT COALESCE(MAX(ord & 4294967295), 0) FROM icm_messages`).Scan(&n); err != nil {
		return fmt.Errorf("evmindex: icm messages: %w", err)
	}
	ix.icmSeq = uint32(n)
	return nil
}

// queryer is a *sql.DB or *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// loadBlockchainIDs reads the blockchain ids the chain's messengers
// announced (BlockchainIDInitialized) into f.announced.
func (f *follower) loadBlockchainIDs(ctx context.Context, db queryer) error {
	f.announced = map[common.Address]common.Hash{}
	rows, err := db.QueryContext(ctx, `SELECT messenger, chain FROM icm_events WHERE chain_id=? AND kind=? ORDER BY block_number, log_index`, f.id, ICMBlockchainID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var m, c []byte
		if err := rows.Scan(&m, &c); err != nil {
			return err
		}
		f.announced[common.BytesToAddress(m)] = common.BytesToHash(c)
	}
	return rows.Err()
}

// sourceOf returns the blockchain id of the messages messenger sends from
// this chain: ChainOptions.BlockchainID, else what the messenger announced,
// else zero (unknown).
func (f *follower) sourceOf(messenger common.Address) common.Hash {
	if f.opts.BlockchainID != (common.Hash{}) {
		return f.opts.BlockchainID
	}
	return f.announced[messenger]
}

// icmWriter writes one chain's messenger events inside a store transaction.
type icmWriter struct {
	f                        *follower
	tx                       *sql.Tx
	insEvent, upSend, upRecv *sql.Stmt
}

func (f *follower) newICMWriter(ctx context.Context, tx *sql.Tx) (*icmWriter, error) {
	w := &icmWriter{f: f, tx: tx}
	var err error
	prep := func(q string) *sql.Stmt {
		s, e := tx.PrepareContext(ctx, q)
		if e != nil && err == nil {
			err = fmt.Errorf("prepare %q: %w", q, e)
		}
		return s
	}
	w.insEvent = prep(`INSERT OR REPLACE INTO icm_events (chain_id, block_number, log_index, tx_hash, messenger, kind, message_id, chain, party, data,
		ts, src_chain, dst_chain, sender, recipient) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	// A send decides the message's row; a receive makes it only while the
	// send is not indexed.
	w.upSend = prep(`INSERT INTO icm_messages (message_id, ord, src_chain, dst_chain, sender, recipient) VALUES (?,?,?,?,?,?)
		ON CONFLICT (message_id) DO UPDATE SET ord=excluded.ord, src_chain=excluded.src_chain, dst_chain=excluded.dst_chain,
		sender=excluded.sender, recipient=excluded.recipient`)
	w.upRecv = prep(`INSERT INTO icm_messages (message_id, ord, src_chain, dst_chain, sender, recipient) VALUES (?,?,?,?,?,?)
		ON CONFLICT (message_id) DO NOTHING`)
	if err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *icmWriter) close() {
	for _, s := range []*sql.Stmt{w.insEvent, w.upSend, w.upRecv} {
		if s != nil {
			s.Close()
		}
	}
}

// write stores the events of block number (time ts). The caller holds the
// index's write lock.
func (w *icmWriter) write(number, ts uint64, events []ICMEvent) error {
	f := w.f
	for i := range events {
		e := &events[i]
		if e.Kind == ICMBlockchainID {
			f.announced[e.Messenger] = e.Chain
		}
		var id, chain, party, src, dst, sender, recipient any
		if e.MessageID != (common.Hash{}) {
			id = e.MessageID.Bytes()
		}
		if e.Chain != (common.Hash{}) {
			chain = e.Chain.Bytes()
		}
		if e.Party != (common.Address{}) {
			party = e.Party.Bytes()
		}
		var up *sql.Stmt
		switch e.Kind {
		case ICMSend:
			src, dst, up = f.sourceOf(e.Messenger).Bytes(), e.Chain.Bytes(), w.upSend
		case ICMReceive:
			src, dst, up = e.Chain.Bytes(), e.Message.Destination.Bytes(), w.upRecv
		}
		if up != nil {
			sender, recipient = e.Message.From.Bytes(), e.Message.To.Bytes()
		}
		if _, err := w.insEvent.Exec(f.id, number, e.LogIndex, e.TxHash.Bytes(), e.Messenger.Bytes(), e.Kind, id, chain, party, e.data,
			ts, src, dst, sender, recipient); err != nil {
			return err
		}
		if up == nil {
			continue
		}
		f.ix.icmSeq++
		if _, err := up.Exec(id, icmOrd(ts, f.ix.icmSeq), src, dst, sender, recipient); err != nil {
			return err
		}
	}
	return nil
}

// rollbackICM removes the messenger events of blocks >= from and rebuilds
// the rows of the messages they sent or delivered from the events left (a
// message delivered here but sent from another indexed chain keeps its
// row; one whose only send or receive was removed loses it).
func (f *follower) rollbackICM(ctx context.Context, tx *sql.Tx, from uint64) error {
	rows, err := tx.QueryContext(ctx, `SELECT message_id, MIN(kind) FROM icm_events WHERE chain_id=? AND block_number>=? AND kind IN (?,?) GROUP BY message_id`,
		f.id, from, ICMSend, ICMReceive)
	if err != nil {
		return err
	}
	removed := map[common.Hash]ICMEventKind{} // a message's send (or else receive) removed
	for rows.Next() {
		var id []byte
		var k ICMEventKind
		if err := rows.Scan(&id, &k); err != nil {
			rows.Close()
			return err
		}
		removed[common.BytesToHash(id)] = k
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM icm_events WHERE chain_id=? AND block_number>=?`, f.id, from); err != nil {
		return err
	}
	// Blocks indexed again come through the follower, which reads their
	// events itself.
	if _, err := tx.ExecContext(ctx, `UPDATE icm_backfill SET end_block=? WHERE chain_id=? AND end_block>=?`, int64(from)-1, f.id, from); err != nil {
		return err
	}
	for id, k := range removed {
		var kind ICMEventKind
		var ts uint64
		var src, dst, sender, recipient []byte
		err := tx.QueryRowContext(ctx, `SELECT kind, ts, src_chain, dst_chain, sender, recipient FROM icm_events WHERE message_id=? AND kind IN (?,?)
			ORDER BY kind, ts LIMIT 1`, id.Bytes(), ICMSend, ICMReceive).Scan(&kind, &ts, &src, &dst, &sender, &recipient)
		if err == nil && kind == ICMSend && k == ICMReceive {
			continue // the send made the row and stays: so does its place
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM icm_messages WHERE message_id=?`, id.Bytes()); err != nil {
			return err
		}
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return err
		}
		f.ix.icmSeq++
		if _, err := tx.ExecContext(ctx, `INSERT INTO icm_messages (message_id, ord, src_chain, dst_chain, sender, recipient) VALUES (?,?,?,?,?,?)`,
			id.Bytes(), icmOrd(ts, f.ix.icmSeq), src, dst, sender, recipient); err != nil {
			return err
		}
	}
	return f.loadBlockchainIDs(ctx, tx)
}
