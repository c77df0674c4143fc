package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/core"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/leaktest"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
)

// fakeNode is an avalanchego node that names its network and its C-Chain's
// EVM chain id and answers every other call with an error, which the
// followers survive (they retry).
func fakeNode(t *testing.T, evmChainID uint64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params map[string]string `json:"params"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &call)
		if call.ID == nil {
			call.ID = json.RawMessage("1")
		}
		w.Header().Set("Content-Type", "application/json")
		ids := map[string]string{"X": avanet.Local.XChainID, "C": avanet.Local.CChainID}
		switch call.Method {
		case "info.getNetworkID":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"networkID":"12345"}}`, call.ID)
		case "info.getBlockchainID":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"blockchainID":%q}}`, call.ID, ids[call.Params["alias"]])
		case "avm.getAssetDescription":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"assetID":%q}}`, call.ID, avanet.Local.AVAXAssetID)
		case "eth_chainId":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":"0x%x"}`, call.ID, evmChainID)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"down"}}`, call.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

var errInjected = errors.New("injected failure")

// gethSubscriptionExit is the frame of go-ethereum's newHeads subscription
// goroutine uninstalling itself from the filter system's event loop after its
// RPC subscription ended (eth/filters api.go NewHeads). When the node stops
// the event loop first, as go-ethereum's own node.Close can, the goroutine
// waits forever; nothing of avaedge holds it or can end it.
const gethSubscriptionExit = "eth/filters.(*Subscription).Unsubscribe"

// TestBuildFailureClosesEverything fails Build at each of its steps in turn,
// for the devnet and for a followed node, and finds nothing left open: every
// component it opened is closed, the goroutines it started have ended and
// the files it opened (the SQLite stores in the data directory, connections
// to the node) are closed. The same holds after a Build that succeeds and
// is closed.
func TestBuildFailureClosesEverything(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts open files in /proc/self/fd")
	}
	// go-ethereum's sender cacher is a process-wide singleton, started once
	// by the first chain and running for the life of the process: not
	// something Build opens.
	core.SenderCacher()
	node := fakeNode(t, avanet.Local.EVMChainID)
	evmNode := fakeNode(t, 99999)
	worlds := []struct {
		name  string
		opts  BuildOptions
		steps []string
	}{
		{"devnet", BuildOptions{LocalMode: map[catalog.Service]bool{catalog.Data: true, catalog.Metrics: true, catalog.Node: true}},
			[]string{"world", "evm index", "metrics", "evm catch-up", "node methods", "warp source", "handler"}},
		{"devnet without chains", BuildOptions{LocalMode: map[catalog.Service]bool{catalog.Data: true}, DisableDevChain: true},
			[]string{"world", "metrics", "node methods", "warp source", "handler"}},
		{"followed node", BuildOptions{Node: node.URL, EVMChains: []EVMChain{{ChainID: 99999, RPC: evmNode.URL}},
			LocalMode: map[catalog.Service]bool{catalog.Data: true, catalog.Metrics: true}},
			[]string{"world", "evm index", "metrics", "node methods", "warp source", "handler"}},
	}
	for _, w := range worlds {
		for _, fail := range append(slices.Clone(w.steps), "") {
			name := w.name + "/fail at " + fail
			if fail == "" {
				name = w.name + "/success, then Close"
			}
			t.Run(name, func(t *testing.T) {
				left := leaktest.Take(t).Ignore(gethSubscriptionExit)
				var mu sync.Mutex // guards open and asked
				open := map[string]int{}
				var asked []string
				hooks := buildHooks{
					step: func(s string) error {
						mu.Lock()
						defer mu.Unlock()
						asked = append(asked, s)
						if s == fail {
							return errInjected
						}
						return nil
					},
					opened: func(s string) { mu.Lock(); open[s]++; mu.Unlock() },
					closed: func(s string) { mu.Lock(); open[s]--; mu.Unlock() },
				}
				opts := w.opts
				opts.DataDir = t.TempDir()
				opts.Logger = slog.New(slog.DiscardHandler)
				opts.Registerer = prometheus.NewRegistry()
				h, err := build(context.Background(), opts, hooks)
				if fail != "" {
					if !errors.Is(err, errInjected) {
						t.Fatalf("Build = %v; want the injected failure at %s", err, fail)
					}
				} else {
					if err != nil {
						t.Fatal(err)
					}
					if err := h.Close(); err != nil {
						t.Fatalf("Close: %v", err)
					}
				}
				mu.Lock()
				want := w.steps
				if fail != "" {
					want = w.steps[:slices.Index(w.steps, fail)+1]
				}
				if !slices.Equal(asked, want) {
					t.Errorf("steps asked %v; want %v", asked, want)
				}
				for s, n := range open {
					if n != 0 {
						t.Errorf("%s: opened %d more times than closed", s, n)
					}
				}
				mu.Unlock()
				left.Check(t)
			})
		}
	}
}

