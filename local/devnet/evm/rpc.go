package evm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/eth/tracers"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native" // callTracer, prestateTracer
	"github.com/ethereum/go-ethereum/rpc"
)

// servedNamespaces are the JSON-RPC namespaces Handler and Client expose;
// admin, miner and personal stay private.
var servedNamespaces = map[string]bool{"eth": true, "net": true, "web3": true, "debug": true, "txpool": true}

// ClientVersion is the answer of web3_clientVersion.
const ClientVersion = "avaedge-devnet/v1"

// web3API is the web3 namespace (go-ethereum's lives in package node).
type web3API struct{}

// ClientVersion answers web3_clientVersion.
func (web3API) ClientVersion() string { return ClientVersion }

// Sha3 answers web3_sha3.
func (web3API) Sha3(input hexutil.Bytes) hexutil.Bytes { return crypto.Keccak256(input) }

func newRPCServer(backend *eth.Ethereum) (*rpc.Server, error) {
	srv := rpc.NewServer()
	apis := backend.APIs()
	fs := filters.NewFilterSystem(backend.APIBackend, filters.Config{})
	apis = append(apis, rpc.API{Namespace: "eth", Service: filters.NewFilterAPI(fs)})
	apis = append(apis, tracers.APIs(backend.APIBackend)...)
	apis = append(apis, rpc.API{Namespace: "web3", Service: web3API{}})
	for _, api := range apis {
		if !servedNamespaces[api.Namespace] {
			continue
		}
		if err := srv.RegisterName(api.Namespace, api.Service); err != nil {
			return nil, fmt.Errorf("evm: rpc %s: %w", api.Namespace, err)
		}
	}
	return srv, nil
}

// maxRequestBody bounds one JSON-RPC request body, as go-ethereum's HTTP
// server does (5 MiB).
const maxRequestBody = 5 << 20

// Handler returns the chain's Ethereum JSON-RPC over HTTP (POST, single or
// batch). A request that sends a transaction is answered after the block
// that includes it is sealed, so a client's next eth_getTransactionReceipt
// finds it. The lead mounts it at POST /ext/bc/C/rpc.
func (c *Chain) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			c.rpc.ServeHTTP(w, r) // go-ethereum answers GET/OPTIONS itself
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
		if !bytes.Contains(body, []byte(`"eth_sendRawTransaction"`)) && !bytes.Contains(body, []byte(`"eth_sendTransaction"`)) {
			c.rpc.ServeHTTP(w, r2)
			return
		}
		rec := &bufferedResponse{header: http.Header{}, status: http.StatusOK}
		c.rpc.ServeHTTP(rec, r2)
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
