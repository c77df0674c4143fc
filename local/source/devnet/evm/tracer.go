package evm

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/params"
)

// CallTracer names the tracer the indexer asks the dev chain for
// (debug_traceBlockByNumber with {"tracer": CallTracer}): go-ethereum's
// callTracer without the calls' input and output, which the indexer does
// not read, and with at most MaxTraceFrames call frames per transaction.
//
// go-ethereum's callTracer copies every frame's input, so one transaction
// calling a precompile 200,000 times with the same megabyte of memory as
// input would make a trace of 200 GB in the process. Without inputs a frame
// takes about 200 bytes; past the cap the transaction's trace is an error
// ("trace exceeds N call frames"), which the indexer records as a block
// indexed without internal transactions. A block's trace then holds at most
// its gas limit over 100 (the cheapest call) frames, about 60 MB at
// 30,000,000 gas, while it is built.
const CallTracer = "avaedgeCallTracer"

// MaxTraceFrames bounds the call frames of one transaction's trace by
// CallTracer.
const MaxTraceFrames = 10_000

func init() {
	tracers.DefaultDirectory.Register(CallTracer, newBoundedCallTracer, false)
}

// newBoundedCallTracer wraps go-ethereum's callTracer (configured by cfg,
// as the callTracer is), handing it no inputs and outputs and no frames past
// MaxTraceFrames: the result is then an error, and what the callTracer
// holds is dropped.
func newBoundedCallTracer(ctx *tracers.Context, cfg json.RawMessage, chainConfig *params.ChainConfig) (*tracers.Tracer, error) {
	inner, err := tracers.DefaultDirectory.New("callTracer", ctx, cfg, chainConfig)
	if err != nil {
		return nil, err
	}
	frames := 0 // tracers are called from one goroutine
	hooks := *inner.Hooks
	hooks.OnEnter = func(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
		if frames++; frames > MaxTraceFrames && depth > 0 {
			return
		}
		inner.OnEnter(depth, typ, from, to, nil, gas, value)
	}
	hooks.OnExit = func(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
		if frames > MaxTraceFrames && depth > 0 {
			return
		}
		inner.OnExit(depth, nil, gasUsed, err, reverted)
	}
	getResult := func() (json.RawMessage, error) {
		if frames > MaxTraceFrames {
			return nil, fmt.Errorf("trace exceeds %d call frames", MaxTraceFrames)
		}
		return inner.GetResult()
	}
	return &tracers.Tracer{Hooks: &hooks, GetResult: getResult, Stop: inner.Stop}, nil
}
