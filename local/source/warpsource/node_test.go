package warpsource

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/source/acp118"
	"github.com/avaedge/avaedge/local/source/nodeclient"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestConversionID computes the conversion id of a real ConvertSubnetToL1Tx
// (testdata: the node's JSON and the id its platform.getSubnet reported).
func TestConversionID(t *testing.T) {
	raw, err := os.ReadFile("testdata/convert_subnet_to_l1.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		ConversionID string          `json:"conversionID"`
		Tx           json.RawMessage `json:"tx"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	subnet, id, err := conversionID(v.Tx)
	if err != nil {
		t.Fatal(err)
	}
	if got := avax.ID(id).String(); got != v.ConversionID {
		t.Fatalf("conversion id %s; the node says %s", got, v.ConversionID)
	}
	if got := avax.ID(subnet).String(); !strings.Contains(string(v.Tx), `"subnetID":"`+got+`"`) {
		t.Fatalf("subnet %s is not the tx's", got)
	}

	for name, edit := range map[string][2]string{
		"weight changes the id": {`"weight":100`, `"weight":101`},
		"long BLS key":          {`"publicKey":"0x`, `"publicKey":"0x00`},
		"bad subnet":            {`"subnetID":"`, `"subnetID":"x`},
	} {
		t.Run(name, func(t *testing.T) {
			body := strings.Replace(string(v.Tx), edit[0], edit[1], 1)
			if body == string(v.Tx) {
				t.Fatalf("%q is not in the vector", edit[0])
			}
			_, got, err := conversionID(json.RawMessage(body))
			if err == nil && got == id {
				t.Fatal("a different transaction has the same conversion id")
			}
		})
	}
}

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want acp118.Version
		ok   bool
	}{
		{"avalanchego/1.14.2", acp118.Version{Name: "avalanchego", Major: 1, Minor: 14, Patch: 2}, true},
		{"avalanchego/1.14", acp118.Version{}, false},
		{"1.14.2", acp118.Version{}, false},
		{"avalanchego/1.x.2", acp118.Version{}, false},
	}
	for _, tt := range tests {
		got, err := parseVersion(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseVersion(%q) = %+v, %v; want %+v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// fakeNodeAPI answers the info and platform methods the Source calls with
// canned results, keyed by method.
func fakeNodeAPI(t *testing.T, results map[string]string) nodeAPI {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal(b, &req)
		res, ok := results[req.Method+" "+string(req.Params)]
		if !ok {
			res, ok = results[req.Method]
		}
		if !ok {
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found"}}`)
			return
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":`+res+`}`)
	}))
	t.Cleanup(srv.Close)
	return nodeAPI{nodeclient.New(srv.URL+"/", jsonrpc.ClientOptions{Timeout: 5 * time.Second})}
}

func TestNodeRPC(t *testing.T) {
	const key = "0xac8ae83769bdc9ce186fef5132d46d5246a8ea6b23877f4ac7a76212cab6560c34425038a44f66148f3ea87ea8d023c6"
	self, _ := avax.ParseNodeID("NodeID-Q2czjUDrKqGX8X8PnJn52BksTUhyL8gB5")
	peerPublic, _ := avax.ParseNodeID("NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg")
	peerConn, _ := avax.ParseNodeID("NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ")
	absent, _ := avax.ParseNodeID("NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu")
	n := fakeNodeAPI(t, map[string]string{
		"platform.getHeight": `{"height":"42"}`,
		`platform.getValidatorsAt {"height":"7","subnetID":"11111111111111111111111111111111LpoYY"}`: `{"` + self.String() + `":{"publicKey":"` + key + `","weight":"100"},"` +
			peerConn.String() + `":{"publicKey":null,"weight":"5"}}`,
		"info.getNodeVersion": `{"version":"avalanchego/1.14.2"}`,
		"info.getNodeID":      `{"nodeID":"` + self.String() + `"}`,
		"info.getNodeIP":      `{"ip":"127.0.0.1:9651"}`,
		`info.peers {"nodeIDs":["` + peerPublic.String() + `"]}`: `{"peers":[{"ip":"10.0.0.2:40000","publicIP":"10.0.0.2:9651","nodeID":"` + peerPublic.String() + `"}]}`,
		`info.peers {"nodeIDs":["` + peerConn.String() + `"]}`:   `{"peers":[{"ip":"10.0.0.3:9651","nodeID":"` + peerConn.String() + `"}]}`,
		`info.peers {"nodeIDs":["` + absent.String() + `"]}`:     `{"peers":[]}`,
	})
	ctx := context.Background()
	if h, err := n.pHeight(ctx); err != nil || h != 42 {
		t.Fatalf("pHeight = %d, %v", h, err)
	}
	vs, err := n.validatorsAt(ctx, [32]byte{}, 7)
	if err != nil || len(vs) != 2 {
		t.Fatalf("validatorsAt = %v, %v", vs, err)
	}
	for _, v := range vs {
		switch avax.NodeID(v.NodeID) {
		case self:
			if v.Weight != 100 || avax.EncodeHexNC(v.PublicKey) != key {
				t.Errorf("self: %d %x", v.Weight, v.PublicKey)
			}
		case peerConn:
			if v.Weight != 5 || v.PublicKey != nil {
				t.Errorf("keyless: %d %x", v.Weight, v.PublicKey)
			}
		default:
			t.Errorf("unexpected validator %s", avax.NodeID(v.NodeID))
		}
	}
	if _, err := n.validatorsAt(ctx, [32]byte{1}, 7); err == nil || !strings.Contains(err.Error(), "method not found") {
		t.Fatalf("an RPC error: %v", err)
	}
	if v, err := n.version(ctx); err != nil || v != (acp118.Version{Name: "avalanchego", Major: 1, Minor: 14, Patch: 2}) {
		t.Fatalf("version = %+v, %v", v, err)
	}
	for _, tt := range []struct {
		node avax.NodeID
		want string
	}{{self, "127.0.0.1:9651"}, {peerPublic, "10.0.0.2:9651"}, {peerConn, "10.0.0.3:9651"}} {
		if got, err := n.stakingAddress(ctx, tt.node); err != nil || got != tt.want {
			t.Errorf("stakingAddress(%s) = %q, %v; want %q", tt.node, got, err, tt.want)
		}
	}
	if _, err := n.stakingAddress(ctx, absent); !errors.Is(err, errNoAddress) {
		t.Fatalf("absent peer: %v; want errNoAddress", err)
	}
}
