package primary

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/warp"
	gen "github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// TestWarpOverDevnet signs with the devnet's own validators and verifies the
// result against the devnet's validator set, through the HTTP handlers.
func TestWarpOverDevnet(t *testing.T) {
	w, err := gen.New(gen.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	src := NewSigner(w)
	agg := warp.NewAggregator(src, warp.Options{})
	// The handlers without the edge: catalogue patterns and validation.
	mux := catalogMux(agg.Handlers())

	netID, _ := src.Network("fuji")
	cchain, _ := w.Network("fuji")
	unsigned := &warpmsg.UnsignedMessage{NetworkID: netID, SourceChainID: [32]byte(avax.MustParseID(cchain.CChainID)), Payload: (&warpmsg.AddressedCall{SourceAddress: []byte{1, 2}, Payload: []byte("hello")}).Bytes()}

	verify := func(t *testing.T, body string, quorum uint64) {
		t.Helper()
		var out struct{ SignedMessage string }
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
		raw, err := hex.DecodeString(strings.TrimPrefix(out.SignedMessage, "0x"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := warpmsg.ParseMessage(raw)
		if err != nil {
			t.Fatal(err)
		}
		subnet, ok := src.SubnetOf(m.SourceChainID)
		if !ok {
			t.Fatalf("no subnet for the source chain")
		}
		vdrs, err := src.Validators(context.Background(), subnet, 0)
		if err != nil {
			t.Fatal(err)
		}
		set, err := warp.NewValidatorSet(vdrs)
		if err != nil {
			t.Fatal(err)
		}
		if err := set.Verify(m, netID, quorum, 100); err != nil {
			t.Fatalf("signed message does not verify: %v", err)
		}
	}

	t.Run("message", func(t *testing.T) {
		body := `{"message":"` + hex.EncodeToString(unsigned.Bytes()) + `","quorumPercentage":67}`
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/signatureAggregator/fuji/aggregateSignatures", strings.NewReader(body)))
		if rec.Code != 201 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		verify(t, rec.Body.String(), 67)
	})
	t.Run("L1 conversion by tx hash", func(t *testing.T) {
		var txHash string
		for _, s := range w.Subnets() {
			if s.Conversion != nil {
				txHash = s.Conversion.TxID.String()
			}
		}
		if txHash == "" {
			t.Fatal("the default devnet has no L1 conversion; it should convert one subnet")
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/signatureAggregator/fuji/aggregateSignatures/"+txHash, nil))
		if rec.Code != 201 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		verify(t, rec.Body.String(), 67)
	})
}

// catalogMux mounts handlers on their catalogue routes, with the catalogue's
// validation, as the local world does without the edge.
func catalogMux(hs map[string]catalog.Handler) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range catalog.Catalogue() {
		if h, ok := hs[rt.Name]; ok {
			mux.Handle(rt.Pattern(), rt.Validating(h))
		}
	}
	return mux
}

// TestDevnetSignsItsOwnNetworkID: a message carrying the devnet's own network
// id (12345, what its node's info.getNetworkID reports) is signed under every
// network path, like one carrying the path network's id, and verifies against
// the devnet's validators; a message for any other network is refused.
func TestDevnetSignsItsOwnNetworkID(t *testing.T) {
	w, err := gen.New(gen.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	src := NewSigner(w)
	mux := catalogMux(warp.NewAggregator(src, warp.Options{}).Handlers())
	local, _ := w.Network("local")
	vdrs, err := src.Validators(context.Background(), [32]byte{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	set, err := warp.NewValidatorSet(vdrs)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path      string
		networkID uint32
		want      int
	}{
		{"fuji", 12345, 201},
		{"mainnet", 12345, 201},
		{"testnet", 12345, 201},
		{"fuji", 5, 201},
		{"mainnet", 1, 201},
		{"fuji", 1, 400},
		{"mainnet", 5, 400},
		{"fuji", 99, 400},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d under %s", tt.networkID, tt.path), func(t *testing.T) {
			u := &warpmsg.UnsignedMessage{NetworkID: tt.networkID, SourceChainID: [32]byte(avax.MustParseID(local.CChainID)),
				Payload: (&warpmsg.AddressedCall{SourceAddress: []byte{7}, Payload: []byte("relayer")}).Bytes()}
			body := `{"message":"` + hex.EncodeToString(u.Bytes()) + `"}`
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/signatureAggregator/"+tt.path+"/aggregateSignatures", strings.NewReader(body)))
			if rec.Code != tt.want {
				t.Fatalf("status %d: %s; want %d", rec.Code, rec.Body, tt.want)
			}
			if tt.want != 201 {
				if !strings.Contains(rec.Body.String(), fmt.Sprintf("Message network ID %d does not match network %s", tt.networkID, tt.path)) {
					t.Fatalf("body %s; want the network mismatch", rec.Body)
				}
				return
			}
			var out struct{ SignedMessage string }
			json.Unmarshal(rec.Body.Bytes(), &out)
			raw, _ := hex.DecodeString(out.SignedMessage)
			m, err := warpmsg.ParseMessage(raw)
			if err != nil {
				t.Fatal(err)
			}
			if err := set.Verify(m, tt.networkID, 67, 100); err != nil {
				t.Fatalf("the signed message does not verify for network %d: %v", tt.networkID, err)
			}
		})
	}
}
