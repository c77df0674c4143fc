package pindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/source/nodeclient"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The C-Chain's atomic transactions (coreth's ImportTx and ExportTx, in its
// blocks' extra data) are indexed with the P- and X-Chain's, as rows of
// chain C: an import's transaction and its spends of the UTXOs the X- or
// P-Chain exported to the C-Chain's shared memory; an export's
// transaction and the UTXOs it puts into the destination's shared memory.
// Only the C-Chain blocks that hold atomic transactions get a row (the
// blocks table's chain C); how far the C-Chain is read is the meta key
// cHeadKey, "height hash" of the last block read, so that a rollback (the
// node's chain no longer holding it) is seen as on the other chains.
const cHeadKey = "c_atomic_head"

// Tx types of the C-Chain's atomic transactions.
const (
	TxCImport = "ImportTx"
	TxCExport = "ExportTx"
)

// CTxBody is the stored body of a C-Chain atomic transaction: its fields
// as coreth's JSON names them, its block's hash and its signed bytes
// (hexnc), which avax.getAtomicTx answers.
type CTxBody struct {
	ID        string      `json:"id"`
	BlockHash string      `json:"blockHash"`
	Bytes     string      `json:"bytes"`
	Unsigned  CTxUnsigned `json:"unsignedTx"`
}

// CTxUnsigned is an atomic transaction's unsigned part: SourceChain is an
// import's, DestinationChain an export's (the C-Chain being the other).
type CTxUnsigned struct {
	NetworkID        uint32 `json:"networkID"`
	BlockchainID     string `json:"blockchainID"`
	SourceChain      string `json:"sourceChain"`
	DestinationChain string `json:"destinationChain"`
	// EVMOutputs are an import's credits, EVMInputs an export's debits,
	// with the address (0x hex) that signed each (Signer).
	EVMOutputs []CTxEVM `json:"outputs,omitempty"`
	EVMInputs  []CTxEVM `json:"inputs,omitempty"`
}

// CTxEVM is an EVMInput or EVMOutput: Nonce is an input's.
type CTxEVM struct {
	Address string `json:"address"`
	Amount  uint64 `json:"amount"`
	AssetID string `json:"assetID"`
	Nonce   uint64 `json:"nonce,omitempty"`
}

// AtomicBytes returns the signed bytes of a C-Chain atomic transaction
// (t.Chain C), kept in its body.
func (t *Tx) AtomicBytes() ([]byte, error) {
	var body CTxBody
	if err := json.Unmarshal(t.Body, &body); err != nil {
		return nil, fmt.Errorf("pindex: C-Chain tx %s: %w", t.ID, err)
	}
	b, err := hexBytes(body.Bytes)
	if err != nil {
		return nil, fmt.Errorf("pindex: C-Chain tx %s: %w", t.ID, err)
	}
	return b, nil
}

// cHead reads how far the C-Chain was read: -1 and "" before any block.
func cHead(st Writer) (int64, string, error) {
	v, ok, err := st.Meta(cHeadKey)
	if err != nil || !ok {
		return -1, "", err
	}
	hs, hash, _ := strings.Cut(v, " ")
	h, err := strconv.ParseInt(hs, 10, 64)
	if err != nil {
		return -1, "", fmt.Errorf("pindex: meta %s %q: %w", cHeadKey, v, err)
	}
	return h, hash, nil
}

// followC reads the C-Chain's blocks for their atomic transactions until
// ctx ends: as follower.run does for the P- and X-Chain, a batch of blocks
// (fetched Options.Concurrency at a time) per store transaction.
func (ix *Index) followC(ctx context.Context) {
	evm := ix.node.C()
	var lastErr loggedErr
	fail := func(err error) {
		if ctx.Err() != nil {
			return
		}
		ix.metrics.errors.WithLabelValues(string(avanet.ChainC)).Inc()
		if lastErr.msg != err.Error() {
			lastErr.msg = err.Error()
			ix.log.Error("indexing the C-Chain's atomic transactions failed; retrying", "err", err)
		}
		sleep(ctx, max(ix.opts.PollInterval, 1e9))
	}
	for ctx.Err() == nil {
		tip, err := evm.Height(ctx)
		if err != nil {
			sleep(ctx, ix.opts.PollInterval)
			continue
		}
		head, hash, err := cHead(ix.st)
		if err != nil {
			fail(err)
			continue
		}
		if int64(tip) <= head {
			if int64(tip) < head {
				err = ix.reconcileC(ctx, evm, uint64(tip))
			} else {
				sleep(ctx, ix.opts.PollInterval)
			}
			if err != nil {
				fail(err)
			}
			continue
		}
		from := uint64(head + 1)
		to := min(tip, from+uint64(ix.opts.CommitBlocks)-1)
		blocks, err := fetchC(ctx, evm, from, to, ix.opts.Concurrency)
		if err == nil {
			if head >= 0 && blocks[0].Parent != hash {
				err = ix.reconcileC(ctx, evm, uint64(head))
			} else {
				err = ix.commitC(ctx, blocks)
			}
		}
		if err != nil {
			fail(err)
		}
	}
}

