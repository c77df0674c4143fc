package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
)

// TestAggregateWarpDevnetNetworkID (issue 24): a tool that builds its Warp
// message from the node's own answers, as the ICM relayer and avalanche-cli
// do (info.getNetworkID says 12345 in local mode, info.getBlockchainID the
// C-Chain's id), gets it signed by the devnet under
// /v1/signatureAggregator/fuji/... and /mainnet/..., and avalanchego's warp
// package verifies the signature, for network id 12345, against the
// validators the binary lists. A message carrying another network's id is
// still refused with 400.
func TestAggregateWarpDevnetNetworkID(t *testing.T) {
	e := noKeysLocal(t)
	ctx := context.Background()
	ic := info.NewClient(e.URL)
	networkID, err := ic.GetNetworkID(ctx)
	if err != nil || networkID != constants.LocalID {
		t.Fatalf("info.getNetworkID = %d, %v; want %d", networkID, err, constants.LocalID)
	}
	cChain, err := ic.GetBlockchainID(ctx, "C")
	if err != nil {
		t.Fatal(err)
	}
	ac, err := payload.NewAddressedCall([]byte{0xaa, 0xed}, []byte("relayer"))
	if err != nil {
		t.Fatal(err)
	}
	message := func(networkID uint32) []byte {
		m, err := warp.NewUnsignedMessage(networkID, cChain, ac.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return m.Bytes()
	}
	aggregate := func(network string, msg []byte) reply {
		return do(t, "POST", e.URL+"/v1/signatureAggregator/"+network+"/aggregateSignatures", fmt.Appendf(nil, `{"message":"%x"}`, msg), nil)
	}
	for _, network := range []string{"fuji", "mainnet"} {
		t.Run(network, func(t *testing.T) {
			msg := message(networkID)
			rep := aggregate(network, msg)
			checkAnswer(t, routeNamed(t, "aggregateSignatures"), call{Method: "POST"}, rep, http.StatusCreated)
			var res struct {
				SignedMessage string `json:"signedMessage"`
			}
			if err := json.Unmarshal(rep.Body, &res); err != nil || res.SignedMessage == "" {
				t.Fatalf("answer %s: %v", rep, err)
			}
			verifyWarpAs(t, e, network, networkID, msg, res.SignedMessage)
		})
	}
	t.Run("another network's id", func(t *testing.T) {
		rep := aggregate("fuji", message(constants.MainnetID))
		if rep.Status != http.StatusBadRequest || !strings.Contains(string(rep.Body), "Message network ID 1 does not match network fuji") {
			t.Fatalf("answer %s; want 400, network mismatch", rep)
		}
	})
}
