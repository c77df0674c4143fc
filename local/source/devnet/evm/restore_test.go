package evm

import (
	"context"
	"math/big"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
)

// TestRestoreBalances: a client that moves most of ewoq's funds away
// through Handler gets them, and ewoq is whole again in the block sealed
// right after (a withdrawal, no transaction); an ordinary transfer seals
// no such block.
func TestRestoreBalances(t *testing.T) {
	c := newTestChain(t, Options{Now: time.Now})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	cl, err := ethclient.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	ewoq := c.accounts[0]
	s := &seeder{c: c, signer: latestSigner(c), nonces: map[common.Address]uint64{}}
	n, err := cl.PendingNonceAt(ctx, ewoq.Address)
	if err != nil {
		t.Fatal(err)
	}
	s.nonces[ewoq.Address] = n
	send := func(to common.Address, value *big.Int) (before, after uint64) {
		t.Helper()
		before = c.Head().NumberU64()
		if err := cl.SendTransaction(ctx, s.tx(ewoq, &to, value, nil, 21_000)); err != nil {
			t.Fatal(err)
		}
		return before, c.Head().NumberU64()
	}

	key, _ := crypto.GenerateKey()
	thief := crypto.PubkeyToAddress(key.PublicKey)
	before, after := send(thief, ether(49_000_000))
	if after != before+2 {
		t.Fatalf("head %d after the drain from %d; want the drain's block and the restoring one", after, before)
	}
	if got, _ := cl.BalanceAt(ctx, thief, nil); got.Cmp(ether(49_000_000)) != 0 {
		t.Fatalf("the recipient holds %v; want the 49,000,000 AVAX sent", got)
	}
	restoring, err := cl.BlockByNumber(ctx, new(big.Int).SetUint64(after))
	if err != nil {
		t.Fatal(err)
	}
	if ws := restoring.Withdrawals(); len(ws) != 1 || ws[0].Address != ewoq.Address || len(restoring.Transactions()) != 0 {
		t.Fatalf("restoring block: %d withdrawals %v, %d txs; want one to ewoq and no tx", len(ws), ws, len(restoring.Transactions()))
	}
	bal, err := cl.BalanceAt(ctx, ewoq.Address, nil)
	if err != nil {
		t.Fatal(err)
	}
	if floor := new(big.Int).Sub(ewoqBalance, big.NewInt(params.GWei)); bal.Cmp(floor) <= 0 || bal.Cmp(ewoqBalance) > 0 {
		t.Fatalf("ewoq holds %v after the restoring block; want its genesis %v (to the gwei)", bal, ewoqBalance)
	}

	before, after = send(thief, ether(1))
	if after != before+1 {
		t.Fatalf("head %d after a 1 AVAX transfer from %d; want one block", after, before)
	}
}
