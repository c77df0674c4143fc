// Package evmdata serves the EVM routes of the Data API (chains, blocks,
// transactions, an address's transactions and balances, contracts, NFTs)
// from an evmindex.Index.
package evmdata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/cchain"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
	"github.com/ethereum/go-ethereum/common"
)

// NetworkToken is a chain's native token.
type NetworkToken struct {
	Name        string
	Symbol      string
	Decimals    int
	LogoURI     string // optional
	Description string // optional
}

// ChainInfo describes one EVM chain the index follows, for /v1/chains and
// the native-token fields of the answers.
type ChainInfo struct {
	ChainID         uint64
	ChainName       string
	Description     string
	RPCURL          string
	IsTestnet       bool
	NetworkToken    NetworkToken
	PlatformChainID string // optional: the Avalanche blockchain id; also accepted as {chainId}
	SubnetID        string // optional
	VMID            string // optional
	ExplorerURL     string // optional
	WSURL           string // optional
	ChainLogoURI    string // optional

	// as is the EVM chain id the answers name when a request reached the
	// chain through a C-Chain alias (Options.CChain); zero means ChainID.
	as uint64
}

// AVAXToken is the native token of the Avalanche EVM chains.
var AVAXToken = NetworkToken{Name: "Avalanche", Symbol: "AVAX", Decimals: 18}

// LocalChain returns the ChainInfo of the embedded dev chain (chain id
// 43112 by default) reachable at rpcURL.
func LocalChain(chainID uint64, rpcURL string) ChainInfo {
	return ChainInfo{
		ChainID:         chainID,
		ChainName:       "Avalanche (C-Chain)",
		Description:     "The local avaedge dev chain: an embedded EVM with the local C-chain's id.",
		RPCURL:          rpcURL,
		IsTestnet:       true,
		PlatformChainID: avanet.Local.CChainID,
		SubnetID:        avanet.PChainID,
		NetworkToken:    NetworkToken{Name: "Avalanche", Symbol: "AVAX", Decimals: 18, Description: "The native token of the local network."},
	}
}

// Options configures the handlers.
type Options struct {
	// Index is the store the answers come from. Required.
	Index *evmindex.Index
	// Chains lists the chains to serve; each must be followed by Index. A
	// chain the Index follows but Chains omits answers 404.
	Chains []ChainInfo
	// Now is the clock of page tokens and nothing else. Nil means time.Now.
	Now func() time.Time
	// Logger logs internal errors (answered 500). Nil means slog.Default().
	Logger *slog.Logger
	// CChain, when set, lets every id a client of the real services uses
	// for the C-Chain (43114, 43113, 43112 and their blockchain ids) answer
	// from the chain it targets, under the id the client asked for. For
	// local mode only: in proxy mode devnet data must never pass for a real
	// network's. Nil means each chain answers only for its own ids.
	CChain *cchain.Aliases
	// KnownChains maps the base58 blockchain ids of EVM chains the local
	// world knows but the index does not follow to their EVM chain ids, so
	// that an ICM message to or from one names it (sourceEvmChainId,
	// destinationEvmChainId). Nil means none.
	KnownChains map[string]uint64
}

// server holds the handlers' shared state; it is immutable after Handlers.
type server struct {
	ix     *evmindex.Index
	chains []ChainInfo
	now    func() time.Time
	log    *slog.Logger
	cchain *cchain.Aliases
	known  map[string]uint64
}

