// Package evmdata serves the EVM routes of the Data API (chains, blocks,
// transactions, an address's transactions and balances, contracts, NFTs)
// from an evmindex.Index.
package evmdata

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/apireq"
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
	s := &server{ix: opts.Index, chains: opts.Chains, now: opts.Now, cchain: opts.CChain, known: opts.KnownChains}
	if s.now == nil {
		s.now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	svc := apireq.Service{Now: s.now, Log: log.With("component", "evmdata"), Classify: classify}
	fns := map[string]apireq.Func{
		"supportedChains":                 s.supportedChains,
		"getChainInfo":                    s.getChainInfo,
		"listAddressChains":               s.listAddressChains,
		"getLatestBlocks":                 s.getLatestBlocks,
		"getBlock":                        s.getBlock,
		"listLatestBlocksAllChains":       s.listLatestBlocksAllChains,
		"getTransaction":                  s.getTransaction,
		"getDeploymentTransaction":        s.getDeploymentTransaction,
		"getTransactionsForBlock":         s.getTransactionsForBlock,
		"listLatestTransactions":          s.listLatestTransactions,
		"listLatestTransactionsAllChains": s.listLatestTransactionsAllChains,
		"listTransactions":                s.listTransactions(false),
		"listTransactionsV2":              s.listTransactions(true),
		"listNativeTransactions":          s.listNativeTransactions,
		"listErc20Transactions":           s.addressTransfers(evmindex.ERC20),
		"listErc721Transactions":          s.addressTransfers(evmindex.ERC721),
		"listErc1155Transactions":         s.addressTransfers(evmindex.ERC1155),
		"listInternalTransactions":        s.listInternalTransactions,
		"getNativeBalance":                s.getNativeBalance,
		"listErc20Balances":               s.listErc20Balances,
		"listErc721Balances":              s.listErc721Balances,
		"listErc1155Balances":             s.listErc1155Balances,
		"listCollectibleBalances":         s.listCollectibleBalances,
		"getContractMetadata":             s.getContractMetadata,
		"listContractDeployments":         s.listContractDeployments,
		"listTransfers":                   s.listTransfers,
		"getTokenDetails":                 s.getTokenDetails,
		"listTokens":                      s.listTokens,
		// The legacy routes the SDKs still call (catalog/legacy.go), answered
		// as the routes that replaced them.
		"listAllLatestBlocks":       s.listLatestBlocksAllChains,
		"listAllLatestTransactions": s.listLatestTransactionsAllChains,
		"getAddressChains":          s.listAddressChains,
	}
	for name, h := range s.icmHandlers() {
		fns[name] = h
	}
	hs := make(map[string]catalog.Handler, len(fns))
	for name, fn := range fns {
		hs[name] = svc.Handle(name, fn)
	}
	return hs
}

// req is one call being answered: apireq's, the one way every local API
// reads the values the catalogue validated.
type req = apireq.Req

// classify maps the index's errors to the answers of the EVM routes: the
// one place their statuses are chosen (apireq.Errors are answered as they
// say).
func classify(err error) *apireq.Error {
	switch {
	case errors.Is(err, evmindex.ErrNotFound):
		return apireq.NotFound("Not found")
	case errors.Is(err, evmindex.ErrStatePruned):
		// The node answered: retrying will not help, so not a 503.
		return apireq.NotFound("the chain's node no longer keeps the state of the block asked (it prunes old state) and the index " +
			"recorded no native balance of this address at or before it: ask for a later block, or follow a node that keeps every state")
	case errors.Is(err, evmindex.ErrNoBalance):
		return apireq.Unavailable("the chain's node does not answer and the index recorded no native balance of this address")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return apireq.Unavailable("Request timed out")
	}
	return apireq.Failed("Internal Server Error", err)
}

// chain resolves the {chainId} path value.
func (s *server) chain(r *req) (*ChainInfo, error) {
	raw := r.Get("chainId")
	for i := range s.chains {
		c := &s.chains[i]
		if (raw == strconv.FormatUint(c.ChainID, 10) || (c.PlatformChainID != "" && raw == c.PlatformChainID)) && s.ix.Has(c.ChainID) {
			return c, nil
		}
	}
	if c := s.alias(raw); c != nil {
		return c, nil
	}
	return nil, apireq.NotFound(fmt.Sprintf("Chain %s not found", raw))
}

// address parses an EVM address path or query value.
func address(name, raw string) (common.Address, error) {
	if !common.IsHexAddress(raw) || !strings.HasPrefix(strings.ToLower(raw), "0x") {
		return common.Address{}, apireq.BadRequest(name + " must be a valid EVM address")
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
		return 0, false, apireq.BadRequest(name + " must be a non-negative integer")
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
		return 0, apireq.BadRequest("Invalid page token")
	}
	return c, nil
}

func (s *server) token(scope string, cursor uint64) string {
	return pagetoken.Encode(scope, cursor, s.now())
}

// scope names a listing for its page tokens: the route, the path and the
// filters that shape it.
func scope(r *req, filters ...string) string {
	return r.R.URL.Path + "?" + strings.Join(filters, "&")
}

func (s *server) nativeToken(c *ChainInfo) networkToken {
	return networkToken(c.NetworkToken)
}

func rich(a common.Address) richAddress { return richAddress{Address: checksum(a)} }

func u64(v uint64) string { return strconv.FormatUint(v, 10) }
