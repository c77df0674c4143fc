package evmindex

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// This file gives the package's external tests (the route benchmark) a way
// to fill a store fast, without a chain: synthetic blocks written by the
// indexer's own write path (follower.write), so the rows are exactly those
// a followed chain would leave.

// FixtureTx is a synthetic transaction: its receipt's outcome (in Tx), its
// input, and its internal transactions (frames below its own call).
type FixtureTx struct {
	Tx
	Input     []byte
	Internals []FixtureFrame
}

// FixtureFrame is one frame of a transaction's trace below its own call.
type FixtureFrame struct {
	Type     string
	From, To common.Address
	Value    *big.Int
}

// FixtureBlock is a synthetic block: Block's header fields and transfers,
// the creations of its transactions, and its transactions.
type FixtureBlock struct {
	Block
	Txs []FixtureTx
}

// FixtureNFT is an NFT whose metadata the store holds as read.
type FixtureNFT struct {
	Contract common.Address
	TokenID  *big.Int
	Name     string
}

// WriteFixture writes blocks (consecutive, continuing the chain's stored
// head), tokens (the first time each is seen) and NFTs' metadata to
// chainID's store in one transaction, registering the chain as followed
// (without a node) on first use.
func (ix *Index) WriteFixture(ctx context.Context, chainID uint64, blocks []FixtureBlock, tokens []Token, nfts []FixtureNFT) error {
	f := ix.fixtureChain(chainID)
	ds := make([]*decoded, len(blocks))
	for i := range blocks {
		b := &blocks[i]
		d := &decoded{Block: b.Block, txs: make([]rpcTx, len(b.Txs)), feesSpent: new(big.Int), traced: true}
		d.Block.Txs = make([]Tx, len(b.Txs))
		for j, t := range b.Txs {
			d.Block.Txs[j] = t.Tx
			d.txs[j] = rpcTx{Input: append(hexutil.Bytes{}, t.Input...)} // "0x" decodes to empty, never nil
			d.feesSpent.Add(d.feesSpent, t.Fee)
			d.internals = append(d.internals, Frame{TxHash: t.Hash, Idx: 0, InternalTx: InternalTx{Type: "CALL", From: t.From, To: deref(t.To),
				Value: t.Value, Gas: t.GasLimit, GasUsed: t.GasUsed}})
			for k, fr := range t.Internals {
				d.internals = append(d.internals, Frame{TxHash: t.Hash, Idx: k + 1, InternalTx: InternalTx{Type: fr.Type, From: fr.From, To: fr.To,
					Value: fr.Value, Gas: 50_000, GasUsed: 30_000}})
			}
		}
		ds[i] = d
	}
	var cum uint64
	err := ix.st.Write(ctx, chainID, func(b Batch) error {
		var err error
		cum, err = f.write(b, ds, tokens)
		return err
	})
	if err != nil {
		return fmt.Errorf("fixture: %w", err)
	}
	kept := make([]NFT, len(nfts))
	for i, n := range nfts {
		kept[i] = NFT{Contract: n.Contract, TokenID: n.TokenID, TokenURI: "data:application/json;base64,e30=", Status: StatusIndexed,
			Metadata: NFTMetadata{Name: n.Name, Description: "a fixture NFT"}, Updated: 1_700_000_000}
	}
	if err := ix.st.PutNFTs(ctx, chainID, kept); err != nil {
		return err
	}
	f.stored(cum, tokens)
	if len(ds) > 0 {
		f.setHead(ds[len(ds)-1].Number, true)
	}
	return nil
}

// ReopenFixture registers chainID, whose blocks the store already holds (a
// benchmark's kept database), as followed without a node, its head and
// tokens read from the store.
func (ix *Index) ReopenFixture(ctx context.Context, chainID uint64) error {
	return ix.fixtureChain(chainID).load(ctx)
}

// fixtureChain returns chainID's follower, registered (without a node) on
// first use.
func (ix *Index) fixtureChain(chainID uint64) *follower {
	f := ix.chains[chainID]
	if f == nil {
		f = &follower{ix: ix, id: chainID, changed: make(chan struct{}), tokens: map[common.Address]knownToken{}, announced: map[common.Address]common.Hash{}}
		ix.chains[chainID] = f
		ix.order = append(ix.order, chainID)
	}
	return f
}

func deref(a *common.Address) common.Address {
	if a == nil {
		return common.Address{}
	}
	return *a
}

// sqliteOf returns ix's SQLite store, for reading it directly.
func sqliteOf(ix *Index) *sqliteStore { return ix.st.(*sqliteStore) }

// SetAnalyzeFloor sets the statements the PostgreSQL store writes before
// its first ANALYZE, until the test ends.
func SetAnalyzeFloor(t interface{ Cleanup(func()) }, n int64) {
	old := analyzeFloor
	analyzeFloor = n
	t.Cleanup(func() { analyzeFloor = old })
}
