package local

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/proxy"
)

var (
	_ proxy.LocalEVM           = (*Handler)(nil)
	_ proxy.LocalSubscriptions = (*Handler)(nil)
)

// TestDevnetChainsRun builds the devnet in local mode and finds every EVM
// chain it lists running: its JSON-RPC at /ext/bc/<blockchainId>/rpc and
// at its alias answers its chain id and ewoq's genesis funds, with the dev
// chain's per-client bounds, counted across the chains (one filter in all
// here: a client's first filter is on the first chain); the EVM index holds its
// seeded blocks (the Data API by chain id and by blockchain id); the Metrics
// API lists it.
func TestDevnetChainsRun(t *testing.T) {
	all := map[catalog.Service]bool{catalog.Data: true, catalog.Metrics: true, catalog.Node: true}
	h, err := Build(context.Background(), BuildOptions{LocalMode: all, Logger: slog.New(slog.DiscardHandler),
		DevChain: evm.Options{FiltersPerClient: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	w, err := devnet.New(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	listed := w.EVMChains()
	if len(listed) != 2 {
		t.Fatalf("the devnet lists %d EVM chains; want devsubnet and devl1", len(listed))
	}
	serve := func(method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, r)
		return rec
	}
	call := func(t *testing.T, path, method, params string) json.RawMessage {
		t.Helper()
		rec := serve(http.MethodPost, path, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`)
		var out struct {
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code != 200 {
			t.Fatalf("%s %s: %d %s", path, method, rec.Code, rec.Body)
		}
		if out.Error != nil {
			return json.RawMessage(`{"error":` + fmt.Sprintf("%q", out.Error.Message) + `}`)
		}
		return out.Result
	}
	metrics := serve(http.MethodGet, "/v2/chains", "").Body.String()
	for i, c := range listed {
		t.Run(c.Name, func(t *testing.T) {
			for _, path := range []string{"/ext/bc/" + c.ID.String() + "/rpc", "/ext/bc/" + c.Name + "/rpc"} {
				if !h.ServesEVM(path) {
					t.Errorf("ServesEVM(%s) = false", path)
				}
				if got, want := string(call(t, path, "eth_chainId", "[]")), fmt.Sprintf(`"0x%x"`, c.EVMChainID); got != want {
					t.Errorf("%s eth_chainId = %s; want %s", path, got, want)
				}
				subscriberIs(t, h, path, c.EVMChainID)
			}
			path := "/ext/bc/" + c.ID.String() + "/rpc"
			listedBal, ok := c.EwoqBalance()
			if bal := string(call(t, path, "eth_getBalance", `["0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC","0x0"]`)); !ok || bal != fmt.Sprintf(`"0x%x"`, listedBal) {
				t.Errorf("ewoq's genesis balance = %s; the listed genesis gives %v", bal, listedBal)
			}
			if f := string(call(t, path, "eth_newBlockFilter", "[]")); i == 0 && !strings.HasPrefix(f, `"0x`) {
				t.Fatalf("first filter: %s", f)
			}
			if f := string(call(t, path, "eth_newBlockFilter", "[]")); !strings.Contains(f, "exceed max filters per client") {
				t.Errorf("second filter of one client = %s; want refused (FiltersPerClient 1 across the chains)", f)
			}
			var head hexutil.Uint64
			if err := json.Unmarshal(call(t, path, "eth_blockNumber", "[]"), &head); err != nil || head == 0 {
				t.Fatalf("eth_blockNumber: %d, %v; want the seeded head", head, err)
			}
			for _, id := range []string{fmt.Sprint(c.EVMChainID), c.ID.String()} {
				rec := serve(http.MethodGet, "/v1/chains/"+id+"/blocks?pageSize=1", "")
				if rec.Code != 200 || !strings.Contains(rec.Body.String(), fmt.Sprintf(`"chainId":"%d"`, c.EVMChainID)) ||
					!strings.Contains(rec.Body.String(), fmt.Sprintf(`"blockNumber":"%d"`, head)) {
					t.Errorf("/v1/chains/%s/blocks: %d %s; want the seeded head, block %d", id, rec.Code, rec.Body, head)
				}
			}
			if want := fmt.Sprintf(`"evmChainId":%d,"chainName":%q,"blockchainId":%q`, c.EVMChainID, c.Name, c.ID); !strings.Contains(metrics, want) {
				t.Errorf("/v2/chains lacks %s: %s", want, metrics)
			}
		})
	}
	if h.ServesEVM("/ext/bc/nochain/rpc") {
		t.Error("ServesEVM of a chain nobody runs")
	}
	subscriberIs(t, h, "/ext/bc/C/rpc", avanet.Local.EVMChainID)
	if h.EVMSubscriber("/ext/bc/nochain/rpc") != nil {
		t.Error("EVMSubscriber of a chain nobody runs")
	}
}

// subscriberIs checks that h's subscriptions client for path is the chain
// whose EVM chain id is want.
func subscriberIs(t *testing.T, h *Handler, path string, want uint64) {
	t.Helper()
	sub := h.EVMSubscriber(path)
	if sub == nil {
		t.Errorf("EVMSubscriber(%s) = nil", path)
		return
	}
	var id hexutil.Uint64
	if err := sub.CallContext(context.Background(), &id, "eth_chainId"); err != nil || uint64(id) != want {
		t.Errorf("EVMSubscriber(%s): eth_chainId = %d, %v; want %d", path, id, err, want)
	}
}