// Handlers returns one handler per glacier.json operationId of the EVM
// routes the index answers: chains (supportedChains, getChainInfo,
// listAddressChains), blocks (getLatestBlocks, getBlock,
// listLatestBlocksAllChains), transactions (getTransaction,
// getDeploymentTransaction, getTransactionsForBlock,
// listLatestTransactions, listLatestTransactionsAllChains), an address's
// transactions (listTransactions, listTransactionsV2,
// listNativeTransactions, listErc20Transactions, listErc721Transactions,
// listErc1155Transactions, listInternalTransactions), balances
// (getNativeBalance, listErc20Balances, listErc721Balances,
// listErc1155Balances, listCollectibleBalances), contracts
// (getContractMetadata, listContractDeployments, listTransfers) and NFTs
// (getTokenDetails, listTokens), ICM messages (getIcmMessage,
// listIcmMessages, listIcmMessagesByAddress, and the legacy Teleporter
// routes). They read their parameters from the values
// the catalogue validated, and check only what it does not (EVM addresses,
// hashes, block ids, page tokens).
func Handlers(opts Options) map[string]catalog.Handler {
	s := &server{ix: opts.Index, chains: opts.Chains, now: opts.Now, log: opts.Logger, cchain: opts.CChain, known: opts.KnownChains}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	hs := map[string]catalog.Handler{
		"supportedChains":                 s.handle(s.supportedChains),
		"getChainInfo":                    s.handle(s.getChainInfo),
		"listAddressChains":               s.handle(s.listAddressChains),
		"getLatestBlocks":                 s.handle(s.getLatestBlocks),
		"getBlock":                        s.handle(s.getBlock),
		"listLatestBlocksAllChains":       s.handle(s.listLatestBlocksAllChains),
		"getTransaction":                  s.handle(s.getTransaction),
		"getDeploymentTransaction":        s.handle(s.getDeploymentTransaction),
		"getTransactionsForBlock":         s.handle(s.getTransactionsForBlock),
		"listLatestTransactions":          s.handle(s.listLatestTransactions),
		"listLatestTransactionsAllChains": s.handle(s.listLatestTransactionsAllChains),
		"listTransactions":                s.handle(s.listTransactions(false)),
		"listTransactionsV2":              s.handle(s.listTransactions(true)),
		"listNativeTransactions":          s.handle(s.listNativeTransactions),
		"listErc20Transactions":           s.handle(s.addressTransfers(evmindex.ERC20)),
		"listErc721Transactions":          s.handle(s.addressTransfers(evmindex.ERC721)),
		"listErc1155Transactions":         s.handle(s.addressTransfers(evmindex.ERC1155)),
		"listInternalTransactions":        s.handle(s.listInternalTransactions),
		"getNativeBalance":                s.handle(s.getNativeBalance),
		"listErc20Balances":               s.handle(s.listErc20Balances),
		"listErc721Balances":              s.handle(s.listErc721Balances),
		"listErc1155Balances":             s.handle(s.listErc1155Balances),
		"listCollectibleBalances":         s.handle(s.listCollectibleBalances),
		"getContractMetadata":             s.handle(s.getContractMetadata),
		"listContractDeployments":         s.handle(s.listContractDeployments),
		"listTransfers":                   s.handle(s.listTransfers),
		"getTokenDetails":                 s.handle(s.getTokenDetails),
		"listTokens":                      s.handle(s.listTokens),
		// The legacy routes the SDKs still call (catalog/legacy.go), answered
		// as the routes that replaced them.
		"listAllLatestBlocks":       s.handle(s.listLatestBlocksAllChains),
		"listAllLatestTransactions": s.handle(s.listLatestTransactionsAllChains),
		"getAddressChains":          s.handle(s.listAddressChains),
	}
	for name, h := range s.icmHandlers() {
		hs[name] = s.handle(h)
	}
	return hs
}

// req is one call being answered: the client's request (for its context and
// path) and the validated values.
type req struct {
	r *http.Request
	v catalog.Values
}

// Context returns the request's context.
func (r *req) Context() context.Context { return r.r.Context() }

// PathValue returns the validated path value name.
func (r *req) PathValue(name string) string { return r.v[name] }

// Get returns the validated query value name, "" when absent.
func (r *req) Get(name string) string { return r.v[name] }

// annotated is an answer with headers of its own.
type annotated struct {
	body   any
	header http.Header
}

// handle adapts a handler that returns its answer (or an error, which
// writeError maps to a status) to a catalog.Handler: the one place answers
// are written, as in the dataapi package.
func (s *server) handle(fn func(*req) (any, error)) catalog.Handler {
	return func(w http.ResponseWriter, r *http.Request, v catalog.Values) {
		out, err := fn(&req{r: r, v: v})
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if a, ok := out.(annotated); ok {
			for k, v := range a.header {
				w.Header()[k] = v
			}
			out = a.body
		}
		writeJSON(w, out)
	}
}

