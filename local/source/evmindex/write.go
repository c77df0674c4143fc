package evmindex

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// The follower writes each batch of blocks in one store transaction:
// commit decodes the blocks, reads the metadata of the tokens they show
// first, and writes everything through the store's Batch (write,
// writeBlock); then it moves the head and runs the block hook. What is
// derived from several blocks (balances, parties, a messenger's
// blockchain id) is computed here, the same for every store.

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
	var cum uint64
	err = f.ix.st.Write(ctx, f.id, func(b Batch) error {
		var err error
		if cum, err = f.write(b, ds, infos); err != nil {
			return err
		}
		return writeNativeBalances(b, blocks)
	})
	if err != nil {
		return err
	}
	f.stored(cum, infos)
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

// stored notes what a committed write changed of the follower's own state:
// the transactions counted through its last block, the tokens it stored.
func (f *follower) stored(cumTxs uint64, tokens []Token) {
	f.cumTxs = cumTxs
	for _, t := range tokens {
		f.tokens[t.Address] = knownToken{kind: t.Kind, spam: t.Spam()}
	}
}

// write stores decoded blocks through b: the tokens first seen in them,
// each block's rows (writeBlock), then the balance changes of all their
// transfers at once. It returns the chain's transactions counted through
// the last block.
func (f *follower) write(b Batch, ds []*decoded, infos []Token) (uint64, error) {
	spam := make(map[common.Address]bool, len(infos))
	for i := range infos {
		if err := b.Token(&infos[i]); err != nil {
			return 0, err
		}
		spam[infos[i].Address] = infos[i].Spam()
	}
	bal := balances{}
	cum := f.cumTxs
	for _, d := range ds {
		cum += uint64(len(d.Txs))
		if err := f.writeBlock(b, d, cum, spam, bal); err != nil {
			return 0, err
		}
	}
	return cum, b.Balances(bal.changes())
}

// writeBlock stores one block through b: its header, transactions and
// token transfers (whose balance changes it adds to bal), its contract
// creations, its trace (or why it has none), every address's part in its
// transactions (spam: the tokens first seen in this batch, whether they
// are spam), and its Teleporter and ICM events.
func (f *follower) writeBlock(b Batch, d *decoded, cum uint64, spam map[common.Address]bool, bal balances) error {
	if err := b.Block(&d.Block, d.feesSpent, cum); err != nil {
		return err
	}
	for i, t := range d.Txs {
		raw := &d.txs[i]
		row := TxRow{Tx: t, BlockNumber: d.Number, MaxFeePerGas: raw.MaxFeePerGas.ToInt(), MaxPriorityFeePerGas: raw.MaxPriorityFeePerGas.ToInt(),
			Input: []byte(raw.Input)}
		if err := b.Tx(d.Number, &row); err != nil {
			return err
		}
	}
	for i := range d.Transfers {
		t := &d.Transfers[i]
		seq := seqOf(d.Number, t.LogIndex, t.BatchIndex)
		if err := b.Transfer(d.Number, seq, t); err != nil {
			return err
		}
		var id [32]byte
		if t.TokenID != nil {
			t.TokenID.FillBytes(id[:])
		}
		bal.add(t, id, seq, false)
	}
	if err := writeCreations(b, d); err != nil {
		return err
	}
	if err := writeTrace(b, d); err != nil {
		return err
	}
	if err := f.writeParties(b, d, spam); err != nil {
		return err
	}
	for i := range d.teleport {
		if err := b.Teleporter(d.Number, &d.teleport[i]); err != nil {
			return err
		}
	}
	return f.writeICM(b, d.Number, d.Timestamp, d.icm)
}

// writeCreations stores the contracts d's transactions created, each with
// the sender of its transaction.
func writeCreations(b Batch, d *decoded) error {
	origins := make(map[common.Hash]common.Address, len(d.Txs))
	for _, t := range d.Txs {
		origins[t.Hash] = t.From
	}
	for i := range d.Creations {
		c := &d.Creations[i]
		if err := b.Contract(d.Number, creationSeq(d.Number, i), c, origins[c.TxHash]); err != nil {
			return err
		}
	}
	return nil
}