// TestBuildOptionsReachComponents builds a followed node's world, a devnet
// world and one without a dev chain, and finds every option in the component
// it configures. An option without a row fails the test.
func TestBuildOptionsReachComponents(t *testing.T) {
	node := fakeNode(t, avanet.Local.EVMChainID)
	evmNode := fakeNode(t, 99999)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	reg := prometheus.NewRegistry()
	dir := t.TempDir()
	routes := catalog.Catalogue()[:5]
	open := func(opts BuildOptions) *Handler {
		t.Helper()
		h, err := Build(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	all := map[catalog.Service]bool{catalog.Data: true, catalog.Metrics: true, catalog.Node: true}
	followed := open(BuildOptions{Node: node.URL, DataDir: dir, Registerer: reg, Logger: log, Routes: routes,
		EVMChains: []EVMChain{{ChainID: 99999, Name: "Test L1", RPC: evmNode.URL, StartBlock: 7}},
		LocalMode: map[catalog.Service]bool{catalog.Metrics: true}, Networks: []string{"fuji"}, NodeNetwork: "fuji"})
	devDir := t.TempDir()
	stale := filepath.Join(devDir, "devchains", "stale")
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	dev := open(BuildOptions{Seed: 42, LocalMode: all, PublicURL: "http://edge.example:8080", DataDir: devDir, ResetDevChains: true,
		DevChain: evm.Options{Debug: true, WritesPerMinute: 7}})
	_, staleErr := os.Stat(stale)
	noDev := open(BuildOptions{LocalMode: all, DisableDevChain: true})
	pg := pgtest.Start(t)
	indexURL := pg.Database(t)
	fleet := open(BuildOptions{Node: node.URL, IndexURL: indexURL, EVMChains: []EVMChain{{ChainID: 99999, RPC: evmNode.URL}}, Logger: log})
	readURL := pg.Standby(t).SameDatabase(indexURL)
	reader := open(BuildOptions{Node: node.URL, IndexURL: indexURL, IndexReadURL: readURL, EVMChains: []EVMChain{{ChainID: 99999, RPC: evmNode.URL}}, Logger: log})
	f, d := followed.wired, dev.wired

	rows := []struct {
		option    string
		got, want any
	}{
		{"Routes", len(followed.routes), len(routes)},
		{"LocalMode", []bool{followed.opts.LocalMode[catalog.Metrics], followed.opts.LocalMode[catalog.Data], d.devnet.Chains},
			[]bool{true, false, true}},
		{"Networks", followed.opts.Networks, []string{"fuji"}},
		{"NodeNetwork", followed.opts.NodeNetwork, "fuji"},
		{"Node", []any{f.followed.Node, f.evmIndex.Chains[0].RPCURL, followed.opts.RealNode}, []any{node.URL, node.URL + "/ext/bc/C/rpc", true}},
		{"Seed", d.devnet.Seed, int64(42)},
		{"DevChain", []any{d.devnet.DevChain.Debug, d.devnet.DevChain.WritesPerMinute, d.devnet.Chains}, []any{true, 7, true}},
		{"DisableDevChain", []bool{noDev.wired.devnet.Chains, noDev.opts.EVM == nil}, []bool{false, true}},
		{"EVMChains", []any{f.evmIndex.Chains[1].ChainID, f.evmIndex.Chains[1].RPCURL, f.evmIndex.Chains[1].StartBlock, f.evmInfos[1].ChainName, followed.opts.IndexedChain("99999")},
			[]any{uint64(99999), evmNode.URL, uint64(7), "Test L1", true}},
		{"DataDir", []string{f.followed.Path, f.evmIndex.Path, f.metrics.Path, d.devnet.ChainsDir},
			[]string{filepath.Join(dir, "pindex.db"), filepath.Join(dir, "evmindex.db"), filepath.Join(dir, "metrics.db"), filepath.Join(devDir, "devchains")}},
		{"ResetDevChains", os.IsNotExist(staleErr), true},
		{"IndexURL", []bool{f.evmIndex.Store == nil, fleet.wired.evmIndex.Store != nil, fleet.wired.fleet != nil}, []bool{true, true, true}},
		{"IndexReadURL", []any{fleet.wired.followed.Replica == nil, reader.wired.followed.Replica != nil, reader.wired.evmIndex.Replica != nil, reader.wired.metrics.ReadURL},
			[]any{true, true, true, readURL}},
		{"PublicURL", []string{d.devnet.PublicURL, d.evmInfos[0].RPCURL}, []string{"http://edge.example:8080", "http://edge.example:8080/ext/bc/C/rpc"}},
		{"Registerer", []bool{f.followed.Registerer == reg, f.evmIndex.Registerer == reg, f.metrics.Registerer == reg}, []bool{true, true, true}},
		{"Logger", []bool{f.followed.Logger == log, f.evmIndex.Logger == log, f.metrics.Logger == log}, []bool{true, true, true}},
	}
	covered := map[string]bool{}
	for _, row := range rows {
		covered[row.option] = true
		t.Run(row.option, func(t *testing.T) {
			if !reflect.DeepEqual(row.got, row.want) {
				t.Fatalf("got %#v; want %#v", row.got, row.want)
			}
		})
	}
	for f := range reflect.TypeFor[BuildOptions]().Fields() {
		if !covered[f.Name] {
			t.Errorf("BuildOptions.%s has no row: wire it and add one", f.Name)
		}
	}
}
