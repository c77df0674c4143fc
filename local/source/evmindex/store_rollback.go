package evmindex

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// rollbackBatch is a store's batch in which Rollback's steps run
// (pgBatch, sqliteBatch): the steps whose statements or order differ by
// store (a PostgreSQL batch's statements are pipelined: its reads flush
// the queue first) are its own; rollbackBlocks sequences them.
type rollbackBatch interface {
	Balances(changes []BalanceChange) error
	// queue runs a statement of the rollback, at once or before the
	// batch's next read.
	queue(q string, args ...any) error
	// removedTransfers reads the transfers at seq first and above: the
	// balance changes that undo them, the ERC-721 tokens they moved, and
	// their address_transfers rows.
	removedTransfers(first int64) ([]BalanceChange, map[nftKey]bool, []addrRow, error)
	rollbackICM(from uint64) error
	rollbackListings(from uint64, transfers []addrRow) error
	restoreHoldings(changes []BalanceChange, nfts map[nftKey]bool) error
}

// rollbackSQL is one store's text of the deletes rollbackBlocks runs
// (pgRollbackSQL, sqliteRollbackSQL).
type rollbackSQL struct {
	// addrTransfer deletes an address_transfers row by chain id, address,
	// kind and seq.
	addrTransfer string
	// transfers deletes a chain's transfers from a seq on.
	transfers string
	// fromBlock deletes the other tables' rows of a chain from a block
	// number on.
	fromBlock []string
}

// rollbackBlocks removes chainID's blocks >= from and everything derived
// from them through b (chainID as b's store binds it), running the deletes
// of s: the listings' rows and ICM
// messages first, while the rows they derive from are there, then those
// rows, then the balances and holdings the removed transfers changed.
func rollbackBlocks(b rollbackBatch, s *rollbackSQL, chainID any, from uint64) error {
	first := seqOf(from, 0, 0)
	changes, nfts, addrRows, err := b.removedTransfers(first)
	if err != nil {
		return err
	}
	if err := b.rollbackICM(from); err != nil {
		return err
	}
	if err := b.rollbackListings(from, addrRows); err != nil {
		return err
	}
	for _, r := range addrRows {
		if err := b.queue(s.addrTransfer, chainID, r.addr, int16(r.kind), r.seq); err != nil {
			return err
		}
	}
	if err := b.queue(s.transfers, chainID, first); err != nil {
		return err
	}
	for _, q := range s.fromBlock {
		if err := b.queue(q, chainID, from); err != nil {
			return err
		}
	}
	if err := b.Balances(changes); err != nil {
		return err
	}
	return b.restoreHoldings(changes, nfts)
}

// readRemovedTransfers reads removedTransfers' rows (seq, contract, kind,
// from, to, token id, value as text), and closes them: the balance changes
// that undo the transfers, the ERC-721 tokens they moved, and their
// address_transfers rows.
func readRemovedTransfers(rows rowSet) ([]BalanceChange, map[nftKey]bool, []addrRow, error) {
	defer rows.Close()
	undo := balances{}
	nfts := map[nftKey]bool{}
	var addrRows []addrRow
	for rows.Next() {
		var seq int64
		var contract, fromA, toA, id []byte
		var kind int16
		var value string
		if err := rows.Scan(&seq, &contract, &kind, &fromA, &toA, &id, &value); err != nil {
			return nil, nil, nil, err
		}
		c, k := common.BytesToAddress(contract), TokenKind(kind)
		var idKey [32]byte
		copy(idKey[:], id)
		v, _ := new(big.Int).SetString(value, 10)
		if k == ERC721 {
			nfts[nftKey{c, idKey}] = true
		} else {
			undo.add(&Transfer{Contract: c, Kind: k, From: common.BytesToAddress(fromA), To: common.BytesToAddress(toA), Value: v}, idKey, 0, true)
		}
		for _, a := range [][]byte{fromA, toA} {
			if common.BytesToAddress(a) != (common.Address{}) {
				addrRows = append(addrRows, addrRow{a, k, seq})
			}
		}
	}
	return undo.changes(), nfts, addrRows, rows.Err()
}
