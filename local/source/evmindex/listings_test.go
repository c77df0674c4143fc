package evmindex

import (
	"context"
	"math/big"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// positions returns the blocks and indexes of txs as "block.index".
func positions(txs []ListedTx) []TxPos {
	out := make([]TxPos, len(txs))
	for i, t := range txs {
		out[i] = t.Pos()
	}
	return out
}

// TestAddressListingsSeed checks every listing of the seeded dev chain
// against what the seed did (local/source/devnet/evm/seed.go): block 1
// deploys four contracts, 2 funds dev1 and dev2 and mints ADT, 3 moves ADT
// and mints NFTs 1-5, 4 moves NFTs 1 and 2, ADT from dev1 to dev4 and mints
// ERC-1155 ids 1-4, 5 moves ERC-1155 ids and pays dev4, 6 deploys children
// through the factory, 7 moves ERC-1155 id 1 and NFT 4 from dev1.
func TestAddressListingsSeed(t *testing.T) {
	eachStore(t, func(t *testing.T, store storeFor) {
		c, ix := openEmbedded(t, nil, store(t))
		ctx := context.Background()
		s, acc := c.Seed(), c.Accounts()
		ewoq, dev1, dev2, dev3, dev4 := acc[0].Address, acc[1].Address, acc[2].Address, acc[3].Address, acc[4].Address
		txs := func(a common.Address, native bool, r Range, limit int) []ListedTx {
			t.Helper()
			out, err := ix.AddressTxs(ctx, AddressTxQuery{ChainID: 43112, Address: a, Native: native, NoSpam: true, Range: r, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		all := Blocks(0, 0)
		for _, tc := range []struct {
			name   string
			addr   common.Address
			native bool
			r      Range
			want   []TxPos
		}{
			{"dev4", dev4, false, all, []TxPos{PosOf(5, 2), PosOf(4, 2)}},
			{"dev4 native", dev4, true, all, []TxPos{PosOf(5, 2)}},
			{"dev3 (token transfers only)", dev3, false, all, []TxPos{PosOf(7, 0), PosOf(4, 1)}},
			{"dev3 native", dev3, true, all, nil},
			{"dev3 ascending", dev3, false, Range{Asc: true, To: maxPos}, []TxPos{PosOf(4, 1), PosOf(7, 0)}},
			{"ewoq in block 3", ewoq, false, Blocks(3, 4), []TxPos{PosOf(3, 6), PosOf(3, 5), PosOf(3, 4), PosOf(3, 3), PosOf(3, 2), PosOf(3, 1), PosOf(3, 0)}},
			{"ewoq after a cursor", ewoq, false, Blocks(3, 4).After(PosOf(3, 2)), []TxPos{PosOf(3, 1), PosOf(3, 0)}},
			{"ewoq ascending after a cursor", ewoq, false, Range{Asc: true, From: PosOf(3, 0), To: PosOf(4, 0)}.After(PosOf(3, 4)), []TxPos{PosOf(3, 5), PosOf(3, 6)}},
			{"ChildCreate: its creation (internal)", s.ChildCreate, false, all, []TxPos{PosOf(6, 0)}},
			{"ChildCreate native", s.ChildCreate, true, all, nil},
			{"Token: its creation and the calls to it", s.Token, true, Blocks(1, 2), []TxPos{PosOf(1, 0)}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := positions(txs(tc.addr, tc.native, tc.r, 100)); !slices.Equal(got, tc.want) {
					t.Errorf("got %v; want %v", got, tc.want)
				}
			})
		}
		if n := len(txs(ewoq, false, all, 100)); n != 21 {
			t.Errorf("ewoq took part in %d transactions; want 21 (4+3+7+4+2+1 it sent)", n)
		}
		native := txs(dev4, true, all, 1)[0]
		if native.From != dev1 || *native.To != dev4 || native.Value.Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)) != 0 ||
			native.Status != 1 || len(native.Selector) != 0 || native.BlockTimestamp == 0 {
			t.Errorf("dev1's payment to dev4: %+v", native)
		}
		creations := txs(ewoq, true, Blocks(1, 2), 10)
		created, err := ix.Created(ctx, 43112, creations)
		if err != nil || len(created) != 4 || created[creations[0].Hash] != s.Factory || created[creations[3].Hash] != s.Token {
			t.Errorf("contracts created in block 1: %v, %v", created, err)
		}
		// ChainTxs: the failed index has none; success has them all.
		if f, err := ix.ChainTxs(ctx, 43112, Failed, Blocks(0, 0), 10); err != nil || len(f) != 0 {
			t.Errorf("failed transactions: %d, %v", len(f), err)
		}
		if ok, err := ix.ChainTxs(ctx, 43112, Succeeded, Blocks(6, 7), 10); err != nil || !slices.Equal(positions(ok), []TxPos{PosOf(6, 1), PosOf(6, 0)}) {
			t.Errorf("block 6's transactions: %v, %v", positions(ok), err)
		}

		// A transaction's parts that concern one address.
		dev1Txs := txs(dev1, false, Blocks(4, 5), 10)
		parts, err := ix.PartsOf(ctx, 43112, dev4, txs(dev4, false, all, 10))
		if err != nil || len(parts.Transfers) != 1 || len(parts.Internals) != 0 {
			t.Fatalf("dev4's parts: %+v, %v", parts, err)
		}
		for h, trs := range parts.Transfers {
			if len(trs) != 1 || trs[0].To != dev4 || trs[0].Contract != s.Token || h != dev1Txs[0].Hash {
				t.Errorf("dev4's transfer: %+v", trs)
			}
		}
		factoryTx := txs(ewoq, true, Blocks(6, 7), 1)
		parts, _ = ix.PartsOf(ctx, 43112, s.Factory, factoryTx)
		if its := parts.Internals[factoryTx[0].Hash]; len(its) != 1 || its[0].Type != "CREATE" || its[0].To != s.ChildCreate {
			t.Errorf("the factory's internal transactions in ewoq's call: %+v", its)
		}

		// Internal transactions: the factory's two creations (CREATE with 1 AVAX,
		// CREATE2 without value: creations are listed whatever their value).
		ins, err := ix.Internals(ctx, InternalQuery{ChainID: 43112, Address: s.Factory, Limit: 10})
		if err != nil || len(ins) != 2 || ins[0].Type != "CREATE2" || ins[0].To != s.ChildCreate2 || ins[1].Type != "CREATE" ||
			ins[1].Value.Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)) != 0 || ins[1].BlockNumber != 6 {
			t.Fatalf("the factory's internal transactions: %+v, %v", ins, err)
		}
		if page, _ := ix.Internals(ctx, InternalQuery{ChainID: 43112, Address: s.Factory, Before: ins[0].Seq, Limit: 10}); len(page) != 1 || page[0].Seq != ins[1].Seq {
			t.Errorf("the page after the CREATE2: %+v", page)
		}
		if none, _ := ix.Internals(ctx, InternalQuery{ChainID: 43112, Address: ewoq, Limit: 10}); len(none) != 0 {
			t.Errorf("ewoq sent and received no internal transaction: %+v", none)
		}
		if _, _, ok, err := ix.UntracedSpan(ctx, 43112, 0, 100); ok || err != nil {
			t.Errorf("the dev chain is traced: untraced blocks %v, %v", ok, err)
		}

		// Deployments: directly and through the factory, by the sender and by the
		// factory itself.
		deployed := func(a common.Address, before int64, limit int) []common.Address {
			t.Helper()
			ds, err := ix.Deployments(ctx, 43112, a, before, limit)
			if err != nil {
				t.Fatal(err)
			}
			var out []common.Address
			for _, d := range ds {
				out = append(out, d.Address)
			}
			return out
		}
		if got, want := deployed(ewoq, 0, 10), []common.Address{s.ChildCreate, s.Factory, s.Multi, s.NFT, s.Token}; !slices.Equal(got, want) {
			t.Errorf("ewoq deployed %v; want %v", got, want)
		}
		if got, want := deployed(dev1, 0, 10), []common.Address{s.ChildCreate2}; !slices.Equal(got, want) {
			t.Errorf("dev1 deployed %v; want %v", got, want)
		}
		if got, want := deployed(s.Factory, 0, 10), []common.Address{s.ChildCreate2, s.ChildCreate}; !slices.Equal(got, want) {
			t.Errorf("the factory deployed %v; want %v", got, want)
		}
		d, err := ix.Deployment(ctx, 43112, s.ChildCreate2)
		if err != nil || d.Origin != dev1 || d.Deployer != s.Factory || d.Kind != CREATE2 || d.BlockNumber != 6 {
			t.Errorf("ChildCreate2's deployment: %+v, %v", d, err)
		}
		first, _ := ix.Deployments(ctx, 43112, ewoq, 0, 2)
		if got, want := deployed(ewoq, first[1].Seq, 10), []common.Address{s.Multi, s.NFT, s.Token}; !slices.Equal(got, want) {
			t.Errorf("ewoq's second page of deployments %v; want %v", got, want)
		}

		// Collectibles: ewoq's NFT 3 and its four ERC-1155 balances, the most
		// recently changed first.
		cs, err := ix.Collectibles(ctx, 43112, ewoq, nil, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		type item struct {
			kind     TokenKind
			id, bal  int64
			contract common.Address
		}
		var got []item
		for i, c := range cs {
			got = append(got, item{c.Kind, c.TokenID.Int64(), c.Balance.Int64(), c.Contract})
			if i > 0 && c.Seq >= cs[i-1].Seq {
				t.Errorf("collectibles out of order: %+v", cs)
			}
		}
		want := []item{{ERC1155, 3, 18, s.Multi}, {ERC1155, 2, 9, s.Multi}, {ERC1155, 1, 95, s.Multi}, {ERC1155, 4, 30, s.Multi}, {ERC721, 3, 1, s.NFT}}
		if !slices.Equal(got, want) {
			t.Errorf("ewoq's collectibles %+v; want %+v", got, want)
		}
		if page, _ := ix.Collectibles(ctx, 43112, ewoq, nil, cs[3].Seq, 10); len(page) != 1 || page[0].Kind != ERC721 {
			t.Errorf("the page after four: %+v", page)
		}
		if only, _ := ix.Collectibles(ctx, 43112, dev2, &s.NFT, 0, 10); len(only) != 2 || only[0].TokenID.Int64() != 4 || only[1].TokenID.Int64() != 5 {
			t.Errorf("dev2's tokens of the NFT contract: %+v", only)
		}

		// A collection's tokens in mint order, with their owners.
		toks, err := ix.CollectionTokens(ctx, 43112, s.NFT, 0, 10)
		if err != nil || len(toks) != 5 {
			t.Fatalf("NFT tokens: %+v, %v", toks, err)
		}
		for i, owner := range []common.Address{dev1, dev3, ewoq, dev2, dev2} {
			if toks[i].TokenID.Int64() != int64(i+1) || toks[i].Owner == nil || *toks[i].Owner != owner {
				t.Errorf("token %d: %+v; want owner %s", i+1, toks[i], owner)
			}
		}
		if next, _ := ix.CollectionTokens(ctx, 43112, s.NFT, toks[2].Seq, 10); len(next) != 2 || next[0].TokenID.Int64() != 4 {
			t.Errorf("the tokens after 3: %+v", next)
		}
		if multi, _ := ix.CollectionTokens(ctx, 43112, s.Multi, 0, 10); len(multi) != 4 || multi[0].Owner != nil {
			t.Errorf("the ERC-1155 ids: %+v", multi)
		}

		for a, want := range map[common.Address]bool{ewoq: true, dev3: true, s.ChildCreate2: true, common.HexToAddress("0x1234"): false} {
			if got, err := ix.Active(ctx, 43112, a); got != want || err != nil {
				t.Errorf("Active(%s) = %v, %v; want %v", a, got, err, want)
			}
		}
		b6, _ := ix.Block(ctx, 43112, 6)
		if n, ok, err := ix.BlockAt(ctx, 43112, b6.Timestamp); !ok || err != nil || n < 6 {
			t.Errorf("BlockAt(block 6's time) = %d, %v, %v", n, ok, err)
		}
		if _, ok, _ := ix.BlockAt(ctx, 43112, 0); ok {
			t.Errorf("a block before time 0")
		}
		checkDerived(t, ix)
	})
}

