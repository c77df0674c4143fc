// Package node answers the node's Info API (info.*) and X-Chain API (avm.*)
// JSON-RPC methods from a local View, wire-compatible with avalanchego
// v1.14.2's own clients: the same result shapes, quoted integers, error
// texts, checksummed hex and real avalanchego byte encodings of blocks,
// transactions and UTXOs.
//
// Mount the methods with jsonrpc.NewServer(Methods(w)); the envelope, the
// HTTP rules and method-name lookup are the jsonrpc package's.
package node

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// service holds a View with the lookups the methods need. It is read-only
// after newService and so safe for concurrent use.
type service struct {
	w        *View
	upgrades Upgrades
	// aliases maps every chain alias and id string to its chain id;
	// primary maps a chain id to its primary alias.
	aliases map[string]avax.ID
	primary map[avax.ID]string
	xChain  avax.ID
	xAlias  string
	// assets by printed id; rawAssets by the id in bytes.
	assets    map[avax.ID]*Asset
	rawAssets map[avax.ID]*Asset
}

func newService(w *View) *service {
	s := &service{
		w:         w,
		aliases:   map[string]avax.ID{},
		primary:   map[avax.ID]string{},
		assets:    map[avax.ID]*Asset{},
		rawAssets: map[avax.ID]*Asset{},
	}
	if w.Upgrades != nil {
		s.upgrades = *w.Upgrades
	} else {
		s.upgrades = UpgradesFor(w.NetworkID)
	}
	for _, c := range w.Chains {
		s.aliases[c.ID.String()] = c.ID
		for _, a := range c.Aliases {
			s.aliases[a] = c.ID
		}
		s.primary[c.ID] = c.ID.String()
		if len(c.Aliases) > 0 {
			s.primary[c.ID] = c.Aliases[0]
		}
	}
	s.xChain = s.aliases["X"]
	s.xAlias = s.primary[s.xChain]
	if s.xAlias == "" {
		s.xAlias = "X"
	}
	for i := range w.Assets {
		a := &w.Assets[i]
		s.assets[a.ID] = a
		s.rawAssets[a.raw()] = a
	}
	return s
}

// Methods returns the info.* and avm.* methods over w, keyed by their
// documented names ("info.getNetworkID", "avm.getUTXOs"). w must not change
// afterwards.
func Methods(w *View) map[string]jsonrpc.Method {
	s := newService(w)
	return map[string]jsonrpc.Method{
		"info.acps":            method(s.acps),
		"info.isBootstrapped":  method(s.isBootstrapped),
		"info.getBlockchainID": method(s.getBlockchainID),
		"info.getNetworkID":    method(s.getNetworkID),
		"info.getNetworkName":  method(s.getNetworkName),
		"info.getNodeID":       method(s.getNodeID),
		"info.getNodeIP":       method(s.getNodeIP),
		"info.getNodeVersion":  method(s.getNodeVersion),
		"info.getTxFee":        method(s.getInfoTxFee),
		"info.getVMs":          method(s.getVMs),
		"info.peers":           method(s.peers),
		"info.uptime":          method(s.uptime),
		"info.upgrades":        method(s.getUpgrades),

		"avm.getAllBalances":      method(s.getAllBalances),
		"avm.getAssetDescription": method(s.getAssetDescription),
		"avm.getBalance":          method(s.getBalance),
		"avm.getBlock":            method(s.getBlock),
		"avm.getBlockByHeight":    method(s.getBlockByHeight),
		"avm.getHeight":           method(s.getHeight),
		"avm.getTx":               method(s.getTx),
		"avm.getTxFee":            method(s.getAVMTxFee),
		"avm.getTxStatus":         method(s.getTxStatus),
		"avm.getUTXOs":            method(s.getUTXOs),
	}
}

// noArgs is the argument of methods without parameters; like the node, it
// ignores whatever params are sent.
type noArgs struct{}

// method adapts a typed handler: params are decoded into A by the node's
// rules (jsonrpc.UnmarshalParams), and a plain error becomes -32000.
func method[A, R any](f func(ctx context.Context, args *A) (R, error)) jsonrpc.Method {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		var args A
		if err := jsonrpc.UnmarshalParams(params, &args); err != nil {
			return nil, err
		}
		r, err := f(ctx, &args)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// lookupChain resolves a chain alias or id string exactly, as the node's
// aliaser does (case-sensitive).
func (s *service) lookupChain(alias string) (avax.ID, error) {
	if id, ok := s.aliases[alias]; ok {
		return id, nil
	}
	return avax.ID{}, fmt.Errorf("there is no ID with alias: %s", alias)
}

// xjson prints X-Chain transactions and blocks with the X-Chain's
// addresses.
func (s *service) xjson() avax.XJSON { return avax.XJSON{Alias: s.xAlias, HRP: s.w.hrp()} }

// formatAddress prints addr as the X-Chain's local address.
func (s *service) formatAddress(addr avax.ShortID) string {
	return avax.FormatAddress(s.xAlias, s.w.hrp(), addr)
}

// parseAddress accepts a cb58 short id or an address of this chain and
// network (avalanchego's avax.ParseServiceAddress).
func (s *service) parseAddress(str string) (avax.ShortID, error) {
	if a, err := avax.ParseShortID(str); err == nil {
		return a, nil
	}
	chain, hrp, addr, err := avax.ParseAddress(str)
	if err == nil && chain == "" {
		err = fmt.Errorf("no separator found in address")
	}
	if err == nil {
		var id avax.ID
		if id, err = s.lookupChain(chain); err == nil {
			switch want := s.w.hrp(); {
			case hrp != want:
				err = fmt.Errorf("expected hrp %q but got %q", want, hrp)
			case id != s.xChain:
				err = fmt.Errorf("mismatched chainIDs: expected %q but got %q", s.xChain, id)
			}
		}
	}
	if err != nil {
		return avax.ShortID{}, fmt.Errorf("couldn't parse address %q: %w", str, err)
	}
	return addr, nil
}