// fetchC reads the C-Chain's blocks from..to, at most n at once.
func fetchC(ctx context.Context, evm nodeclient.EVM, from, to uint64, n int) ([]*nodeclient.CBlock, error) {
	blocks := make([]*nodeclient.CBlock, to-from+1)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(n)
	for i := range blocks {
		g.Go(func() error {
			b, err := evm.Block(gctx, from+uint64(i))
			blocks[i] = b
			return err
		})
	}
	return blocks, g.Wait()
}

// reconcileC rolls the C-Chain's rows back to the highest stored block with
// atomic transactions, at or below from, that the node still has (none:
// all of them), and the head with them.
func (ix *Index) reconcileC(ctx context.Context, evm nodeclient.EVM, from uint64) error {
	to, hash := int64(-1), ""
	after := PosOf(from+1, 0)
	for to < 0 {
		// A page of the stored blocks at or below from, newest first.
		stored, err := ix.st.Blocks(ctx, avanet.ChainC, BlockRange{After: &after, Limit: 64})
		if err != nil {
			return err
		}
		if len(stored) == 0 {
			break
		}
		for _, b := range stored {
			nb, err := evm.Block(ctx, b.Height)
			var rpcErr *jsonrpc.Error
			if err != nil && !errors.As(err, &rpcErr) {
				return err
			}
			if err == nil && nb.Hash == b.ID {
				to, hash = int64(b.Height), b.ID
				break
			}
		}
		after = stored[len(stored)-1].Pos()
	}
	ix.log.Warn("the node's C-Chain differs from the index; rolling its atomic transactions back", "to", to)
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	err := ix.st.Rollback(ctx, ix.net.AVAXAssetID, avanet.ChainC, to)
	ix.version.Add(1) // after a failed rollback too: nothing cached may outlive it
	if err == nil {
		err = ix.st.SetMeta(cHeadKey, strconv.FormatInt(to, 10)+" "+hash)
	}
	if err != nil {
		return err
	}
	ix.setHead(avanet.ChainC, to)
	return nil
}

// commitC stores the atomic transactions of blocks, consecutive C-Chain
// blocks each naming the one before it as its parent, and the head, in
// one store transaction.
func (ix *Index) commitC(ctx context.Context, blocks []*nodeclient.CBlock) error {
	for i := 1; i < len(blocks); i++ {
		if blocks[i].Parent != blocks[i-1].Hash {
			return fmt.Errorf("pindex: C block %d names parent %s, but block %d is %s", blocks[i].Height, blocks[i].Parent, blocks[i-1].Height, blocks[i-1].Hash)
		}
	}
	last := blocks[len(blocks)-1]
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	err := ix.st.Write(ctx, func(b Batch) error {
		w := &writer{b: b, net: &ix.net, chain: avanet.ChainC}
		for _, cb := range blocks {
			if err := w.applyC(cb); err != nil {
				return err
			}
		}
		return b.SetMeta(cHeadKey, strconv.FormatUint(last.Height, 10)+" "+last.Hash)
	})
	if err != nil {
		return err
	}
	ix.version.Add(1)
	ix.metrics.blocks.WithLabelValues(string(avanet.ChainC)).Add(float64(len(blocks)))
	ix.setHead(avanet.ChainC, int64(last.Height))
	return nil
}

