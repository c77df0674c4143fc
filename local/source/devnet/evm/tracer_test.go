package evm

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// frame is what the indexer reads of a call frame.
type frame struct {
	Type    string         `json:"type"`
	From    common.Address `json:"from"`
	To      common.Address `json:"to"`
	Value   *hexutil.Big   `json:"value"`
	Gas     hexutil.Uint64 `json:"gas"`
	GasUsed hexutil.Uint64 `json:"gasUsed"`
	Error   string         `json:"error"`
	Calls   []frame        `json:"calls"`
}

// TestBoundedCallTracer: CallTracer gives the indexer's view of go-ethereum's
// callTracer in a fraction of its size (the callTracer copies every call's
// input and output), and a block whose transaction makes more than
// MaxTraceFrames frames traces to an error.
func TestBoundedCallTracer(t *testing.T) {
	c := newTestChain(t, Options{NoSeed: true, NoAutoMine: true})
	s := &seeder{c: c, signer: latestSigner(c), nonces: map[common.Address]uint64{}}
	from := c.accounts[1]
	cl := c.Client()
	defer cl.Close()
	ctx := context.Background()
	trace := func(tracer string, n uint64) json.RawMessage {
		t.Helper()
		var raw json.RawMessage
		if err := cl.CallContext(ctx, &raw, "debug_traceBlockByNumber", hexutil.EncodeUint64(n), map[string]string{"tracer": tracer, "timeout": "2m"}); err != nil {
			t.Fatal(err)
		}
		return raw
	}

	// 1,000 calls with 4 KiB of input (and output) each.
	b, _, err := c.SendBlock(ctx, s.tx(from, nil, nil, callsLoop(1000, 4096), 2_000_000))
	if err != nil {
		t.Fatal(err)
	}
	full, bounded := trace("callTracer", b.NumberU64()), trace(CallTracer, b.NumberU64())
	t.Logf("1,000 calls with 4 KiB inputs: callTracer %d bytes, %s %d bytes", len(full), CallTracer, len(bounded))
	if len(full) < 1000*8192 || len(bounded) > 1000*300 {
		t.Fatalf("callTracer %d bytes, %s %d bytes; want over 8 MB and under 300 KB", len(full), CallTracer, len(bounded))
	}
	var want, got []struct {
		Result *frame `json:"result"`
	}
	if err := json.Unmarshal(full, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(bounded, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Result == nil || len(got[0].Result.Calls) != 1000 || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s's frames differ from callTracer's (%d txs)", CallTracer, len(got))
	}

	// One call frame too many: the top frame and MaxTraceFrames calls.
	b, _, err = c.SendBlock(ctx, s.tx(from, nil, nil, callsLoop(MaxTraceFrames, 0), 5_000_000))
	if err != nil {
		t.Fatal(err)
	}
	var raw json.RawMessage
	err = cl.CallContext(ctx, &raw, "debug_traceBlockByNumber", hexutil.EncodeUint64(b.NumberU64()), map[string]string{"tracer": CallTracer})
	if err == nil || err.Error() != "trace exceeds 10000 call frames" {
		t.Fatalf("a block with a transaction of %d frames: %.200s, %v; want the error alone", MaxTraceFrames+1, raw, err)
	}
}
