package avalanchego

import (
	"context"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"

	"github.com/avaedge/avaedge/avanet"
)

// TestPlatformClient: avalanchego v1.14.2's platformvm client parses the
// P-Chain methods the devnet answers, with the values of the devnet's own
// P-Chain (the index the Data API reads): its height, the last block's time,
// each transaction's status, the staking asset; the supply, which only a
// followed node records, and the writes answer errors saying so.
func TestPlatformClient(t *testing.T) {
	dw := devnetWorld(t)
	for _, network := range []string{"local", "fuji"} {
		uri, _ := serveNode(t, network)
		c := platformvm.NewClient(uri)
		ctx := context.Background()

		height, err := c.GetHeight(ctx)
		if err != nil {
			t.Fatal(err)
		}
		blocks := dw.PBlocks()
		last := blocks[len(blocks)-1]
		if height != dw.PHeight() || height != last.Height {
			t.Fatalf("%s getHeight = %d; want %d", network, height, dw.PHeight())
		}
		ts, err := c.GetTimestamp(ctx)
		if err != nil || ts.Unix() != last.Time {
			t.Fatalf("%s getTimestamp = %v, %v; want %d", network, ts, err, last.Time)
		}
		n := 0
		for _, b := range blocks[max(0, len(blocks)-20):] {
			for _, id := range b.Txs {
				st, err := c.GetTxStatus(ctx, ids.ID(id))
				if err != nil || st.Status != status.Committed {
					t.Fatalf("%s getTxStatus(%s) = %+v, %v; want Committed", network, id, st, err)
				}
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s: no transaction in the last 20 P-Chain blocks", network)
		}
		if st, err := c.GetTxStatus(ctx, ids.GenerateTestID()); err != nil || st.Status != status.Unknown {
			t.Errorf("%s getTxStatus of an unknown tx = %+v, %v; want Unknown", network, st, err)
		}
		n2, _ := avanet.ByName(network)
		asset, err := c.GetStakingAssetID(ctx, constants.PrimaryNetworkID)
		if err != nil || asset.String() != n2.AVAXAssetID {
			t.Errorf("%s getStakingAssetID = %s, %v; want %s", network, asset, err, n2.AVAXAssetID)
		}
		if _, _, err := c.GetCurrentSupply(ctx, constants.PrimaryNetworkID); err == nil || !strings.Contains(err.Error(), "no supply the node answered") {
			t.Errorf("%s getCurrentSupply: %v; want the index's error", network, err)
		}
		if _, err := c.IssueTx(ctx, []byte{0}); err == nil || !strings.Contains(err.Error(), "the devnet takes no transactions") {
			t.Errorf("%s issueTx: %v; want the devnet's refusal", network, err)
		}
	}
}

// TestDevnetRefusesWrites: in devnet mode avalanchego's clients get, for
// every write (avm.issueTx and platform.issueTx), a JSON-RPC error saying
// the devnet takes no transactions and how to follow a node instead.
func TestDevnetRefusesWrites(t *testing.T) {
	uri, _ := serveNode(t, "local")
	ctx := context.Background()
	for name, issue := range map[string]func() error{
		"avm.issueTx": func() error { _, err := avm.NewClient(uri, "X").IssueTx(ctx, []byte{0}); return err },
		"platform.issueTx": func() error {
			_, err := platformvm.NewClient(uri).IssueTx(ctx, []byte{0})
			return err
		},
	} {
		err := issue()
		if err == nil || !strings.Contains(err.Error(), name+": the devnet takes no transactions") || !strings.Contains(err.Error(), "AVAEDGE_LOCAL_NODE") {
			t.Errorf("%s in devnet mode: %v; want the devnet's refusal naming AVAEDGE_LOCAL_NODE", name, err)
		}
	}
}
