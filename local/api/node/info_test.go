package node

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

func TestInfoMethods(t *testing.T) {
	m := Methods(fakeView())
	subnet := idOf("subnet")
	for _, tc := range []struct {
		name, method, params string
		want, wantErr        string
	}{
		{"network id quoted", "info.getNetworkID", "", `{"networkID":"12345"}`, ""},
		{"network name", "info.getNetworkName", "", `{"networkName":"local"}`, ""},
		{"node ip", "info.getNodeIP", "", `{"ip":"127.0.0.1:9651"}`, ""},
		{"blockchain id of X", "info.getBlockchainID", `{"alias":"X"}`, `{"blockchainID":"` + fakeX.String() + `"}`, ""},
		{"blockchain id of avm", "info.getBlockchainID", `{"alias":"avm"}`, `{"blockchainID":"` + fakeX.String() + `"}`, ""},
		{"blockchain id of a subnet chain by id", "info.getBlockchainID", `{"alias":"` + idOf("subnet chain").String() + `"}`, `{"blockchainID":"` + idOf("subnet chain").String() + `"}`, ""},
		{"aliases are case-sensitive", "info.getBlockchainID", `{"alias":"x"}`, "", "there is no ID with alias: x"},
		{"bootstrapped by alias", "info.isBootstrapped", `{"chain":"C"}`, `{"isBootstrapped":true}`, ""},
		{"bootstrapped by id", "info.isBootstrapped", `{"chain":"` + fakeX.String() + `"}`, `{"isBootstrapped":true}`, ""},
		{"bootstrapped unknown", "info.isBootstrapped", `{"chain":"Q"}`, "", "there is no chain with alias/ID 'Q'"},
		{"bootstrapped without chain", "info.isBootstrapped", `{}`, "", "argument 'chain' not given"},
		{"uptime of the primary network", "info.uptime", "", `{"rewardingStakePercentage":"80.0000","weightedAveragePercentage":"84.0000"}`, ""},
		{"uptime of a subnet the node does not validate", "info.uptime", `{"subnetID":"` + subnet.String() + `"}`, "", "couldn't get node uptime: node is not a validator"},
		{"tx fee", "info.getTxFee", "", `{"txFee":"1000000","createAssetTxFee":"1000000","createSubnetTxFee":"100000000","transformSubnetTxFee":"100000000","createBlockchainTxFee":"100000000","addPrimaryNetworkValidatorFee":"0","addPrimaryNetworkDelegatorFee":"0","addSubnetValidatorFee":"1000000","addSubnetDelegatorFee":"1000000"}`, ""},
		{"acps", "info.acps", "", `{"acps":{"194":{"supportWeight":"300","supporters":["NodeID-BaMPFdqMUQ46BV8iRcwbVfsam55kMqcp"],"objectWeight":"100","objectors":["NodeID-Gs2aNxFXi6admjCa8vutk1Jse7BhbC9j"],"abstainWeight":"0"},"23":{"supportWeight":"300","supporters":["NodeID-BaMPFdqMUQ46BV8iRcwbVfsam55kMqcp"],"objectWeight":"0","objectors":[],"abstainWeight":"0"}}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, m, tc.method, tc.params)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("got %s, %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %s, %v\nwant %s", got, err, tc.want)
			}
		})
	}
}

func TestNodeID(t *testing.T) {
	w := fakeView()
	got, err := call(t, Methods(w), "info.getNodeID", "")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		NodeID  string
		NodePOP struct{ PublicKey, ProofOfPossession string }
	}
	if err := json.Unmarshal([]byte(got), &r); err != nil {
		t.Fatal(err)
	}
	if r.NodeID != w.Node.ID.String() {
		t.Errorf("got node id %s; want %s", r.NodeID, w.Node.ID)
	}
	if len(r.NodePOP.PublicKey) != 2+96 || len(r.NodePOP.ProofOfPossession) != 2+192 {
		t.Fatalf("got key %q, pop %q; want 0x + 96 and 0x + 192 hex digits", r.NodePOP.PublicKey, r.NodePOP.ProofOfPossession)
	}
	pk := new(blst.P1Affine).Uncompress(w.Node.PublicKey)
	sig := new(blst.P2Affine).Uncompress(w.Node.ProofOfPossession)
	if pk == nil || sig == nil || !sig.Verify(true, pk, true, w.Node.PublicKey, []byte("BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_")) {
		t.Error("the proof of possession does not verify")
	}
	if !strings.EqualFold(r.NodePOP.PublicKey, avax.EncodeHexNC(w.Node.PublicKey)) {
		t.Errorf("public key %s is not the node's", r.NodePOP.PublicKey)
	}
}

func TestPeers(t *testing.T) {
	m := Methods(fakeView())
	p2, p3 := avax.NodeID{2}.String(), avax.NodeID{3}.String()
	for _, tc := range []struct {
		name, params string
		want         []string
	}{
		{"all", "", []string{p2, p3}},
		{"empty filter", `{"nodeIDs":[]}`, []string{p2, p3}},
		{"filter keeps the asked order", `{"nodeIDs":["` + p3 + `","` + p2 + `"]}`, []string{p3, p2}},
		{"unknown ids are omitted", `{"nodeIDs":["` + avax.NodeID{9}.String() + `","` + p3 + `"]}`, []string{p3}},
		{"only unknown", `{"nodeIDs":["` + avax.NodeID{9}.String() + `"]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, m, "info.peers", tc.params)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				NumPeers string `json:"numPeers"`
				Peers    []map[string]any
			}
			if err := json.Unmarshal([]byte(got), &r); err != nil {
				t.Fatal(err)
			}
			if want := len(tc.want); r.NumPeers != strconv.Itoa(want) || len(r.Peers) != want {
				t.Fatalf("got numPeers %s and %d peers; want %d", r.NumPeers, len(r.Peers), want)
			}
			for i, p := range r.Peers {
				if p["nodeID"] != tc.want[i] {
					t.Errorf("peer %d: got %v; want %s", i, p["nodeID"], tc.want[i])
				}
				for _, k := range []string{"ip", "publicIP", "version", "lastSent", "lastReceived", "observedUptime", "trackedSubnets", "supportedACPs", "objectedACPs", "benched"} {
					if _, ok := p[k]; !ok {
						t.Errorf("peer %d: no %q", i, k)
					}
				}
				if _, ok := p["observedUptime"].(string); !ok {
					t.Errorf("peer %d: observedUptime %v is not a quoted integer", i, p["observedUptime"])
				}
				if _, err := time.Parse(time.RFC3339, p["lastReceived"].(string)); err != nil {
					t.Errorf("peer %d: lastReceived: %v", i, err)
				}
			}
		})
	}
	if _, err := call(t, m, "info.peers", `{"nodeIDs":["NodeID-bad"]}`); err == nil {
		t.Error("a malformed node id: got no error")
	}
}