// errBadRequest carries validation messages; errNotFound a 404 message.
type errBadRequest []string

func (e errBadRequest) Error() string { return strings.Join(e, "; ") }

type errNotFound string

func (e errNotFound) Error() string { return string(e) }

// writeError maps err to the Data API's error body: the one place statuses
// are chosen.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var bad errBadRequest
	var nf errNotFound
	switch {
	case errors.As(err, &bad):
		apierror.WriteList(w, http.StatusBadRequest, bad...)
	case errors.As(err, &nf):
		apierror.Write(w, http.StatusNotFound, string(nf))
	case errors.Is(err, evmindex.ErrNotFound):
		apierror.Write(w, http.StatusNotFound, "Not found")
	case errors.Is(err, evmindex.ErrNoBalance):
		apierror.Write(w, http.StatusServiceUnavailable, "the chain's node does not answer and the index recorded no native balance of this address")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		apierror.Write(w, http.StatusServiceUnavailable, "Request timed out")
	default:
		s.log.Error("evmdata: internal error", "path", r.URL.Path, "err", err)
		apierror.Write(w, http.StatusInternalServerError, "Internal Server Error")
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		apierror.Write(w, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// chain resolves the {chainId} path value.
func (s *server) chain(r *req) (*ChainInfo, error) {
	raw := r.PathValue("chainId")
	for i := range s.chains {
		c := &s.chains[i]
		if (raw == strconv.FormatUint(c.ChainID, 10) || (c.PlatformChainID != "" && raw == c.PlatformChainID)) && s.ix.Has(c.ChainID) {
			return c, nil
		}
	}
	if c := s.alias(raw); c != nil {
		return c, nil
	}
	return nil, errNotFound(fmt.Sprintf("Chain %s not found", raw))
}

// address parses an EVM address path or query value.
func address(name, raw string) (common.Address, error) {
	if !common.IsHexAddress(raw) || !strings.HasPrefix(strings.ToLower(raw), "0x") {
		return common.Address{}, errBadRequest{name + " must be a valid EVM address"}
	}
	return common.HexToAddress(raw), nil
}

// pageSize reads pageSize, which the catalogue has bounded and defaulted;
// def serves a route used without the catalogue's default.
func pageSize(r *req, def int) (int, error) {
	if n, err := strconv.Atoi(r.Get("pageSize")); err == nil {
		return n, nil
	}
	return def, nil
}

// blockParam reads a non-negative block number query value ("number" in the
// spec: integral decimals, also "12.0"). ok is false when absent.
func blockParam(r *req, name string) (v uint64, ok bool, err error) {
	raw := r.Get(name)
	if raw == "" {
		return 0, false, nil
	}
	if n, err := strconv.ParseUint(raw, 10, 64); err == nil {
		return n, true, nil
	}
	f, ferr := strconv.ParseFloat(raw, 64)
	if ferr != nil || f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0, false, errBadRequest{name + " must be a non-negative integer"}
	}
	return uint64(f), true, nil
}

// cursor decodes pageToken for scope; zero means the first page.
func (s *server) cursor(r *req, scope string) (uint64, error) {
	tok := r.Get("pageToken")
	if tok == "" {
		return 0, nil
	}
	c, err := pagetoken.Decode(scope, tok, s.now())
	if err != nil || c == 0 {
		return 0, errBadRequest{"Invalid page token"}
	}
	return c, nil
}

func (s *server) token(scope string, cursor uint64) string {
	return pagetoken.Encode(scope, cursor, s.now())
}

// scope names a listing for its page tokens: the route, the path and the
// filters that shape it.
func scope(r *req, filters ...string) string {
	return r.r.URL.Path + "?" + strings.Join(filters, "&")
}

func (s *server) nativeToken(c *ChainInfo) networkToken {
	return networkToken(c.NetworkToken)
}

func rich(a common.Address) richAddress { return richAddress{Address: checksum(a)} }

func u64(v uint64) string { return strconv.FormatUint(v, 10) }
