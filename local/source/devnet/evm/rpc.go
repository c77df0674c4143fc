package evm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/eth/tracers"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native" // callTracer, prestateTracer
	"github.com/ethereum/go-ethereum/rpc"
)

// servedNamespaces are the JSON-RPC namespaces Client exposes (the indexer
// traces blocks with debug_traceBlockByNumber). Handler serves the same but
// debug, unless Options.Debug: debug_setHead rewinds the chain under the
// indexer, debug_standardTraceBlockToFile writes files, debug_chaindbCompact
// and the trace family burn CPU. admin (exportChain writes files) and miner
// stay private to everyone; txpool only reads.
var servedNamespaces = map[string]bool{"eth": true, "net": true, "web3": true, "debug": true, "txpool": true}

// ClientVersion is the answer of web3_clientVersion.
const ClientVersion = "avaedge-devnet/v1"

// web3API is the web3 namespace (go-ethereum's lives in package node).
type web3API struct{}

// ClientVersion answers web3_clientVersion.
func (web3API) ClientVersion() string { return ClientVersion }

// Sha3 answers web3_sha3.
func (web3API) Sha3(input hexutil.Bytes) hexutil.Bytes { return crypto.Keccak256(input) }

// newRPCServers returns the server of Client (every served namespace) and
// the server of Handler (without debug unless opts.Debug), on which the
// methods that run the EVM, send transactions or install filters are
// guarded (guard.go, filters.go).
func newRPCServers(backend *eth.Ethereum, opts Options) (client, public *rpc.Server, fg *filterGuard, err error) {
	client, public = rpc.NewServer(), rpc.NewServer()
	// go-ethereum's node sets these on its own servers (node/defaults.go).
	public.SetBatchLimits(1000, 25_000_000)
	apis := backend.APIs()
	fs := filters.NewFilterSystem(backend.APIBackend, filters.Config{Timeout: filterTimeout})
	filterAPI := filters.NewFilterAPI(fs)
	apis = append(apis, rpc.API{Namespace: "eth", Service: filterAPI})
	apis = append(apis, tracers.APIs(backend.APIBackend)...)
	apis = append(apis, rpc.API{Namespace: "web3", Service: web3API{}})
	var ethServices []any
	for _, api := range apis {
		if !servedNamespaces[api.Namespace] {
			continue
		}
		if api.Namespace == "eth" {
			ethServices = append(ethServices, api.Service)
		}
		if err := client.RegisterName(api.Namespace, api.Service); err != nil {
			return nil, nil, nil, fmt.Errorf("evm: rpc %s: %w", api.Namespace, err)
		}
		if api.Namespace == "debug" && !opts.Debug {
			continue
		}
		if err := public.RegisterName(api.Namespace, api.Service); err != nil {
			return nil, nil, nil, fmt.Errorf("evm: rpc %s: %w", api.Namespace, err)
		}
	}
	// Registered last, these replace go-ethereum's methods of the same
	// names on the public server.
	guarded, err := newGuard(ethServices, opts.CallTimeout, opts.CallBudget, opts.Shares.slots)
	if err != nil {
		return nil, nil, nil, err
	}
	fg = &filterGuard{t: opts.Shares.filters, api: filterAPI}
	for _, svc := range []any{guarded, fg} {
		if err := public.RegisterName("eth", svc); err != nil {
			return nil, nil, nil, fmt.Errorf("evm: rpc eth: %w", err)
		}
	}
	return client, public, fg, nil
}

// maxRequestBody bounds one JSON-RPC request body, as go-ethereum's HTTP
// server does (5 MiB).
const maxRequestBody = 5 << 20

// Handler returns the chain's Ethereum JSON-RPC over HTTP (POST, single or
// batch), without the debug namespace unless Options.Debug. The lead mounts
// it at POST /ext/bc/C/rpc. Before go-ethereum serves a body, Handler reads
// its calls as go-ethereum will (batch.go) and answers without running any
// of them when
//
//   - it sends more transactions than its client's write allowance
//     (Options.WritesPerMinute) has left: 429 with Retry-After and -32005
//     for each call;
//   - a call names its method ambiguously (a call counts as a transaction
//     then): 400 with -32600 for each call.
//
// A request that sends transactions is answered after the block that
// includes them is sealed, so a client's next eth_getTransactionReceipt
// finds it. Calls that run the EVM are bounded by Options.CallGasCap and
// Options.CallTimeout, together by Options.CallBudget, and by their
// client's Options.CallsPerClient; filters by Options.FiltersPerClient and
// Options.MaxFilters (across the chains of Options.Shares).
func (c *Chain) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := &request{client: c.client(r), budgeted: true}
		req.budget.Store(int64(c.opts.CallBudget))
		if r.Method != http.MethodPost {
			// go-ethereum answers GET/OPTIONS itself; no writes.
			c.public.ServeHTTP(w, r.WithContext(withRequest(r.Context(), req)))
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
		if err != nil {
			http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if len(body) > maxRequestBody {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		calls, batch := parseCalls(body)
		writes, ambiguous := countCalls(calls)
		if n := writes + ambiguous; n > 0 && c.writes != nil {
			if ok, wait := c.writes.allow(c.writeKeys(r), n, time.Now()); !ok {
				refuse(w, calls, batch, http.StatusTooManyRequests, writeLimitError(c.opts.WritesPerMinute), wait)
				return
			}
		}
		if ambiguous > 0 {
			refuse(w, calls, batch, http.StatusBadRequest, ambiguousError, 0)
			return
		}
		req.writes.Store(int64(writes))
		r2 := r.Clone(withRequest(r.Context(), req))
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.ContentLength = int64(len(body))
		if writes == 0 {
			c.public.ServeHTTP(w, r2)
			return
		}
		rec := &bufferedResponse{header: http.Header{}, status: http.StatusOK}
		c.public.ServeHTTP(rec, r2)
		if !c.opts.NoAutoMine {
			_ = c.mineIfPending(context.WithoutCancel(r.Context())) // on failure the auto-miner retries
		}
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(rec.body.Len()))
		w.WriteHeader(rec.status)
		w.Write(rec.body.Bytes())
	})
}

// bufferedResponse holds a response until the block is sealed.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) WriteHeader(status int)      { b.status = status }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
