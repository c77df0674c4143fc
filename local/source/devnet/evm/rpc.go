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
// the server of Handler (without debug unless debug is set).
func newRPCServers(backend *eth.Ethereum, debug bool) (client, public *rpc.Server, err error) {
	client, public = rpc.NewServer(), rpc.NewServer()
	apis := backend.APIs()
	fs := filters.NewFilterSystem(backend.APIBackend, filters.Config{})
	apis = append(apis, rpc.API{Namespace: "eth", Service: filters.NewFilterAPI(fs)})
	apis = append(apis, tracers.APIs(backend.APIBackend)...)
	apis = append(apis, rpc.API{Namespace: "web3", Service: web3API{}})
	for _, api := range apis {
		if !servedNamespaces[api.Namespace] {
			continue
		}
		if err := client.RegisterName(api.Namespace, api.Service); err != nil {
			return nil, nil, fmt.Errorf("evm: rpc %s: %w", api.Namespace, err)
		}
		if api.Namespace == "debug" && !debug {
			continue
		}
		if err := public.RegisterName(api.Namespace, api.Service); err != nil {
			return nil, nil, fmt.Errorf("evm: rpc %s: %w", api.Namespace, err)
		}
	}
	return client, public, nil
}

// maxRequestBody bounds one JSON-RPC request body, as go-ethereum's HTTP
// server does (5 MiB).
const maxRequestBody = 5 << 20

// Handler returns the chain's Ethereum JSON-RPC over HTTP (POST, single or
// batch), without the debug namespace unless Options.Debug. A request that
// sends transactions first takes them from its client's write allowance
// (Options.WritesPerMinute), or is answered 429; it is answered after the
// block that includes them is sealed, so a client's next
// eth_getTransactionReceipt finds it. The lead mounts it at POST
// /ext/bc/C/rpc.
func (c *Chain) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			c.public.ServeHTTP(w, r) // go-ethereum answers GET/OPTIONS itself
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
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.ContentLength = int64(len(body))
		writes := countWrites(body)
		if writes == 0 {
			c.public.ServeHTTP(w, r2)
			return
		}
		if c.writes != nil {
			if ok, wait := c.writes.allow(c.writeKeys(r), writes, time.Now()); !ok {
				writeRateLimited(w, body, c.opts.WritesPerMinute, wait)
				return
			}
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