// applyC stores a C-Chain block's atomic transactions, and the block when
// it has any. The extra data is a batch since ApricotPhase5; an older
// block's that is not one is a single transaction.
func (w *writer) applyC(cb *nodeclient.CBlock) error {
	txs, err := avax.ParseAtomicTxs(cb.ExtraData, true)
	if err != nil && len(cb.ExtraData) > 0 {
		var single error
		if txs, single = avax.ParseAtomicTxs(cb.ExtraData, false); single != nil {
			return fmt.Errorf("pindex: C block %d extra data: %w", cb.Height, err)
		}
	}
	if len(txs) == 0 {
		return nil
	}
	w.height, w.time = cb.Height, cb.Time
	ids := make([]string, len(txs))
	for i, tx := range txs {
		w.idx = i
		if ids[i], err = w.applyAtomic(tx, cb.Hash); err != nil {
			return fmt.Errorf("pindex: C block %d tx %d: %w", cb.Height, i, err)
		}
	}
	return w.b.Block(&Block{Chain: avanet.ChainC, Height: cb.Height, ID: cb.Hash, Parent: cb.Parent, Time: cb.Time,
		Type: "AtomicBlock", Size: len(cb.ExtraData), Txs: ids}, nil, nil)
}

// applyAtomic stores one atomic transaction of the block being applied:
// the transaction, an import's spends, an export's UTXOs.
func (w *writer) applyAtomic(tx *avax.AtomicTx, blockHash string) (string, error) {
	txID := tx.ID()
	id := txID.String()
	body := CTxBody{ID: id, BlockHash: blockHash, Bytes: avax.EncodeHexNC(tx.Signed),
		Unsigned: CTxUnsigned{NetworkID: tx.NetworkID, BlockchainID: tx.BlockchainID.String()}}
	if tx.Import != nil {
		body.Unsigned.SourceChain = tx.Chain.String()
		for _, o := range tx.Import.Outs {
			body.Unsigned.EVMOutputs = append(body.Unsigned.EVMOutputs, CTxEVM{Address: avax.EncodeHexNC(o.Address[:]), Amount: o.Amount, AssetID: o.AssetID.String()})
		}
	} else {
		body.Unsigned.DestinationChain = tx.Chain.String()
		for _, in := range tx.Export.Ins {
			body.Unsigned.EVMInputs = append(body.Unsigned.EVMInputs, CTxEVM{Address: avax.EncodeHexNC(in.Address[:]), Amount: in.Amount,
				AssetID: in.AssetID.String(), Nonce: in.Nonce})
		}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	if err := w.b.Tx(&Tx{ID: id, Chain: avanet.ChainC, Height: w.height, Index: w.idx, Type: tx.Type(), Time: w.time, Body: raw}, tx.Signed); err != nil {
		return "", err
	}
	if tx.Import != nil {
		for _, in := range tx.Import.Ins {
			if err := w.spend(in.TxID.String(), in.OutputIndex, id); err != nil {
				return "", err
			}
		}
		return id, nil
	}
	dest, err := chainOf(w.net, tx.Chain.String())
	if err != nil {
		return "", err
	}
	for i, o := range tx.Export.Outs {
		out := o.Out
		u := avax.UTXO{TxID: txID, OutputIndex: uint32(i), AssetID: o.AssetID, Out: &out}
		row := &UTXO{ID: u.ID().String(), Chain: dest, CreatedOn: avanet.ChainC, Height: w.height, Time: w.time, TxID: id, OutputIndex: uint32(i),
			AssetID: o.AssetID.String(), Amount: out.Amt, Locktime: out.Locktime, Threshold: out.Threshold, Addresses: out.Addrs, Bytes: u.Bytes()}
		if err := w.b.UTXO(row, w.idx); err != nil {
			return "", err
		}
	}
	return id, nil
}

// AppendC stores C-Chain blocks' atomic transactions in an index no node
// fills (Options.Network): blocks must follow the last one stored, each
// naming the one before it as its parent.
func (ix *Index) AppendC(ctx context.Context, blocks []*nodeclient.CBlock) error {
	if len(blocks) == 0 {
		return nil
	}
	head, hash, err := cHead(ix.st)
	if err != nil {
		return err
	}
	if blocks[0].Height != uint64(head+1) || (head >= 0 && blocks[0].Parent != hash) {
		return fmt.Errorf("pindex: C block %d (parent %s) appended after block %d (%s)", blocks[0].Height, blocks[0].Parent, head, hash)
	}
	return ix.commitC(ctx, blocks)
}
