package local

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The ICM and P-Chain metrics wiring, in one place: every indexed chain
// reads the events of the published TeleporterMessenger and of avaedge's
// own messenger (the same keyless deployment on every chain; the dev chain,
// which has no Warp precompile, runs it), with its blockchain id as the
// source of the messages it sends; the dev chain's seeded history sends one
// message to the devnet's L1, whose EVM chain id the ICM answers name.

// icmChains sets the messengers and blockchain ids of chains, whose
// metrics descriptions mchains are parallel to them.
func icmChains(chains []evmindex.ChainOptions, mchains []metricsapi.Chain) {
	for i := range chains {
		chains[i].TeleporterAddresses = []common.Address{evmindex.TeleporterMessenger, evm.MessengerDeployment().Address}
		if b, err := avax.CB58Decode(mchains[i].BlockchainID); err == nil && len(b) == common.HashLength {
			chains[i].BlockchainID = common.BytesToHash(b)
		}
	}
}

// devICM returns what the dev chain's seed needs to send its message (its
// own blockchain id, and the devnet L1's chain as the destination), and the
// devnet's EVM chains by blockchain id.
func devICM(dev *devnet.World) (self, dest common.Hash, known map[string]uint64) {
	known = map[string]uint64{}
	for _, s := range dev.Subnets() {
		for _, c := range s.Chains {
			if c.EVMChainID == 0 {
				continue
			}
			known[c.ID.String()] = c.EVMChainID
			if s.IsL1() {
				dest = common.Hash(c.ID)
			}
		}
	}
	return common.Hash(devnet.CChainID), dest, known
}

// stakeSource returns the P-Chain stakes the staking and L1 metrics read,
// the followed network's or the devnet's, and the HRP their addresses are
// answered in: the followed network's own, or the requested network's over
// the devnet (which answers as every network).
func stakeSource(followed *pindex.Index, dev *devnet.World) (metricsapi.StakeSource, func(string) string) {
	if followed != nil {
		return followed, func(string) string { return followed.Network().HRP }
	}
	return dev.Index(), func(name string) string {
		if n, ok := avanet.ByName(name); ok && name != "" {
			return n.HRP
		}
		return dev.Index().Network().HRP
	}
}
