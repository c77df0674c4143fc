package avalanchego

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/source/nodeclient"
)

// TestNodeClient calls every method of avaedge's typed node client against
// a real avalanchego node and checks each answer against avalanchego's own
// client's (api/info, vms/platformvm, vms/avm).
func TestNodeClient(t *testing.T) {
	node := startNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := nodeclient.New(node.URI, jsonrpc.ClientOptions{})
	defer c.Close()
	ic, pc, xc := info.NewClient(node.URI), platformvm.NewClient(node.URI), avm.NewClient(node.URI, "X")
	check := func(what string, got, want any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if string(gj) != string(wj) {
			t.Errorf("%s = %s; avalanchego's client: %s", what, gj, wj)
		}
	}

	netID, err := c.Info().NetworkID(ctx)
	want, werr := ic.GetNetworkID(ctx)
	check("NetworkID", netID, want, errors.Join(err, werr))
	xID, err := c.Info().BlockchainID(ctx, "X")
	wantX, werr := ic.GetBlockchainID(ctx, "X")
	check("BlockchainID(X)", xID, wantX.String(), errors.Join(err, werr))
	self, err := c.Info().NodeID(ctx)
	wantSelf, _, werr := ic.GetNodeID(ctx)
	check("NodeID", self, wantSelf.String(), errors.Join(err, werr))
	ip, err := c.Info().NodeIP(ctx)
	wantIP, werr := ic.GetNodeIP(ctx)
	check("NodeIP", ip, wantIP.String(), errors.Join(err, werr))
	version, err := c.Info().NodeVersion(ctx)
	wantVersion, werr := ic.GetNodeVersion(ctx)
	if werr == nil {
		check("NodeVersion", version, wantVersion.Version, err)
	}
	peers, err := c.Info().Peers(ctx, nil)
	wantPeers, werr := ic.Peers(ctx, nil)
	check("Peers (count)", len(peers), len(wantPeers), errors.Join(err, werr))

	for _, ch := range []struct {
		name string
		api  interface {
			Height(context.Context) (uint64, error)
			BlockBytes(context.Context, uint64) ([]byte, error)
			BlockJSON(context.Context, uint64) (json.RawMessage, error)
		}
		height func(context.Context) (uint64, error)
		block  func(context.Context, uint64) ([]byte, error)
	}{
		{"P", c.P(), func(ctx context.Context) (uint64, error) { return pc.GetHeight(ctx) },
			func(ctx context.Context, h uint64) ([]byte, error) { return pc.GetBlockByHeight(ctx, h) }},
		{"X", c.X(), func(ctx context.Context) (uint64, error) { return xc.GetHeight(ctx) },
			func(ctx context.Context, h uint64) ([]byte, error) { return xc.GetBlockByHeight(ctx, h) }},
	} {
		h, err := ch.api.Height(ctx)
		wantH, werr := ch.height(ctx)
		check(ch.name+".Height", h, wantH, errors.Join(err, werr))
		b, err := ch.api.BlockBytes(ctx, 0)
		wantB, werr := ch.block(ctx, 0)
		check(ch.name+".BlockBytes(0)", b, wantB, errors.Join(err, werr))
		js, err := ch.api.BlockJSON(ctx, 0)
		if err != nil || !json.Valid(js) {
			t.Errorf("%s.BlockJSON(0) = %.80s, %v", ch.name, js, err)
		}
	}

	chains, err := c.P().Blockchains(ctx)
	wantChains, werr := pc.GetBlockchains(ctx)
	if err = errors.Join(err, werr); err != nil {
		t.Fatal(err)
	}
	var gotIDs, wantIDs []string
	for _, b := range chains {
		gotIDs = append(gotIDs, b.ID+"/"+b.SubnetID)
	}
	for _, b := range wantChains {
		wantIDs = append(wantIDs, b.ID.String()+"/"+b.SubnetID.String())
	}
	slices.Sort(gotIDs)
	slices.Sort(wantIDs)
	check("Blockchains", gotIDs, wantIDs, nil)
	xTx, err := c.P().TxJSON(ctx, wantX.String())
	if err != nil || !json.Valid(xTx) {
		t.Errorf("P.TxJSON(the X-Chain's CreateChainTx) = %.80s, %v", xTx, err)
	}
	wantTx, werr := pc.GetTx(ctx, wantX)
	gotTx, err := c.P().TxBytes(ctx, wantX.String())
	check("P.TxBytes(the X-Chain's CreateChainTx)", gotTx, wantTx, errors.Join(err, werr))

	supply, err := c.P().CurrentSupply(ctx)
	wantSupply, wantHeight, werr := pc.GetCurrentSupply(ctx, constants.PrimaryNetworkID)
	check("CurrentSupply", supply, nodeclient.Supply{Supply: wantSupply, Height: wantHeight}, errors.Join(err, werr))

	pHeight, _ := pc.GetHeight(ctx)
	vs, err := c.P().ValidatorsAt(ctx, constants.PrimaryNetworkID.String(), pHeight)
	wantVs, werr := pc.GetValidatorsAt(ctx, constants.PrimaryNetworkID, platformapi.Height(pHeight))
	if err = errors.Join(err, werr); err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(wantVs) || len(vs) == 0 {
		t.Fatalf("ValidatorsAt: %d validators; avalanchego's client: %d", len(vs), len(wantVs))
	}
	for _, v := range vs {
		w := wantVs[ids.NodeID(v.NodeID)]
		if w == nil || w.Weight != v.Weight || (w.PublicKey == nil) != (v.PublicKey == nil) ||
			(w.PublicKey != nil && string(bls.PublicKeyToCompressedBytes(w.PublicKey)) != string(v.PublicKey)) {
			t.Errorf("ValidatorsAt: %s weight %d key %x; avalanchego's client: %+v", v.NodeID, v.Weight, v.PublicKey, w)
		}
	}
	current, err := c.P().CurrentValidators(ctx, "")
	if err == nil {
		current, err = c.P().WithDelegators(ctx, current)
	}
	var cv struct {
		Validators []json.RawMessage `json:"validators"`
	}
	if err != nil || json.Unmarshal(current, &cv) != nil || len(cv.Validators) != len(wantVs) {
		t.Errorf("CurrentValidators: %d validators, %v; want %d", len(cv.Validators), err, len(wantVs))
	}

	asset, err := c.X().AssetDescription(ctx, "AVAX")
	wantAsset, werr := xc.GetAssetDescription(ctx, "AVAX")
	if err = errors.Join(err, werr); err != nil {
		t.Fatal(err)
	}
	check("AssetDescription(AVAX)", asset, nodeclient.AssetDescription{ID: wantAsset.AssetID.String(), Name: wantAsset.Name, Symbol: wantAsset.Symbol}, nil)
	avaxTx, err := c.X().TxBytes(ctx, wantAsset.AssetID.String())
	wantAvaxTx, werr := xc.GetTx(ctx, wantAsset.AssetID)
	check("X.TxBytes(AVAX)", avaxTx, wantAvaxTx, errors.Join(err, werr))
	for _, m := range []string{"info.getNodeID", "info.getVMs", "avm.getTxFee"} {
		if raw, err := c.Answer(ctx, m); err != nil || !json.Valid(raw) {
			t.Errorf("Answer(%s) = %.80s, %v", m, raw, err)
		}
	}
}
