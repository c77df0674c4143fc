package avalanchego

import (
	"context"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	avawarp "github.com/ava-labs/avalanchego/vms/platformvm/warp"

	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
	"github.com/avaedge/avaedge/local/world/devnet/primary"
)

// TestWarpVerifiesWithAvalanchego checks the local aggregator's signed
// messages with avalanchego's own Warp parsing and BitSetSignature.Verify
// over the devnet's validator set.
func TestWarpVerifiesWithAvalanchego(t *testing.T) {
	dev, err := devnet.New(devnet.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	src := primary.NewSigner(dev)
	agg := warp.NewAggregator(src, warp.Options{})
	fuji, _ := dev.Network("fuji")
	payload := (&warpmsg.AddressedCall{SourceAddress: []byte{0xaa}, Payload: []byte("avaedge")}).Bytes()
	msg := &warpmsg.UnsignedMessage{NetworkID: fuji.ID, SourceChainID: [32]byte(avax.MustParseID(fuji.CChainID)), Payload: payload}

	var l1Subnet [32]byte
	for _, s := range dev.Subnets() {
		if s.Conversion != nil {
			l1Subnet = [32]byte(s.ID)
		}
	}
	tests := []struct {
		name   string
		req    warp.Request
		quorum uint64
	}{
		{"message, quorum 67", warp.Request{Network: "fuji", Message: msg.Bytes(), QuorumPercentage: 67}, 67},
		{"message, quorum 100", warp.Request{Network: "fuji", Message: msg.Bytes(), QuorumPercentage: 100}, 100},
		{"message, buffer", warp.Request{Network: "fuji", Message: msg.Bytes(), QuorumPercentage: 60, QuorumPercentageBuffer: 20}, 80},
		{"L1 conversion justification", warp.Request{Network: "fuji", Justification: l1Subnet[:], QuorumPercentage: 67}, 67},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			signed, err := agg.Aggregate(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			m, err := avawarp.ParseMessage(signed)
			if err != nil {
				t.Fatalf("avalanchego cannot parse the message: %v", err)
			}
			subnet, ok := src.SubnetOf([32]byte(m.SourceChainID))
			if !ok {
				t.Fatal("no subnet for the source chain")
			}
			vdrs, err := src.Validators(context.Background(), subnet, 0)
			if err != nil {
				t.Fatal(err)
			}
			set := map[ids.NodeID]*validators.GetValidatorOutput{}
			for _, v := range vdrs {
				out := &validators.GetValidatorOutput{NodeID: ids.NodeID(v.NodeID), Weight: v.Weight}
				if v.PublicKey != nil {
					if out.PublicKey, err = bls.PublicKeyFromCompressedBytes(v.PublicKey); err != nil {
						t.Fatal(err)
					}
				}
				set[out.NodeID] = out
			}
			ws, err := validators.FlattenValidatorSet(set)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Signature.Verify(&m.UnsignedMessage, fuji.ID, ws, tt.quorum, 100); err != nil {
				t.Fatalf("avalanchego rejects the signature: %v", err)
			}
		})
	}
}
