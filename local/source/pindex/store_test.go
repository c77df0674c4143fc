package pindex

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/avaedge/avaedge/avanet"
)

// countingStore is a Store given to Open (Options.Store) that counts the
// writes and reads the Index makes through it.
type countingStore struct {
	Store
	writes, stakes, assets int
}

func (s *countingStore) Asset(ctx context.Context, id string) (Asset, bool, error) {
	s.assets++
	return s.Store.Asset(ctx, id)
}

func (s *countingStore) Write(ctx context.Context, fn func(Batch) error) error {
	s.writes++
	return s.Store.Write(ctx, fn)
}

func (s *countingStore) Stakes(ctx context.Context) ([]*Stake, error) {
	s.stakes++
	return s.Store.Stakes(ctx)
}

// TestOptionsStore: an Index given a Store writes and reads through it
// alone (the way a PostgreSQL store is given), keeps its caches above it,
// and closes it.
func TestOptionsStore(t *testing.T) {
	ctx := context.Background()
	sqlite, err := openSQLite(Memory)
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: sqlite}
	net := avanet.Network{ID: 12345, Name: "local", HRP: "local", XChainID: fakeX.String(), CChainID: fakeC.String(), AVAXAssetID: fakeAVAX.String()}
	ix, err := Open(ctx, Options{Network: &net, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	// The assets are kept until the index changes: read before any write
	// (at version 0), then after one.
	assets := func() {
		for range 2 {
			if a, ok, err := ix.Asset(ctx, net.AVAXAssetID); err != nil || !ok || a.Symbol != "AVAX" {
				t.Fatalf("Asset(AVAX) = %+v, %v, %v", a, ok, err)
			}
		}
	}
	assets()
	b0 := genBlock(0, "11111111111111111111111111111111LpoYY")
	if err := ix.Append(ctx, avanet.ChainP, []*RawBlock{b0, genBlock(1, idOfBlock(b0))}); err != nil {
		t.Fatal(err)
	}
	if st.writes != 1 {
		t.Errorf("%d store writes for one Append; want 1", st.writes)
	}
	assets()
	if st.assets != 2 {
		t.Errorf("the store read AVAX %d times, twice before a write and twice after; want 2", st.assets)
	}
	for range 3 {
		if _, err := ix.Stakes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st.stakes != 1 {
		t.Errorf("the store read the stakes %d times for three unchanged reads; want 1", st.stakes)
	}
	if b, ok, err := ix.Block(ctx, avanet.ChainP, 1); err != nil || !ok || b.Parent != idOfBlock(b0) {
		t.Errorf("Block(P, 1) = %+v, %v, %v", b, ok, err)
	}
	if err := ix.SetCurrentValidators(ctx, PrimaryNetworkID, json.RawMessage(`{"validators":[]}`)); err != nil {
		t.Fatal(err)
	}
	if body, _, ok, err := ix.CurrentValidators(ctx, PrimaryNetworkID); err != nil || !ok || string(body) != `{"validators":[]}` {
		t.Errorf("CurrentValidators = %s, %v, %v", body, ok, err)
	}
	ix.Close()
	if err := sqlite.r.Ping(); err == nil {
		t.Error("the store is still open after Close")
	}
}
