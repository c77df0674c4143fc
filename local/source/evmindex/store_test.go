package evmindex

import (
	"context"
	"log/slog"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// countingStore is a Store given to Open (Options.Store) that counts the
// writes the Index makes through it.
type countingStore struct {
	Store
	writes int
}

func (s *countingStore) Write(ctx context.Context, chainID uint64, fn func(Batch) error) error {
	s.writes++
	return s.Store.Write(ctx, chainID, fn)
}

// TestOptionsStore: an Index given a Store writes and reads through it
// (the way a PostgreSQL store is given), and closes it.
func TestOptionsStore(t *testing.T) {
	ctx := context.Background()
	sqlite, err := openSQLite("", slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: sqlite}
	ix, err := Open(ctx, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	from := common.HexToAddress("0x01")
	tx := Tx{Hash: common.HexToHash("0xaa"), From: from, Value: big.NewInt(5), EffectiveGasPrice: big.NewInt(1), Fee: big.NewInt(21000), Status: 1}
	blk := FixtureBlock{Block: Block{Number: 1, Hash: common.HexToHash("0xb1"), Timestamp: 100}, Txs: []FixtureTx{{Tx: tx}}}
	if err := ix.WriteFixture(ctx, 43112, []FixtureBlock{blk}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if st.writes != 1 {
		t.Errorf("%d store writes for one WriteFixture; want 1", st.writes)
	}
	if b, err := ix.Block(ctx, 43112, 1); err != nil || b.Hash != blk.Hash || b.TxCount != 1 {
		t.Errorf("Block(1) = %+v, %v", b, err)
	}
	if head, ok := ix.Head(43112); !ok || head != 1 {
		t.Errorf("Head = %d, %v; want 1", head, ok)
	}
	ix.Close()
	if err := sqlite.r.Ping(); err == nil {
		t.Error("the store is still open after Close")
	}
}