// TestSpamTokens: an ERC-20 whose name and symbol cannot be read is spam; a
// transaction in which an address only received it is left out of the
// address's non-spam listing, and kept in the full one.
func TestSpamTokens(t *testing.T) {
	eachStore(t, func(t *testing.T, store storeFor) {
		w := newTeleporterWorld(t)
		w.store = store
		spamToken, victim := common.HexToAddress("0x5ba3"), common.HexToAddress("0x71c7")
		transfer := &types.Log{Address: spamToken, Topics: []common.Hash{topicTransfer, common.BytesToHash(common.HexToAddress("0x5e4d").Bytes()),
			common.BytesToHash(victim.Bytes())}, Data: common.LeftPadBytes([]byte{1}, 32)}
		airdrop := common.Hash{0x0a}
		w.node.set(append(w.chain, fakeBlock{label: "a4", txs: []fakeTx{{hash: airdrop, logs: []*types.Log{transfer}}}}))
		ix := w.open(t, filepath.Join(t.TempDir(), "index.db"), 4, ChainOptions{}, nil)
		ctx := context.Background()
		toks, err := ix.Tokens(ctx, fakeChainID, []common.Address{spamToken})
		if err != nil || !toks[spamToken].Spam() {
			t.Fatalf("the token without a name: %+v, %v", toks, err)
		}
		for _, noSpam := range []bool{false, true} {
			got, err := ix.AddressTxs(ctx, AddressTxQuery{ChainID: fakeChainID, Address: victim, NoSpam: noSpam, Range: Blocks(0, 0), Limit: 10})
			if err != nil || (len(got) == 1) == noSpam {
				t.Errorf("NoSpam %v: the victim's transactions %v, %v", noSpam, positions(got), err)
			}
		}
		// The sender sent the transaction itself: never spam.
		if got, _ := ix.AddressTxs(ctx, AddressTxQuery{ChainID: fakeChainID, Address: common.HexToAddress("0x5e4d"), NoSpam: true, Range: Blocks(4, 5), Limit: 10}); len(got) != 1 {
			t.Errorf("the sender's transactions in block 4: %v", positions(got))
		}
		// Blocks indexed without traces are flagged, but for empty blocks.
		if first, last, ok, err := ix.UntracedSpan(ctx, fakeChainID, 0, 10); !ok || err != nil || first != 1 || last != 4 {
			t.Errorf("untraced blocks %d-%d (%v, %v); want 1-4", first, last, ok, err)
		}
		checkDerived(t, ix)
	})
}