func TestUpgrades(t *testing.T) {
	for _, tc := range []struct {
		network uint32
		want    map[string]any
	}{
		{avanet.Local.ID, map[string]any{"apricotPhase1Time": "2020-12-05T05:00:00Z", "graniteTime": "2020-12-05T05:00:00Z",
			"apricotPhase4MinPChainHeight": 0.0, "graniteEpochDuration": 30000000000.0, "heliconTime": "9999-12-01T00:00:00Z",
			"cortinaXChainStopVertexID": "11111111111111111111111111111111LpoYY"}},
		{avanet.Mainnet.ID, map[string]any{"apricotPhase1Time": "2021-03-31T14:00:00Z", "apricotPhase4MinPChainHeight": 793005.0,
			"graniteTime": "2025-11-19T16:00:00Z", "graniteEpochDuration": 300000000000.0, "heliconTime": "2026-09-22T15:00:00Z",
			"cortinaXChainStopVertexID": "jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga"}},
		{avanet.Fuji.ID, map[string]any{"apricotPhasePre6Time": "2022-09-06T20:00:00Z", "apricotPhase4MinPChainHeight": 47437.0,
			"durangoTime": "2024-02-13T16:00:00Z", "heliconTime": "2026-07-28T15:00:00Z"}},
	} {
		w := fakeView()
		w.NetworkID = tc.network
		got, err := call(t, Methods(w), "info.upgrades", "")
		if err != nil {
			t.Fatal(err)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(got), &r); err != nil {
			t.Fatal(err)
		}
		if len(r) != 18 {
			t.Errorf("network %d: %d fields; want 18", tc.network, len(r))
		}
		for k, v := range tc.want {
			if r[k] != v {
				t.Errorf("network %d: %s = %v; want %v", tc.network, k, r[k], v)
			}
		}
		// The times never go backwards (avalanchego's client validates it).
		order := []string{"apricotPhase1Time", "apricotPhase2Time", "apricotPhase3Time", "apricotPhase4Time", "apricotPhase5Time",
			"apricotPhasePre6Time", "apricotPhase6Time", "apricotPhasePost6Time", "banffTime", "cortinaTime", "durangoTime",
			"etnaTime", "fortunaTime", "graniteTime", "heliconTime"}
		for i := 1; i < len(order); i++ {
			if r[order[i]].(string) < r[order[i-1]].(string) {
				t.Errorf("network %d: %s before %s", tc.network, order[i], order[i-1])
			}
		}
	}
}

func TestNetworkName(t *testing.T) {
	for id, want := range map[uint32]string{1: "mainnet", 5: "fuji", 12345: "local", 99: "network-99"} {
		w := fakeView()
		w.NetworkID = id
		if got, _ := call(t, Methods(w), "info.getNetworkName", ""); got != `{"networkName":"`+want+`"}` {
			t.Errorf("network %d: got %s; want %s", id, got, want)
		}
	}
}
