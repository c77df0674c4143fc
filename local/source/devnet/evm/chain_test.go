package evm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
)

func newTestChain(t *testing.T, opts Options) *Chain {
	t.Helper()
	c, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSeedDeterministic(t *testing.T) {
	a := newTestChain(t, Options{})
	b := newTestChain(t, Options{})
	if a.Head().Hash() != b.Head().Hash() {
		t.Fatalf("head hashes differ: %s vs %s", a.Head().Hash(), b.Head().Hash())
	}
	s := a.Seed()
	if s.Head != a.Head().NumberU64() || s.Head != 7 {
		t.Fatalf("seed head %d, chain head %d; want 7", s.Head, a.Head().NumberU64())
	}
	want := DefaultGenesisTime.Unix() + 7*2
	if got := int64(a.Head().Time()); got != want {
		t.Fatalf("head time %d; want %d", got, want)
	}
	cl := ethclient.NewClient(a.Client())
	defer cl.Close()
	ctx := context.Background()
	for name, addr := range map[string]common.Address{"token": s.Token, "nft": s.NFT, "multi": s.Multi, "factory": s.Factory, "create": s.ChildCreate, "create2": s.ChildCreate2} {
		code, err := cl.CodeAt(ctx, addr, nil)
		if err != nil || len(code) == 0 {
			t.Errorf("%s %s: no code (%v)", name, addr, err)
		}
	}
	bal, err := cl.BalanceAt(ctx, s.ChildCreate, nil)
	if err != nil || bal.Cmp(ether(1)) != 0 {
		t.Errorf("CREATE child balance %v (%v); want 1 AVAX", bal, err)
	}
}

func TestHandlerAutoMine(t *testing.T) {
	c := newTestChain(t, Options{Now: func() time.Time { return time.Unix(1_800_000_000, 0) }, Debug: true})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	cl, err := ethclient.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	id, err := cl.ChainID(ctx)
	if err != nil || id.Uint64() != 43112 {
		t.Fatalf("chain id %v (%v); want 43112", id, err)
	}
	s := &seeder{c: c, signer: latestSigner(c), nonces: map[common.Address]uint64{}}
	from := c.accounts[2]
	n, err := cl.NonceAt(ctx, from.Address, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.nonces[from.Address] = n
	to := c.accounts[5].Address
	tx := s.tx(from, &to, ether(3), nil, 21000)
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	r, err := cl.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		t.Fatalf("receipt right after send: %v", err)
	}
	if r.BlockNumber.Uint64() != 8 {
		t.Fatalf("mined in block %d; want 8", r.BlockNumber)
	}
	h, _ := cl.HeaderByNumber(ctx, nil)
	if h.Time != 1_800_000_000 {
		t.Fatalf("live block time %d; want the clock's 1800000000", h.Time)
	}
	// With Options.Debug, debug_traceBlockByNumber with the call tracer is
	// served.
	body := `{"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByNumber","params":["0x6",{"tracer":"callTracer"}]}`
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result []struct {
			Result struct {
				Type  string `json:"type"`
				Calls []struct {
					Type string `json:"type"`
				} `json:"calls"`
			} `json:"result"`
		} `json:"result"`
		Error any `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	if out.Error != nil || len(out.Result) != 2 || len(out.Result[1].Result.Calls) == 0 || out.Result[1].Result.Calls[0].Type != "CREATE2" {
		t.Fatalf("trace of block 6: %+v", out)
	}
}