// TestMigrationFromVersion1 opens a store written before schema version 2:
// the migration fills the listings from the rows already stored, and the
// follower goes on from there.
func TestMigrationFromVersion1(t *testing.T) {
	w := newTeleporterWorld(t)
	path := filepath.Join(t.TempDir(), "index.db")
	ix := w.open(t, path, 3, ChainOptions{}, nil)
	ix.Close()
	downgrade(t, path)
	ix = w.open(t, path, 3, ChainOptions{}, nil)
	var v int
	if err := sqliteOf(ix).r.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("user_version %d, %v", v, err)
	}
	got, err := ix.AddressTxs(context.Background(), AddressTxQuery{ChainID: fakeChainID, Address: common.HexToAddress("0x5e4d"), Range: Blocks(0, 0), Limit: 10})
	if err != nil || !slices.Equal(positions(got), []TxPos{PosOf(3, 0), PosOf(2, 0), PosOf(1, 0)}) {
		t.Errorf("the sender's transactions after the migration: %v, %v", positions(got), err)
	}
	var stale int
	if err := sqliteOf(ix).r.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name='txs_block'`).Scan(&stale); err != nil || stale != 0 {
		t.Errorf("txs_block still exists (%d, %v)", stale, err)
	}
	checkDerived(t, ix)
}