// writeTrace stores d's call frames, or why a block with transactions has
// none: its trace failed or was too large, or the chain is not traced at
// all.
func writeTrace(b Batch, d *decoded) error {
	reason := d.untraced
	if reason == "" && !d.traced && len(d.Txs) > 0 {
		reason = noTracerReason
	}
	if reason != "" {
		if err := b.Untraced(d.Number, reason); err != nil {
			return err
		}
	}
	for i := range d.internals {
		if err := b.Frame(d.Number, &d.internals[i]); err != nil {
			return err
		}
	}
	return nil
}

// writeParties stores every address's part in d's transactions and the
// address rows of its listed internal transactions (parties).
func (f *follower) writeParties(b Batch, d *decoded, spam map[common.Address]bool) error {
	ps, ins := f.parties(d, spam)
	for k, p := range ps {
		if err := b.Party(d.Number, k.addr, k.index, p.native, !p.nonSpam); err != nil {
			return err
		}
	}
	for _, a := range ins {
		if err := b.AddressFrame(a.addr, a.seq, a.tx, a.idx); err != nil {
			return err
		}
	}
	return nil
}

// writeICM stores the messenger events of block number (time ts), with the
// ends of the messages they send or deliver: a send's source is the
// chain's blockchain id (sourceOf), which a BlockchainIDInitialized event
// announces.
func (f *follower) writeICM(b Batch, number, ts uint64, events []ICMEvent) error {
	for i := range events {
		e := &events[i]
		if e.Kind == ICMBlockchainID {
			f.announced[e.Messenger] = e.Chain
		}
		var src, dst common.Hash
		switch e.Kind {
		case ICMSend:
			src, dst = f.sourceOf(e.Messenger), e.Chain
		case ICMReceive:
			src, dst = e.Chain, e.Message.Destination
		}
		if err := b.ICMEvent(number, ts, e, src, dst); err != nil {
			return err
		}
	}
	return nil
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

// writeNativeBalances stores the balances fetched with blocks.
func writeNativeBalances(b Batch, blocks []*fetched) error {
	for _, bl := range blocks {
		for _, nb := range bl.balances {
			if err := b.NativeBalance(uint64(bl.block.Number), nb.addr, nb.balance); err != nil {
				return err
			}
		}
	}
	return nil
}

// seqOf orders transfers: block<<28 | logIndex<<10 | batchIndex.
func seqOf(block uint64, logIndex, batch uint) int64 {
	return int64(block<<28 | uint64(logIndex&(1<<18-1))<<10 | uint64(batch&(1<<10-1)))
}

// balKey is a holding whose balance transfers change: an ERC-20 balance,
// or an ERC-1155 balance of a token id.
type balKey struct {
	owner, contract common.Address
	id              [32]byte // zero for ERC-20
	is1155          bool
}

// balances sums the balance changes of transfers by holding, with the
// last transfer of each.
type balances map[balKey]*BalanceChange

// add adds the balance changes of an ERC-20 or ERC-1155 transfer t (of
// token id) at seq: its sender loses the value, its recipient gains it
// (the other way round when undo, for a rollback).
func (bs balances) add(t *Transfer, id [32]byte, seq int64, undo bool) {
	if t.Kind != ERC20 && t.Kind != ERC1155 {
		return
	}
	zero := common.Address{}
	for _, p := range []struct {
		owner common.Address
		neg   bool
	}{{t.From, !undo}, {t.To, undo}} {
		if p.owner == zero {
			continue
		}
		k := balKey{p.owner, t.Contract, id, t.Kind == ERC1155}
		c := bs[k]
		if c == nil {
			c = &BalanceChange{Owner: p.owner, Contract: t.Contract, TokenID: id, ERC1155: k.is1155, Delta: new(big.Int)}
			bs[k] = c
		}
		if p.neg {
			c.Delta.Sub(c.Delta, t.Value)
		} else {
			c.Delta.Add(c.Delta, t.Value)
		}
		if !undo {
			c.Seq = seq
		}
	}
}

// changes returns the summed changes.
func (bs balances) changes() []BalanceChange {
	out := make([]BalanceChange, 0, len(bs))
	for _, c := range bs {
		out = append(out, *c)
	}
	return out
}
