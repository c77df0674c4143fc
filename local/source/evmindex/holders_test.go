package evmindex

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// holdersWorld writes four blocks (times 1000..4000) of token transfers:
//
//	block 1: ERC-20 T mints 100 to A; NFT N mints ids 1, 2 and 4 to A, 3 to B
//	block 2: T: A sends 60 to B; N: A sends id 2 to C
//	block 3: T: B sends 60 to C
//	block 4: T mints 10 to A
func holdersWorld(t *testing.T, store Store) (ix *Index, tok, nft, a, b, c common.Address) {
	t.Helper()
	ctx := context.Background()
	ix, err := Open(ctx, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	tok, nft = common.HexToAddress("0x7070"), common.HexToAddress("0x4f74")
	a, b, c = common.HexToAddress("0xa"), common.HexToAddress("0xb"), common.HexToAddress("0xc")
	zero := common.Address{}
	erc20 := func(from, to common.Address, v int64) Transfer {
		return Transfer{Contract: tok, Kind: ERC20, From: from, To: to, Value: big.NewInt(v)}
	}
	erc721 := func(from, to common.Address, id int64) Transfer {
		return Transfer{Contract: nft, Kind: ERC721, From: from, To: to, TokenID: big.NewInt(id), Value: big.NewInt(1)}
	}
	moves := [][]Transfer{
		{erc20(zero, a, 100), erc721(zero, a, 1), erc721(zero, a, 2), erc721(zero, b, 3), erc721(zero, a, 4)},
		{erc20(a, b, 60), erc721(a, c, 2)},
		{erc20(b, c, 60)},
		{erc20(zero, a, 10)},
	}
	var blocks []FixtureBlock
	for i, ms := range moves {
		n := uint64(i + 1)
		h := common.Hash{byte(n)}
		tx := Tx{Hash: h, From: a, To: &tok, Value: new(big.Int), EffectiveGasPrice: big.NewInt(1), Fee: big.NewInt(21_000), GasUsed: 21_000, Status: 1}
		for j := range ms {
			ms[j].TxHash, ms[j].LogIndex = h, uint(j)
		}
		blocks = append(blocks, FixtureBlock{Block: Block{Number: n, Hash: common.Hash{0xb, byte(n)}, ParentHash: common.Hash{0xb, byte(n - 1)},
			Timestamp: 1000 * n, Transfers: ms}, Txs: []FixtureTx{{Tx: tx}}})
	}
	toks := []Token{{Address: tok, Kind: ERC20, Name: "T", Symbol: "T", Decimals: 18}, {Address: nft, Kind: ERC721, Name: "N", Symbol: "N"}}
	if err := ix.WriteFixture(ctx, 7, blocks, toks, nil); err != nil {
		t.Fatal(err)
	}
	return ix, tok, nft, a, b, c
}

func holders(hs []Holder) map[common.Address]int64 {
	out := map[common.Address]int64{}
	for _, h := range hs {
		out[h.Address] = h.Amount.Int64()
	}
	return out
}

func TestBalanceHolders(t *testing.T) {
	eachStore(t, func(t *testing.T, store storeFor) {
		ix, tok, _, a, b, c := holdersWorld(t, store(t))
		cases := []struct {
			name       string
			threshold  int64
			start, end int64
			want       []Holder // in order
		}{
			{"the range of the moves", 50, 1500, 3500, []Holder{{a, big.NewInt(100)}, {b, big.NewInt(60)}, {c, big.NewInt(60)}}},
			{"a higher threshold", 70, 1500, 3500, []Holder{{a, big.NewInt(100)}}},
			{"after the moves", 50, 3500, 5000, []Holder{{c, big.NewInt(60)}, {a, big.NewInt(50)}}},
			{"between transfers", 1, 2500, 2600, []Holder{{b, big.NewInt(60)}, {a, big.NewInt(40)}}},
			{"before the first", 1, 0, 500, nil},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				got, err := ix.BalanceHolders(context.Background(), 7, tok, big.NewInt(tc.threshold), tc.start, tc.end)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("holders %v; want %v", holders(got), holders(tc.want))
				}
				for i := range got {
					if got[i].Address != tc.want[i].Address || got[i].Amount.Cmp(tc.want[i].Amount) != 0 {
						t.Errorf("holder %d: %s %s; want %s %s", i, got[i].Address, got[i].Amount, tc.want[i].Address, tc.want[i].Amount)
					}
				}
			})
		}
	})
}

func TestNFTHolders(t *testing.T) {
	eachStore(t, func(t *testing.T, store storeFor) {
		ix, tok, nft, a, b, c := holdersWorld(t, store(t))
		got, total, err := ix.NFTHolders(context.Background(), 7, nft)
		if err != nil {
			t.Fatal(err)
		}
		want := []Holder{{a, big.NewInt(2)}, {b, big.NewInt(1)}, {c, big.NewInt(1)}}
		if total != 4 || len(got) != len(want) {
			t.Fatalf("holders %v, %d tokens; want %v, 4", holders(got), total, holders(want))
		}
		for i := range want {
			if got[i].Address != want[i].Address || got[i].Amount.Cmp(want[i].Amount) != 0 {
				t.Errorf("holder %d: %s %s; want %s %s", i, got[i].Address, got[i].Amount, want[i].Address, want[i].Amount)
			}
		}
		if got, total, _ := ix.NFTHolders(context.Background(), 7, tok); len(got) != 0 || total != 0 {
			t.Errorf("an ERC-20's NFT holders: %v, %d", holders(got), total)
		}
	})
}
