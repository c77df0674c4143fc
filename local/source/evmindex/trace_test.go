package evmindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/prometheus/client_golang/prometheus"
)

// identityCalls is init code that calls the identity precompile n times
// with no input, then stops.
func identityCalls(n uint16) []byte {
	var nb [2]byte
	binary.BigEndian.PutUint16(nb[:], n)
	return []byte{0x61, nb[0], nb[1], 0x5b, 0x80, 0x15, 0x60, 0x1c, 0x57,
		0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x04, 0x5a, 0xf1, 0x50,
		0x60, 0x01, 0x90, 0x03, 0x60, 0x03, 0x56, 0x5b, 0x00}
}

// TestOversizedTrace: a block whose trace exceeds MaxTraceBytes, or whose
// trace fails (the dev chain's tracer past evm.MaxTraceFrames), is indexed
// without internal transactions, logged, counted and recorded with its
// reason, which Transaction reports; a block with a small trace keeps its
// internal transactions.
func TestOversizedTrace(t *testing.T) {
	eachStore(t, func(t *testing.T, store storeFor) {
		ctx := context.Background()
		c, err := evm.New(ctx, evm.Options{NoAutoMine: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		cl := c.Client()
		t.Cleanup(cl.Close)
		var logs bytes.Buffer
		reg := prometheus.NewRegistry()
		ix, err := Open(ctx, Options{Registerer: reg, Store: store(t),
			Chains: []ChainOptions{{ChainID: c.ChainID(), Client: cl, PollInterval: 20 * time.Millisecond, Tracer: evm.CallTracer, MaxTraceBytes: 8 << 10}},
			Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		ix.Start(ctx)

		from := c.Accounts()[1]
		eth := ethclient.NewClient(c.Client())
		defer eth.Close()
		nonce, err := eth.PendingNonceAt(ctx, from.Address)
		if err != nil {
			t.Fatal(err)
		}
		signer := types.LatestSignerForChainID(big.NewInt(int64(c.ChainID())))
		send := func(calls uint16) (*types.Block, *types.Transaction) {
			t.Helper()
			tx := types.MustSignNewTx(from.Key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(int64(c.ChainID())), Nonce: nonce,
				GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(50e9), Gas: 5_000_000, Data: identityCalls(calls)})
			nonce++
			b, _, err := c.SendBlock(ctx, tx)
			if err != nil {
				t.Fatal(err)
			}
			return b, tx
		}
		small, smallTx := send(3)
		big, bigTx := send(200) // about 30 KB of trace
		over, overTx := send(evm.MaxTraceFrames)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := ix.WaitFor(wctx, c.ChainID(), over.NumberU64()); err != nil {
			t.Fatal(err)
		}

		for _, tc := range []struct {
			name      string
			block     *types.Block
			tx        *types.Transaction
			internals int
			reason    string
		}{
			{"small", small, smallTx, 4, ""},
			{"over the bytes", big, bigTx, 0, "exceeds the bound of 8192"},
			{"over the frames", over, overTx, 0, "trace failed: trace exceeds 10000 call frames"},
		} {
			reason, err := ix.Untraced(ctx, c.ChainID(), tc.block.NumberU64())
			if err != nil || !strings.Contains(reason, tc.reason) || (tc.reason == "") != (reason == "") {
				t.Errorf("%s: Untraced %q (%v); want %q", tc.name, reason, err, tc.reason)
			}
			d, err := ix.Transaction(ctx, c.ChainID(), tc.tx.Hash())
			if err != nil || len(d.Internals) != tc.internals || d.InternalsOmitted != reason {
				t.Errorf("%s: %d internal txs, omitted %q (%v); want %d and the block's reason", tc.name, len(d.Internals), d.InternalsOmitted, err, tc.internals)
			}
		}
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var untraced float64
		for _, mf := range mfs {
			if mf.GetName() == "avaedge_evmindex_untraced_blocks_total" && len(mf.GetMetric()) == 1 {
				untraced = mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
		if untraced != 2 {
			t.Errorf("avaedge_evmindex_untraced_blocks_total %v; want 2", untraced)
		}
		if n := strings.Count(logs.String(), "block indexed without internal transactions"); n != 2 {
			t.Errorf("%d log lines about blocks without internal transactions; want 2:\n%s", n, logs.String())
		}
	})
}

// TestFrameWithoutValue decodes a trace whose inner frame has no value, as
// go-ethereum's call tracer writes a STATICCALL: its value is zero (before,
// a typed nil reached big.Int.Set and the follower panicked).
func TestFrameWithoutValue(t *testing.T) {
	tx := rpcTx{Hash: common.Hash{1}, Value: (*hexutil.Big)(big.NewInt(0)), GasPrice: (*hexutil.Big)(big.NewInt(1))}
	f := &fetched{block: rpcBlock{Number: 1, Transactions: []rpcTx{tx}}, receipts: []rpcReceipt{{TransactionHash: tx.Hash, Status: 1}},
		traces: []txTrace{{TxHash: tx.Hash, Result: &callFrame{Type: "CALL", Value: (*hexutil.Big)(big.NewInt(0)),
			Calls: []callFrame{{Type: "STATICCALL", To: common.HexToAddress("0x0200000000000000000000000000000000000005")}}}}}}
	d := decode(1, f, nil)
	if len(d.internals) != 2 || d.internals[1].Value.Sign() != 0 || d.internals[1].Type != "STATICCALL" {
		t.Fatalf("internals %+v; want the call and its STATICCALL of value 0", d.internals)
	}
}
